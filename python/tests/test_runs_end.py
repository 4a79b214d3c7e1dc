"""Every run ends: whatever user code does, a run finishes with an outcome.

Each test here hung forever before its fix; the harness bounds it
(``bounded``: ``asyncio.wait_for`` or a subprocess timeout) so that a
regression fails instead of hanging. None asserts on timing.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from helpers import call, tool_returns
from starweaver import ApprovalRequired, ModelError, Tool, ToolContext, _capi, create_agent, tool
from starweaver._capi import NativeError
from starweaver.testing import FunctionModel, TestModel

T = TypeVar("T")

BOUND = 30.0  # seconds; far above any healthy run here


def bounded(aw: Awaitable[T]) -> T:
    async def main() -> T:
        return await asyncio.wait_for(aw, BOUND)

    return asyncio.run(main())


def script(*batches: list[dict[str, Any]], final: str = "done") -> TestModel:
    return TestModel.responses([TestModel.tool_call_response(b) for b in batches] + [final])


def run_script(code: str, timeout: float = BOUND, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout, **kwargs
    )


class Custom(BaseException):
    """A BaseException that is not an Exception."""


# -- 1. BaseException from user code ------------------------------------------


@pytest.mark.parametrize("exc_type", [GeneratorExit, Custom])
def test_base_exceptions_from_tools_become_outcomes(exc_type: type[BaseException]) -> None:
    @tool(max_retries=0)
    async def plain_async() -> str:
        raise exc_type("boom")

    @tool(max_retries=0)
    async def ctx_async(ctx: ToolContext) -> str:
        raise exc_type("boom")

    @tool(max_retries=0)
    def plain_sync() -> str:
        raise exc_type("boom")

    tools = [plain_async, ctx_async, plain_sync]
    model = script([call(t.name) for t in tools])
    result = bounded(create_agent(model=model, tools=tools).run("go"))
    assert result.output == "done"
    returns = tool_returns(model.captured_messages())
    assert [r["name"] for r in returns] == [t.name for t in tools]
    for ret in returns:
        assert ret["is_error"] and ret["content"]["kind"] == "execution", ret


@tool
async def deploy(ctx: ToolContext, target: str = "prod") -> str:
    if ctx.approval is None:
        raise ApprovalRequired("deploy")
    return f"deployed {target}"


def resume_with_input(t: Tool[..., Any]) -> Any:
    """Run t until it waits for approval, then approve it with user input
    (which goes through t's preprocessor)."""

    async def main() -> Any:
        session = create_agent(model=script([call(t.name)]), tools=[t]).session()
        waiting = await session.run("go")
        return await session.hitl.resume(approvals=[waiting.approvals[0].approve().with_user_input({"a": 1})])

    result = bounded(main())
    (ret,) = [r for r in result.tool_returns() if r["name"] == t.name]
    return ret


@pytest.mark.parametrize("is_async", [True, False])
def test_base_exception_from_preprocessor_becomes_an_outcome(is_async: bool) -> None:
    t = deploy.replace()

    async def broken_async(ctx: ToolContext, user_input: Any) -> dict[str, Any]:
        raise Custom("preprocessor")

    def broken(ctx: ToolContext, user_input: Any) -> dict[str, Any]:
        raise Custom("preprocessor")

    t.user_input_preprocessor(broken_async if is_async else broken)
    ret = resume_with_input(t)
    assert ret["is_error"] and "preprocessor" in ret["content"]["message"]


@pytest.mark.parametrize("is_async", [True, False])
def test_base_exception_from_function_model_is_a_model_error(is_async: bool) -> None:
    def respond(messages: list[dict[str, Any]], info: dict[str, Any]) -> str:
        raise Custom("model broke")

    async def respond_async(messages: list[dict[str, Any]], info: dict[str, Any]) -> str:
        raise Custom("model broke")

    model = FunctionModel(respond_async if is_async else respond)
    with pytest.raises(ModelError, match="model broke"):
        bounded(create_agent(model=model).run("go"))


# The re-raised exception keeps its traceback, and with it the run, until
# pytest reports the test.
@pytest.mark.keeps_handles
@pytest.mark.parametrize("exc_type", [KeyboardInterrupt, SystemExit])
@pytest.mark.parametrize("kind", ["async", "sync", "model"])
def test_keyboard_interrupt_and_system_exit_reach_the_caller(exc_type: type[BaseException], kind: str) -> None:
    @tool
    async def a() -> str:
        raise exc_type()

    @tool
    def s() -> str:
        raise exc_type()

    def respond(messages: list[dict[str, Any]], info: dict[str, Any]) -> str:
        raise exc_type()

    if kind == "model":
        calls = 0

        def respond_once(messages: list[dict[str, Any]], info: dict[str, Any]) -> str:
            nonlocal calls
            calls += 1
            return respond(messages, info) if calls == 1 else "done"

        agent = create_agent(model=FunctionModel(respond_once))
    else:
        t = a if kind == "async" else s
        agent = create_agent(model=script([call(t.name)]), tools=[t])
    session = agent.session()
    with pytest.raises(exc_type):
        bounded(session.run("go"))
    # The interrupted run wound down: the session takes the next run.
    assert bounded(session.run("again")).output == "done"


# -- 2. event callbacks -------------------------------------------------------


# The logged tracebacks, which pytest keeps until the test is reported, hold
# the run's objects.
@pytest.mark.keeps_handles
def test_raising_event_callback_never_breaks_a_run(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[str] = []

    def on_event(event: dict[str, Any]) -> None:
        seen.append(event["kind"])
        raise RuntimeError("callback bug")

    @tool
    async def t1() -> int:
        return 1

    model = script([call("t1", "c1"), call("t1", "c2")])
    with caplog.at_level(logging.WARNING, logger="starweaver"):
        result = bounded(create_agent(model=model, tools=[t1]).run("go", on_event=on_event))
    assert result.output == "done"
    assert seen[0] == "run_start" and seen[-1] == "run_complete"
    assert seen.count("tool_return") == 2
    swallowed = [r for r in caplog.records if "on_event callback raised" in r.getMessage()]
    # A swallowed callback error is a warning, with its traceback.
    assert swallowed and all(r.levelno == logging.WARNING and r.exc_info for r in swallowed)


# The logged tracebacks, which pytest keeps until the test is reported, hold
# the run's objects.
@pytest.mark.keeps_handles
def test_async_event_callbacks_are_awaited_in_order() -> None:
    seen: list[str] = []

    async def on_event(event: dict[str, Any]) -> None:
        await asyncio.sleep(0)
        seen.append(event["kind"])
        if event["kind"] == "tool_call":
            raise RuntimeError("logged, not fatal")

    @tool
    async def t1() -> int:
        return 1

    result = bounded(create_agent(model=script([call("t1")]), tools=[t1]).run("go", on_event=on_event))
    assert result.output == "done"
    # Every event was awaited before the run returned, in emission order.
    assert seen[0] == "run_start" and seen[-1] == "run_complete"
    assert seen.index("tool_call") < seen.index("tool_return")


# -- 3. strict encoding -------------------------------------------------------


def test_nan_from_function_model_fails_the_run_with_a_reason() -> None:
    def respond(messages: list[dict[str, Any]], info: dict[str, Any]) -> Any:
        return {"tool_calls": [{"id": "c", "name": "t", "arguments": {"x": math.nan}}]}

    with pytest.raises(ModelError, match="JSON"):
        bounded(create_agent(model=FunctionModel(respond)).run("go"))


def test_nan_from_preprocessor_fails_that_call() -> None:
    t = deploy.replace()

    @t.user_input_preprocessor
    async def nan_metadata(ctx: ToolContext, user_input: Any) -> dict[str, Any]:
        return {"metadata": {"score": math.inf}}

    ret = resume_with_input(t)
    assert ret["content"]["kind"] == "user_error" and "JSON" in ret["content"]["message"]


# -- 4. arguments the host cannot decode --------------------------------------


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


class _Unlimited:
    """Lets this test build (and read back) an integer that Python's default
    refuses to convert: the run itself goes on with the default."""

    def __enter__(self) -> None:
        self.digits = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)

    def __exit__(self, *exc: object) -> None:
        sys.set_int_max_str_digits(self.digits)


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [({"x": _nested(500)}, "nest deeper"), ({"x": 10**5000}, "number longer")],
    ids=["deep", "huge-integer"],
)
def test_undecodable_arguments_are_refused_before_python(arguments: dict[str, Any], reason: str) -> None:
    ran: list[Any] = []

    @tool(parameters_schema={"type": "object"})
    async def take(args: dict[str, Any]) -> str:
        ran.append(args)
        return "ran"

    with _Unlimited():
        model = script([{"id": "c", "name": "take", "arguments": arguments}])
    result = bounded(create_agent(model=model, tools=[take]).run("go"))
    assert result.output == "done"
    assert not ran
    with _Unlimited():
        (ret,) = result.tool_returns()
    assert ret["content"]["kind"] == "invalid_arguments" and reason in ret["content"]["message"]


