"""``ctx.runtime``: the read-only ``ToolRuntimeSnapshot`` of the run's
limits, the tool's budgets and (Legacy tools only) the shell
configuration, which a tool gets instead of the whole agent context."""

from __future__ import annotations

import asyncio
from typing import Any

from helpers import call
from starweaver import ToolContext, ToolDependencies, tool
from starweaver.agent import create_agent
from starweaver.context import ToolRuntimeSnapshot
from starweaver.testing import TestModel
from starweaver.usage import UsageLimits

seen: dict[str, ToolRuntimeSnapshot] = {}
shell: dict[str, Any] = {}


@tool(max_retries=5, timeout_ms=2000)
def legacy(ctx: ToolContext) -> str:
    """A tool with the default profile."""
    seen["legacy"] = ctx.runtime
    shell["legacy"] = ctx.shell_environment
    return "ok"


@tool(dependencies=ToolDependencies.filtered(shell_environment=True))
async def filtered(ctx: ToolContext) -> str:
    """A filtered tool that asks for the shell environment."""
    seen["filtered"] = ctx.runtime
    shell["filtered"] = ctx.shell_environment
    return "ok"


def test_the_snapshot_by_profile() -> None:
    seen.clear()
    model = TestModel(responses=[TestModel.tool_call_response([call("legacy", "1"), call("filtered", "2")]), "done"])
    session = create_agent(
        model=model, tools=[legacy, filtered], usage_limits=UsageLimits(tool_calls_limit=9)
    ).session()
    session.context.set_shell_environment({"HOME": "/home/agent"})
    asyncio.run(session.run("go", usage_limits=UsageLimits(request_limit=4)))
    snap = seen["legacy"]
    assert dict(snap.limits) == {"request_limit": 4, "tool_calls_limit": 9}
    assert snap.max_retries == 5 and snap.timeout_ms == 2000
    assert snap.shell_environment is not None and dict(snap.shell_environment) == {"HOME": "/home/agent"}
    other = seen["filtered"]
    assert dict(other.limits) == {"request_limit": 4, "tool_calls_limit": 9}
    assert other.timeout_ms is None
    # Filtered: no shell values in the snapshot, only the dedicated view.
    assert other.shell_environment is None
    assert dict(shell["filtered"]) == {"HOME": "/home/agent"}


def test_the_default_request_limit_is_the_effective_one() -> None:
    seen.clear()
    model = TestModel(responses=[TestModel.tool_call_response([call("legacy", "1")]), "done"])
    asyncio.run(create_agent(model=model, tools=[legacy]).run("go"))
    assert dict(seen["legacy"].limits) == {"request_limit": 50}
    assert seen["legacy"].shell_environment is None
