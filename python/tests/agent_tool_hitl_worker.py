"""A process of the cross-process test of children that wait
(test_agent_tool_hitl.py).

    python agent_tool_hitl_worker.py start DB COUNT_FILE
    python agent_tool_hitl_worker.py resume DB COUNT_FILE SESSION_ID

``start`` runs the front agent, whose child agent "cashier" needs approval
to pay, until the run waits, and prints ``{"session_id", "status",
"pending"}``; ``resume`` opens the session from the SQLite store, approves
what it waits for, and prints ``{"status", "output", "requests"}``. Each
payment appends a line to COUNT_FILE, so the processes count together.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from starweaver import Agent, FunctionModel, create_agent, tool
from starweaver.messages import ModelMessage
from starweaver.stores import SqliteSessionStore


def last_return(messages: list[ModelMessage]) -> str | None:
    for p in messages[-1]["parts"]:
        if p["kind"] == "tool_return":
            return str(p.get("content"))
    return None


def cashier_model(messages: list[ModelMessage], info: Any) -> Any:
    ret = last_return(messages)
    if ret is not None:
        return f"cashier: {ret}"
    return {"tool_calls": [{"id": "call_pay", "name": "pay", "arguments": {"amount": 5}}]}


def front_model(messages: list[ModelMessage], info: Any) -> Any:
    ret = last_return(messages)
    if ret is not None:
        return f"front: {ret}"
    return {"tool_calls": [{"id": "call_cashier", "name": "cashier", "arguments": {"prompt": "pay 5"}}]}


def build(store: SqliteSessionStore, count_file: str) -> Agent[Any, str]:
    @tool
    def pay(amount: int) -> str:
        """Pay an amount."""
        with open(count_file, "a") as f:
            f.write(f"{os.getpid()} {amount}\n")
        return f"paid {amount}"

    cashier = create_agent(
        model=FunctionModel(cashier_model),
        name="cashier",
        tools=[pay],
        approval_required_tools=["pay"],
        state_key="cashier key",
    )
    return create_agent(
        model=FunctionModel(front_model),
        name="front",
        tools=[cashier.as_tool(description="Pays.")],
        session_store=store,
        state_key="front key",
    )


async def main(phase: str, db: str, count_file: str, session_id: str | None) -> dict[str, Any]:
    with SqliteSessionStore(db) as store:
        agent = build(store, count_file)
        if phase == "start":
            session = agent.session()
            result = await session.run("pay the bill")
            return {
                "session_id": session.id,
                "status": result.status,
                "pending": [
                    {"id": a.id, "tool_name": a.tool_name, "path": list(a.path), "parent": a.parent_tool_call_id}
                    for a in result.approvals
                ],
            }
        assert session_id is not None
        session = await agent.open_session(session_id)
        waiting = await session.hitl.snapshot()
        result = await session.resume_after_hitl(approvals=[a.approve() for a in waiting.approvals])
        return {"status": result.status, "output": result.output, "requests": result.usage.requests}


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(asyncio.run(main(args[0], args[1], args[2], args[3] if len(args) > 3 else None))), flush=True)
