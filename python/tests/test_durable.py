"""Durable sessions: a session store keeps sessions by id across runtimes
and processes, and a waiting run is resumed at most once.

The SQLite tests always run. The PostgreSQL tests need a server (``make
postgres-up``, then export the STARWEAVER_TEST_POSTGRES_DSN it prints): they
skip without it, and fail instead when STARWEAVER_REQUIRE_POSTGRES is set,
as CI sets it. Each gets a schema of its own, dropped afterwards.

Worker processes run durable_worker.py; every wait for one is bounded.
"""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from durable_worker import APPROVE, agent_options, runs
from starweaver import (
    AgentError,
    AgentRuntime,
    SessionNotFoundError,
    StarweaverError,
    StateError,
    StoreUnavailableError,
    TestModel,
    _capi,
    create_agent,
    create_agent_runtime,
)
from starweaver.stores import PostgresSessionStore, SessionStore, SqliteSessionStore, _redact_dsn

WORKER = str(Path(__file__).with_name("durable_worker.py"))
#: How long any one answer of a worker process may take.
WORKER_TIMEOUT = 60.0


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "sessions.db")


@pytest.fixture
def count_file(tmp_path: Path) -> str:
    return str(tmp_path / "deploys.txt")


def runtime(store: SessionStore, count_file: str) -> AgentRuntime:
    return create_agent_runtime(**agent_options(store, count_file))


async def start_waiting(db: str, count_file: str, env: str = "prod") -> tuple[str, dict[str, Any]]:
    """Run "deploy to env" in a runtime of its own until it waits; returns
    the session id and its exported state."""
    with SqliteSessionStore(db) as store:
        async with runtime(store, count_file) as rt:
            session = rt.session()
            result = await session.run(f"deploy to {env}")
            assert result.status == "waiting" and [a.tool_name for a in result.approvals] == ["deploy"]
            return session.id, session.export_state()


# -- SQLite, in one process ----------------------------------------------------


def test_a_waiting_run_is_resumed_by_id_in_a_fresh_runtime(db: str, count_file: str) -> None:
    async def main() -> None:
        sid, _ = await start_waiting(db, count_file)
        assert runs(count_file) == []
        # Fresh objects over the same file: nothing of the first runtime is left.
        with SqliteSessionStore(db) as store:
            async with runtime(store, count_file) as rt:
                with pytest.raises(StateError, match="open_session") as unknown:
                    rt.get_session(sid)
                assert unknown.value.code == "unknown_session"
                result = await rt.resume_after_hitl_by_id(sid, approvals=APPROVE)
                assert result.status == "completed" and result.output == "deployed"
                assert rt.get_session(sid).id == sid
        assert len(runs(count_file)) == 1
        # A third runtime finds the finished conversation.
        with SqliteSessionStore(db) as store:
            async with runtime(store, count_file) as rt:
                session = await rt.open_session(sid)
                assert session.claimed_resume is None
                assert not (await session.hitl.snapshot()).approvals
                assert [m["kind"] for m in session.messages] == ["request", "response", "request", "response"]
                assert (await session.run("status?")).output == "ok"

    run(main())


def test_a_second_resume_is_refused_and_runs_nothing(db: str, count_file: str) -> None:
    async def main() -> None:
        sid, _ = await start_waiting(db, count_file)
        with SqliteSessionStore(db) as store:
            async with runtime(store, count_file) as first, runtime(store, count_file) as second:
                # Both load the waiting session before either resumes it.
                stale = await second.open_session(sid)
                assert (await stale.hitl.snapshot()).approvals
                assert (await first.resume_after_hitl_by_id(sid, approvals=APPROVE)).status == "completed"
                # The copy loaded before the resume is out of date.
                with pytest.raises(StateError) as conflict:
                    await stale.resume_after_hitl(approvals=APPROVE)
                assert conflict.value.code == "session_conflict"
                # Loaded anew, the session no longer waits.
                with pytest.raises(StateError, match="not waiting"):
                    await second.resume_after_hitl_by_id(sid, approvals=APPROVE)
                with pytest.raises(StateError, match="not waiting"):
                    await first.resume_after_hitl_by_id(sid, approvals=APPROVE)
        assert len(runs(count_file)) == 1

    run(main())


