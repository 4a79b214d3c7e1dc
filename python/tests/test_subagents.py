"""Child-agent routes: create_agent(subagents=[...]) and the spawn_agent
tool that starts them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starweaver import FunctionModel, StarweaverError, create_agent, tool
from starweaver.messages import ModelMessage
from starweaver.testing import TestModel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def spawn(call_id: str, agent: str, prompt: str) -> dict[str, Any]:
    return {"id": call_id, "name": "spawn_agent", "arguments": {"agent": agent, "prompt": prompt}}


def echo(name: str) -> FunctionModel:
    def answer(messages: list[ModelMessage], info: Any) -> Any:
        prompt = messages[-1]["parts"][0]["content"][0]["text"]
        return f"{name} did {prompt}"

    return FunctionModel(answer)


def test_spawns_run_their_routes_and_return_each_answer() -> None:
    researcher = create_agent(model=echo("researcher"), name="researcher")
    writer = create_agent(model=echo("writer"), name="writer")
    model = TestModel.responses(
        [TestModel.tool_call_response([spawn("s1", "researcher", "look"), spawn("s2", "scribe", "write")]), "done"]
    )
    lead = create_agent(
        model=model, subagents=[researcher, writer.as_tool(name="scribe", description="Writes.")], spawn_concurrency=2
    )
    result = run(lead.run("go"))
    assert result.output == "done"
    returns = {
        p["tool_call_id"]: p["content"]
        for m in model.captured_messages()[-1]
        for p in m.get("parts", [])
        if p["kind"] == "tool_return"
    }
    assert returns == {"s1": "researcher did look", "s2": "writer did write"}
    assert sorted(result.usage_by_agent) == ["", "researcher", "writer"]
    (offered,) = [t for t in model.captured_params()[0]["tools"] if t["name"] == "spawn_agent"]
    assert offered["parameters"]["properties"]["agent"]["enum"] == ["researcher", "scribe"]
    assert "scribe: Writes." in offered["description"]


def test_a_route_grant_narrows_the_child() -> None:
    wrote: list[str] = []

    @tool
    def write(text: str) -> str:
        """Write."""
        wrote.append(text)
        return "written"

    @tool
    def read() -> str:
        """Read."""
        return "read"

    worker = create_agent(
        model=TestModel.responses(
            [TestModel.tool_call_response([{"id": "w", "name": "write", "arguments": {"text": "x"}}]), "tried"]
        ),
        name="worker",
        tools=[read, write],
    )
    lead = create_agent(
        model=TestModel.responses([TestModel.tool_call_response([spawn("s", "worker", "go")]), "done"]),
        subagents=[worker.as_tool(grants=["read"])],
    )
    assert run(lead.run("go")).output == "done"
    assert wrote == []


def test_collisions_are_refused_when_the_agent_is_made() -> None:
    worker = create_agent(model=TestModel("ok"), name="worker")

    @tool
    def noop() -> str:
        """Nothing."""
        return ""

    with pytest.raises(StarweaverError, match="like a subagent"):
        create_agent(model=TestModel("x"), tools=[worker.as_tool(name="noop")], subagents=[worker.as_tool(name="noop")])
    with pytest.raises(StarweaverError, match="two subagents"):
        create_agent(model=TestModel("x"), subagents=[worker, worker])
    with pytest.raises(TypeError, match="subagents take agents"):
        create_agent(model=TestModel("x"), subagents=[noop])  # type: ignore[list-item]


def test_a_spawned_child_waiting_for_approval_pauses_the_run() -> None:
    paid: list[int] = []

    @tool
    def pay(amount: int) -> str:
        """Pay."""
        paid.append(amount)
        return "paid"

    cashier = create_agent(
        model=TestModel.responses(
            [TestModel.tool_call_response([{"id": "p", "name": "pay", "arguments": {"amount": 3}}]), "cashier done"]
        ),
        name="cashier",
        tools=[pay],
        approval_required_tools=["pay"],
    )
    lead = create_agent(
        model=TestModel.responses([TestModel.tool_call_response([spawn("s", "cashier", "pay 3")]), "done"]),
        subagents=[cashier],
    )

    async def main() -> None:
        session = lead.session()
        result = await session.run("go")
        (asked,) = result.approvals
        assert asked.path == ("cashier",) and asked.parent_tool_call_id == "s"
        result = await session.resume_after_hitl(approvals=[asked.approve()])
        assert result.output == "done" and paid == [3]

    run(main())
