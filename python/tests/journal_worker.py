"""A worker process of the effect-journal crash tests (test_journal.py).

Run as a script it starts one run of the agent below over a store (SQLite
file or PostgreSQL DSN) that is both its session store and its effect
journal, prints ``ready <session id>`` once it reached the point where the
test kills it with SIGKILL, and waits there:

    python journal_worker.py after_tool|in_tool sqlite|postgres LOCATION EFFECTS_FILE

``after_tool``: the tool ``send`` ran (appending a line to EFFECTS_FILE) and
the model's second request is under way. ``in_tool``: inside ``send``, after
its line was written.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from starweaver import FunctionModel, create_agent, tool
from starweaver.agent import Agent
from starweaver.messages import ModelMessage
from starweaver.stores import PostgresStore, SqliteStore, Store

STATE_KEY = "effect journal test key"
#: How long a worker waits to be killed before it gives up on its own.
KILL_WAIT = 60.0


def send_tool(effects: str, ready: Any = None) -> Any:
    """``send(to)``, a non-idempotent write, appends "sent to <to>" to
    effects, then calls ready (in the worker, to be killed there)."""

    @tool(effect="non_idempotent_write")
    def send(to: str) -> str:
        """Send a message."""
        with open(effects, "a") as f:
            f.write(f"sent to {to}\n")
        if ready is not None:
            ready()
        return f"sent to {to}"

    return send


def agent(store: Store, effects: str, script: Any, ready: Any = None) -> Agent:
    return create_agent(
        model=FunctionModel(script),
        tools=[send_tool(effects, ready)],
        session_store=store,
        effect_journal=store,
        state_key=STATE_KEY,
    )


async def work(mode: str, store: Store, effects: str) -> None:
    session_id = ""

    def ready() -> None:
        print(f"ready {session_id}", flush=True)
        time.sleep(KILL_WAIT)

    requests = 0

    def script(messages: list[ModelMessage], info: Any) -> Any:
        nonlocal requests
        requests += 1
        if requests == 1:
            return {"tool_calls": [{"id": "call_send", "name": "send", "arguments": {"to": "ada"}}]}
        if mode == "after_tool":
            ready()
        return "the worker was not killed"

    session = agent(store, effects, script, ready if mode == "in_tool" else None).session()
    session_id = session.id
    await session.run("greet ada")
    sys.exit("the worker was not killed")


def main() -> None:
    mode, kind, location, effects = sys.argv[1:5]
    store: Store = SqliteStore(location) if kind == "sqlite" else PostgresStore(location)
    with store:
        asyncio.run(work(mode, store, effects))


if __name__ == "__main__":
    main()
