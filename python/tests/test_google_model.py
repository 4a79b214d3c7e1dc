"""GoogleModel and GoogleVertexModel over the fixture server: the Gemini
API's generateContent and streamGenerateContent (alt=sse) shapes, tools,
streaming, errors and the model strings."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from fixture_server import serving
from starweaver import ModelError, create_agent, tool
from starweaver.models import GoogleModel, GoogleVertexModel, infer_model

T = TypeVar("T")

KEY = "AIzaSy-fixture-0123456789"


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
    for name in (
        "GOOGLE_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
        "GOOGLE_VERTEX_BASE_URL",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_CLOUD_LOCATION",
        "GOOGLE_GENAI_USE_VERTEXAI",
    ):
        monkeypatch.delenv(name, raising=False)


def test_text_and_usage() -> None:
    with serving("google/generate-text.json") as srv:
        model = GoogleModel("gemini-2.5-flash", base_url=srv.url, api_key=KEY)
        result = bounded(create_agent(model=model, instructions="Be brief.").run("Weather in Paris?"))
    assert result.output == "It is 21 degrees and sunny in Paris."
    (req,) = srv.requests
    assert req.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert req.headers["x-goog-api-key"] == KEY and KEY not in req.path
    assert req.body["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert req.body["contents"] == [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}]
    usage = result.usage
    assert usage["input_tokens"] == 480 and usage["output_tokens"] == 20
    assert usage["cache_read_tokens"] == 256 and usage["reasoning_tokens"] == 6
    assert result.messages[-1]["provider"] == "google"


def test_tool_round_trip() -> None:
    with serving("google/generate-tool-call.json", "google/generate-text.json") as srv:
        model = GoogleModel("gemini-2.5-flash", base_url=srv.url, api_key=KEY)
        result = bounded(create_agent(model=model, tools=[get_weather]).run("Paris?"))
    assert result.output == "It is 21 degrees and sunny in Paris."
    first, second = srv.requests
    (decl,) = first.body["tools"][0]["functionDeclarations"]
    assert decl["name"] == "get_weather" and decl["parametersJsonSchema"]["required"] == ["city"]
    model_turn, user_turn = second.body["contents"][-2:]
    # The call goes back as Gemini sent it (no id: it sent none), with its
    # thought signature; the response names the function.
    assert model_turn == {
        "role": "model",
        "parts": [
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "c2lnLWZpeHR1cmU="}
        ],
    }
    (part,) = user_turn["parts"]
    response = part["functionResponse"]
    assert user_turn["role"] == "user" and response["name"] == "get_weather" and "id" not in response
    assert response["response"]["output"] == {"city": "Paris", "celsius": 21, "sky": "sunny"}


def test_streamed_text_arrives_as_deltas() -> None:
    async def main() -> tuple[list[str], str]:
        with serving("google/stream-text.json") as srv:
            model = GoogleModel("gemini-2.5-flash", base_url=srv.url, api_key=KEY, stream=True)
            async with create_agent(model=model).run_stream("Weather in Paris?") as stream:
                deltas = [ev.text_delta or "" async for ev in stream if ev.kind == "text_delta"]
                result = await stream.result()
        assert srv.requests[0].path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        return deltas, str(result.output)

    deltas, output = bounded(main())
    assert len(deltas) == 3 and "".join(deltas) == output == "It is 21 degrees and sunny in Paris."


def test_errors_are_typed_and_never_leak_the_key() -> None:
    with serving("google/error-400.json") as srv:
        model = GoogleModel("gemini-2.5-flash", base_url=srv.url, api_key=KEY, max_retries=2)
        with pytest.raises(ModelError) as info:
            bounded(create_agent(model=model).run("hi"))
    err = info.value
    assert err.status_code == 400 and err.code == "INVALID_ARGUMENT" and err.provider == "google"
    assert "API key not valid" in str(err) and KEY not in str(err)
    assert len(srv.requests) == 1  # a 400 is not retried


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(ModelError, match="GOOGLE_API_KEY"):
        bounded(create_agent(model=GoogleModel("gemini-2.5-flash")).run("hi"))


@pytest.mark.parametrize("prefix", ["google", "google-gla", "gemini"])
def test_model_strings_read_the_environment(prefix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with serving("google/generate-text.json") as srv:
        monkeypatch.setenv("GEMINI_API_KEY", "gemini-env-key-0123")
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", srv.url)
        model = infer_model(f"{prefix}:gemini-2.5-flash")
        assert type(model) is GoogleModel
        result = bounded(create_agent(model=f"{prefix}:gemini-2.5-flash").run("hi"))
    assert result.output.startswith("It is 21")
    assert srv.requests[0].headers["x-goog-api-key"] == "gemini-env-key-0123"


def test_google_api_key_wins_over_gemini_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "google-env-key-0123")
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-env-key-0123")
    with serving("google/generate-text.json") as srv:
        bounded(create_agent(model=GoogleModel("gemini-2.5-flash", base_url=srv.url)).run("hi"))
    assert srv.requests[0].headers["x-goog-api-key"] == "google-env-key-0123"


def test_vertex_model() -> None:
    assert type(infer_model("google-vertex:gemini-2.5-flash")) is GoogleVertexModel
    with serving("google/generate-text.json") as srv:
        model = GoogleVertexModel("gemini-2.5-flash", base_url=srv.url, api_key=KEY)  # express mode
        result = bounded(create_agent(model=model).run("hi"))
    assert result.output.startswith("It is 21") and result.messages[-1]["provider"] == "google-vertex"
    (req,) = srv.requests
    assert req.path.endswith("/publishers/google/models/gemini-2.5-flash:generateContent")
    assert req.headers["x-goog-api-key"] == KEY


def test_options_are_checked() -> None:
    with pytest.raises(ValueError):
        GoogleModel("gemini-2.5-flash", thinking_budget=-1)
    with pytest.raises(ValueError):
        GoogleModel("")
    model = GoogleModel("gemini-2.5-flash", thinking_budget=1024, include_thoughts=True, api_key=KEY)
    assert repr(model) == "GoogleModel('gemini-2.5-flash')"
