"""Live runs: run_stream, AgentRun and StreamEvent through real runs."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import tracemalloc
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from fixture_server import serving
from helpers import call
from starweaver import (
    AgentRun,
    ApprovalRequired,
    CallDeferred,
    StateError,
    ToolContext,
    UsageLimitExceeded,
    UsageLimits,
    streaming,
    tool,
)
from starweaver.agent import create_agent
from starweaver.models import OpenAIModel
from starweaver.streaming import AgentStream, StreamEvent, _EventBuffer
from starweaver.testing import FunctionModel, TestModel

T = TypeVar("T")

#: Bounds every wait of these tests: a hang fails instead of blocking.
LIMIT = 30.0


def run(coro: Awaitable[T]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(coro, LIMIT)

    return asyncio.run(bounded())


def calls_response(*calls: dict[str, Any]) -> dict[str, Any]:
    return TestModel.tool_call_response(list(calls))


@tool
async def add(a: int, b: int) -> int:
    return a + b


@tool(hidden_by_tags=["readonly"])
async def wipe() -> str:
    return "wiped"


@tool
async def deploy(ctx: ToolContext, target: str) -> str:
    if ctx.approval is None:
        raise ApprovalRequired(f"deploy {target}")
    return f"deployed {target}"


@tool
async def render(scene: str) -> str:
    raise CallDeferred("queued")


async def collect(stream: AgentRun) -> list[StreamEvent]:
    return [ev async for ev in stream]


#: Kinds a runtime with deltas adds to every run (pieces of responses, usage
#: updates); assertions on exact kind lists leave them out.
EXTRA_KINDS = streaming.DELTA_KINDS | {"usage"}


def steps(events: list[StreamEvent]) -> list[StreamEvent]:
    return [ev for ev in events if ev.kind not in EXTRA_KINDS]


def check_sequence(events: list[StreamEvent]) -> None:
    """Sequence numbers start at 1 and have no gap (no deltas were merged)."""
    assert [ev.sequence for ev in events] == list(range(1, len(events) + 1))
    assert len({ev.run_id for ev in events}) == 1 and events[0].run_id


# -- every event kind ----------------------------------------------------------


def test_a_completed_run_streams_its_events_in_order() -> None:
    model = TestModel.responses([calls_response(call("add", "c1", a=1, b=2)), "three"])
    agent = create_agent(model=model, tools=[add, wipe], active_tags=["readonly"])

    async def main() -> tuple[list[StreamEvent], Any]:
        async with agent.run_stream("add") as stream:
            events = await collect(stream)
            return events, await stream.result()

    events, result = run(main())
    check_sequence(events)
    events = steps(events)
    kinds = [ev.kind for ev in events]
    assert kinds == [
        "run_start",
        "custom",
        "model_request",
        "model_response",
        "tool_call",
        "tool_return",
        "custom",
        "model_request",
        "model_response",
        "run_complete",
    ]
    assert events[1].custom is not None and events[1].custom["kind"] == "tools_unavailable"
    tool_call = events[4].tool_call
    tool_return = events[5].tool_return
    assert tool_call is not None and tool_call["name"] == "add" and tool_call["arguments"] == {"a": 1, "b": 2}
    assert tool_return is not None and tool_return["content"] == 3 and tool_return["tool_call_id"] == "c1"
    assert events[3].usage is not None and events[3].usage["requests"] == 1
    last = events[-1]
    assert last.is_terminal and last.output == "three" and last.usage is not None
    assert not any(ev.is_terminal for ev in events[:-1])
    assert [ev.step for ev in events if ev.kind == "model_request"] == [0, 1]
    assert last.raw == {"sequence": last.sequence, "event": last.raw["event"]}
    assert last.raw["event"]["kind"] == "run_complete"
    assert result.status == "completed" and result.output == "three" and result.run_id == last.run_id


def test_join_returns_the_result_and_the_events_not_received() -> None:
    model = TestModel.responses([calls_response(call("add", "c1", a=1, b=2)), "three"])
    agent = create_agent(model=model, tools=[add])

    async def main() -> Any:
        stream = agent.run_stream("add")
        first = await stream.recv()
        assert first is not None and first.kind == "run_start"
        joined = await stream.join()
        assert await stream.recv() is None  # nothing after the end
        assert stream.is_finished and stream.status().live_state == "completed"
        return joined

    joined = run(main())
    assert joined.result.output == "three"
    assert steps(joined.events)[0].kind == "model_request"
    assert joined.events[-1].kind == "run_complete"


def test_a_failed_run_streams_run_failed_and_result_raises() -> None:
    model = TestModel.responses([calls_response(call("add", "c1", a=1, b=2)), "never"])
    agent = create_agent(model=model, tools=[add], usage_limits=UsageLimits(request_limit=1))

    async def main() -> list[StreamEvent]:
        async with agent.run_stream("add") as stream:
            events = await collect(stream)
            with pytest.raises(UsageLimitExceeded):
                await stream.result()
            assert stream.status().live_state == "failed"
            return events

    events = run(main())
    check_sequence(events)
    assert events[-1].kind == "run_failed" and events[-1].is_terminal
    assert events[-1].error and "limit" in events[-1].error


def test_run_stream_needs_a_running_loop() -> None:
    agent = create_agent(model=TestModel.responses(["hi"]))
    with pytest.raises(RuntimeError):
        agent.run_stream("hi")


def test_a_busy_session_refuses_a_second_live_run_at_once() -> None:
    async def main() -> None:
        blockers = Blockers(1)
        session = create_agent(model=blockers.model(), tools=blockers.tools).session()
        async with session.run_stream("go"):
            await blockers.all_started.wait()
            second = session.run_stream("again")
            # Refused before it starts: no event, and the error from both ends.
            with pytest.raises(StateError, match="busy"):
                await second.recv()
            assert await second.recv() is None
            with pytest.raises(StateError, match="busy"):
                await second.result()
            assert second.status().live_state == "failed"

    run(main())


def test_agent_stream_is_agent_run() -> None:
    assert AgentStream is AgentRun


# -- interrupting ----------------------------------------------------------------


class Blockers:
    """Async tools that wait forever, counting starts and cancellations;
    each has its own name, so one batch runs them in parallel (a repeated
    name runs in model order)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.started = 0
        self.all_started = asyncio.Event()
        self.cancelled: list[bool] = []
        self.tools = [tool(self._block, name=f"block{i}") for i in range(n)]
        self.tool = self.tools[0]

    async def _block(self, ctx: ToolContext) -> str:
        self.started += 1
        if self.started == self.n:
            self.all_started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.append(ctx.is_cancelled())
            raise
        return "never"

    def model(self) -> TestModel:
        return TestModel.responses([calls_response(*(call(f"block{i}", f"b{i}") for i in range(self.n))), "unused"])