def test_concurrent_resumes_in_one_loop_run_once(db: str, count_file: str) -> None:
    async def main() -> None:
        sid, _ = await start_waiting(db, count_file)
        with SqliteSessionStore(db) as store:
            async with runtime(store, count_file) as a, runtime(store, count_file) as b:
                # Two runtimes (two workers' worth of objects) and the same one twice.
                outcomes = await asyncio.gather(
                    a.resume_after_hitl_by_id(sid, approvals=APPROVE),
                    b.resume_after_hitl_by_id(sid, approvals=APPROVE),
                    a.resume_after_hitl_by_id(sid, approvals=APPROVE),
                    return_exceptions=True,
                )
        completed = [o for o in outcomes if not isinstance(o, BaseException)]
        refused = [o for o in outcomes if isinstance(o, BaseException)]
        assert [r.status for r in completed] == ["completed"], outcomes
        assert len(refused) == 2 and all(isinstance(e, StateError) for e in refused), outcomes
        assert len(runs(count_file)) == 1

    run(main())


def test_an_old_exported_copy_cannot_resume_again(db: str, count_file: str) -> None:
    async def main() -> None:
        sid, copy = await start_waiting(db, count_file)
        with SqliteSessionStore(db) as store:
            async with runtime(store, count_file) as rt:
                assert (await rt.resume_after_hitl_by_id(sid, approvals=APPROVE)).status == "completed"
                await rt.close_session(sid)
                # The copy restores (its signature is valid) but the store
                # says it is out of date: nothing runs.
                restored = rt.session_from_state(copy)
                assert restored.id == sid
                with pytest.raises(StateError) as conflict:
                    await restored.resume_after_hitl(approvals=APPROVE)
                assert conflict.value.code == "session_conflict"
            # The same from a plain agent over the store.
            agent = create_agent(**agent_options(store, count_file))
            with pytest.raises(StateError) as again:
                await agent.session_from_state(copy).resume_after_hitl(approvals=APPROVE)
            assert again.value.code == "session_conflict"
        assert len(runs(count_file)) == 1

    run(main())


def test_the_current_exported_copy_resumes_once(db: str, count_file: str) -> None:
    async def main() -> None:
        sid, copy = await start_waiting(db, count_file)
        with SqliteSessionStore(db) as store:
            agent = create_agent(**agent_options(store, count_file))
            first, second = agent.session_from_state(copy), agent.session_from_state(copy)
            assert (await first.resume_after_hitl(approvals=APPROVE)).status == "completed"
            with pytest.raises(StateError) as conflict:
                await second.resume_after_hitl(approvals=APPROVE)
            assert conflict.value.code == "session_conflict"
        assert len(runs(count_file)) == 1

    run(main())


def test_unknown_ids(db: str, count_file: str) -> None:
    async def main() -> None:
        with SqliteSessionStore(db) as store:
            async with runtime(store, count_file) as rt:
                for call in (
                    rt.open_session("conv_missing"),
                    rt.resume_after_hitl_by_id("conv_missing", approvals=APPROVE),
                    rt.agent.open_session("conv_missing"),
                ):
                    with pytest.raises(SessionNotFoundError, match="conv_missing") as info:
                        await call
                    assert isinstance(info.value, LookupError) and isinstance(info.value, StateError)
                    assert info.value.code == "session_not_found"
                # A session that never ran is open here only, and open_session finds it.
                fresh = rt.session()
                assert await rt.open_session(fresh.id) is fresh
                with pytest.raises(TypeError):
                    await rt.open_session(42)  # type: ignore[arg-type]
        # Without a store.
        async with create_agent_runtime(model=TestModel("hi")) as plain:
            with pytest.raises(SessionNotFoundError, match="no session store"):
                await plain.open_session("conv_missing")
            with pytest.raises(AgentError, match="no session store"):
                await plain.agent.open_session("conv_missing")

    run(main())


def test_open_session_brings_an_open_session_up_to_date(db: str, count_file: str) -> None:
    async def main() -> None:
        with SqliteSessionStore(db) as store:
            async with runtime(store, count_file) as a, runtime(store, count_file) as b:
                session = a.session()
                assert (await session.run("deploy to prod")).status == "waiting"
                assert (await b.resume_after_hitl_by_id(session.id, approvals=APPROVE)).status == "completed"
                # a's open session was overtaken by b: it still waits, but
                # its resume is refused...
                with pytest.raises(StateError) as conflict:
                    await session.resume_after_hitl(approvals=APPROVE)
                assert conflict.value.code == "session_conflict"
                with pytest.raises(StateError):
                    await session.run("status?")
                # ...until open_session loads it anew (the same object).
                assert await a.open_session(session.id) is session
                assert (await session.run("status?")).output == "ok"
                assert len(session.messages) == 6
        assert len(runs(count_file)) == 1

    run(main())


