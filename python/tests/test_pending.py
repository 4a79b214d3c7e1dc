"""A tool declared ``attempt_may_defer`` returns ``Pending``: the run waits
under the completion key reserved for the call, and the host completes it
by that key (core/tool and core/agent test the rules; these check that
Python reaches them)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from starweaver import ToolContext, create_agent, tool
from starweaver.intents import Pending
from starweaver.testing import TestModel

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(coro, 30)

    return asyncio.run(bounded())


def rendering() -> TestModel:
    return TestModel.responses(
        [TestModel.tool_call_response([{"id": "r1", "name": "render", "arguments": {"scene": "intro"}}]), "rendered"]
    )


def returns(result: Any) -> list[Any]:
    return [p for m in result.messages for p in m.parts if p.kind == "tool_return"]


def test_pending_waits_and_completes_by_its_key() -> None:
    handed_on: list[str | None] = []

    @tool(attempt_may_defer=True)
    def render(ctx: ToolContext, scene: str) -> Pending:
        handed_on.append(ctx.completion_key)  # the render farm gets the key
        return Pending("queued on the farm", on_cancel="cancel_external_work")

    async def main() -> None:
        session = create_agent(model=rendering(), tools=[render]).session()
        waiting = await session.run("render the intro")
        assert waiting.status == "waiting"
        (job,) = waiting.hitl.deferred
        key = job.completion_key
        assert key is not None and key.startswith("tool-completion:v1:sha256:") and handed_on == [key]
        assert job.metadata["starweaver_pending"] == {"on_cancel": "cancel_external_work"}
        # Later, the farm's callback completes the call by its key.
        result = await session.hitl.resume(deferred_results={key: {"status": "completed", "response": "intro.mp4"}})
        assert result.output == "rendered"
        (ret,) = returns(result)
        assert ret.content == "intro.mp4"

    run(main())


def test_only_declared_tools_get_a_key() -> None:
    keys: list[str | None] = []

    @tool
    def render(ctx: ToolContext, scene: str) -> str:
        keys.append(ctx.completion_key)
        return "done"

    run(create_agent(model=rendering(), tools=[render]).run("go"))
    assert keys == [None]


def test_pending_from_an_undeclared_tool_is_a_clear_error() -> None:
    @tool
    def render(scene: str) -> Pending:
        return Pending("later")

    result = run(create_agent(model=rendering(), tools=[render]).run("go"))
    (ret,) = returns(result)
    assert result.status == "completed" and ret.content["kind"] == "user_error"
    assert "does not declare attempt_may_defer" in ret.content["message"]


def test_pending_values_are_checked() -> None:
    with pytest.raises(TypeError, match="deadline_ms must be an int"):
        Pending(deadline_ms="soon")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="attempt_may_defer must be a bool"):
        tool(lambda: None, attempt_may_defer="yes")  # type: ignore[call-overload]

    @tool(attempt_may_defer=True)
    def render(scene: str) -> Pending:
        return Pending(on_timeout="explode")  # type: ignore[arg-type]

    result = run(create_agent(model=rendering(), tools=[render]).run("go"))
    (ret,) = returns(result)
    assert ret.content["kind"] == "user_error" and "on_timeout" in ret.content["message"]