def test_interrupt_during_a_parallel_batch_cancels_the_tools_and_keeps_the_messages() -> None:
    async def main() -> None:
        blockers = Blockers(4)
        agent = create_agent(model=blockers.model(), tools=blockers.tools)
        session = agent.session()
        async with session.run_stream("go") as stream:
            await blockers.all_started.wait()
            assert not stream.is_finished
            stream.interrupt("user pressed stop")
            assert stream.status().cancel_requested
            events = await collect(stream)
            result = await stream.result()
        assert [ev.kind for ev in events].count("tool_call") == 4
        last = events[-1]
        assert last.kind == "run_cancelled" and last.is_terminal
        assert last.error is not None and "user pressed stop" in last.error
        assert result.status == "cancelled"
        assert result.error is not None and "user pressed stop" in result.error
        assert blockers.cancelled == [True] * 4
        # The batch stays in the session, every call answered.
        parts = [p for m in session.messages for p in m.parts]
        assert sum(1 for p in parts if p.kind == "tool_call") == 4
        assert sum(1 for p in parts if p.kind == "tool_return") == 4
        stream.interrupt("too late")  # after the end: nothing happens

    run(main())


def test_cancelling_the_task_awaiting_recv_interrupts_the_run() -> None:
    async def main() -> None:
        blockers = Blockers(2)
        agent = create_agent(model=blockers.model(), tools=blockers.tools)
        stream = agent.run_stream("go")
        received: list[str] = []

        async def consume() -> None:
            while (ev := await stream.recv()) is not None:
                received.append(ev.kind)

        consumer = asyncio.create_task(consume())
        await blockers.all_started.wait()
        consumer.cancel()
        with pytest.raises(asyncio.CancelledError):
            await consumer
        result = await stream.result()
        assert result.status == "cancelled"
        assert stream.status().cancel_requested
        assert blockers.cancelled == [True, True]
        # The calls streamed before they started; their tool_call events
        # follow the whole response, which eager dispatch does not wait
        # for, so they may come after the cancellation.
        assert "tool_call_delta" in received

    run(main())


