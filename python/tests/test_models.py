"""Real models end to end: the Go providers talk HTTP to a local server
replaying the providers' documented replies (fixtures/); no network."""

from __future__ import annotations

import asyncio
import os
import threading
import time
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
    with pytest.raises(ValueError, match="unknown model 'mistral:large'.*'openai:...'"):
        infer_model("mistral:large")
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


# A key no shape rule recognises (not "sk-..."): only masking the
# configured value itself hides it.
ECHOED_KEY = "gw-Zk81QmP3vX7sT2nR"


def echo_reply(kind: str, status: int) -> dict[str, Any]:
    """An error body that quotes the key, as some gateways do."""
    text = f"rejected key {ECHOED_KEY} (Authorization: Bearer {ECHOED_KEY})"
    if kind == "anthropic":
        body: dict[str, Any] = {"type": "error", "error": {"type": "invalid_request_error", "message": text}}
    else:
        body = {"error": {"message": text, "type": "invalid_request_error", "code": "bad_key"}}
    return {"status": status, "body": body}


def echo_model(kind: str, url: str, **options: Any) -> Any:
    if kind == "anthropic":
        return AnthropicModel("claude-sonnet-4-5", base_url=url, api_key=ECHOED_KEY, max_retries=0, **options)
    cls = OpenAIModel if kind == "openai" else OpenAIResponsesModel
    return cls("gpt-4.1", base_url=url + "/v1", api_key=ECHOED_KEY, max_retries=0, **options)