def test_reader_survives_a_malformed_item(caplog: pytest.LogCaptureFixture) -> None:
    """A line the reader cannot decode fails only its own call (an event is
    reported and skipped): fed straight into a driver's pipe, next to a good
    call."""
    from starweaver._bridge import RunDriver

    @tool
    async def ok() -> str:
        return "ok"

    events: list[Any] = []

    async def main() -> list[bytes]:
        loop = asyncio.get_running_loop()
        items_r, items_w = os.pipe()
        done_r, done_w = os.pipe()
        os.set_blocking(items_r, False)
        os.set_blocking(done_w, False)
        driver = RunDriver(loop, 10**12, items_r, done_w, {1: ok}, {}, None, events.append)
        deep = b"[" * 5000 + b"]" * 5000  # deeper than Python's reader recurses
        os.write(
            items_w,
            b'[7,1,{"x":' + deep + b"}]\n"
            b'{"kind":"event","event":{"kind":"tool_call","x":' + deep + b"}}\n"
            b'{"kind":"event","event":{"kind":"custom"}}\n'
            b"[8,1,{}]\n",
        )
        got = b""
        while got.count(b"\n") < 2:
            await asyncio.sleep(0.01)
            with contextlib.suppress(BlockingIOError):
                got += os.read(done_r, 1 << 16)
        os.write(items_w, b'{"kind":"done","result":{},"error":null}\n')
        await asyncio.wait_for(driver.closed, BOUND)
        for fd in (items_r, items_w, done_r, done_w):
            os.close(fd)
        return sorted(got.strip().split(b"\n"))

    with caplog.at_level(logging.ERROR, logger="starweaver"):
        lines = bounded(main())
    assert lines[0].startswith(b'[7,{"ok":false,"kind":"user_error","message":"malformed item')
    assert lines[1] == b'[8,{"ok":true,"content":"ok"}]'
    assert events == [{"kind": "custom"}]
    assert any("event could not be read" in r.getMessage() for r in caplog.records)