def test_cancelling_the_task_awaiting_result_interrupts_the_run() -> None:
    async def main() -> None:
        blockers = Blockers(1)
        agent = create_agent(model=blockers.model(), tools=blockers.tools)
        stream = agent.run_stream("go")
        waiter = asyncio.create_task(stream.result())
        await blockers.all_started.wait()
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert (await stream.result()).status == "cancelled"

    run(main())


def test_breaking_out_of_iteration_interrupts_the_run() -> None:
    async def main() -> None:
        blockers = Blockers(1)
        agent = create_agent(model=blockers.model(), tools=blockers.tools)
        stream = agent.run_stream("go")
        async for ev in stream:
            if ev.kind == "tool_call":
                break
        # The dropped iterator is closed by the loop, which interrupts the run.
        result = await stream.result()
        assert result.status == "cancelled"
        assert blockers.cancelled == [True]

    run(main())


def test_leaving_the_context_early_interrupts_and_waits_for_the_end() -> None:
    async def main() -> None:
        blockers = Blockers(1)
        agent = create_agent(model=blockers.model(), tools=blockers.tools)
        async with agent.run_stream("go") as stream:
            await blockers.all_started.wait()
        assert stream.is_finished
        assert (await stream.result()).status == "cancelled"
        assert blockers.cancelled == [True]

    run(main())


def test_leaving_the_context_after_the_terminal_event_keeps_the_result() -> None:
    agent = create_agent(model=TestModel.responses(["done"]))

    async def main() -> None:
        async with agent.run_stream("hi") as stream:
            async for ev in stream:
                if ev.is_terminal:
                    break
        result = await stream.result()
        assert result.status == "completed" and not stream.status().cancel_requested

    run(main())


def test_a_session_takes_a_new_run_after_an_interrupted_one() -> None:
    async def main() -> None:
        blockers = Blockers(1)
        model = TestModel.responses([calls_response(call("block0", "b0")), "after"])
        session = create_agent(model=model, tools=blockers.tools).session()
        stream = session.run_stream("go")
        await blockers.all_started.wait()
        stream.interrupt()
        assert (await stream.result()).status == "cancelled"
        with pytest.raises(StateError):
            stream.steer("too late")
        result = await session.run("again")
        assert result.output == "after"

    run(main())


# -- human in the loop -----------------------------------------------------------


def test_a_suspended_run_resumes_live_through_hitl() -> None:
    model = TestModel.responses(
        [calls_response(call("deploy", "d1", target="prod"), call("render", "r1", scene="a")), "all done"]
    )
    agent = create_agent(model=model, tools=[deploy, render])

    async def main() -> None:
        session = agent.session()
        stream = session.run_stream("ship it")
        with pytest.raises(StateError, match="suspended"):
            await stream.hitl().snapshot()
        events = await collect(stream)
        kinds = [ev.kind for ev in events]
        assert kinds[-1] == "suspended" and events[-1].is_terminal
        assert "run_waiting" not in kinds and "deferred_requested" in kinds
        assert events[-1].raw["event"]["kind"] == "suspended"  # the runtime's own, with deltas on
        check_sequence(events)

        snapshot = await stream.hitl().snapshot()
        assert [a.tool_name for a in snapshot.approvals] == ["deploy"]
        assert [d.tool_name for d in snapshot.deferred] == ["render"]
        resumed = await stream.hitl().resume(
            approvals=[snapshot.approvals[0].approve(decided_by="ui")],
            deferred_results=[snapshot.deferred[0].complete("frame.png")],
        )
        assert isinstance(resumed, AgentRun) and resumed is not stream
        async with resumed:
            more = await collect(resumed)
            result = await resumed.result()
        more_kinds = [ev.kind for ev in more]
        assert more_kinds.count("hitl_resolved") == 2
        assert more_kinds[-1] == "run_complete"
        assert result.output == "all done"
        assert (await stream.result()).is_waiting  # the first run's result stays waiting
        with pytest.raises(StateError, match="already completed"):
            stream.steer("more")

    run(main())


