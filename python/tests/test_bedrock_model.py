"""BedrockModel over the fixture server speaking Converse and ConverseStream
(JSON, and the binary AWS event stream), with static test credentials: a
text answer, a tool round trip, a streamed run and a typed, redacted error."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from fixture_server import serving
from starweaver import ModelError, create_agent, tool
from starweaver.models import BedrockModel, infer_model

T = TypeVar("T")

MODEL_ID = "anthropic.claude-sonnet-4-5-20250929-v1:0"
ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def bounded(aw: Awaitable[T]) -> T:
    async def main() -> T:
        return await asyncio.wait_for(aw, 60)

    return asyncio.run(main())


@tool
def get_weather(city: str) -> dict[str, Any]:
    """The current weather of a city."""
    return {"city": city, "celsius": 21, "sky": "sunny"}


@pytest.fixture(autouse=True)
def aws_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No credentials, region or endpoint of the machine leak in."""
    for name in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_PROFILE",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
        "AWS_BEARER_TOKEN_BEDROCK",
    ):
        monkeypatch.delenv(name, raising=False)


def bedrock(url: str, **options: Any) -> BedrockModel:
    return BedrockModel(
        MODEL_ID,
        region="us-east-1",
        endpoint_url=url,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        **options,
    )


def test_text_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The AWS variables give the region, credentials and endpoint; the
    request is signed (SigV4) for that region and names the model in its
    path."""
    with serving("bedrock/converse-text.json") as srv:
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        monkeypatch.setenv("AWS_REGION", "eu-west-3")
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", srv.url)
        result = bounded(
            create_agent(model=infer_model("bedrock:" + MODEL_ID), system_prompt="Be brief.").run("Paris?")
        )
    assert result.output == "It is 21 degrees and sunny in Paris."
    (req,) = srv.requests
    assert req.path == "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse"
    assert req.headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/")
    assert "/eu-west-3/bedrock/aws4_request" in req.headers["authorization"]
    assert req.body["system"] == [{"text": "Be brief."}]
    assert req.body["messages"] == [{"role": "user", "content": [{"text": "Paris?"}]}]
    assert result.messages[-1]["provider"] == "bedrock"
    assert result.usage["input_tokens"] == 480 and result.usage["cache_read_tokens"] == 256


def test_tool_round_trip() -> None:
    with serving("bedrock/converse-tool-use.json", "bedrock/converse-text.json") as srv:
        model = bedrock(srv.url, max_tokens=1024)
        result = bounded(create_agent(model=model, tools=[get_weather]).run("Paris?"))
    assert result.output == "It is 21 degrees and sunny in Paris."
    first, second = srv.requests
    assert first.body["inferenceConfig"] == {"maxTokens": 1024}
    (spec,) = first.body["toolConfig"]["tools"]
    assert spec["toolSpec"]["name"] == "get_weather"
    assert spec["toolSpec"]["inputSchema"]["json"]["required"] == ["city"]
    assistant, results = second.body["messages"][-2:]
    assert assistant["content"][1] == {
        "toolUse": {"toolUseId": "tooluse_weather_1", "name": "get_weather", "input": {"city": "Paris"}}
    }
    (block,) = results["content"]
    assert block["toolResult"]["toolUseId"] == "tooluse_weather_1"
    assert block["toolResult"]["status"] == "success"
    assert block["toolResult"]["content"] == [{"json": {"city": "Paris", "celsius": 21, "sky": "sunny"}}]


def test_streamed_run() -> None:
    """A ConverseStream reply (binary frames) streams text deltas, then the
    tool call runs and the second streamed reply ends the run."""

    async def main() -> tuple[Any, list[str]]:
        with serving("bedrock/converse-stream-tool-use.json", "bedrock/converse-stream-text.json") as srv:
            model = bedrock(srv.url, stream=True)
            async with create_agent(model=model, tools=[get_weather]).run_stream("Paris?") as stream:
                kinds = [ev.kind async for ev in stream]
                result = await stream.result()
            assert all(r.path.endswith("/converse-stream") for r in srv.requests) and len(srv.requests) == 2
        return result, kinds

    result, kinds = bounded(main())
    assert result.output == "It is 21 degrees and sunny in Paris."
    assert "text_delta" in kinds and kinds[-1] == "run_complete"


def test_errors_are_typed_and_redacted() -> None:
    with serving("bedrock/error-403.json") as srv:
        model = bedrock(srv.url, max_retries=0, aws_session_token="IQoJb3JpZ2luX2VjEXAMPLEsessionTOKEN")
        with pytest.raises(ModelError) as info:
            bounded(create_agent(model=model).run("hi"))
    err = info.value
    assert err.status_code == 403 and err.code == "AccessDeniedException" and err.provider == "bedrock"
    assert SECRET_KEY not in str(err) and "IQoJb3JpZ2luX2VjEXAMPLEsessionTOKEN" not in str(err)


def test_throttling_is_retried() -> None:
    with serving("bedrock/error-429.json", "bedrock/converse-text.json") as srv:
        result = bounded(create_agent(model=bedrock(srv.url, max_retries=2)).run("hi"))
    assert result.output.startswith("It is 21") and len(srv.requests) == 2
    assert srv.requests[0].headers["authorization"] == srv.requests[1].headers["authorization"]


def test_options_are_checked() -> None:
    with pytest.raises(ValueError):
        BedrockModel(MODEL_ID, aws_access_key_id=ACCESS_KEY)
    with pytest.raises(ValueError):
        BedrockModel(MODEL_ID, max_tokens=0)
    with pytest.raises(TypeError):
        BedrockModel(MODEL_ID, base_url="http://localhost")
    assert repr(BedrockModel(MODEL_ID, region="us-east-1")) == f"BedrockModel({MODEL_ID!r})"
