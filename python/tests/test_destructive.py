"""A destructive tool goes through the agent's destructive policy: approval
by default, or what ``destructive_policy=`` says (core/tool and core/agent
test the rule; these check that Python reaches it)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from starweaver import ToolContext, create_agent, tool
from starweaver.testing import TestModel
from starweaver.tools import DestructivePolicy

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(coro, 30)

    return asyncio.run(bounded())


def dropping() -> TestModel:
    return TestModel.responses(
        [TestModel.tool_call_response([{"id": "d1", "name": "drop_table", "arguments": {"name": "users"}}]), "done"]
    )


def returns(result: Any) -> list[Any]:
    return [p for m in result.messages for p in m.parts if p.kind == "tool_return"]


def make_tool(dropped: list[str]) -> Any:
    @tool(effect="destructive")
    def drop_table(name: str) -> str:
        """Drop a table."""
        dropped.append(name)
        return f"dropped {name}"

    return drop_table


def test_destructive_call_waits_for_approval_by_default() -> None:
    dropped: list[str] = []

    async def main() -> None:
        session = create_agent(model=dropping(), tools=[make_tool(dropped)]).session()
        waiting = await session.run("drop users")
        assert waiting.status == "waiting" and dropped == []
        (approval,) = waiting.hitl.approvals
        assert approval.tool_name == "drop_table" and approval.metadata["destructive_policy"] == "approve"
        result = await session.hitl.resume(approvals=[approval.approve(decided_by="ops")])
        assert result.output == "done" and dropped == ["users"]

    run(main())


def test_destructive_denial_never_runs_the_call() -> None:
    dropped: list[str] = []

    async def main() -> None:
        session = create_agent(model=dropping(), tools=[make_tool(dropped)]).session()
        waiting = await session.run("drop users")
        result = await session.hitl.resume(approvals=[waiting.hitl.approvals[0].deny("keep it")])
        (ret,) = returns(result)
        assert dropped == [] and ret.content["kind"] == "approval_denied"

    run(main())


def test_allow_runs_it() -> None:
    dropped: list[str] = []
    result = run(create_agent(model=dropping(), tools=[make_tool(dropped)], destructive_policy="allow").run("go"))
    assert result.status == "completed" and dropped == ["users"]


def test_deny_gives_the_model_a_refusal() -> None:
    dropped: list[str] = []
    result = run(create_agent(model=dropping(), tools=[make_tool(dropped)], destructive_policy="deny").run("go"))
    (ret,) = returns(result)
    assert result.output == "done" and dropped == []
    assert ret.content["kind"] == "approval_denied" and "refuses destructive calls" in ret.content["message"]


def test_other_tools_are_untouched() -> None:
    @tool
    def look() -> str:
        return "seen"

    model = TestModel.responses([TestModel.tool_call_response([{"id": "l1", "name": "look", "arguments": {}}]), "ok"])
    assert run(create_agent(model=model, tools=[look], destructive_policy="deny").run("go")).output == "ok"


def test_policy_values_are_checked() -> None:
    with pytest.raises(TypeError, match="destructive_policy must be a str or a callable"):
        create_agent(model=dropping(), destructive_policy=1)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match='unknown destructive policy "sometimes"'):
        create_agent(model=dropping(), destructive_policy="sometimes")  # type: ignore[call-overload]


def test_a_callable_decides_each_call() -> None:
    dropped: list[str] = []
    asked: list[tuple[str, Any]] = []

    def policy(ctx: ToolContext, arguments: Any) -> DestructivePolicy:
        asked.append((ctx.tool_name, arguments))
        return "allow" if arguments["name"] == "scratch" else "deny"

    model = TestModel.responses(
        [
            TestModel.tool_call_response(
                [
                    {"id": "d1", "name": "drop_table", "arguments": {"name": "scratch"}},
                    {"id": "d2", "name": "drop_table", "arguments": {"name": "users"}},
                ]
            ),
            "done",
        ]
    )
    result = run(create_agent(model=model, tools=[make_tool(dropped)], destructive_policy=policy).run("go"))
    allowed, denied = returns(result)
    assert dropped == ["scratch"] and sorted(a[1]["name"] for a in asked) == ["scratch", "users"]
    assert asked[0][0] == "drop_table"
    assert allowed.content == "dropped scratch" and denied.content["kind"] == "approval_denied"


def test_a_callable_that_raises_asks_for_approval() -> None:
    dropped: list[str] = []

    def policy(ctx: ToolContext, arguments: Any) -> DestructivePolicy:
        raise RuntimeError("policy service down")

    waiting = run(create_agent(model=dropping(), tools=[make_tool(dropped)], destructive_policy=policy).run("go"))
    assert waiting.status == "waiting" and dropped == []