def test_resume_collected_and_the_session_stream_resume() -> None:
    def waiting_model() -> TestModel:
        return TestModel.responses([calls_response(call("deploy", "d1", target="prod")), "ok"])

    async def main() -> None:
        stream = create_agent(model=waiting_model(), tools=[deploy]).run_stream("ship")
        await stream.join()
        snapshot = await stream.hitl().snapshot()
        result = await stream.hitl().resume_collected(approvals=[snapshot.approvals[0].approve()])
        assert result.output == "ok"

        session = create_agent(model=waiting_model(), tools=[deploy]).session()
        waiting = await session.run("ship")
        resumed = await session.resume_after_hitl_stream(approvals=[waiting.approvals[0].deny("no")])
        joined = await resumed.join()
        assert joined.result.output == "ok"
        (denied,) = [ev for ev in joined.events if ev.kind == "tool_return"]
        assert denied.tool_return is not None and denied.tool_return["is_error"] is True

    run(main())


# -- a slow consumer -------------------------------------------------------------


def test_a_10000_event_run_never_waits_for_a_slow_consumer() -> None:
    """The runtime finishes while the consumer holds one event: the bridge
    kept reading. The events wait (none is a delta, so none is merged) at a
    small cost each, and arrive complete and in order."""
    n_calls = 5000

    @tool
    async def tick(i: int) -> int:
        return i

    def respond(messages: list[Any], info: dict[str, Any]) -> dict[str, Any]:
        if len(messages) == 1:
            return {"tool_calls": [{"id": f"t{i}", "name": "tick", "arguments": {"i": i}} for i in range(n_calls)]}
        return {"text": "done"}

    # A FunctionModel answers whole responses, so no event is a delta.
    agent = create_agent(model=FunctionModel(respond), tools=[tick])

    async def main() -> None:
        stream = agent.run_stream("go")
        first = await stream.recv()
        assert first is not None
        gc.collect()
        tracemalloc.start()
        try:
            result = await stream.result()  # the run ends without the consumer
            held, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        status = stream.status()
        assert result.status == "completed"
        assert status.events_received >= 2 * n_calls + 6
        assert status.buffered == status.events_received - 1
        # The waiting events cost what they hold, a few KiB at most each.
        assert held / status.buffered < 4096
        events = [first]
        while (ev := await stream.recv()) is not None:
            events.append(ev)
            if len(events) % 100 == 0:
                await asyncio.sleep(0)  # a slow consumer yields to the loop
        check_sequence(events)
        assert len(events) == status.events_received
        assert len(steps(events)) == 2 * n_calls + 6

    run(main())


def text_delta(sequence: int, text: str) -> StreamEvent:
    return StreamEvent.from_event(
        {"kind": "text_delta", "sequence": sequence, "run_id": "r", "step": 0, "delta": {"kind": "text", "text": text}}
    )


def test_the_buffer_merges_10000_deltas_for_a_slow_consumer() -> None:
    """With the buffer full, text deltas merge into the newest waiting one:
    the buffer stays at its bound, and the text is whole."""
    buffer = _EventBuffer(64)
    received: list[StreamEvent] = []
    for i in range(10_000):
        buffer.push(text_delta(i + 1, f"{i},"))
        if i % 50 == 0:  # the consumer takes one event per 50 produced
            ev = buffer.pop()
            assert ev is not None
            received.append(ev)
        assert len(buffer) <= 64
    while (ev := buffer.pop()) is not None:
        received.append(ev)
    assert "".join(ev.text_delta or "" for ev in received) == "".join(f"{i}," for i in range(10_000))
    assert buffer.peak == 64 and buffer.merged == 10_000 - len(received)
    sequences = [ev.sequence for ev in received]
    assert sequences == sorted(sequences) and sequences[-1] == 10_000


