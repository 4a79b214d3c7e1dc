"""A worker process of the intent crash test (test_intents.py).

Run as a script it starts one run of the agent below over a store (SQLite
file or PostgreSQL DSN) that is its session store, effect journal and
intent journal. Its tool declares intents; once the call's attempt is
committed and its intents drained (the model's second request is under
way), it prints the intent outcomes the model's request carried, then
``ready <session id>``, and waits there to be killed with SIGKILL:

    python intent_worker.py sqlite|postgres LOCATION
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

from starweaver import FunctionModel, create_agent, tool
from starweaver.agent import Agent
from starweaver.intents import Done, EmitTrigger, StartProcess
from starweaver.messages import ModelMessage
from starweaver.stores import PostgresStore, SqliteStore, Store

STATE_KEY = "intent journal test key"
#: How long a worker waits to be killed before it gives up on its own.
KILL_WAIT = 60.0


def queue_tool(ran: Any = None) -> Any:
    """``queue(report)``: declares a process start and a trigger."""

    @tool(effect="read_only")
    def queue(report: str) -> Any:
        """Queue a report."""
        if ran is not None:
            ran()
        return Done(
            {"queued": report},
            intents=[
                StartProcess(originator="report", input={"report": report}),
                EmitTrigger("report_queued", idempotency_key=f"report-{report}"),
            ],
        )

    return queue


def agent(store: Store, script: Any, ran: Any = None) -> Agent:
    return create_agent(
        model=FunctionModel(script),
        tools=[queue_tool(ran)],
        session_store=store,
        effect_journal=store,
        intent_journal=store,
        state_key=STATE_KEY,
    )


def outcomes_in(messages: list[ModelMessage]) -> list[Any]:
    for m in messages:
        for p in m["parts"]:
            if p["kind"] == "tool_return" and p["tool_call_id"] == "call_queue":
                return list(p["metadata"]["starweaver_intents"])
    raise AssertionError("no return of call_queue")


async def work(store: Store) -> None:
    session_id = ""
    requests = 0

    def script(messages: list[ModelMessage], info: Any) -> Any:
        nonlocal requests
        requests += 1
        if requests == 1:
            return {"tool_calls": [{"id": "call_queue", "name": "queue", "arguments": {"report": "q1"}}]}
        print("outcomes " + json.dumps(outcomes_in(messages), sort_keys=True), flush=True)
        print(f"ready {session_id}", flush=True)
        time.sleep(KILL_WAIT)
        return "the worker was not killed"

    session = agent(store, script).session()
    session_id = session.id
    await session.run("queue q1")
    sys.exit("the worker was not killed")


def main() -> None:
    kind, location = sys.argv[1:3]
    store: Store = SqliteStore(location) if kind == "sqlite" else PostgresStore(location)
    with store:
        asyncio.run(work(store))


if __name__ == "__main__":
    main()
