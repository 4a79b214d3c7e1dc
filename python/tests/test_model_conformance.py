"""The model conformance suite through Python: the same scenarios (text and
usage, a tool round trip, parallel calls, structured output, streaming,
error mapping) for every provider, over the local fixture server speaking
each provider's wire format. A provider joins by adding a
``wire_<name>.py`` module beside this file defining ``WIRE`` (see
model_wire.Wire); core/model/modeltest is the Go side."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fixture_server import Recorded, serving
from model_wire import BASE_USAGE, Call, Seen, Turn, Wire
from starweaver import ModelError, ToolOutput, create_agent, tool
from starweaver.content import Audio, Document, Image
from starweaver.streaming import StreamEvent

T = TypeVar("T")

#: The key every model sends; no error may show it.
KEY = "sk-conformance-0123456789abcdefSECRETkey"

#: A short wait the retry scenarios ask for (the policy reads
#: Retry-After-Ms first; Retry-After is for servers' other clients).
RETRY_SOON = {"Retry-After-Ms": "20", "Retry-After": "1"}

HERE = Path(__file__).resolve().parent
WIRES: list[Wire] = [importlib.import_module(p.stem).WIRE for p in sorted(HERE.glob("wire_*.py"))]


@pytest.fixture(params=WIRES, ids=[w.prefix for w in WIRES])
def wire(request: pytest.FixtureRequest) -> Wire:
    w: Wire = request.param
    return w


@pytest.fixture(autouse=True)
def no_provider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def bounded(aw: Awaitable[T]) -> T:
    async def main() -> T:
        return await asyncio.wait_for(aw, 60)

    return asyncio.run(main())


@tool
def get_weather(city: str) -> str:
    """The current weather of a city."""
    return f"sunny in {city}"


@tool
def get_time(city: str) -> str:
    """The local time of a city."""
    return f"09:30 in {city}"


@dataclass
class Answer:
    answer: int


def turn(text: str = "", *calls: Call, thinking: str = "") -> Turn:
    return Turn(
        text=text,
        thinking=thinking,
        calls=list(calls),
        input_tokens=120,
        output_tokens=40,
        cache_read_tokens=30,
        reasoning_tokens=15,
    )


def seen(wire: Wire, requests: list[Recorded], n: int) -> list[Seen]:
    assert len(requests) == n, f"{len(requests)} requests, want {n}"
    return [wire.seen(r) for r in requests]


def check_usage(wire: Wire, usage: Any, *turns: Turn) -> None:
    """The run's usage is the sum of its turns' on the counts the wire
    carries."""
    assert usage["requests"] == len(turns)
    for count in sorted(getattr(wire, "usage", BASE_USAGE)):
        want = sum(getattr(t, count) for t in turns)
        assert usage[count] == want, f"usage {count} = {usage[count]}, want {want}"


def test_text(wire: Wire) -> None:
    answer = turn("Hello from the fake.")
    with serving(wire.reply(answer, stream=False)) as srv:
        model = wire.model(srv.url, stream=False, api_key=KEY)
        result = bounded(create_agent(model=model).run("Say hello."))
    assert result.output == "Hello from the fake."
    last = result.messages[-1]
    assert last["provider"] == wire.provider and last["finish_reason"] == "stop"
    check_usage(wire, result.usage, answer)
    (s,) = seen(wire, srv.requests, 1)
    assert not s.stream and not s.native_output and s.calls == [] and s.results == []
    assert s.model


def test_tool_round_trip(wire: Wire) -> None:
    call = Call(id="call_weather_1", name="get_weather", arguments={"city": "Paris"})
    first, final = turn("", call), turn("It is sunny in Paris.")
    with serving(wire.reply(first, stream=False), wire.reply(final, stream=False)) as srv:
        model = wire.model(srv.url, stream=False, api_key=KEY)
        result = bounded(create_agent(model=model, tools=[get_weather]).run("Weather in Paris?"))
    assert result.output == "It is sunny in Paris."
    (ret,) = result.tool_returns()
    assert ret["tool_call_id"] == "call_weather_1" and ret["content"] == "sunny in Paris"
    one, two = seen(wire, srv.requests, 2)
    assert "get_weather" in one.tools and "get_weather" in two.tools
    assert two.calls == [call]
    (r,) = two.results
    assert r.call_id == "call_weather_1" and "sunny in Paris" in r.text and not r.is_error
    check_usage(wire, result.usage, first, final)
    assert result.usage["tool_calls"] == 1


def test_parallel_calls(wire: Wire) -> None:
    calls = [
        Call(id="call_a", name="get_weather", arguments={"city": "Paris"}),
        Call(id="call_b", name="get_time", arguments={"city": "Tokyo"}),
    ]
    with serving(wire.reply(turn("", *calls), stream=False), wire.reply(turn("Done."), stream=False)) as srv:
        model = wire.model(srv.url, stream=False, api_key=KEY)
        result = bounded(create_agent(model=model, tools=[get_weather, get_time]).run("Paris weather, Tokyo time?"))
    assert result.output == "Done."
    assert [r["tool_call_id"] for r in result.tool_returns()] == ["call_a", "call_b"]
    _, two = seen(wire, srv.requests, 2)
    assert two.calls == calls
    assert [(r.call_id, r.text) for r in two.results] == [("call_a", "sunny in Paris"), ("call_b", "09:30 in Tokyo")]


def test_structured_output_tool_mode(wire: Wire) -> None:
    call = Call(id="call_out", name="final_result", arguments={"answer": 42})
    with serving(wire.reply(turn("", call), stream=False)) as srv:
        model = wire.model(srv.url, stream=False, api_key=KEY)
        result = bounded(create_agent(model=model, output_type=Answer).run("The answer?"))
    assert result.output == Answer(answer=42)
    (s,) = seen(wire, srv.requests, 1)
    assert "final_result" in s.tools and not s.native_output


def test_structured_output_native_mode(wire: Wire) -> None:
    """Native mode uses the API's own schema where it has one; elsewhere
    the run fails with a ModelError before anything is sent."""
    with serving(wire.reply(turn('{"answer": 42}'), stream=False)) as srv:
        model = wire.model(srv.url, stream=False, api_key=KEY)
        agent = create_agent(model=model, output_type=Answer, output_mode="native")
        if not wire.native_output:
            with pytest.raises(ModelError):
                bounded(agent.run("The answer?"))
            assert srv.requests == []
            return
        result = bounded(agent.run("The answer?"))
    assert result.output == Answer(answer=42)
    (s,) = seen(wire, srv.requests, 1)
    assert s.native_output and "final_result" not in s.tools


def joined(events: list[StreamEvent], kind: str) -> str:
    return "".join(str((ev.delta or {}).get("text", "")) for ev in events if ev.kind == kind)


def test_run_stream(wire: Wire) -> None:
    thinks = bool(getattr(wire, "thinking", False))
    call = Call(id="call_s1", name="get_weather", arguments={"city": "Lisbon"})
    first = turn("Let me check.", call, thinking="The user wants the weather." if thinks else "")
    final = turn("It is sunny in Lisbon, as usual in this season.")
    with serving(wire.reply(first, stream=True), wire.reply(final, stream=True)) as srv:
        model = wire.model(srv.url, stream=True, api_key=KEY)
        agent = create_agent(model=model, tools=[get_weather])

        async def main() -> tuple[list[StreamEvent], Any]:
            async with agent.run_stream("Weather in Lisbon?") as stream:
                events = [ev async for ev in stream]
                return events, await stream.result()

        events, result = bounded(main())
    assert result.status == "completed" and result.output == final.text
    assert "".join(ev.text_delta or "" for ev in events) == first.text + final.text
    assert joined(events, "thinking_delta") == first.thinking
    pieces = [ev.delta for ev in events if ev.kind == "tool_call_delta" and ev.delta]
    assert (
        "".join(str(d.get("text", "")) for d in pieces if d.get("kind") == "tool_call_arguments").replace(" ", "")
        == '{"city":"Lisbon"}'
    )
    (call_event,) = [ev for ev in events if ev.kind == "tool_call"]
    assert call_event.tool_call is not None and call_event.tool_call["arguments"] == {"city": "Lisbon"}
    one, two = seen(wire, srv.requests, 2)
    assert one.stream and two.stream and two.calls == [call]
    check_usage(wire, result.usage, first, final)


def test_streaming_model_assembles_the_same_result(wire: Wire) -> None:
    """A stream=True model streams every request and returns what the
    whole response would have given."""
    call = Call(id="call_w", name="get_weather", arguments={"city": "Oslo"})
    first, final = turn("", call), turn("Sunny in Oslo.")
    with serving(wire.reply(first, stream=True), wire.reply(final, stream=True)) as srv:
        model = wire.model(srv.url, stream=True, api_key=KEY)
        result = bounded(create_agent(model=model, tools=[get_weather]).run("Oslo?"))
    assert result.output == "Sunny in Oslo."
    one, two = seen(wire, srv.requests, 2)
    assert one.stream and two.stream and two.calls == [call]
    check_usage(wire, result.usage, first, final)


def test_bad_request_is_a_model_error_not_retried(wire: Wire) -> None:
    with serving(wire.error(400, "invalid_request_error", "the request is malformed")) as srv:
        model = wire.model(srv.url, stream=False, api_key=KEY, max_retries=1)
        with pytest.raises(ModelError) as info:
            bounded(create_agent(model=model).run("hi"))
    err = info.value
    assert err.status_code == 400 and err.provider == wire.provider and err.code == "invalid_request_error"
    assert "the request is malformed" in str(err)
    assert len(srv.requests) == 1


@pytest.mark.parametrize("status", [500, 429])
def test_retryable_errors_are_retried(wire: Wire, status: int) -> None:
    failure = {**wire.error(status, "busy", "try again"), "headers": RETRY_SOON}
    with serving(failure, wire.reply(turn("recovered"), stream=False)) as srv:
        model = wire.model(srv.url, stream=False, api_key=KEY, max_retries=1)
        result = bounded(create_agent(model=model).run("hi"))
    assert result.output == "recovered" and len(srv.requests) == 2


def test_spent_retries_report_the_status(wire: Wire) -> None:
    failure = {**wire.error(503, "overloaded", "busy"), "headers": RETRY_SOON}
    with serving(failure, failure) as srv:
        model = wire.model(srv.url, stream=True, api_key=KEY, max_retries=1)
        with pytest.raises(ModelError) as info:
            bounded(create_agent(model=model).run("hi"))
    assert info.value.status_code == 503 and info.value.provider == wire.provider
    assert len(srv.requests) == 2


def test_an_echoed_key_is_redacted(wire: Wire) -> None:
    with serving(wire.error(401, "invalid_api_key", f"Incorrect API key provided: {KEY}.")) as srv:
        model = wire.model(srv.url, stream=False, api_key=KEY)
        with pytest.raises(ModelError) as info:
            bounded(create_agent(model=model).run("hi"))
    err = info.value
    assert err.status_code == 401 and err.provider == wire.provider
    assert KEY not in str(err) and KEY not in repr(err.args)
    assert "Incorrect API key provided" in str(err)


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
WAV = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00D\xac\x00\x00\x88X\x01\x00\x02\x00\x10\x00data\x00\x00\x00\x00"

MEDIA: dict[str, Image | Document | Audio] = {
    "image": Image.from_bytes(PNG, "image/png"),
    "document": Document.from_bytes(PDF, "application/pdf", name="report.pdf"),
    "audio": Audio.from_bytes(WAV, "audio/wav"),
}


@pytest.mark.parametrize("kind", sorted(MEDIA))
def test_tool_result_media(wire: Wire, kind: str) -> None:
    """A tool's media goes natively where the wire carries its kind (its
    ``carries`` attribute), and fails the run naming the kind elsewhere."""
    carries = getattr(wire, "carries", None)
    if carries is None:
        pytest.skip(f"{wire.prefix}: the wire says nothing of the content kinds it carries")

    @tool
    def fetch(name: str) -> ToolOutput:
        """Fetches a file."""
        return ToolOutput.rich([f"{name}:", MEDIA[kind]])

    call = Call(id="call_f", name="fetch", arguments={"name": "the file"})
    with serving(wire.reply(turn("", call), stream=False), wire.reply(turn("Seen."), stream=False)) as srv:
        agent = create_agent(model=wire.model(srv.url, stream=False, api_key=KEY), tools=[fetch])
        if kind not in carries:
            with pytest.raises(ModelError, match=kind):
                bounded(agent.run("Show me the file."))
            assert len(srv.requests) == 1  # the result was never sent
            return
        result = bounded(agent.run("Show me the file."))
    assert result.output == "Seen."
    _, two = seen(wire, srv.requests, 2)
    (r,) = two.results
    assert r.call_id == "call_f" and r.kinds == ["text", kind] and "the file:" in r.text