def test_the_buffer_never_merges_other_events_or_across_them() -> None:
    buffer = _EventBuffer(2)
    tool_call = StreamEvent.from_event({"kind": "tool_call", "sequence": 3, "tool_call": {"id": "c"}})
    for ev in (text_delta(1, "a"), text_delta(2, "b"), tool_call, text_delta(4, "c"), text_delta(5, "d")):
        buffer.push(ev)
    kinds = []
    while (ev := buffer.pop()) is not None:
        kinds.append((ev.kind, ev.text_delta))
    # Full at the tool call: it is kept; the next delta cannot merge into
    # it, so it waits too, and the one after merges into that.
    assert kinds == [("text_delta", "a"), ("text_delta", "b"), ("tool_call", None), ("text_delta", "cd")]

    start = {"kind": "tool_call_start", "index": 0, "tool_call": {"name": "add"}}
    args = {"kind": "tool_call_arguments", "index": 0, "text": '{"a":'}
    buffer = _EventBuffer(1)
    for i, delta in enumerate((start, args, {**args, "text": "1}"}, {**args, "index": 1, "text": "{}"})):
        buffer.push(StreamEvent.from_event({"kind": "tool_call_delta", "sequence": i + 1, "delta": delta}))
    deltas = []
    while (ev := buffer.pop()) is not None:
        assert ev.delta is not None
        deltas.append((ev.delta["kind"], ev.delta["index"], ev.delta.get("text")))
    assert deltas == [
        ("tool_call_start", 0, None),
        ("tool_call_arguments", 0, '{"a":1}'),
        ("tool_call_arguments", 1, "{}"),
    ]


def test_the_buffer_bound_is_event_buffer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streaming, "EVENT_BUFFER", 3)
    agent = create_agent(model=TestModel.responses(["hi"]))

    async def main() -> None:
        stream = agent.run_stream("hi")
        assert stream._buffer.capacity == 3
        await stream.join()

    run(main())


# -- logging ---------------------------------------------------------------------


def test_run_start_and_end_are_logged_at_debug(caplog: pytest.LogCaptureFixture, capsys: Any) -> None:
    agent = create_agent(model=TestModel.responses(["hi"]))

    async def main() -> str:
        stream = agent.run_stream("hi")
        return (await stream.result()).run_id

    with caplog.at_level(logging.DEBUG, logger="starweaver"):
        run_id = run(main())
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG and r.name == "starweaver"]
    assert any("run started" in m for m in messages)
    assert any(run_id in m and "completed" in m for m in messages)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_an_implicit_interrupt_is_logged_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        blockers = Blockers(1)
        agent = create_agent(model=blockers.model(), tools=blockers.tools)
        async with agent.run_stream("go"):
            await blockers.all_started.wait()

    with caplog.at_level(logging.DEBUG, logger="starweaver"):
        run(main())
    assert any("left the run early" in r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG)


# -- steering and deltas ----------------------------------------------------------


def test_steer_takes_text_only() -> None:
    async def main() -> None:
        blockers = Blockers(1)
        agent = create_agent(model=blockers.model(), tools=blockers.tools)
        async with agent.run_stream("go") as stream:
            await blockers.all_started.wait()
            with pytest.raises(TypeError):
                stream.steer(1)  # type: ignore[arg-type]

    run(main())


def user_prompts(request: list[Any]) -> list[list[str]]:
    """The texts of each user prompt in the messages a model received."""
    return [
        [c.text for c in p.content] for m in request if m.kind == "request" for p in m.parts if p.kind == "user_prompt"
    ]


