"""Bad input and process faults at the native boundary."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import textwrap
import threading
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import AgentError, StateError, Tool, _capi, create_agent, tool
from starweaver.testing import TestModel


def run_script(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
    )


def test_unknown_and_released_handles_are_state_errors() -> None:
    for fn in (_capi.release, _capi.run_cancel, _capi.session_messages, _capi.session_new, _capi.model_captured):
        with pytest.raises(StateError):
            fn(10**12)
    model = TestModel("ok")
    with pytest.raises(StateError, match="not a"):
        _capi.session_new(model._native_handle())  # a model handle is not an agent
    with pytest.raises(StateError):
        _capi.run_complete(10**12, 1, b"{}")


def test_malformed_specs_are_value_errors() -> None:
    with pytest.raises(StateError):
        _capi.agent_new({"model": 10**12})
    with pytest.raises(ValueError, match="unknown field"):
        _capi.model_new({"kind": "test", "bogus": 1})
    with pytest.raises(ValueError):
        _capi.model_new({"kind": "quantum"})
    model = TestModel("ok")
    with pytest.raises(ValueError):
        _capi.agent_new({"model": model._native_handle(), "tools": [{"id": 1, "definition": {"name": ""}}]})
    with pytest.raises(AgentError, match="parameters"):
        _capi.agent_new(
            {
                "model": model._native_handle(),
                "tools": [{"id": 1, "definition": {"name": "x", "parameters": {"type": "string"}}}],
            }
        )


def test_tools_outlive_their_python_references() -> None:
    """The runtime keeps what it needs: deleting the user's references to
    tools and models after building the agent (and collecting garbage) does
    not break runs. There are no C callbacks to collect."""

    def build() -> Any:
        def echo(text: str) -> str:
            return text

        return create_agent(
            model=TestModel.responses([TestModel.tool_call_response([call("echo", text="hi")]), "ok"]), tools=[echo]
        )

    agent = build()
    gc.collect()
    assert asyncio.run(agent.run("go")).output == "ok"


def test_handles_are_released() -> None:
    gc.collect()
    baseline = _capi.handle_count()

    async def some_runs() -> None:
        for _ in range(5):
            agent = create_agent(
                model=TestModel.responses([TestModel.tool_call_response([call("t")]), "ok"]),
                tools=[Tool(lambda: 1, name="t")],
            )
            async with agent.session() as session:
                await session.run("go")

    asyncio.run(some_runs())
    gc.collect()
    assert _capi.handle_count() == baseline


def test_thread_count_stays_bounded() -> None:
    from starweaver._bridge import SYNC_WORKERS

    n = 120

    def make(i: int) -> Tool[..., Any]:
        def work() -> int:
            return i

        return Tool(work, name=f"sync_{i}")

    tools = [make(i) for i in range(n)]
    model = TestModel.responses([TestModel.tool_call_response([call(f"sync_{i}") for i in range(n)]), "ok"])
    asyncio.run(create_agent(model=model, tools=tools).run("go"))
    assert len(tool_returns(model.captured_messages())) == n
    assert threading.active_count() <= SYNC_WORKERS + 2
    with open("/proc/self/status") as f:
        os_threads = int(next(line for line in f if line.startswith("Threads:")).split()[1])
    assert os_threads <= SYNC_WORKERS + 16, os_threads


def test_fork_after_import_gets_clear_error() -> None:
    proc = run_script(
        """
        import os, sys
        from starweaver import create_agent
        from starweaver.testing import TestModel
        TestModel("ok")  # the library is loaded and the Go runtime started
        pid = os.fork()
        if pid == 0:
            try:
                TestModel("ok")
            except RuntimeError as exc:
                os._exit(0 if "fork" in str(exc) else 2)
            os._exit(3)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """
    )
    assert proc.returncode == 0, proc.stderr


def test_interpreter_exit_while_tools_run() -> None:
    """Exiting with async and sync tools mid-call neither hangs nor crashes:
    runs are cancelled and cooperative sync tools see the cancellation."""
    proc = run_script(
        """
        import asyncio, sys, threading
        from starweaver import ToolContext, create_agent, tool
        from starweaver.testing import TestModel

        started = threading.Barrier(3)

        @tool
        async def waits(ctx: ToolContext) -> str:
            # off the loop: the loop still has to hand "blocks" to its worker
            await asyncio.to_thread(started.wait)
            await asyncio.Event().wait()
            return "never"

        @tool
        def blocks(ctx: ToolContext) -> str:
            started.wait()
            ctx.wait_cancelled()
            print("sync tool saw cancellation", flush=True)
            return "stopped"

        async def main():
            model = TestModel.responses([TestModel.tool_call_response([
                {"id": "a", "name": "waits", "arguments": {}}, {"id": "b", "name": "blocks", "arguments": {}}])])
            task = asyncio.create_task(create_agent(model=model, tools=[waits, blocks]).run("go"))
            await asyncio.to_thread(started.wait)
            sys.exit(0)

        asyncio.run(main())
        """,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert "sync tool saw cancellation" in proc.stdout


def test_loop_closed_with_run_in_flight() -> None:
    """A loop that closes while a run awaits tools cancels the run."""
    proc = run_script(
        """
        import asyncio, gc
        from starweaver import create_agent, tool, _capi
        from starweaver.testing import TestModel

        @tool
        async def forever() -> str:
            await asyncio.Event().wait()
            return "never"

        async def main():
            model = TestModel.responses([TestModel.tool_call_response([{"id": "a", "name": "forever", "arguments": {}}])])
            asyncio.get_running_loop().create_task(create_agent(model=model, tools=[forever]).run("go"))
            await asyncio.sleep(0.05)
            # main returns; asyncio.run cancels the run's task and closes the loop

        asyncio.run(main())
        gc.collect()
        print("handles", _capi.handle_count())
        """,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "handles 0"


def test_many_calls_in_a_loop_do_not_leak_handles() -> None:
    gc.collect()
    baseline = _capi.handle_count()

    @tool
    async def ping() -> int:
        return 1

    async def main() -> None:
        for _ in range(200):
            model = TestModel.responses([TestModel.tool_call_response([call("ping")]), "ok"])
            await create_agent(model=model, tools=[ping]).run("go")

    asyncio.run(main())
    gc.collect()
    assert _capi.handle_count() == baseline
