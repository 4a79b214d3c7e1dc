"""The effect journal: a worker process running an agent over a store that is
both its session store and its effect journal is killed with SIGKILL, and a
fresh runtime recovers its session from the store: the tool's effect happens
exactly once, and a call interrupted inside the tool is reported ambiguous,
not repeated.

Worker processes run journal_worker.py; every wait for one is bounded. The
PostgreSQL variant needs a server (see test_durable.py).
"""

from __future__ import annotations

import asyncio
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from journal_worker import STATE_KEY, agent, send_tool
from starweaver import AgentError, StateError, TestModel, create_agent, create_agent_runtime
from starweaver.messages import ModelMessage
from starweaver.stores import InFlightRun, PostgresStore, SessionStore, SqliteSessionStore, SqliteStore, Store

WORKER = str(Path(__file__).with_name("journal_worker.py"))
#: How long the worker may take to reach the point where it is killed.
WORKER_TIMEOUT = 60.0


def crash(mode: str, kind: str, location: str, effects: str, log: Path) -> str:
    """Run a journal worker until it reports it is ready, kill it with
    SIGKILL, and return the id of the session it left."""
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, WORKER, mode, kind, location, effects], stdout=subprocess.PIPE, stderr=err, text=True
        )
        lines: queue.Queue[str | None] = queue.Queue()

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=read, daemon=True).start()
        try:
            line = lines.get(timeout=WORKER_TIMEOUT)
            assert line is not None and line.startswith("ready "), f"the worker ended: {log.read_text()}"
        finally:
            proc.kill()  # SIGKILL
            proc.wait(WORKER_TIMEOUT)
    return line.split()[1]


def effect_lines(effects: str) -> list[str]:
    return Path(effects).read_text().splitlines()


def tool_return(messages: list[ModelMessage], call_id: str) -> dict[str, Any]:
    for m in reversed(messages):
        for p in m["parts"]:
            if p["kind"] == "tool_return" and p["tool_call_id"] == call_id:
                return dict(p)
    raise AssertionError(f"no return of {call_id}")


async def recover(store: Store, effects: str, session_id: str) -> tuple[Any, InFlightRun | None, int]:
    """Open the session in a fresh runtime and recover it; return the
    result, what the session reported in flight, and how often send ran
    here."""
    ran = 0

    def counted() -> None:
        nonlocal ran
        ran += 1

    async with create_agent_runtime(
        model=TestModel("ada was greeted"),
        tools=[send_tool(effects, counted)],
        session_store=store,
        effect_journal=store,
        state_key=STATE_KEY,
    ) as runtime:
        session = await runtime.open_session(session_id)
        in_flight = session.in_flight
        with pytest.raises(StateError) as refused:
            await session.run("hello")
        assert refused.value.code == "run_in_flight", refused.value
        result = await session.recover()
        assert session.in_flight is None
        return result, in_flight, ran


@pytest.fixture
def effects(tmp_path: Path) -> str:
    return str(tmp_path / "effects.txt")


def kill_after_the_tool(kind: str, location: str, store: Store, effects: str, tmp_path: Path) -> None:
    sid = crash("after_tool", kind, location, effects, tmp_path / "worker.log")
    assert effect_lines(effects) == ["sent to ada"]
    result, in_flight, ran = asyncio.run(recover(store, effects, sid))
    assert in_flight is not None and in_flight.calls == (("call_send", "send"),) and in_flight.step == 0
    assert result.status == "completed" and result.output == "ada was greeted"
    assert effect_lines(effects) == ["sent to ada"] and ran == 0
    ret = tool_return(result.messages, "call_send")
    assert ret["metadata"]["starweaver_replayed"] is True and ret["content"] == "sent to ada", ret


def test_killed_after_the_tool_the_effect_happens_once(tmp_path: Path, effects: str) -> None:
    db = str(tmp_path / "sw.db")
    with SqliteStore(db) as store:
        kill_after_the_tool("sqlite", db, store, effects, tmp_path)


def test_killed_after_the_tool_postgres(postgres_dsn: str, effects: str, tmp_path: Path) -> None:
    with PostgresStore(postgres_dsn) as store:
        kill_after_the_tool("postgres", postgres_dsn, store, effects, tmp_path)