def test_steer_during_a_batch_reaches_the_next_model_request() -> None:
    async def main() -> TestModel:
        release = asyncio.Event()
        started = asyncio.Event()

        @tool
        async def slow() -> str:
            started.set()
            await release.wait()
            return "slow done"

        model = TestModel.responses([calls_response(call("slow", "s1")), "steered"])
        agent = create_agent(model=model, tools=[slow])
        async with agent.run_stream("go") as stream:
            await started.wait()
            stream.steer("also mention the weather")
            release.set()
            result = await stream.result()
        assert result.output == "steered"
        return model

    model = run(main())
    last_request = model.captured_messages()[-1]
    # The steered text is a user prompt of the request after the batch.
    assert user_prompts(last_request) == [["go"], ["also mention the weather"]]


def streamed_reply(pieces: list[str]) -> dict[str, Any]:
    """An OpenAI chat completion streamed as server-sent events, one chunk
    per piece (the shape of the Chat Completions streaming reference)."""
    chunks = [
        {"index": 0, "delta": {"role": "assistant", "content": p} if i == 0 else {"content": p}, "finish_reason": None}
        for i, p in enumerate(pieces)
    ]
    chunks.append({"index": 0, "delta": {}, "finish_reason": "stop"})
    events = [
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1", "choices": [c]}
        for c in chunks
    ]
    raw = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    return {"status": 200, "headers": {"Content-Type": "text/event-stream"}, "raw": raw}


def streaming_agent(url: str) -> Any:
    return create_agent(model=OpenAIModel("gpt-4.1", base_url=url + "/v1", api_key="sk-test", stream=True))


def test_a_streamed_provider_reply_streams_its_run() -> None:
    """A streamed reply's text reaches the consumer as text deltas while
    the response streams: between model_request and model_response, and
    together the whole output."""
    pieces = ["Hel", "lo ", "world"]

    async def main() -> None:
        with serving(streamed_reply(pieces)) as srv:
            async with streaming_agent(srv.url).run_stream("hi") as stream:
                events = await collect(stream)
                result = await stream.result()
        kinds = [ev.kind for ev in events if ev.kind not in streaming.DELTA_KINDS | {"usage"}]
        assert kinds == ["run_start", "model_request", "model_response", "run_complete"]
        assert result.output == "Hello world"
        positions = [i for i, ev in enumerate(events) if ev.kind == "text_delta"]
        assert positions, "no text_delta event"
        all_kinds = [ev.kind for ev in events]
        assert all_kinds.index("model_request") < positions[0] and positions[-1] < all_kinds.index("model_response")
        assert "".join(events[i].text_delta or "" for i in positions) == "Hello world"

    run(main())


def test_text_deltas_arrive_and_make_the_output() -> None:
    pieces = [f"piece {i}. " for i in range(50)]

    async def main() -> None:
        with serving(streamed_reply(pieces)) as srv:
            async with streaming_agent(srv.url).run_stream("hi") as stream:
                events = await collect(stream)
                result = await stream.result()
        deltas = [ev for ev in events if ev.kind == "text_delta"]
        assert len(deltas) > 1 and all(ev.text_delta is not None for ev in deltas)
        assert "".join(ev.text_delta or "" for ev in deltas) == result.output == "".join(pieces)
        kinds = [ev.kind for ev in events]
        assert kinds.index("model_request") < kinds.index("text_delta") < kinds.index("model_response")
        assert [ev.sequence for ev in events] == sorted(ev.sequence for ev in events)

    run(main())


def test_a_slow_consumer_of_10000_deltas_keeps_the_buffer_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streaming, "EVENT_BUFFER", 8)
    pieces = [f"{i}," for i in range(10_000)]

    async def main() -> None:
        with serving(streamed_reply(pieces)) as srv:
            stream = streaming_agent(srv.url).run_stream("hi")
            first = await stream.recv()
            assert first is not None
            result = await stream.result()  # the consumer holds while the run ends
        events = [first, *(await stream.join()).events]
        others = sum(1 for ev in events if ev.kind not in streaming.DELTA_KINDS)
        # Past the bound, only an event that is not a delta, and the first
        # delta after it, are added.
        assert stream._buffer.peak <= 8 + 2 * others
        assert stream._buffer.merged > 0
        assert "".join(ev.text_delta or "" for ev in events) == result.output == "".join(pieces)

    run(main())


