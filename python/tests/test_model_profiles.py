"""OpenAI-compatible servers by model string (Ollama, vLLM, any other) and
FallbackModel, end to end against the local fixture server; no network."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from fixture_server import serving
from starweaver import ModelError, create_agent, tool
from starweaver.models import (
    AnthropicModel,
    FallbackModel,
    OllamaModel,
    OpenAICompatibleModel,
    OpenAIModel,
    VLLMModel,
    infer_model,
)
from starweaver.testing import FunctionModel

T = TypeVar("T")


def bounded(aw: Awaitable[T]) -> T:
    async def main() -> T:
        return await asyncio.wait_for(aw, 60)

    return asyncio.run(main())


@tool(strict=True)
def get_weather(city: str) -> dict[str, Any]:
    """The current weather of a city."""
    return {"city": city, "celsius": 21}


@pytest.fixture(autouse=True)
def no_provider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OLLAMA_BASE_URL",
        "OLLAMA_API_KEY",
        "VLLM_BASE_URL",
        "VLLM_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)


# Replies as Ollama's OpenAI-compatible API and other local servers send
# them: arguments as a JSON object rather than a string, no usage.
def ollama_call() -> dict[str, Any]:
    return {
        "body": {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "llama3.2",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
        }
    }


def ollama_text(text: str) -> dict[str, Any]:
    return {
        "body": {
            "id": "chatcmpl-2",
            "object": "chat.completion",
            "model": "llama3.2",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }
    }


def sse(*chunks: dict[str, Any]) -> dict[str, Any]:
    return {"chunks": [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]}


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-3",
        "object": "chat.completion.chunk",
        "model": "llama3.2",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def test_ollama_model_string_and_its_quirks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-never-sent")
    with serving(ollama_call(), ollama_text("21 degrees in Paris.")) as srv:
        monkeypatch.setenv("OLLAMA_BASE_URL", srv.url.removeprefix("http://"))  # a bare host, as OLLAMA_HOST
        result = bounded(create_agent(model="ollama:llama3.2", tools=[get_weather]).run("Paris?"))
    assert result.output == "21 degrees in Paris."
    first, second = srv.requests
    assert first.path == "/v1/chat/completions" and "authorization" not in first.headers
    (definition,) = first.body["tools"]
    assert "strict" not in definition["function"] and "parallel_tool_calls" not in first.body
    # The call's object arguments were read, and go back as a string.
    (ret,) = result.tool_returns()
    assert ret["content"] == {"city": "Paris", "celsius": 21}
    sent = second.body["messages"][-2]["tool_calls"][0]["function"]["arguments"]
    assert isinstance(sent, str) and json.loads(sent) == {"city": "Paris"}
    # No usage in the replies: zero tokens, not an error.
    assert result.usage["requests"] == 2 and result.usage["input_tokens"] == 0
    assert result.messages[-1]["provider"] == "ollama"


def test_ollama_streamed_with_object_arguments() -> None:
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": {"city": "Rome"}},
    }
    with serving(
        sse(chunk({"role": "assistant", "tool_calls": [call]}), chunk({}, "tool_calls")),
        sse(chunk({"role": "assistant", "content": "Sunny "}), chunk({"content": "in Rome."}), chunk({}, "stop")),
    ) as srv:
        model = OllamaModel("llama3.2", base_url=srv.url + "/v1", stream=True)
        result = bounded(create_agent(model=model, tools=[get_weather]).run("Rome?"))
    assert result.output == "Sunny in Rome."
    (ret,) = result.tool_returns()
    assert ret["content"] == {"city": "Rome", "celsius": 21}
    assert srv.requests[0].body["stream"] is True and result.usage["output_tokens"] == 0


def test_vllm_and_compatible_servers_need_a_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="VLLM_BASE_URL"):
        infer_model("vllm:qwen3")
    with pytest.raises(ValueError, match="OPENAI_BASE_URL"):
        OpenAICompatibleModel("mistral")
    with serving(ollama_text("hi"), ollama_text("hello")) as srv:
        monkeypatch.setenv("VLLM_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("VLLM_API_KEY", "vllm-key")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
        assert isinstance(infer_model("vllm:qwen3"), VLLMModel)
        assert bounded(create_agent(model="vllm:qwen3").run("hi")).output == "hi"
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        assert isinstance(infer_model("openai-compatible:mistral"), OpenAICompatibleModel)
        result = bounded(create_agent(model=OpenAICompatibleModel("mistral")).run("hi"))
    assert result.output == "hello"
    vllm, compatible = srv.requests
    assert vllm.headers["authorization"] == "Bearer vllm-key" and vllm.body["model"] == "qwen3"
    assert compatible.headers["authorization"] == "Bearer sk-openai"
    assert result.messages[-1]["provider"] == "openai-compatible"


def error(status: int) -> dict[str, Any]:
    return {"status": status, "body": {"error": {"message": "overloaded", "type": "server_error"}}}


def test_fallback_answers_from_the_next_model_and_shows_it() -> None:
    with serving(error(503)) as primary, serving("anthropic/messages-text.json") as secondary:
        model = FallbackModel(
            OpenAIModel("gpt-4.1", base_url=primary.url + "/v1", api_key="sk-test", max_retries=0),
            AnthropicModel("claude-sonnet-4-5", base_url=secondary.url, api_key="ant-test", max_retries=0),
        )
        events: list[dict[str, Any]] = []
        result = bounded(create_agent(model=model).run("Paris?", on_event=events.append))
    assert result.output == "It is 21 degrees and sunny in Paris."
    kinds = [e["kind"] for e in events]
    assert kinds.index("model_request") < kinds.index("model_fallback") < kinds.index("model_response")
    attempt = next(e for e in events if e["kind"] == "model_fallback")["attempt"]
    assert attempt["model"] == "gpt-4.1" and attempt["provider"] == "openai" and attempt["status_code"] == 503
    last = result.messages[-1]
    assert last["provider"] == "anthropic" and last["model_name"] == "claude-sonnet-4-5"
    assert [a["status_code"] for a in last["attempts"]] == [503]
    # The failed request counts; the tokens are the answer's.
    assert result.usage["requests"] == 2 and result.usage["input_tokens"] == 480


def test_fallback_event_comes_before_the_next_models_deltas() -> None:
    """The secondary holds the rest of its stream until the consumer has
    seen its first delta: by then the model_fallback event must be out,
    since it is sent as the primary fails, not once the request ends."""
    first_delta = threading.Event()
    stream = sse(chunk({"role": "assistant", "content": "Hel"}), chunk({"content": "lo"}), chunk({}, "stop"))
    stream["gate"] = (1, first_delta)

    async def main() -> tuple[list[str], list[dict[str, Any]], bool, str]:
        kinds: list[str] = []
        attempts: list[dict[str, Any]] = []
        fallback_first = False
        with serving(error(503)) as primary, serving(stream) as secondary:
            model = FallbackModel(
                OpenAIModel("gpt-4.1", base_url=primary.url + "/v1", api_key="sk-test", max_retries=0),
                OpenAIModel("gpt-4o-mini", base_url=secondary.url + "/v1", api_key="sk-test", max_retries=0),
            )
            async with create_agent(model=model).run_stream("hi") as events:
                async for ev in events:
                    kinds.append(ev.kind)
                    if ev.attempt is not None:
                        attempts.append(ev.attempt)
                    if ev.kind == "text_delta" and not first_delta.is_set():
                        fallback_first = "model_fallback" in kinds
                        first_delta.set()
                result = await events.result()
        return kinds, attempts, fallback_first, result.output

    kinds, attempts, fallback_first, output = bounded(main())
    assert output == "Hello"
    assert fallback_first, kinds
    assert kinds.count("model_fallback") == 1
    assert kinds.index("model_request") < kinds.index("model_fallback") < kinds.index("text_delta")
    assert [(a["model"], a["status_code"]) for a in attempts] == [("gpt-4.1", 503)]


def test_fallback_all_fail_and_client_errors() -> None:
    with serving(error(500)) as primary, serving(error(529)) as secondary:
        model = FallbackModel(
            OpenAIModel("gpt-4.1", base_url=primary.url + "/v1", api_key="sk-test", max_retries=0),
            AnthropicModel("claude-sonnet-4-5", base_url=secondary.url, api_key="ant-test", max_retries=0),
        )
        with pytest.raises(ModelError) as info:
            bounded(create_agent(model=model).run("hi"))
    assert info.value.code == "fallback_failed"
    assert [(a["provider"], a["status_code"]) for a in info.value.attempts] == [("openai", 500), ("anthropic", 529)]
    assert "gpt-4.1" in str(info.value) and "claude-sonnet-4-5" in str(info.value)
    assert "500" in str(info.value) and "529" in str(info.value)
    # A 401 is not passed on: the next model is never asked.
    with serving("openai/error-401.json") as primary, serving("anthropic/messages-text.json") as secondary:
        model = FallbackModel(
            OpenAIModel("gpt-4.1", base_url=primary.url + "/v1", api_key="sk-test", max_retries=0),
            AnthropicModel("claude-sonnet-4-5", base_url=secondary.url, api_key="ant-test"),
        )
        with pytest.raises(ModelError) as info:
            bounded(create_agent(model=model).run("hi"))
    assert info.value.status_code == 401 and not secondary.requests


def test_fallback_to_a_function_model() -> None:
    def respond(messages: list[Any], info: dict[str, Any]) -> Any:
        return {"text": "answered by the function"}

    with serving(error(502)) as primary:
        model = FallbackModel(
            OpenAIModel("gpt-4.1", base_url=primary.url + "/v1", api_key="sk-test", max_retries=0),
            FunctionModel(respond),
        )
        result = bounded(create_agent(model=model).run("hi"))
    assert result.output == "answered by the function"
    assert result.messages[-1]["attempts"][0]["status_code"] == 502


def test_fallback_options_and_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    with serving(error(404), ollama_text("from ollama")) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OLLAMA_BASE_URL", srv.url)
        model = FallbackModel("openai:gpt-4.1", "ollama:llama3.2", fallback_on=[404, "server_error"])
        assert bounded(create_agent(model=model).run("hi")).output == "from ollama"
    with pytest.raises(ValueError, match="teapot"):
        FallbackModel("openai:gpt-4.1", fallback_on=["teapot"])
    with pytest.raises(TypeError):
        FallbackModel("openai:gpt-4.1", fallback_on="server_error")
    with pytest.raises(TypeError):
        FallbackModel(object())
    with pytest.raises(ValueError):
        FallbackModel()


def test_fallback_attempts_are_failed_child_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    otel = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry import trace as otel_trace
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import StatusCode

    exporter = InMemorySpanExporter()
    provider = otel.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(otel_trace, "_TRACER_PROVIDER", provider)
    try:
        with serving(error(503)) as primary, serving("anthropic/messages-text.json") as secondary:
            model = FallbackModel(
                OpenAIModel("gpt-4.1", base_url=primary.url + "/v1", api_key="sk-test", max_retries=0),
                AnthropicModel("claude-sonnet-4-5", base_url=secondary.url, api_key="ant-test"),
            )
            bounded(create_agent(model=model).run("hi"))
        spans = {s.name: s for s in exporter.get_finished_spans()}
    finally:
        provider.shutdown()
    chat, failed = spans["chat claude-sonnet-4-5"], spans["chat gpt-4.1"]
    assert failed.parent is not None and chat.context is not None
    assert failed.parent.span_id == chat.context.span_id
    assert failed.status.status_code == StatusCode.ERROR and chat.status.status_code != StatusCode.ERROR
    attrs = dict(failed.attributes or {})
    assert attrs["error.type"] == "503" and attrs["gen_ai.provider.name"] == "openai"