def test_killed_inside_the_tool_the_call_is_ambiguous(tmp_path: Path, effects: str) -> None:
    db = str(tmp_path / "sw.db")
    sid = crash("in_tool", "sqlite", db, effects, tmp_path / "worker.log")
    with SqliteStore(db) as store:
        result, in_flight, ran = asyncio.run(recover(store, effects, sid))
    assert in_flight is not None and in_flight.run_id
    assert result.status == "completed" and result.output == "ada was greeted"
    assert effect_lines(effects) == ["sent to ada"] and ran == 0
    ret = tool_return(result.messages, "call_send")
    assert ret["metadata"]["starweaver_ambiguous"] is True and ret["metadata"]["error_kind"] == "execution", ret
    assert "may already have taken effect" in ret["content"]["message"], ret
    assert "(effect non_idempotent_write)" in ret["content"]["message"], ret


def test_recover_by_id_and_refusals(tmp_path: Path, effects: str) -> None:
    db = str(tmp_path / "sw.db")
    sid = crash("after_tool", "sqlite", db, effects, tmp_path / "worker.log")

    async def main() -> None:
        with SqliteSessionStore(db) as store:
            # Without a journal the calls would simply run again.
            plain = create_agent(
                model=TestModel("ok"), tools=[send_tool(effects)], session_store=store, state_key=STATE_KEY
            )
            session = await plain.open_session(sid)
            with pytest.raises(AgentError):
                await session.recover()
            async with create_agent_runtime(
                model=TestModel("recovered by id"),
                tools=[send_tool(effects)],
                session_store=store,
                effect_journal=store,
                state_key=STATE_KEY,
            ) as runtime:
                stale = await runtime.agent.open_session(sid)
                result = await runtime.recover_by_id(sid)
                assert result.output == "recovered by id"
                # A session loaded before the recovery is out of date.
                with pytest.raises(StateError) as conflict:
                    await stale.recover()
                assert conflict.value.code == "session_conflict"
                with pytest.raises(StateError):
                    await runtime.recover_by_id(sid)  # nothing left to recover
        assert effect_lines(effects) == ["sent to ada"]

    asyncio.run(main())


def test_store_objects_and_options(tmp_path: Path) -> None:
    db = str(tmp_path / "sw.db")
    with SqliteStore(db) as store, SqliteSessionStore(db) as old:
        assert isinstance(old, SqliteStore) and isinstance(old, Store) and isinstance(store, SessionStore)
        assert repr(store) == f"SqliteStore({db!r})" and repr(old) == f"SqliteSessionStore({db!r})"
        a = create_agent(model=TestModel("ok"), session_store=old, effect_journal=store, effect_recovery="retry_safe")
        assert a.effect_journal is store
        with pytest.raises(TypeError):
            create_agent(model=TestModel("ok"), effect_journal=db)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="effect_recovery"):
            create_agent(model=TestModel("ok"), effect_journal=store, effect_recovery="sometimes")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="effect_recovery"):
            create_agent(model=TestModel("ok"), effect_recovery="retry_safe")
    with pytest.raises(TypeError, match="abstract"):
        Store({"kind": "sqlite", "path": db})


def test_journal_replays_within_a_process(tmp_path: Path, effects: str) -> None:
    """Without a crash: a journaled call runs once per position, and the
    agent's runs are unchanged."""

    def script(messages: list[ModelMessage], info: Any) -> Any:
        if any(p["kind"] == "tool_return" for p in messages[-1]["parts"]):
            return "done"
        return {"tool_calls": [{"id": "c1", "name": "send", "arguments": {"to": "bob"}}]}

    async def main() -> None:
        with SqliteStore(str(tmp_path / "sw.db")) as store:
            a = agent(store, effects, script)
            first = await a.run("greet bob")
            second = await a.run("greet bob")
            assert first.output == second.output == "done"
            assert tool_return(first.messages, "c1")["metadata"].get("starweaver_replayed") is None

    asyncio.run(main())
    assert effect_lines(effects) == ["sent to bob", "sent to bob"]  # two runs, two effects


def test_artifact_stores_share_a_store_under_its_new_name(tmp_path: Path) -> None:
    from starweaver.artifacts import SqliteArtifactStore

    with SqliteStore(str(tmp_path / "sw.db")) as store:
        artifacts = SqliteArtifactStore(store)
        assert artifacts.path == store.path