def chunk_event(delta: dict[str, Any], finish: str | None = None) -> str:
    """One Chat Completions stream chunk (the streaming reference's shape)."""
    event = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4.1",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(event)}\n\n"


def two_calls_streamed(gate: tuple[Any, ...], done: Any) -> dict[str, Any]:
    """A streamed response of two calls, echo(1) then echo(2). The first
    call is complete once the second begins; the stream then waits at the
    gate, and sets done just before its last chunk."""

    def start(i: int, cid: str) -> dict[str, Any]:
        fn = {"name": "echo", "arguments": ""}
        return {"tool_calls": [{"index": i, "id": cid, "type": "function", "function": fn}]}

    def args(i: int, n: int) -> dict[str, Any]:
        return {"tool_calls": [{"index": i, "function": {"arguments": json.dumps({"n": n})}}]}

    chunks = [
        chunk_event({"role": "assistant", **start(0, "e1")}),
        chunk_event(args(0, 1)),
        chunk_event(start(1, "e2")),
        chunk_event(args(1, 2)),  # the gate waits before this one
        chunk_event({}, "tool_calls"),
        "data: [DONE]\n\n",
    ]
    return {"status": 200, "chunks": chunks, "gate": gate, "done": done}


def first_call_saw_the_stream_end(*, eager: bool, stream: bool) -> bool:
    """Run echo, echo through a streamed provider reply and report whether
    the first call started only after the whole response was sent."""
    import threading

    started, done = threading.Event(), threading.Event()
    seen: list[bool] = []

    @tool
    async def echo(n: int) -> int:
        if n == 1:
            seen.append(done.is_set())
            started.set()
        return n

    # With eager dispatch, the stream waits (10 s at most) for the first
    # call to start; without it, the call cannot start mid-response, so the
    # stream waits only briefly, which still catches a call started early.
    gate = (3, started) if eager else (3, started, 0.5)
    with serving(two_calls_streamed(gate, done), streamed_reply(["done"])) as srv:
        model = OpenAIModel("gpt-4.1", base_url=srv.url + "/v1", api_key="sk-test", stream=stream)
        agent = create_agent(model=model, tools=[echo], eager_dispatch=eager)

        async def main() -> list[Any]:
            async with agent.run_stream("go") as live:
                events = await collect(live)
                assert (await live.result()).output == "done"
            return [ev.tool_return["tool_call_id"] for ev in events if ev.kind == "tool_return"]

        # Either way the returns reach history in model order.
        assert run(main()) == ["e1", "e2"]
    assert len(seen) == 1
    return seen[0]


def test_eager_dispatch_can_be_turned_off() -> None:
    """With eager dispatch, the first call starts while the response still
    streams; turned off, it starts only once the whole response is in."""
    assert first_call_saw_the_stream_end(eager=True, stream=True) is False
    assert first_call_saw_the_stream_end(eager=False, stream=True) is True


def test_a_streamed_reply_dispatches_eagerly_without_stream_true() -> None:
    """run_stream streams the provider's reply whatever ``stream=`` says,
    and a streamed reply's calls start while it streams."""
    assert first_call_saw_the_stream_end(eager=True, stream=False) is False


def test_a_session_steers_and_interrupts_its_running_run() -> None:
    """session.steer and session.interrupt reach the run in progress, also
    one started with the plain ``run``."""

    async def main() -> None:
        release = asyncio.Event()
        started = asyncio.Event()

        @tool
        async def slow() -> str:
            started.set()
            await release.wait()
            return "slow done"

        model = TestModel.responses([calls_response(call("slow", "s1")), "steered"])
        session = create_agent(model=model, tools=[slow]).session()
        with pytest.raises(StateError, match="no run in progress"):
            session.steer("too early")
        assert session.interrupt() is False
        task = asyncio.ensure_future(session.run("go"))
        await asyncio.wait_for(started.wait(), 10)
        session.steer("also this")
        release.set()
        result = await asyncio.wait_for(task, 10)
        assert result.output == "steered"
        assert user_prompts(model.captured_messages()[-1]) == [["go"], ["also this"]]

        blockers = Blockers(2)
        session = create_agent(model=blockers.model(), tools=blockers.tools).session()
        task = asyncio.ensure_future(session.run("go"))
        await asyncio.wait_for(blockers.all_started.wait(), 10)
        assert session.interrupt("stop now") is True
        cancelled = await asyncio.wait_for(task, 10)
        assert cancelled.status == "cancelled" and "stop now" in str(cancelled.error)
        assert session.interrupt() is False

    run(main())


