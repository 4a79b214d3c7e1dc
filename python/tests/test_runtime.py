"""AgentRuntime through real runs: sessions by id, tracked runs, closing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers import call
from starweaver import AgentRuntime, StateError, TestModel, create_agent, create_agent_runtime, tool


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def texts(n: int) -> TestModel:
    return TestModel(responses=[f"answer {i}" for i in range(n)])


def test_sessions_are_created_found_by_id_listed_and_closed() -> None:
    async def main() -> None:
        async with create_agent_runtime(model=texts(3)) as runtime:
            first, second = runtime.session(), runtime.session()
            assert runtime.get_session(first.id) is first
            assert runtime.sessions() == [first, second]
            # A handler finds the session by the id its client sent.
            result = await runtime.get_session(second.id).run("hi")
            assert result.output == "answer 0" and len(second.messages) == 2
            await runtime.close_session(first.id)
            assert runtime.sessions() == [second]
            with pytest.raises(StateError, match="no open session") as unknown:
                runtime.get_session(first.id)
            assert unknown.value.code == "unknown_session"
            with pytest.raises(StateError, match="is closed") as closed:
                await first.run("again")
            assert closed.value.code == "runtime_closed"
            # A restored session keeps its id; two open sessions never share one.
            state = second.export_state()
            with pytest.raises(StateError) as dup:
                runtime.session_from_state(state, allow_unsigned=True)
            assert dup.value.code == "duplicate_session"
            await runtime.close_session(second.id)
            restored = runtime.session_from_state(state, allow_unsigned=True)
            assert restored.id == second.id and (await restored.run("more")).output == "answer 1"
            assert (await runtime.run("one-off")).output == "answer 2"

    run(main())


def test_every_call_after_close_is_a_clear_error() -> None:
    async def main() -> None:
        async with create_agent_runtime(model=texts(1)) as runtime:
            session = runtime.session()
            await session.run("hi")
        assert runtime.closed
        calls: list[Any] = [
            runtime.session,
            lambda: runtime.get_session(session.id),
            runtime.sessions,
            lambda: runtime.agent,
            lambda: session.messages,
            session.export_state,
        ]
        for fn in calls:
            with pytest.raises(StateError, match="runtime is closed") as info:
                fn()
            assert info.value.code == "runtime_closed"
        for coro in (runtime.run("x"), session.run("x"), runtime.close_session(session.id)):
            with pytest.raises(StateError, match="runtime is closed"):
                await coro
        await runtime.close()  # closing twice is fine
        with pytest.raises(StateError, match="runtime is closed"):
            async with runtime:
                pass

    run(main())


def blocking_tool(started: asyncio.Event, release: asyncio.Event, seen: list[str]) -> Any:
    @tool
    async def wait_for_release() -> str:
        started.set()
        try:
            await release.wait()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        seen.append("released")
        return "released"

    return wait_for_release


def test_close_waits_for_active_runs() -> None:
    async def main() -> None:
        started, release, seen = asyncio.Event(), asyncio.Event(), []
        model = TestModel(responses=[{"tool_calls": [call("wait_for_release")]}, "done"])
        runtime = create_agent_runtime(model=model, tools=[blocking_tool(started, release, seen)])
        session = runtime.session()
        running = asyncio.ensure_future(session.run("go"))
        await started.wait()
        assert session.is_running
        closing = asyncio.ensure_future(runtime.close())
        await asyncio.sleep(0)  # let close() start; it cannot finish while the run is active
        assert runtime.closed and not closing.done()
        with pytest.raises(StateError, match="runtime is closed"):
            runtime.session()
        release.set()
        await closing
        assert (await running).output == "done" and seen == ["released"]

    run(main())


def test_close_cancels_runs_past_its_bound() -> None:
    async def main() -> None:
        started, never, seen = asyncio.Event(), asyncio.Event(), []
        model = TestModel(responses=[{"tool_calls": [call("wait_for_release")]}, "done"])
        runtime = create_agent_runtime(model=model, tools=[blocking_tool(started, never, seen)], close_timeout=0.05)
        running = asyncio.ensure_future(runtime.session().run("go"))
        await started.wait()
        await runtime.close()
        with pytest.raises(StateError, match="closed while the run was active") as info:
            await running
        assert info.value.code == "runtime_closed" and seen == ["cancelled"]

    run(main())


def test_leaving_the_block_with_an_error_cancels_at_once() -> None:
    async def main() -> None:
        started, never, seen = asyncio.Event(), asyncio.Event(), []
        model = TestModel(responses=[{"tool_calls": [call("wait_for_release")]}, "done"])
        running: asyncio.Future[Any] | None = None
        # A bound this long would fail the test if the block waited for it.
        with pytest.raises(RuntimeError, match="handler failed"):
            async with create_agent_runtime(
                model=model, tools=[blocking_tool(started, never, seen)], close_timeout=3600
            ) as runtime:
                running = asyncio.ensure_future(runtime.run("go"))
                await started.wait()
                raise RuntimeError("handler failed")
        assert running is not None
        with pytest.raises(StateError, match="closed while the run was active"):
            await running
        assert seen == ["cancelled"]

    run(main())


def test_cancelling_the_caller_cancels_its_run() -> None:
    async def main() -> None:
        started, never, seen = asyncio.Event(), asyncio.Event(), []
        model = TestModel(responses=[{"tool_calls": [call("wait_for_release")]}, "done"])
        async with create_agent_runtime(model=model, tools=[blocking_tool(started, never, seen)]) as runtime:
            session = runtime.session()
            caller = asyncio.ensure_future(session.run("go"))
            await started.wait()
            caller.cancel()
            with pytest.raises(asyncio.CancelledError):
                await caller
            assert seen == ["cancelled"] and not session.is_running

    run(main())


def test_resume_after_hitl_by_id() -> None:
    @tool
    def deploy(env: str) -> str:
        return f"deployed {env}"

    async def main() -> None:
        model = TestModel(responses=[{"tool_calls": [call("deploy", env="prod")]}, "shipped"])
        async with create_agent_runtime(model=model, tools=[deploy], approval_required_tools=["deploy"]) as runtime:
            session = runtime.session()
            waiting = await session.run("ship it")
            assert waiting.is_waiting
            with pytest.raises(StateError, match="does not wait for run"):
                await runtime.resume_after_hitl_by_id(session.id, "run_other", approvals=[])
            decision = waiting.approvals[0].approve(decided_by="ops")
            done = await runtime.resume_after_hitl_by_id(session.id, waiting.run_id, approvals=[decision])
            assert done.output == "shipped"
            assert done.tool_returns()[0].content == "deployed prod"

    run(main())


def test_runtime_from_an_agent_and_its_checks() -> None:
    agent = create_agent(model=texts(1))
    runtime = AgentRuntime(agent)
    assert runtime.agent is agent and "0 sessions" in repr(runtime)
    with pytest.raises(TypeError):
        AgentRuntime("not an agent")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="close_timeout"):
        AgentRuntime(agent, close_timeout=-1)
    with pytest.raises(TypeError):
        create_agent_runtime(model=texts(1), no_such_option=True)
    run(runtime.close())
