"""Real models end to end: the Go providers talk HTTP to a local server
replaying the providers' documented replies (fixtures/); no network."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from fixture_server import serving
from starweaver import ModelError, create_agent, tool
from starweaver.models import AnthropicModel, OpenAIModel, OpenAIResponsesModel, infer_model

T = TypeVar("T")


def bounded(aw: Awaitable[T]) -> T:
    async def main() -> T:
        return await asyncio.wait_for(aw, 60)

    return asyncio.run(main())


@tool
def get_weather(city: str) -> dict[str, Any]:
    """The current weather of a city."""
    return {"city": city, "celsius": 21, "sky": "sunny"}


@pytest.fixture(autouse=True)
def no_provider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_openai_chat_tool_round_trip() -> None:
    with serving("openai/chat-tool-call.json", "openai/chat-text.json") as srv:
        model = OpenAIModel("gpt-4.1", base_url=srv.url + "/v1", api_key="sk-test")
        result = bounded(create_agent(model=model, tools=[get_weather], instructions="Be brief.").run("Paris?"))
    assert result.output == "It is 21 degrees and sunny in Paris."
    first, second = srv.requests
    assert first.path == "/v1/chat/completions"
    assert first.headers["authorization"] == "Bearer sk-test"
    assert first.body["model"] == "gpt-4.1"
    (definition,) = first.body["tools"]
    assert definition["type"] == "function" and definition["function"]["name"] == "get_weather"
    assert definition["function"]["parameters"]["required"] == ["city"]
    roles = [m["role"] for m in first.body["messages"]]
    assert roles[-1] == "user" and roles[0] in ("system", "developer")
    # The second request carries the call and the tool's result.
    tool_message = second.body["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_weather_1"
    assert "sunny" in tool_message["content"]
    call = second.body["messages"][-2]["tool_calls"][0]
    assert call["id"] == "call_weather_1" and call["function"]["name"] == "get_weather"
    # Usage is summed over the run, cached tokens included.
    assert result.usage["requests"] == 2
    assert result.usage["input_tokens"] == 82 + 120 and result.usage["output_tokens"] == 17 + 11
    assert result.usage["cache_read_tokens"] == 64
    (ret,) = result.tool_returns()
    assert ret["content"] == {"city": "Paris", "celsius": 21, "sky": "sunny"}


def test_model_strings_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with serving("openai/chat-text.json", "anthropic/messages-text.json", "openai/responses-text.json") as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "ant-env")
        for name in ("openai:gpt-4.1", "anthropic:claude-sonnet-4-5", "openai-responses:gpt-4.1"):
            result = bounded(create_agent(model=name).run("Paris?"))
            assert result.output == "It is 21 degrees and sunny in Paris."
    openai_chat, anthropic, responses = srv.requests
    assert openai_chat.path == "/v1/chat/completions" and openai_chat.headers["authorization"] == "Bearer sk-env"
    assert anthropic.path == "/v1/messages" and anthropic.headers["authorization"] == "Bearer ant-env"
    assert anthropic.body["model"] == "claude-sonnet-4-5" and anthropic.body["max_tokens"] > 0
    assert responses.path == "/v1/responses" and responses.body["model"] == "gpt-4.1"


def test_unknown_model_string() -> None:
    with pytest.raises(ValueError, match="unknown model 'gemini:pro'.*'openai:...'"):
        infer_model("gemini:pro")
    with pytest.raises(ValueError):
        create_agent(model="gpt-4.1")


def test_missing_key_names_the_variable_at_the_first_request() -> None:
    model = OpenAIModel("gpt-4.1")  # no key, OpenAI's own URL: building works
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        bounded(create_agent(model=model).run("hi"))
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
        bounded(create_agent(model=AnthropicModel("claude-sonnet-4-5")).run("hi"))


def test_compatible_server_needs_no_key() -> None:
    with serving("openai/chat-text.json") as srv:
        model = OpenAIModel("llama3.1", base_url=srv.url + "/v1", provider_name="ollama")
        result = bounded(create_agent(model=model).run("hi"))
    assert result.output.startswith("It is 21")
    assert "authorization" not in srv.requests[0].headers or srv.requests[0].headers["authorization"] in ("", "Bearer")
    assert result.messages[-1]["provider"] == "ollama"


def test_provider_errors_are_typed_and_never_leak_the_key() -> None:
    with serving("openai/error-401.json") as srv:
        model = OpenAIModel("gpt-4.1", base_url=srv.url + "/v1", api_key="sk-secret-value", max_retries=0)
        with pytest.raises(ModelError) as info:
            bounded(create_agent(model=model).run("hi"))
    err = info.value
    assert err.status_code == 401 and err.code == "invalid_api_key" and err.provider == "openai"
    assert "sk-secret-value" not in str(err)
    with serving("anthropic/error-401.json") as srv:
        model2 = AnthropicModel("claude-sonnet-4-5", base_url=srv.url, api_key="ant-secret", max_retries=0)
        with pytest.raises(ModelError) as info2:
            bounded(create_agent(model=model2).run("hi"))
    assert info2.value.status_code == 401 and info2.value.code == "authentication_error"
    assert "ant-secret" not in str(info2.value)


def test_rate_limited_request_is_retried() -> None:
    with serving("openai/error-429.json", "openai/chat-text.json") as srv:
        model = OpenAIModel("gpt-4.1", base_url=srv.url + "/v1", api_key="sk-test", max_retries=2)
        result = bounded(create_agent(model=model).run("hi"))
    assert result.output.startswith("It is 21") and len(srv.requests) == 2


def test_anthropic_tool_round_trip() -> None:
    with serving("anthropic/messages-tool-use.json", "anthropic/messages-text.json") as srv:
        model = AnthropicModel("claude-sonnet-4-5", base_url=srv.url, api_key="ant-test", max_tokens=1024)
        result = bounded(create_agent(model=model, tools=[get_weather], system_prompt="Be brief.").run("Paris?"))
    assert result.output == "It is 21 degrees and sunny in Paris."
    first, second = srv.requests
    assert first.headers["authorization"] == "Bearer ant-test" and first.body["max_tokens"] == 1024
    assert "Be brief." in str(first.body["system"])
    (definition,) = first.body["tools"]
    assert definition["name"] == "get_weather" and definition["input_schema"]["required"] == ["city"]
    results = second.body["messages"][-1]
    assert results["role"] == "user"
    (block,) = [b for b in results["content"] if b["type"] == "tool_result"]
    assert block["tool_use_id"] == "toolu_weather_1"
    assert result.usage["cache_read_tokens"] == 256


def test_responses_api_tool_round_trip() -> None:
    with serving("openai/responses-tool-call.json", "openai/responses-text.json") as srv:
        model = OpenAIResponsesModel("gpt-4.1", base_url=srv.url + "/v1", api_key="sk-test")
        result = bounded(create_agent(model=model, tools=[get_weather]).run("Paris?"))
    assert result.output == "It is 21 degrees and sunny in Paris."
    second = srv.requests[1].body
    outputs = [item for item in second["input"] if item.get("type") == "function_call_output"]
    assert outputs and outputs[0]["call_id"] == "call_weather_1"


def test_model_options_are_checked() -> None:
    with pytest.raises(ValueError):
        OpenAIModel("")
    with pytest.raises(ValueError):
        AnthropicModel("claude", max_tokens=0)
    with pytest.raises(ValueError):
        OpenAIModel("gpt-4.1", max_retries=-1)
