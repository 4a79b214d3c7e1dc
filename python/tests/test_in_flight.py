"""A run whose worker is killed while its tool runs, with a session store
and no effect journal: the store recorded the run in flight before the
call started, so a later load reports it (``session.in_flight``, naming
the call that may have run) instead of losing it, and the session goes on
only once it is settled (``abandon_in_flight()``).

The worker is a process of durable_worker.py, killed with SIGKILL once its
tool says it runs. The PostgreSQL case needs a server, as in
test_durable.py.
"""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import pytest
from durable_worker import runs
from starweaver import AgentError, StateError
from starweaver.stores import PostgresStore, SqliteStore, Store
from test_durable import Worker, runtime


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    if request.param == "sqlite":
        return "sqlite", str(tmp_path / "sessions.db")
    dsn: str = request.getfixturevalue("postgres_dsn")
    return "postgres", dsn


def open_store(kind: str, where: str) -> Store:
    return SqliteStore(where) if kind == "sqlite" else PostgresStore(where)


def test_a_worker_killed_while_its_tool_runs_leaves_the_run_in_flight(
    location: tuple[str, str], tmp_path: Path
) -> None:
    kind, where = location
    count_file = str(tmp_path / "sends.txt")
    worker = Worker(kind, where, count_file, tmp_path / "worker.log")
    try:
        first = worker.ask(cmd="chat", session_id=None, prompt="send to alice")
        assert first["status"] == "completed", first
        sid = first["session_id"]
        worker.send(cmd="chat", session_id=sid, prompt="send to hang")
        assert worker.answer() == {"in_tool": True}, worker.stderr()
        worker.proc.send_signal(signal.SIGKILL)
        assert worker.exited() == -signal.SIGKILL
    finally:
        worker.close()
    assert [line.split()[1:] for line in runs(count_file)] == [["send", "alice"], ["send", "hang"]]

    async def main() -> None:
        with open_store(kind, where) as store:
            async with runtime(store, count_file) as rt:
                session = await rt.open_session(sid)
                flight = session.in_flight
                assert flight is not None and flight.calls == (("call_send", "send"),) and flight.run_id
                # The earlier run is there; the killed one is not dropped.
                assert [m["kind"] for m in session.messages] == ["request", "response"] * 3
                with pytest.raises(StateError, match=r"send \(call_send\)") as refused:
                    await session.run("status?")
                assert refused.value.code == "run_in_flight"
                assert "abandon" in str(refused.value).lower()
                with pytest.raises(AgentError, match="effect journal"):
                    await session.recover()
                await session.abandon_in_flight()
                assert session.in_flight is None
                with pytest.raises(StateError, match="no run in flight"):
                    await session.abandon_in_flight()
                # The model learns the send may have gone out.
                result = await session.run("status?")
                assert result.status == "completed" and result.output == "ok"
                rets = [p for m in session.messages for p in m["parts"] if p["kind"] == "tool_return"]
                assert "may have run" in json.dumps(rets[-1]["content"])
            # Loaded again: nothing in flight, the conversation whole.
            async with runtime(store, count_file) as rt:
                again = await rt.open_session(sid)
                assert again.in_flight is None
                assert len(again.messages) == 9
        assert len(runs(count_file)) == 2  # nothing ran the send again

    asyncio.run(main())


def test_a_completed_run_leaves_nothing_in_flight(location: tuple[str, str], tmp_path: Path) -> None:
    kind, where = location
    count_file = str(tmp_path / "sends.txt")

    async def main() -> Any:
        with open_store(kind, where) as store:
            async with runtime(store, count_file) as rt:
                session = rt.session()
                assert (await session.run("send to bob")).status == "completed"
                sid = session.id
            async with runtime(store, count_file) as rt:
                loaded = await rt.open_session(sid)
                assert loaded.in_flight is None
                assert (await loaded.run("status?")).output == "ok"

    asyncio.run(main())
