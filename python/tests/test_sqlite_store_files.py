"""The SQLite store and other SQLite libraries reading its file.

A user inspecting their store with Python's ``sqlite3`` opens the file with
a second SQLite library in the same process: POSIX locks would let each
library drop the other's, and the reader's close would delete the WAL the
store still writes to. The store takes locks that survive that (Linux OFD
locks), and a save whose commit did not reach the database file fails the
run instead of reporting it completed.

Worker processes run durable_worker.py (see test_durable.py); every wait
for one is bounded.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from durable_worker import STATE_KEY, inspect
from starweaver import FunctionModel, StateError, StoreUnavailableError, create_agent, create_agent_runtime, tool
from starweaver.agent import Agent
from starweaver.messages import ModelMessage
from starweaver.stores import SqliteStore
from test_durable import Worker

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the store's OFD locks exist on Linux only")


def reply(messages: list[ModelMessage], info: Any) -> Any:
    """The model: "tidy" calls tidy(); anything else is answered "ok"."""
    parts = messages[-1]["parts"]
    if any(p["kind"] == "user_prompt" and "tidy" in str(p["content"]) for p in parts):
        return {"tool_calls": [{"id": "call_tidy", "name": "tidy", "arguments": {}}]}
    return "ok"


def agent(store: SqliteStore, db: str = "") -> Agent[Any, Any]:
    @tool
    def tidy() -> str:
        """What a second SQLite library without OFD locks (or a stray
        cleanup) does: the store's WAL goes away under it, mid-run."""
        os.remove(db + "-wal")
        return "tidied"

    return create_agent(model=FunctionModel(reply), tools=[tidy], session_store=store, state_key=STATE_KEY)


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "store.db")


def test_reading_the_store_with_sqlite3_between_runs_loses_no_save(db: str) -> None:
    async def main() -> None:
        with SqliteStore(db) as store:
            a = agent(store)
            session = a.session()
            for i in range(1, 6):
                result = await session.run(f"hi {i}")
                assert result.status == "completed"
                # The user looks at their store: another SQLite library, same process.
                assert inspect(db) == {session.id: i}, f"the save of run {i} did not land"
                # A reader left open across the next run does no harm either.
                if i == 3:
                    kept = sqlite3.connect(db)
                    kept.execute("SELECT count(*) FROM starweaver_sessions").fetchone()
            kept.close()
            loaded = await a.open_session(session.id)
            assert len(loaded.messages) == 10
        # A fresh store over the file finds every run.
        with SqliteStore(db) as store:
            loaded = await agent(store).open_session(session.id)
            assert len(loaded.messages) == 10
            assert (await loaded.run("again")).status == "completed"
        assert inspect(db) == {session.id: 6}
        with sqlite3.connect(db) as con:
            assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)

    asyncio.run(main())


def test_a_save_that_did_not_reach_the_file_fails_the_run(db: str) -> None:
    async def main() -> None:
        with SqliteStore(db) as store:
            a = agent(store, db)
            session = a.session()
            assert (await session.run("first")).status == "completed"
            # The run's commits succeed in SQLite, into a file nobody will read.
            with pytest.raises(StoreUnavailableError, match="write-ahead log") as lost:
                await session.run("tidy")
            assert "may never reach the database file" in str(lost.value)
            assert "saving session" in str(lost.value)
            # The session knows it may not match the store.
            with pytest.raises(StateError, match="a save of this Session failed"):
                await session.run("third")

    asyncio.run(main())


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Any]:
    started: list[Worker] = []

    def start(location: str) -> Worker:
        w = Worker("sqlite", location, str(tmp_path / "deploys.txt"), tmp_path / f"worker{len(started)}.log")
        started.append(w)
        return w

    yield start
    for w in started:
        w.close()


def test_two_processes_reading_the_store_with_sqlite3_lose_no_save(db: str, workers: Any) -> None:
    a, b = workers(db), workers(db)
    sid = None
    messages = 0
    for i in range(6):
        w, other = (a, b) if i % 2 == 0 else (b, a)
        done = w.ask(cmd="chat", session_id=sid, prompt=f"hi {i}")
        messages += 2
        assert done["status"] == "completed" and done["messages"] == messages, done
        sid = done["session_id"]
        # Each process, and this one, reads the file with sqlite3 while the
        # stores of both keep it open.
        assert w.ask(cmd="inspect") == {"revisions": {sid: i + 1}}
        assert other.ask(cmd="inspect") == {"revisions": {sid: i + 1}}
        assert inspect(db) == {sid: i + 1}

    async def main() -> None:
        with SqliteStore(db) as store:
            async with create_agent_runtime(model=FunctionModel(reply), session_store=store, state_key=STATE_KEY) as rt:
                loaded = await rt.open_session(sid)
                assert len(loaded.messages) == messages

    asyncio.run(main())
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
