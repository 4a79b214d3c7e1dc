"""Agents calling agents inside a workflow: a call of an agent tool or of
spawn_agent runs the child agent as a Temporal child workflow, made of the
child's own activities; its answer is the call's return and its usage the
parent's, as locally; a failing child is an error return."""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from datetime import timedelta
from typing import Any

import pytest

if os.environ.get("STARWEAVER_REQUIRE_TEMPORAL") != "1":
    pytest.importorskip("temporalio")

from starweaver import ApprovalRequired, ToolContext, create_agent, tool
from starweaver.messages import ModelMessage, ModelRequest, ToolReturnPart
from starweaver.temporal import AgentPlugin, AgentRunOutcome, AgentWorkflowInput, StarweaverPlugin, TemporalAgent
from starweaver.testing import FunctionModel
from temporal_shop import decide, double
from temporal_support import ADDRESS, queue
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHistory
from temporalio.worker import Replayer, Worker

pytestmark = [pytest.mark.keeps_handles, pytest.mark.usefixtures("temporal_server")]


def _down(messages: list[ModelMessage], info: dict[str, Any]) -> Any:
    raise ValueError("the model is down")


def _boss(messages: list[ModelMessage], info: dict[str, Any]) -> Any:
    returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if returns:
        return "; ".join(f"{r.name}={json.dumps(r.content)}" for r in returns)
    calls = [
        {"id": "c1", "name": "research", "arguments": {"prompt": "n=4"}},
        {"id": "c2", "name": "spawn_agent", "arguments": {"agent": "flaky", "prompt": "hi"}},
    ]
    return {"tool_calls": calls}


researcher = create_agent(model=FunctionModel(decide), tools=[double], name="researcher")
flaky = create_agent(model=FunctionModel(_down), name="flaky")
boss_agent = create_agent(
    model=FunctionModel(_boss),
    tools=[researcher.as_tool(name="research", description="Research a question")],
    subagents=[flaky],
    name="boss",
)
boss = TemporalAgent(boss_agent, name="boss")


@tool
def deploy(ctx: ToolContext) -> str:
    if ctx.approval is None:
        raise ApprovalRequired("deploy production")
    return "deployed"


def _relay(tool_name: str, prompt: str) -> Any:
    """A model that calls tool_name with prompt, then answers with the
    return."""

    def respond(messages: list[ModelMessage], info: dict[str, Any]) -> Any:
        returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
        if returns:
            return f"{returns[-1].name}={returns[-1].content}"
        return {"tool_calls": [{"id": "c1", "name": tool_name, "arguments": {"prompt": prompt} if prompt else {}}]}

    return FunctionModel(respond)


deployer = create_agent(model=_relay("deploy", ""), tools=[deploy], name="deployer")
middle = create_agent(model=_relay("ops", "deploy"), tools=[deployer.as_tool(name="ops")], name="middle")
lead = TemporalAgent(
    create_agent(model=_relay("deep", "go"), tools=[middle.as_tool(name="deep")], name="lead"), name="lead"
)


def test_the_plugin_finds_the_children() -> None:
    assert [c.name for c in boss.children()] == ["researcher", "flaky"]


def test_an_agent_tool_runs_as_a_child_workflow() -> None:
    async def main() -> tuple[AgentRunOutcome, WorkflowHistory, WorkflowHistory]:
        client = await Client.connect(ADDRESS, plugins=[StarweaverPlugin()])
        tq = queue()
        async with Worker(client, task_queue=tq, plugins=[AgentPlugin(boss)]):
            h = await client.start_workflow(
                "boss.run",
                AgentWorkflowInput("go"),
                id=f"boss-{uuid.uuid4()}",
                task_queue=tq,
                result_type=AgentRunOutcome,
                execution_timeout=timedelta(minutes=2),
            )
            out = await asyncio.wait_for(h.result(), 60)
            history = await h.fetch_history()
            children = {
                e.start_child_workflow_execution_initiated_event_attributes.workflow_type.name: (
                    e.start_child_workflow_execution_initiated_event_attributes.workflow_id
                )
                for e in history.events
                if e.event_type == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED
            }
            assert set(children) == {"researcher.child", "flaky.child"}, children
            assert children["researcher.child"].startswith(h.id + "/") and children["researcher.child"].endswith("/c1")
            child_history = await client.get_workflow_handle(children["researcher.child"]).fetch_history()
            return out, history, child_history

    out, history, child_history = asyncio.run(main())
    local = boss_agent.run_sync("go")
    # The child's answer and the failing child's error return, as locally.
    assert out.status == "completed"
    research, spawn = out.output.split("; spawn_agent=")
    local_research, local_spawn = local.output.split("; spawn_agent=")
    assert research == local_research == 'research="8"', out.output
    # The failure's words went through the model activity (which names
    # the error's type), the rest of the error return is the local one.
    got, want = json.loads(spawn), json.loads(local_spawn)
    assert got["message"].startswith('agent "flaky" failed: ') and "the model is down" in got["message"], got
    assert {k: v for k, v in got.items() if k not in ("message", "error")} == {
        k: v for k, v in want.items() if k not in ("message", "error")
    }
    # The children's usage is the parent's, as locally.
    assert out.usage == dict(local.usage), (out.usage, dict(local.usage))
    assert out.usage["requests"] >= 4, out.usage  # the boss's two and the researcher's two
    by_agent = {name: dict(u) for name, u in local.usage_by_agent.items()}
    assert out.usage_by_agent == by_agent and set(by_agent) >= {"boss", "researcher"}, out.usage_by_agent
    # The parent ran no tool activity; the researcher's call ran in its own.
    scheduled = [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert set(scheduled) == {"boss.model"}, scheduled
    child_scheduled = [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in child_history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert "researcher.tool" in child_scheduled and "researcher.model" in child_scheduled, child_scheduled

    async def replay() -> None:
        await Replayer(workflows=[], plugins=[StarweaverPlugin(), AgentPlugin(boss)]).replay_workflow(history)

    asyncio.run(replay())


def test_a_grandchilds_approval_reaches_it_through_the_parent() -> None:
    async def main() -> tuple[list[dict[str, Any]], AgentRunOutcome, WorkflowHistory]:
        client = await Client.connect(ADDRESS, plugins=[StarweaverPlugin()])
        tq = queue()
        async with Worker(client, task_queue=tq, plugins=[AgentPlugin(lead)]):
            h = await client.start_workflow(
                "lead.run",
                AgentWorkflowInput("go"),
                id=f"lead-{uuid.uuid4()}",
                task_queue=tq,
                result_type=AgentRunOutcome,
                execution_timeout=timedelta(minutes=2),
            )
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 30
            while not (pending := await h.query("pending")):
                assert loop.time() < deadline, "the grandchild's approval never reached the lead"
                await asyncio.sleep(0.05)
            assert await h.execute_update("approve", pending[0]["id"]) == 0
            out = await asyncio.wait_for(h.result(), 60)
            return pending, out, await h.fetch_history()

    pending, out, history = asyncio.run(main())
    (item,) = pending
    assert item["tool_name"] == "deploy" and item["path"] == ["middle", "deployer"], item
    assert item["parent_tool_call_id"] == "c1", item
    assert out.status == "completed" and out.output == "deep=ops=deploy=deployed", out.output

    async def replay() -> None:
        await Replayer(workflows=[], plugins=[StarweaverPlugin(), AgentPlugin(lead)]).replay_workflow(history)

    asyncio.run(replay())
