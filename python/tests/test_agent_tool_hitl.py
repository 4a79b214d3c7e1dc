"""Children that wait for people: an agent tool's child run that needs an
approval or a deferred result makes the whole run wait, lists what it waits
for with the path of agents, and resumes where it stopped, in this process
or another."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from starweaver import FunctionModel, create_agent, tool
from starweaver.errors import CallDeferred
from starweaver.messages import ModelMessage

WORKER = str(Path(__file__).with_name("agent_tool_hitl_worker.py"))
#: How long one worker process may take.
WORKER_TIMEOUT = 120.0


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def last_return(messages: list[ModelMessage]) -> Any:
    for p in messages[-1]["parts"]:
        if p["kind"] == "tool_return":
            return p.get("content")
    return None


def relay(call_id: str, name: str) -> FunctionModel:
    """Calls tool ``name`` once, then answers with what it returned."""

    def answer(messages: list[ModelMessage], info: Any) -> Any:
        ret = last_return(messages)
        if ret is not None:
            return f"{name} said: {ret}"
        return {"tool_calls": [{"id": call_id, "name": name, "arguments": {"prompt": "go"}}]}

    return FunctionModel(answer)


def test_a_child_approval_pauses_the_parent_and_resumes_the_child() -> None:
    paid: list[int] = []

    @tool
    def pay(amount: int) -> str:
        """Pay."""
        paid.append(amount)
        return f"paid {amount}"

    def cashier_answer(messages: list[ModelMessage], info: Any) -> Any:
        ret = last_return(messages)
        if ret is not None:
            return f"cashier: {ret}"
        return {"tool_calls": [{"id": "p1", "name": "pay", "arguments": {"amount": 7}}]}

    cashier = create_agent(
        model=FunctionModel(cashier_answer), name="cashier", tools=[pay], approval_required_tools=["pay"]
    )
    front = create_agent(model=relay("c1", "cashier"), name="front", tools=[cashier.as_tool()])

    async def main() -> None:
        session = front.session()
        result = await session.run("pay")
        assert result.status == "waiting"
        (asked,) = result.approvals
        assert (asked.tool_name, asked.tool_call_id, asked.arguments) == ("pay", "p1", {"amount": 7})
        assert asked.path == ("cashier",) and asked.parent_tool_call_id == "c1"
        assert paid == []
        result = await session.resume_after_hitl(approvals=[asked.approve()])
        assert result.status == "completed"
        assert result.output == "cashier said: cashier: paid 7"
        assert paid == [7]
        assert result.usage.requests == 4

    run(main())


def test_a_grandchild_deferred_call_is_answered_through_two_levels() -> None:
    @tool
    def lookup() -> str:
        """Look it up later."""
        raise CallDeferred("a clerk looks it up")

    def leaf_answer(messages: list[ModelMessage], info: Any) -> Any:
        ret = last_return(messages)
        if ret is not None:
            return f"leaf: {ret}"
        return {"tool_calls": [{"id": "x", "name": "lookup", "arguments": {}}]}

    leaf = create_agent(model=FunctionModel(leaf_answer), name="leaf", tools=[lookup])
    mid = create_agent(model=relay("m1", "leaf"), name="mid", tools=[leaf.as_tool()])
    top = create_agent(model=relay("t1", "mid"), tools=[mid.as_tool()])

    async def main() -> None:
        session = top.session()
        result = await session.run("go")
        assert result.status == "waiting"
        (d,) = result.deferred
        assert d.tool_name == "lookup" and d.path == ("mid", "leaf") and d.parent_tool_call_id == "t1"
        result = await session.resume_after_hitl(deferred_results=[d.complete("42")])
        assert result.status == "completed"
        assert result.output == "mid said: leaf said: leaf: 42"

    run(main())


def test_a_child_waiting_resumes_in_another_process(tmp_path: Path) -> None:
    db, count = str(tmp_path / "sessions.db"), str(tmp_path / "paid.txt")

    def phase(*args: str) -> dict[str, Any]:
        proc = subprocess.run(
            [sys.executable, WORKER, *args], capture_output=True, text=True, timeout=WORKER_TIMEOUT, check=False
        )
        assert proc.returncode == 0, proc.stderr
        answer: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
        return answer

    started = phase("start", db, count)
    assert started["status"] == "waiting"
    assert started["pending"] == [
        {"id": started["pending"][0]["id"], "tool_name": "pay", "path": ["cashier"], "parent": "call_cashier"}
    ]
    assert not Path(count).exists()
    resumed = phase("resume", db, count, started["session_id"])
    assert resumed == {"status": "completed", "output": "front: cashier: paid 5", "requests": 4}
    assert len(Path(count).read_text().splitlines()) == 1