@pytest.mark.parametrize("kind", ["openai", "openai-responses", "anthropic"])
@pytest.mark.parametrize("status", [400, 401, 500])
def test_an_echoed_key_never_reaches_the_error(kind: str, status: int, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("DEBUG", logger="starweaver")
    events: list[dict[str, Any]] = []

    async def on_event(event: dict[str, Any]) -> None:
        events.append(event)

    with serving(echo_reply(kind, status), echo_reply(kind, status)) as srv:
        with pytest.raises(ModelError) as info:
            bounded(create_agent(model=echo_model(kind, srv.url)).run("hi", on_event=on_event))
        with pytest.raises(ModelError) as streamed:
            bounded(create_agent(model=echo_model(kind, srv.url, stream=True)).run("hi"))
    for err in (info.value, streamed.value):
        assert err.status_code == status
        texts = [str(err), repr(err), *map(str, err.args), str(err.code)]
        assert all(ECHOED_KEY not in t for t in texts), texts
        assert "[REDACTED]" in str(err)
    assert events and events[-1]["kind"] == "run_failed"
    assert ECHOED_KEY not in repr(events)
    assert ECHOED_KEY not in caplog.text


def test_an_echoed_key_never_reaches_the_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chat and invoke_agent spans of a failed run carry the error's
    text: redacted. Needs opentelemetry-sdk (STARWEAVER_REQUIRE_OTEL=1 makes
    its absence a failure)."""
    try:
        from opentelemetry import trace as otel_trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from opentelemetry.trace import StatusCode
    except ImportError:
        if os.environ.get("STARWEAVER_REQUIRE_OTEL"):
            raise
        pytest.skip(
            "opentelemetry-sdk is not installed (pip install opentelemetry-sdk; STARWEAVER_REQUIRE_OTEL=1 fails instead)"
        )
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(otel_trace, "_TRACER_PROVIDER", provider)
    try:
        with serving(echo_reply("anthropic", 401)) as srv:
            with pytest.raises(ModelError):
                bounded(create_agent(model=echo_model("anthropic", srv.url)).run("hi"))
    finally:
        provider.shutdown()
    spans = {s.name.split(" ")[0]: s for s in exporter.get_finished_spans()}
    for name in ("chat", "invoke_agent"):
        status = spans[name].status
        assert status.status_code == StatusCode.ERROR
        assert status.description and "[REDACTED]" in status.description
        assert ECHOED_KEY not in status.description


def test_a_keep_alive_only_stream_ends_with_an_idle_timeout() -> None:
    stop = threading.Event()
    with serving({"keepalive": stop}, {"keepalive": stop}) as srv:
        try:
            for model in (
                OpenAIModel("gpt-4.1", base_url=srv.url + "/v1", api_key="sk-test", stream=True, idle_timeout=0.2),
                AnthropicModel(
                    "claude-sonnet-4-5", base_url=srv.url, api_key="ant-test", stream=True, idle_timeout=0.2
                ),
            ):
                with pytest.raises(ModelError) as info:
                    bounded(create_agent(model=model).run("hi"))
                assert info.value.code == "idle_timeout"
                assert "idle_timeout" in str(info.value) and "keep-alive" in str(info.value)
        finally:
            stop.set()
    assert len(srv.requests) == 2  # a timeout is not retried


def test_a_server_that_never_answers_ends_with_a_first_byte_timeout() -> None:
    hold = threading.Event()
    with serving({"hold": hold}, {"hold": hold}) as srv:
        try:
            for model in (
                OpenAIModel("gpt-4.1", base_url=srv.url + "/v1", api_key="sk-test", first_byte_timeout=0.2),
                AnthropicModel("claude-sonnet-4-5", base_url=srv.url, api_key="ant-test", first_byte_timeout=0.2),
            ):
                with pytest.raises(ModelError) as info:
                    bounded(create_agent(model=model).run("hi"))
                assert info.value.code == "first_byte_timeout"
        finally:
            hold.set()


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_429_asking_too_long_a_wait_fails_at_once_with_its_status(kind: str) -> None:
    body = (
        {"type": "error", "error": {"type": "rate_limit_error", "message": "rate limited"}}
        if kind == "anthropic"
        else {"error": {"message": "rate limited", "type": "requests", "code": "rate_limit_exceeded"}}
    )
    short = {"status": 429, "headers": {"Retry-After-Ms": "10"}, "body": body}
    long = {"status": 429, "headers": {"Retry-After": "3600"}, "body": body}
    with serving(short, long) as srv:
        if kind == "anthropic":
            model: Any = AnthropicModel("claude-sonnet-4-5", base_url=srv.url, api_key="ant-test", max_retry_after=30)
        else:
            model = OpenAIModel("gpt-4.1", base_url=srv.url + "/v1", api_key="sk-test", max_retry_after=30)
        start = time.monotonic()
        with pytest.raises(ModelError) as info:
            bounded(create_agent(model=model).run("hi"))
    assert time.monotonic() - start < 10
    assert info.value.status_code == 429 and len(srv.requests) == 2
    assert "retry after 1h0m0s" in str(info.value) and "30s" in str(info.value)


def test_bounds_are_checked() -> None:
    with pytest.raises(ValueError, match="idle_timeout"):
        OpenAIModel("gpt-4.1", idle_timeout=0)
    with pytest.raises(TypeError, match="first_byte_timeout"):
        AnthropicModel("claude", first_byte_timeout="5")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_retry_after"):
        OpenAIModel("gpt-4.1", max_retry_after=float("inf"))


def test_a_401_without_a_key_names_the_unset_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    unauthorized = {
        "status": 401,
        "body": {"error": {"message": "Missing bearer authentication in header", "type": "invalid_request_error"}},
    }
    with serving(unauthorized, unauthorized) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        with pytest.raises(ModelError, match="OPENAI_API_KEY is unset") as info:
            bounded(create_agent(model="openai:gpt-4.1").run("hi"))
        assert info.value.status_code == 401 and "Missing bearer authentication in header" in str(info.value)
        # With a key, the 401 is the server's alone.
        with pytest.raises(ModelError) as keyed:
            bounded(create_agent(model=OpenAIModel("gpt-4.1", api_key="sk-wrong")).run("hi"))
    assert "OPENAI_API_KEY" not in str(keyed.value)