# -- detaching and context managers ---------------------------------------------


class Gate:
    """A tool that waits for ``release`` and records that it finished."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.finished = False
        self.tool = tool(self._wait, name="gate")

    async def _wait(self) -> str:
        self.started.set()
        await self.release.wait()
        self.finished = True
        return "released"

    def model(self) -> TestModel:
        return TestModel.responses([calls_response(call("gate", "g1")), "after the gate"])


def test_a_detached_run_goes_on_after_the_consumer_leaves() -> None:
    async def main() -> None:
        gate = Gate()
        agent = create_agent(model=gate.model(), tools=[gate.tool])
        async with agent.run_stream("go") as stream:
            async for ev in stream:
                if ev.kind == "tool_call":
                    stream.detach()
                    break
            assert await stream.recv() is None  # the receiver is closed
        assert not stream.is_finished and not stream.status().cancel_requested
        gate.release.set()
        result = await stream.result()
        assert result.status == "completed" and result.output == "after the gate"
        assert gate.finished

    run(main())


def test_close_receiver_drops_events_but_not_the_run() -> None:
    async def main() -> None:
        gate = Gate()
        agent = create_agent(model=gate.model(), tools=[gate.tool])
        stream = agent.run_stream("go")
        await gate.started.wait()
        stream.close_receiver()
        assert stream.status().buffered == 0
        gate.release.set()
        assert (await stream.result()).output == "after the gate"
        assert await stream.recv() is None and stream.status().buffered == 0
        assert stream.status().events_received > 0  # counted, not kept

    run(main())


def test_an_agent_context_left_on_an_exception_interrupts_its_runs() -> None:
    async def main() -> None:
        blockers = Blockers(1)
        agent = create_agent(model=blockers.model(), tools=blockers.tools)
        task: asyncio.Task[Any] | None = None
        with pytest.raises(RuntimeError, match="request failed"):
            async with agent:
                task = asyncio.ensure_future(agent.run("go"))
                await blockers.all_started.wait()
                raise RuntimeError("request failed")
        assert task is not None and task.done()
        result = task.result()
        assert result.status == "cancelled"
        assert "the agent's context exited with RuntimeError" in (result.error or "")
        assert blockers.cancelled == [True]

    run(main())


def test_an_agent_context_left_normally_waits_for_its_runs() -> None:
    async def main() -> None:
        gate = Gate()
        agent = create_agent(model=gate.model(), tools=[gate.tool])
        async with agent:
            task = asyncio.ensure_future(agent.run("go"))
            await gate.started.wait()
            asyncio.get_running_loop().call_soon(gate.release.set)
        assert gate.finished
        assert (await task).output == "after the gate"

    run(main())


def test_a_session_context_interrupts_or_waits_for_its_run() -> None:
    async def main() -> None:
        blockers = Blockers(1)
        session = create_agent(model=blockers.model(), tools=blockers.tools).session()
        with pytest.raises(KeyError):
            async with session:
                stream = session.run_stream("go")
                await blockers.all_started.wait()
                raise KeyError("boom")
        assert (await stream.result()).status == "cancelled"

        gate = Gate()
        session = create_agent(model=gate.model(), tools=[gate.tool]).session()
        async with session:
            stream = session.run_stream("go")
            await gate.started.wait()
            asyncio.get_running_loop().call_soon(gate.release.set)
        assert stream.is_finished and (await stream.result()).output == "after the gate"

    run(main())