def test_unsigned_state_needs_the_opt_in(db: str, count_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STARWEAVER_STATE_KEY", raising=False)

    async def main() -> None:
        with SqliteSessionStore(db) as store:
            options = {**agent_options(store, count_file), "state_key": None}
            async with create_agent_runtime(**options) as rt:
                session = rt.session()
                await session.run("deploy to prod")
                await rt.close_session(session.id)
                with pytest.raises(StateError, match="unsigned"):
                    await rt.open_session(session.id)
                result = await rt.resume_after_hitl_by_id(session.id, approvals=APPROVE, allow_unsigned=True)
                assert result.status == "completed"
        assert len(runs(count_file)) == 1

    run(main())


# -- stores ----------------------------------------------------------------------


def test_store_objects(db: str, tmp_path: Path) -> None:
    store = SqliteSessionStore(Path(db))
    assert store.path == db and repr(store) == f"SqliteSessionStore({db!r})" and not store.closed
    with store as same:
        assert same is store
    assert store.closed and repr(store).endswith(", closed)")
    store.close()  # closing twice is fine
    with pytest.raises(StateError):
        create_agent(model=TestModel("hi"), session_store=store)
    with pytest.raises(TypeError, match="session_store"):
        create_agent(model=TestModel("hi"), session_store=db)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        SqliteSessionStore(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        PostgresSessionStore(b"postgres://x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="abstract"):
        SessionStore({"kind": "sqlite", "path": db})
    # The library refuses a spec it does not know, rather than guess.
    for spec, message in (
        ({"kind": "redis", "path": db}, "unknown store kind"),
        ({"kind": "sqlite", "path": db, "mode": "rw"}, "unknown field"),
        ({"kind": "postgres"}, "needs a"),
    ):
        with pytest.raises(ValueError, match=message):
            _capi.store_open(spec)
    # A directory is no database.
    with pytest.raises(StoreUnavailableError) as unavailable:
        SqliteSessionStore(tmp_path)
    assert isinstance(unavailable.value, OSError) and isinstance(unavailable.value, StarweaverError)


def test_an_unreachable_server_never_shows_the_password() -> None:
    dsn = "postgres://worker:s3cret-pw@127.0.0.1:1/app?sslmode=disable&connect_timeout=5"
    with pytest.raises(StoreUnavailableError) as info:
        PostgresSessionStore(dsn)
    assert "s3cret-pw" not in str(info.value)


@pytest.mark.parametrize(
    ("dsn", "shown"),
    [
        ("postgres://u:pw@h:5432/db?sslmode=disable", "postgres://u:***@h:5432/db?sslmode=disable"),
        ("postgresql://u@h/db", "postgresql://u@h/db"),
        ("postgres://u:p%40ss@h1,h2/db", "postgres://u:***@h1,h2/db"),
        ("postgres://h/db?user=u&password=pw&sslmode=require", "postgres://h/db?user=u&password=***&sslmode=require"),
        ("host=h user=u password=pw dbname=db", "host=h user=u password=*** dbname=db"),
        ("host=h password = 'p w\\'x' dbname=db", "host=h password = *** dbname=db"),
    ],
)
def test_dsn_redaction(dsn: str, shown: str) -> None:
    assert _redact_dsn(dsn) == shown


# -- a worker that dies mid-resume ---------------------------------------------------


class Worker:
    """A durable_worker.py process; each answer is awaited at most
    WORKER_TIMEOUT seconds, and close() kills what does not exit."""

    def __init__(self, kind: str, location: str, count_file: str, log: Path) -> None:
        self._log: IO[str] = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, WORKER, kind, location, count_file],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        self._logpath = log
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        try:
            assert self.answer()["ready"]
        except BaseException:
            self.close()
            raise

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, **cmd: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=WORKER_TIMEOUT)
        except queue.Empty:
            self.proc.kill()
            raise AssertionError(f"the worker did not answer within {WORKER_TIMEOUT}s:\n{self.stderr()}") from None
        if line is None:
            raise AssertionError(f"the worker exited ({self.proc.wait(WORKER_TIMEOUT)}):\n{self.stderr()}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def ask(self, **cmd: Any) -> dict[str, Any]:
        self.send(**cmd)
        return self.answer()

    def exited(self) -> int:
        """Wait for the process to end (bounded) and return its exit code."""
        return self.proc.wait(WORKER_TIMEOUT)

    def stderr(self) -> str:
        self._log.flush()
        return self._logpath.read_text()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send(cmd="exit")
                self.proc.wait(WORKER_TIMEOUT)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(WORKER_TIMEOUT)
        self._log.close()


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Any]:
    started: list[Worker] = []

    def start(kind: str, location: str, count_file: str) -> Worker:
        w = Worker(kind, location, count_file, tmp_path / f"worker{len(started)}.log")
        started.append(w)
        return w

    yield start
    for w in started:
        w.close()


def test_a_worker_that_dies_mid_resume_leaves_a_claim_to_abandon(db: str, count_file: str, workers: Any) -> None:
    sid, _ = run(start_waiting(db, count_file, env="crash"))
    worker = workers("sqlite", db, count_file)
    worker.send(cmd="resume", session_id=sid, by_id=True)
    assert worker.exited() == 3, worker.stderr()  # died inside the approved deploy
    assert len(runs(count_file)) == 1

    async def main() -> None:
        with SqliteSessionStore(db) as store:
            async with runtime(store, count_file) as rt:
                session = await rt.open_session(sid)
                claim = session.claimed_resume
                assert claim is not None and claim.claimed_at.tzinfo is not None
                assert [a.tool_name for a in claim.pending.approvals] == ["deploy"]
                assert [(d.id, d.approved) for d in claim.approvals] == [("call_deploy", True)]
                # It runs nothing, and nobody resumes it again.
                for attempt in (session.run("status?"), rt.resume_after_hitl_by_id(sid, approvals=APPROVE)):
                    with pytest.raises(StateError) as claimed:
                        await attempt
                    assert claimed.value.code == "resume_claimed"
                await session.abandon_resume()
                assert session.claimed_resume is None
                with pytest.raises(StateError, match="no claimed resume"):
                    await session.abandon_resume()
                # The conversation goes on; the model learns the deploy may have run.
                result = await session.run("status?")
                assert result.output == "ok"
                (ret,) = [p for m in session.messages for p in m["parts"] if p["kind"] == "tool_return"]
                assert "abandoned" in json.dumps(ret["content"])
        assert len(runs(count_file)) == 1

    run(main())


def test_two_sqlite_worker_processes_resume_once(db: str, count_file: str, workers: Any) -> None:
    a, b = workers("sqlite", db, count_file), workers("sqlite", db, count_file)
    double_approval(a, b, count_file)


# -- PostgreSQL, shared by worker processes --------------------------------------------


def double_approval(a: Worker, b: Worker, count_file: str) -> None:
    """The two-worker scenario on any shared store: a run that waits in a
    is approved and finished by b; then a run waiting in both is approved
    by a and b at once, and runs once."""
    started = a.ask(cmd="start", prompt="deploy to prod")
    assert started["status"] == "waiting", started
    sid = started["session_id"]
    assert b.ask(cmd="open", session_id=sid) == {"waiting": True, "claimed": None}
    finished = b.ask(cmd="resume", session_id=sid, by_id=True)
    assert finished == {"status": "completed", "output": "deployed"}, finished
    assert [line.split()[1] for line in runs(count_file)] == ["prod"]
    assert int(runs(count_file)[0].split()[0]) == b.proc.pid

    # A waiting run both workers hold open, approved by both at once: the
    # commands go out back to back, then both answers are read.
    started = a.ask(cmd="start", prompt="deploy to staging")
    assert started["status"] == "waiting", started
    sid = started["session_id"]
    assert b.ask(cmd="open", session_id=sid)["waiting"]
    a.send(cmd="resume", session_id=sid, by_id=False)
    b.send(cmd="resume", session_id=sid, by_id=False)
    answers = [a.answer(), b.answer()]
    completed = [x for x in answers if x.get("status") == "completed"]
    refused = [x for x in answers if x.get("error")]
    assert len(completed) == 1 and len(refused) == 1, answers
    assert refused[0]["error"] == "StateError" and refused[0]["code"] == "session_conflict", refused
    assert [line.split()[1] for line in runs(count_file)] == ["prod", "staging"]
    # Both now see the finished run; neither can resume it again.
    for w in (a, b):
        again = w.ask(cmd="resume", session_id=sid, by_id=True)
        assert again["error"] == "StateError" and "not waiting" in again["message"], again
    assert len(runs(count_file)) == 2


def test_two_postgres_worker_processes(postgres_dsn: str, count_file: str, workers: Any) -> None:
    a, b = workers("postgres", postgres_dsn, count_file), workers("postgres", postgres_dsn, count_file)
    double_approval(a, b, count_file)


def test_postgres_store_in_process(postgres_dsn: str, count_file: str) -> None:
    async def main() -> None:
        with PostgresSessionStore(postgres_dsn) as store:
            assert repr(store) == f"PostgresSessionStore({_redact_dsn(postgres_dsn)!r})"
            async with runtime(store, count_file) as a, runtime(store, count_file) as b:
                session = a.session()
                assert (await session.run("deploy to prod")).status == "waiting"
                outcomes = await asyncio.gather(
                    a.resume_after_hitl_by_id(session.id, approvals=APPROVE),
                    b.resume_after_hitl_by_id(session.id, approvals=APPROVE),
                    return_exceptions=True,
                )
                assert sorted(type(o).__name__ for o in outcomes) == ["RunResult", "StateError"], outcomes
                with pytest.raises(SessionNotFoundError):
                    await b.open_session("conv_missing")
        assert len(runs(count_file)) == 1

    run(main())
