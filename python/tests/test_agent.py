"""Agents, sessions and runs through the Go runtime."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import (
    ModelError,
    ModelRetry,
    StateError,
    Tool,
    ToolContext,
    ToolResult,
    ToolRetryLimitExceeded,
    tool,
)
from starweaver.agent import create_agent
from starweaver.testing import FunctionModel, TestModel
from starweaver.toolsets import Toolset


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def script(*batches: list[dict[str, Any]], final: str = "done") -> TestModel:
    return TestModel.responses([TestModel.tool_call_response(b) for b in batches] + [final])


@tool
async def add(left: int, right: int) -> dict[str, int]:
    await asyncio.sleep(0)
    return {"total": left + right}


def test_seed_add_example() -> None:
    async def main() -> None:
        model = TestModel.responses(
            [
                TestModel.tool_call_response([{"id": "call_add", "name": "add", "arguments": {"left": 2, "right": 3}}]),
                {"text": "done"},
            ]
        )
        result = await create_agent(model=model, tools=[add]).run("Add two numbers")
        assert result.output == "done"
        assert result.status == "completed"
        (ret,) = tool_returns(model.captured_messages(), "add")
        assert ret == {
            "kind": "tool_return",
            "tool_call_id": "call_add",
            "name": "add",
            "content": {"total": 5},
            "is_error": False,
            "metadata": {},
        }
        (params,) = model.captured_params()[:1]
        assert [d["name"] for d in params["tools"]] == ["add"]
        assert params["tools"][0]["parameters"]["properties"]["left"]["type"] == "integer"
        assert result.usage["tool_calls"] == 1 and result.usage["requests"] == 2

    run(main())


def test_captured_messages_shapes() -> None:
    model = script([call("add", left=1, right=2)])
    run(create_agent(model=model, tools=[add], instructions="be exact").run("hi"))
    first, second = model.captured_messages()
    assert first[0]["kind"] == "request"
    assert first[0]["instructions"] == "be exact"
    assert first[0]["parts"] == [{"kind": "user_prompt", "content": [{"kind": "text", "text": "hi"}]}]
    assert second[1]["kind"] == "response"
    assert second[1]["parts"][0] == {
        "kind": "tool_call",
        "id": "call_add",
        "name": "add",
        "arguments": {"left": 1, "right": 2},
    }


def test_raw_callables_sync_and_async_tools() -> None:
    seen_threads: dict[str, str] = {}

    def mul(left: int, right: int) -> dict[str, int]:
        seen_threads["mul"] = threading.current_thread().name
        return {"product": left * right}

    async def neg(value: int) -> int:
        seen_threads["neg"] = threading.current_thread().name
        return -value

    model = script([call("mul", left=3, right=4), call("neg", value=5)])
    result = run(create_agent(model=model, tools=[mul, neg]).run("go"))
    rets = {r["name"]: r for r in tool_returns(model.captured_messages())}
    assert rets["mul"]["content"] == {"product": 12}
    assert rets["neg"]["content"] == -5
    assert seen_threads["neg"] == threading.main_thread().name
    assert seen_threads["mul"].startswith("starweaver-tool"), "sync tools must not run on the event loop"
    assert result.output == "done"


def test_async_tools_run_in_parallel() -> None:
    n = 5
    arrived = 0
    all_here = asyncio.Event()

    def make(i: int) -> Tool[..., Any]:
        async def wait_for_all() -> int:
            nonlocal arrived
            arrived += 1
            if arrived == n:
                all_here.set()
            # Deadlocks (and times out) unless every call runs at once.
            await asyncio.wait_for(all_here.wait(), 10)
            return i

        return Tool(wait_for_all, name=f"wait_{i}")

    model = script([call(f"wait_{i}") for i in range(n)])
    run(create_agent(model=model, tools=[make(i) for i in range(n)]).run("go"))
    contents = [r["content"] for r in tool_returns(model.captured_messages())]
    assert contents == list(range(n)), "returns come back in model order"


def test_sync_tools_overlap_in_thread_pool() -> None:
    n = 8
    barrier = threading.Barrier(n, timeout=10)

    def make(i: int) -> Tool[..., Any]:
        def blocking() -> int:
            barrier.wait()  # raises BrokenBarrierError unless all 8 run at once
            return i

        return Tool(blocking, name=f"block_{i}")

    model = script([call(f"block_{i}") for i in range(n)])
    run(create_agent(model=model, tools=[make(i) for i in range(n)]).run("go"))
    rets = tool_returns(model.captured_messages())
    assert [r["content"] for r in rets] == list(range(n))
    assert not any(r["is_error"] for r in rets)


def test_repeated_tool_name_runs_sequentially_in_model_order() -> None:
    active = 0
    peak = 0
    order: list[int] = []

    @tool
    async def step(index: int) -> int:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.001)
        order.append(index)
        active -= 1
        return index

    model = script([call("step", f"c{i}", index=i) for i in range(4)])
    run(create_agent(model=model, tools=[step]).run("go"))
    assert order == [0, 1, 2, 3]
    assert peak == 1


def test_timeout_cancels_coroutine() -> None:
    observed: dict[str, Any] = {}

    async def main() -> None:
        done = asyncio.Event()

        @tool(timeout_ms=20)
        async def slow(ctx: ToolContext) -> str:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                observed["cancelled"] = True
                observed["ctx_cancelled"] = ctx.is_cancelled()
                done.set()
                raise
            return "never"

        model = script([call("slow")])
        result = await create_agent(model=model, tools=[slow]).run("go")
        await asyncio.wait_for(done.wait(), 5)
        (ret,) = tool_returns(model.captured_messages(), "slow")
        assert ret["is_error"] is True
        assert ret["content"]["kind"] == "timeout"
        assert ret["metadata"]["timeout_ms"] == 20
        assert result.output == "done"

    run(main())
    assert observed == {"cancelled": True, "ctx_cancelled": True}


def test_timeouts_and_retries_inside_a_parallel_batch() -> None:
    """Parallel host calls are started without a goroutine each; timeouts,
    internal retries and plain results must behave as for single calls."""
    attempts: list[int] = []

    async def main() -> None:
        cancelled = asyncio.Event()

        @tool(timeout_ms=30)
        async def slow(ctx: ToolContext) -> str:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return "never"

        @tool(max_retries=2)
        async def flaky(ctx: ToolContext) -> str:
            attempts.append(ctx.retry)
            if ctx.retry < 2:
                raise RuntimeError("transient")
            return "recovered"

        model = script([call("slow"), call("flaky"), call("add", left=1, right=2)])
        await create_agent(model=model, tools=[slow, flaky, add]).run("go")
        await asyncio.wait_for(cancelled.wait(), 5)
        rets = {r["name"]: r for r in tool_returns(model.captured_messages())}
        assert rets["slow"]["content"]["kind"] == "timeout" and rets["slow"]["metadata"]["timeout_ms"] == 30
        assert rets["flaky"]["content"] == "recovered"
        assert rets["add"]["content"] == {"total": 3}

    run(main())
    assert attempts == [0, 1, 2]


def test_sync_tool_timeout_sets_cancellation_flag() -> None:
    flag = threading.Event()
    release = threading.Event()

    @tool(timeout_ms=30)
    def blocking(ctx: ToolContext) -> str:
        while not ctx.is_cancelled():
            release.wait(0.005)
        flag.set()
        return "late"

    model = script([call("blocking")])
    run(create_agent(model=model, tools=[blocking]).run("go"))
    assert flag.wait(5), "the worker thread saw the cancellation"
    (ret,) = tool_returns(model.captured_messages(), "blocking")
    assert ret["content"]["kind"] == "timeout"


def test_cancelling_awaiting_task_cancels_run() -> None:
    async def main() -> None:
        started = asyncio.Event()
        cancelled = asyncio.Event()
        seen: dict[str, bool] = {}

        @tool
        async def forever(ctx: ToolContext) -> str:
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                seen["ctx"] = ctx.is_cancelled()
                cancelled.set()
                raise
            return "never"

        agent = create_agent(model=script([call("forever")]), tools=[forever])
        task = asyncio.create_task(agent.run("go"))
        await asyncio.wait_for(started.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.wait_for(cancelled.wait(), 5)
        assert seen == {"ctx": True}

    run(main())


def test_model_retry_reenters_with_retry_counter() -> None:
    retries: list[int] = []

    @tool(max_retries=2)
    async def flaky(ctx: ToolContext) -> str:
        retries.append(ctx.retry)
        if ctx.retry == 0:
            raise ModelRetry("use a better query")
        return "ok"

    model = script([call("flaky", "a")], [call("flaky", "b")])
    result = run(create_agent(model=model, tools=[flaky]).run("go"))
    assert retries == [0, 1]
    first = tool_returns(model.captured_messages()[:2])[0]
    assert first["content"]["kind"] == "model_retry"
    assert first["metadata"]["retry"] == 1 and first["metadata"]["max_retries"] == 2
    assert result.output == "done"


def test_retry_limit_raises_tool_error() -> None:
    @tool(max_retries=1)
    async def bad() -> str:
        raise ModelRetry("again")

    model = script([call("bad", "1")], [call("bad", "2")])
    with pytest.raises(ToolRetryLimitExceeded) as info:
        run(create_agent(model=model, tools=[bad]).run("go"))
    assert info.value.tool == "bad" and info.value.max_retries == 1
    assert 'tool "bad" exceeded max retries count of 1' in str(info.value)


def test_execution_errors_retry_internally_then_report() -> None:
    attempts: list[int] = []

    @tool(max_retries=2)
    def boom(ctx: ToolContext) -> str:
        attempts.append(ctx.retry)
        raise RuntimeError("disk on fire")

    model = script([call("boom")])
    result = run(create_agent(model=model, tools=[boom]).run("go"))
    assert attempts == [0, 1, 2]
    (ret,) = tool_returns(model.captured_messages(), "boom")
    assert ret["metadata"]["error_kind"] == "execution"
    assert "disk on fire" in ret["content"]["message"]
    # The traceback stays on the host side (test_model_boundary.py).
    assert "Traceback" not in ret.model_dump_json()
    assert "Traceback" in result.tool_returns()[0]["private_metadata"]["python_traceback"]


def test_invalid_arguments_rejected_before_tool_runs() -> None:
    ran = []

    @tool
    async def typed(count: int) -> int:
        ran.append(count)
        return count

    model = script([call("typed", count="three")])
    run(create_agent(model=model, tools=[typed]).run("go"))
    (ret,) = tool_returns(model.captured_messages(), "typed")
    assert ran == []
    assert ret["content"]["kind"] == "invalid_arguments"
    assert "/count" in ret["content"]["message"]


def test_tool_result_surfaces() -> None:
    from test_tools import inspect_release  # the seed's ToolResult example

    model = script([call("inspect_release")])
    result = run(create_agent(model=model, tools=[inspect_release]).run("go"))
    (ret,) = tool_returns(model.captured_messages(), "inspect_release")
    assert ret["content"] == {"summary": "release is ready"}
    assert ret["metadata"] == {"audit": "release"}
    # The model sees none of the host surfaces; the result keeps them all.
    assert not {"app_value", "user_content", "private_metadata"} & set(ret)
    assert "host-only" not in ret.model_dump_json()
    host = result.tool_returns()[0]
    assert host["app_value"] == {"release_id": 42}
    assert host["user_content"] == {"markdown": "**Ready**"}
    assert host["private_metadata"] == {"trace_id": "host-only"}


def test_non_serialisable_return_is_a_user_error_and_not_rerun() -> None:
    """Encoding a tool's own return fails the same way on every attempt, so
    it is a user_error that runs the tool once, for async, sync and
    ToolResult returns alike."""
    calls: list[str] = []

    @tool
    async def weird() -> object:
        calls.append("weird")
        return object()

    @tool
    def weird_sync() -> object:
        calls.append("weird_sync")
        return {1, 2}

    @tool
    async def weird_result() -> ToolResult:
        calls.append("weird_result")
        return ToolResult({"ok": True}, app_value=object())

    model = script([call("weird"), call("weird_sync"), call("weird_result")])
    run(create_agent(model=model, tools=[weird, weird_sync, weird_result]).run("go"))
    returns = tool_returns(model.captured_messages())
    assert [r["name"] for r in returns] == ["weird", "weird_sync", "weird_result"]
    for ret in returns:
        assert ret["content"]["kind"] == "user_error", ret
        assert "JSON serializable" in ret["content"]["message"]
    assert sorted(calls) == ["weird", "weird_result", "weird_sync"]


def test_non_json_floats_are_user_errors() -> None:
    @tool
    async def nan() -> float:
        return float("nan")

    @tool
    async def nested() -> dict[str, object]:
        return {"x": [float("inf")]}

    model = script([call("nan"), call("nested")])
    run(create_agent(model=model, tools=[nan, nested]).run("go"))
    for ret in tool_returns(model.captured_messages()):
        assert ret["content"]["kind"] == "user_error"
        assert "JSON serializable" in ret["content"]["message"]


def test_per_run_tools_and_instructions_do_not_mutate_agent() -> None:
    async def main() -> None:
        model = TestModel.responses(
            [
                TestModel.tool_call_response([call("add", left=1, right=1)]),
                "first",
                TestModel.tool_call_response([call("add", left=1, right=1)]),
                "second",
            ]
        )
        agent = create_agent(model=model)
        await agent.run("one", tools=[add], instructions="only now")
        await agent.run("two")
        msgs = model.captured_messages()
        assert tool_returns(msgs[:2], "add")[0]["content"] == {"total": 2}
        assert tool_returns(msgs, "add")[0]["content"]["kind"] == "not_found"
        assert tool_returns(msgs, "add")[0]["is_error"] is False
        params = model.captured_params()
        assert [d["name"] for d in params[0]["tools"]] == ["add"] and params[2]["tools"] == []
        assert msgs[0][0]["instructions"] == "only now" and "instructions" not in msgs[2][0]

    run(main())


def test_toolset_tools_and_instructions_reach_model() -> None:
    ts = Toolset("math", tools=[add], instructions=["Add carefully.", "Show totals."])
    model = script([call("add", left=2, right=2)])
    run(create_agent(model=model, toolsets=[ts]).run("go"))
    instructions = model.captured_messages()[0][0]["instructions"]
    assert instructions == '<tool-instruction name="math">Add carefully.\n\nShow totals.</tool-instruction>'
    assert tool_returns(model.captured_messages(), "add")[0]["content"] == {"total": 4}


def test_duplicate_tool_names_rejected() -> None:
    ts = Toolset("math", tools=[add])
    from starweaver import AgentError

    with pytest.raises(AgentError, match="add"):
        create_agent(model=TestModel("ok"), tools=[add], toolsets=[ts])


def test_sessions_keep_history_and_refuse_concurrent_runs() -> None:
    async def main() -> None:
        model = TestModel.responses(["one", "two"])
        async with create_agent(model=model) as agent:
            async with agent.session() as session:
                assert (await session.run("first")).output == "one"
                second = await session.run("second")
                assert second.output == "two"
                assert len(session.messages) == 4
                assert len(second.messages) == 4 and len(second.new_messages) == 2

        gate = asyncio.Event()
        entered = asyncio.Event()

        @tool
        async def hold() -> str:
            entered.set()
            await gate.wait()
            return "ok"

        busy_agent = create_agent(model=script([call("hold")]), tools=[hold])
        session = busy_agent.session()
        first = asyncio.create_task(session.run("go"))
        await entered.wait()
        with pytest.raises(StateError, match="busy"):
            await session.run("again")
        gate.set()
        assert (await first).output == "done"

    run(main())


def test_function_model_sync_and_async() -> None:
    def respond(messages: list[dict[str, Any]], info: dict[str, Any]) -> Any:
        last = messages[-1]
        returns = [p for p in last["parts"] if p["kind"] == "tool_return"]
        if returns:
            return {"text": f"total={returns[0]['content']['total']}"}
        assert [t["name"] for t in info["params"]["tools"]] == ["add"]
        return TestModel.tool_call_response([call("add", left=20, right=22)])

    model = FunctionModel(respond)
    result = run(create_agent(model=model, tools=[add]).run("go"))
    assert result.output == "total=42"
    assert len(model.captured_messages()) == 2

    async def failing(messages: list[dict[str, Any]], info: dict[str, Any]) -> Any:
        raise RuntimeError("provider down")

    with pytest.raises(ModelError, match="provider down"):
        run(create_agent(model=FunctionModel(failing)).run("go"))


def test_model_script_exhausted_and_garbage() -> None:
    with pytest.raises(ModelError, match="exhausted"):
        run(create_agent(model=TestModel.responses([])).run("go"))
    with pytest.raises(ValueError):
        TestModel.responses([{"nonsense": 1}])
    with pytest.raises(ModelError):
        run(create_agent(model=FunctionModel(lambda m, i: {"nonsense": True})).run("go"))


def test_events_stream() -> None:
    kinds: list[str] = []
    model = script([call("add", left=1, right=1)])
    run(create_agent(model=model, tools=[add]).run("go", on_event=lambda ev: kinds.append(ev["kind"])))
    assert kinds == [
        "run_start",
        "model_request",
        "model_response",
        "tool_call",
        "tool_return",
        "model_request",
        "model_response",
        "run_complete",
    ]


def test_agent_reused_across_event_loops() -> None:
    agent = create_agent(model=TestModel.responses(["a", "b"]))
    assert run(agent.run("1")).output == "a"
    assert run(agent.run("2")).output == "b"
