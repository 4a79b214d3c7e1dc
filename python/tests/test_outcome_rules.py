"""The one rule for what user code's exceptions become (``_outcome``) and
the protocol the run driver uses to run a tool (``Tool._runner``)."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest
from conftest import make_ctx
from starweaver import ToolContext, tool
from starweaver._outcome import escapes, outcome_of_failure


def test_pass_through_escapes_everywhere() -> None:
    for exc in (KeyboardInterrupt(), SystemExit(3)):
        assert escapes(exc, on_loop=False)
        with pytest.raises(type(exc)):
            outcome_of_failure(exc, on_loop=False, timeout_ms=None)


def test_in_a_thread_cancellation_and_generator_exit_are_failures() -> None:
    assert not escapes(asyncio.CancelledError(), on_loop=False)
    assert not escapes(GeneratorExit(), on_loop=False)
    assert outcome_of_failure(asyncio.CancelledError(), on_loop=False, timeout_ms=None)["kind"] == "cancelled"
    assert outcome_of_failure(ValueError("x"), on_loop=False, timeout_ms=None)["ok"] is False


def test_on_the_loop_only_an_outside_cancellation_escapes() -> None:
    seen: dict[str, bool] = {}

    async def own() -> None:
        seen["own"] = escapes(asyncio.CancelledError(), on_loop=True)
        seen["genexit"] = escapes(GeneratorExit(), on_loop=True)

    async def outside() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError as exc:
            seen["outside"] = escapes(exc, on_loop=True)
            raise

    async def main() -> None:
        await own()
        task = asyncio.create_task(outside())
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert seen == {"own": False, "genexit": False, "outside": True}


@tool
async def plain(n: int) -> int:
    return n + 1


@tool
def blocking(n: int) -> int:
    return n * 2


@tool
async def with_ctx(ctx: ToolContext, n: int) -> int:
    return n


def test_runner_says_how_to_run_a_call() -> None:
    run = plain._runner(None, {"n": 1})
    assert inspect.iscoroutine(run)
    assert asyncio.run(run)["content"] == 2

    run = with_ctx._runner(make_ctx(), {"n": 4})
    assert inspect.iscoroutine(run)
    assert asyncio.run(run)["content"] == 4

    run = blocking._runner(None, {"n": 3})
    assert callable(run) and not inspect.iscoroutine(run)
    assert run()["content"] == 6


def test_preprocessor_runner_follows_the_preprocessor() -> None:
    @tool
    def t1(n: int) -> int:
        return n

    @t1.user_input_preprocessor
    def sync_pre(ctx: Any, user_input: Any) -> dict[str, Any]:
        return {"override_arguments": {"n": user_input}}

    run = t1._preprocessor_runner(make_ctx(), 5)
    assert callable(run) and not inspect.iscoroutine(run)
    assert run() == {"ok": True, "override_arguments": {"n": 5}}

    @tool
    def t2(n: int) -> int:
        return n

    @t2.user_input_preprocessor
    async def async_pre(ctx: Any, user_input: Any) -> dict[str, Any]:
        return {"metadata": {"m": user_input}}

    run = t2._preprocessor_runner(make_ctx(), 7)
    assert inspect.iscoroutine(run)
    assert asyncio.run(run) == {"ok": True, "metadata": {"m": 7}}


def test_tool_options_are_declared_once() -> None:
    from starweaver import Hook, Tool
    from starweaver.tools import ToolOptions

    def f(n: int) -> int:
        return n

    # Every declared option is accepted by Tool and replace; others are refused.
    assert "timeout_ms" in ToolOptions.__annotations__
    with pytest.raises(TypeError, match="unknown Tool option"):
        Tool(f, nosuch=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unknown Tool option"):
        Tool(f).replace(nosuch=1)  # type: ignore[call-arg]
    hook = Hook(before_call=lambda ctx, args: None)
    t = Tool(f, name="f1", timeout_ms=5).replace(hooks=[hook], sequential=True)
    assert (t.name, t.timeout_ms, t.sequential, t.hooks) == ("f1", 5, True, (hook,))
    assert tool(name="f2", max_retries=2)(f).max_retries == 2


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("max_retries", -1, r"max.retries must not be negative"),
        ("timeout_ms", 0, r"timeout(_ms)? must be positive"),
    ],
)
def test_tool_ranges_are_checked_once_by_the_runtime(option: str, value: int, message: str) -> None:
    from starweaver import Tool, create_agent
    from starweaver.testing import TestModel

    def f(n: int) -> int:
        return n

    t = Tool(f, **{option: value})  # type: ignore[arg-type]  # Python checks only the type
    with pytest.raises(ValueError, match=message):
        create_agent(model=TestModel("ok"), tools=[t])
    with pytest.raises(TypeError, match=f"{option} must be an int or None"):
        Tool(f, **{option: "1"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("max_retries", -1, r"toolset \"ts\": .*max_retries must not be negative, got -1"),
        ("timeout_ms", 0, r"toolset \"ts\": .*timeout(_ms)? must be positive"),
    ],
)
def test_toolset_ranges_are_checked_once_by_the_runtime(option: str, value: int, message: str) -> None:
    from starweaver import Toolset, create_agent
    from starweaver.testing import TestModel

    ts = Toolset("ts", **{option: value})  # type: ignore[arg-type]  # Python checks only the type
    with pytest.raises(ValueError, match=message):
        create_agent(model=TestModel("ok"), toolsets=[ts])
    with pytest.raises(TypeError, match=f"{option} must be an int or None"):
        Toolset("ts", **{option: 1.5})  # type: ignore[arg-type]


def test_base_tool_takes_the_definition_options() -> None:
    from starweaver import BaseTool

    class Echo(BaseTool):
        def call(self, ctx: ToolContext, args: dict[str, Any]) -> Any:
            return args

    t = Echo(name="e", timeout_ms=7, sequential=True).to_tool()
    assert (t.name, t.timeout_ms, t.sequential) == ("e", 7, True)
    with pytest.raises(TypeError, match="unknown BaseTool option"):
        Echo(hooks=())  # type: ignore[call-arg]
