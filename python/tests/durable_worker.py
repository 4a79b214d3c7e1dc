"""A worker process of the durable-session tests (test_durable.py), and the
agent they all use.

Run as a script it is one worker: an agent runtime over a session store,
driven by one JSON command per line on stdin and answering one JSON object
per line on stdout (``{"ready": true}`` first):

    python durable_worker.py sqlite|postgres PATH_OR_DSN COUNT_FILE

Commands: ``{"cmd": "start", "prompt": p}`` runs a new session (answer:
``session_id``, ``status``); ``{"cmd": "open", "session_id": id}`` opens it
from the store (``waiting``, ``claimed``); ``{"cmd": "resume", "session_id":
id, "by_id": bool}`` approves its waiting deploy, by id through the runtime
or on the session opened before (``status``, ``output``, or ``error`` and
``code``); ``{"cmd": "chat", "session_id": id_or_null, "prompt": p}`` runs p on the
session opened from the store (a new one for null: ``session_id``,
``status``, ``messages``); ``{"cmd": "inspect"}`` reads the store's file with
Python's own ``sqlite3``, as a user inspecting it would (``revisions``:
session id to revision); ``{"cmd": "exit"}``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
import threading
from typing import Any

from starweaver import FunctionModel, StarweaverError, StateError, create_agent_runtime, tool
from starweaver.messages import ModelMessage
from starweaver.stores import PostgresSessionStore, SessionStore, SqliteSessionStore

STATE_KEY = "durable sessions test key"


def script(messages: list[ModelMessage], info: Any) -> Any:
    """The model: "deploy to X" calls deploy(env=X), "send to X" calls
    send(to=X); a tool return is answered "deployed"; anything else "ok"."""
    parts = messages[-1]["parts"]
    if any(p["kind"] == "tool_return" for p in parts):
        return "deployed"
    prompt = " ".join(str(c.get("text", "")) for p in parts if p["kind"] == "user_prompt" for c in p["content"])
    if prompt.startswith("deploy to "):
        env = prompt.removeprefix("deploy to ")
        return {"tool_calls": [{"id": "call_deploy", "name": "deploy", "arguments": {"env": env}}]}
    if prompt.startswith("send to "):
        to = prompt.removeprefix("send to ")
        return {"tool_calls": [{"id": "call_send", "name": "send", "arguments": {"to": to}}]}
    return "ok"


def agent_options(store: SessionStore, count_file: str) -> dict[str, Any]:
    """The agent of every test: deploy needs approval, and each time it runs
    it appends a line to count_file (so processes count together). Deploying
    to "crash" kills the process inside the tool, after the resume claimed
    the run and before it saved its outcome. send needs no approval and
    counts its runs in count_file too; sending to "hang" then says
    ``{"in_tool": true}`` on stdout and waits (bounded) to be killed."""

    @tool
    def deploy(env: str) -> str:
        with open(count_file, "a") as f:
            f.write(f"{os.getpid()} {env}\n")
        if env == "crash":
            os._exit(3)
        return f"deployed to {env}"

    @tool(effect="non_idempotent_write")
    def send(to: str) -> str:
        with open(count_file, "a") as f:
            f.write(f"{os.getpid()} send {to}\n")
        if to == "hang":
            print(json.dumps({"in_tool": True}), flush=True)
            threading.Event().wait(120)  # killed long before
        return f"sent to {to}"

    return {
        "model": FunctionModel(script),
        "tools": [deploy, send],
        "approval_required_tools": ["deploy"],
        "session_store": store,
        "state_key": STATE_KEY,
    }


def runs(count_file: str) -> list[str]:
    """The deploys that ran, one "pid env" line each."""
    try:
        with open(count_file) as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


APPROVE = {"call_deploy": {"approved": True}}


async def serve(store: SessionStore, count_file: str) -> None:
    loop = asyncio.get_running_loop()

    def say(**answer: Any) -> None:
        print(json.dumps(answer), flush=True)

    async with create_agent_runtime(**agent_options(store, count_file)) as runtime:
        say(ready=True, pid=os.getpid())
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                return
            cmd = json.loads(line)
            try:
                if cmd["cmd"] == "exit":
                    return
                if cmd["cmd"] == "start":
                    session = runtime.session()
                    result = await session.run(cmd["prompt"])
                    say(session_id=session.id, status=result.status)
                elif cmd["cmd"] == "open":
                    session = await runtime.open_session(cmd["session_id"])
                    claimed = session.claimed_resume
                    waiting = bool((await session.hitl.snapshot()).approvals)
                    say(waiting=waiting, claimed=claimed.run_id if claimed else None)
                elif cmd["cmd"] == "resume":
                    if cmd["by_id"]:
                        result = await runtime.resume_after_hitl_by_id(cmd["session_id"], approvals=APPROVE)
                    else:
                        result = await runtime.get_session(cmd["session_id"]).resume_after_hitl(approvals=APPROVE)
                    say(status=result.status, output=result.output)
                elif cmd["cmd"] == "chat":
                    sid = cmd["session_id"]
                    session = runtime.session() if sid is None else await runtime.open_session(sid)
                    result = await session.run(cmd["prompt"])
                    say(session_id=session.id, status=result.status, messages=len(session.messages))
                    await runtime.close_session(session.id)
                elif cmd["cmd"] == "inspect":
                    say(revisions=inspect(sys.argv[2]))
                else:
                    say(error="ValueError", code=f"unknown command {cmd['cmd']!r}")
            except StarweaverError as exc:
                code = exc.code if isinstance(exc, StateError) else None
                say(error=type(exc).__name__, code=code, message=str(exc))


def inspect(path: str) -> dict[str, int]:
    """Read the sessions of the store's file with Python's sqlite3 (another
    SQLite library than the store's), then close the connection."""
    con = sqlite3.connect(path, timeout=30)
    try:
        return dict(con.execute("SELECT session_id, revision FROM starweaver_sessions").fetchall())
    finally:
        con.close()


def main() -> None:
    kind, location, count_file = sys.argv[1:4]
    store: SessionStore = SqliteSessionStore(location) if kind == "sqlite" else PostgresSessionStore(location)
    with store:
        asyncio.run(serve(store, count_file))


if __name__ == "__main__":
    main()