# -- 6. the sync pool ---------------------------------------------------------


def test_sync_tools_that_ignore_their_timeout_do_not_starve_later_calls() -> None:
    """With two workers, four sync tools that outlive their timeout would
    leave no worker for the fifth call."""
    proc = run_script(
        """
        import asyncio, threading
        from starweaver import create_agent, tool
        from starweaver.testing import TestModel

        release = threading.Event()

        @tool(timeout_ms=50, max_retries=0)
        def stuck(i: int) -> str:
            release.wait(60)  # ignores cancellation
            return "late"

        @tool
        def quick() -> str:
            return "quick ran"

        calls = [{"id": f"s{i}", "name": "stuck", "arguments": {"i": i}} for i in range(4)]
        model = TestModel.responses([
            TestModel.tool_call_response(calls),
            TestModel.tool_call_response([{"id": "q", "name": "quick", "arguments": {}}]),
            "done",
        ])
        result = asyncio.run(create_agent(model=model, tools=[stuck, quick]).run("go"))
        quick_ret = [r for r in result.tool_returns() if r["name"] == "quick"][0]
        print(quick_ret["content"])
        release.set()
        """,
        env={**os.environ, "STARWEAVER_SYNC_WORKERS": "2"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "quick ran"
    assert "ignored their timeout or cancellation" in proc.stderr


def test_nested_runs_from_sync_tools_do_not_deadlock() -> None:
    proc = run_script(
        """
        import asyncio
        from starweaver import create_agent, tool
        from starweaver.testing import TestModel

        DEPTH = 6

        def agent_at(depth):
            @tool
            def descend() -> str:
                if depth == DEPTH:
                    return "bottom"
                inner = agent_at(depth + 1)
                return asyncio.run(inner.run("go")).output

            model = TestModel.responses([
                TestModel.tool_call_response([{"id": "d", "name": "descend", "arguments": {}}]),
                f"level {depth}",
            ])
            return create_agent(model=model, tools=[descend])

        print(asyncio.run(agent_at(0).run("go")).output)
        """,
        env={**os.environ, "STARWEAVER_SYNC_WORKERS": "2"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "level 0"


# -- 7. exit while a sync tool blocks -----------------------------------------

_BLOCKED_RUN = """
import asyncio, signal, sys, threading
# Ctrl-C as at a terminal: a process started in the background of a
# non-interactive shell (as CI may start the tests) inherits SIGINT ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)
from starweaver import create_agent, tool
from starweaver.testing import TestModel

started = threading.Event()

@tool
def stuck() -> str:
    started.set()
    threading.Event().wait()  # ignores cancellation, forever
    return "never"

async def main():
    model = TestModel.responses([TestModel.tool_call_response([{"id": "s", "name": "stuck", "arguments": {}}]), "x"])
    task = asyncio.ensure_future(create_agent(model=model, tools=[stuck]).run("go"))
    while not started.is_set():
        await asyncio.sleep(0.01)
    print("started", flush=True)
    ACTION
    await task

asyncio.run(main())
"""


def test_sys_exit_does_not_wait_for_a_blocked_sync_tool() -> None:
    proc = run_script(_BLOCKED_RUN.replace("ACTION", "sys.exit(3)"))
    assert proc.returncode == 3, proc.stderr


def test_ctrl_c_does_not_wait_for_a_blocked_sync_tool() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _BLOCKED_RUN.replace("ACTION", "")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "started"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=BOUND)
    finally:
        proc.kill()
    assert proc.returncode != 0
    assert "KeyboardInterrupt" in err


# -- 8. cancellation does not wait for user code ------------------------------


def test_cancelling_a_run_does_not_wait_for_a_blocked_model_callback() -> None:
    """A sync FunctionModel callback runs off the loop, so cancelling the run
    returns while the callback is still blocked."""
    release = threading.Event()
    entered = threading.Event()

    def respond(messages: list[dict[str, Any]], info: dict[str, Any]) -> str:
        entered.set()
        release.wait(BOUND)
        return "late"

    agent = create_agent(model=FunctionModel(respond))

    async def main() -> bool:
        task = asyncio.ensure_future(agent.run("go"))
        while not entered.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, BOUND)
        return release.is_set()

    try:
        assert bounded(main()) is False  # returned before the callback was released
    finally:
        release.set()


def test_cancelling_a_run_does_not_wait_for_a_stubborn_async_tool() -> None:
    release = asyncio.Event()
    entered = asyncio.Event()

    @tool
    async def stubborn() -> str:
        entered.set()
        while not release.is_set():
            try:
                await release.wait()
            except asyncio.CancelledError:
                continue  # ignores cancellation
        return "late"

    agent = create_agent(model=script([call("stubborn")]), tools=[stubborn])

    async def main() -> bool:
        task = asyncio.ensure_future(agent.run("go"))
        await entered.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        was_released = release.is_set()
        release.set()
        return was_released

    assert bounded(main()) is False


# -- 9. a loop closed under a pending run -------------------------------------


def test_loop_closed_while_a_run_is_pending_frees_the_session() -> None:
    entered = threading.Event()

    @tool
    async def forever() -> str:
        entered.set()
        await asyncio.Event().wait()
        return "never"

    model = TestModel.responses([TestModel.tool_call_response([call("forever")]), "first", "second"])
    agent = create_agent(model=model, tools=[forever])
    session = agent.session()
    gc.collect()
    before = _capi.handle_count()

    loop = asyncio.new_event_loop()
    task = loop.create_task(session.run("go"))
    while not entered.is_set():
        loop.run_until_complete(asyncio.sleep(0.01))
    loop.close()
    del task, loop
    gc.collect()

    # The abandoned run was cancelled: the session takes a new run.
    assert bounded(session.run("again")).output in ("first", "second")
    gc.collect()
    assert _capi.handle_count() <= before


# -- 14. large results --------------------------------------------------------


def test_a_100_mb_result_from_an_async_tool() -> None:
    size = 100 * 1024 * 1024

    @tool
    async def big() -> str:
        return "x" * size

    # The default output limit (8 MiB) would refuse it: lift it to carry
    # the whole result across the bridge.
    agent = create_agent(model=script([call("big")]), tools=[big], max_tool_output_bytes=2 * size)
    result = bounded(agent.run("go"))
    (ret,) = result.tool_returns()
    assert len(ret["content"]) == size


def test_native_error_type_for_bridge_failures() -> None:
    err = _capi.error_from({"type": "bridge", "message": "the host sent an unreadable completion line"})
    assert isinstance(err, NativeError) and err.type == "bridge"
