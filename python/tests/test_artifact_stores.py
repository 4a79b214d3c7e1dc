"""Artifact stores of every kind behave alike: memory, SQLite and
PostgreSQL. Put, get, idempotent replay, conflicts, list with cursors,
delete and purge run over each; the durable stores keep artifacts for a new
store object (and, for SQLite, a new process), share their database with
the session stores, and stay open under the agents built with them.

The SQLite tests always run. The PostgreSQL tests need a server (``make
postgres-up``, then export the STARWEAVER_TEST_POSTGRES_DSN it prints): they
skip without it, and fail instead when STARWEAVER_REQUIRE_POSTGRES is set.
Each gets a schema of its own (``search_path`` in the DSN), dropped
afterwards.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import (
    ArtifactError,
    ModelRetry,
    StateError,
    StoreUnavailableError,
    ToolContext,
    ToolOutput,
    _capi,
    create_agent,
    tool,
)
from starweaver.artifacts import (
    ArtifactPage,
    ArtifactStore,
    MemoryArtifactStore,
    PostgresArtifactStore,
    SqliteArtifactStore,
)
from starweaver.content import ArtifactRef, Image
from starweaver.errors import (
    ArtifactConflict,
    ArtifactExpired,
    ArtifactIntegrityError,
    ArtifactInvalid,
    ArtifactNotFound,
)
from starweaver.stores import PostgresSessionStore, SqliteSessionStore, _redact_dsn
from starweaver.testing import TestModel

PNG = b"\x89PNG\r\n\x1a\nchart-pixels"
PNG_B64 = base64.b64encode(PNG).decode()
SCOPE = "tenant.acme"
#: How long a child process reading a store may take.
PROCESS_TIMEOUT = 60.0


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# -- one suite, three backends -----------------------------------------------------


@dataclass(frozen=True)
class Backend:
    """A kind of store at one location: ``open`` makes a new store object
    there (over the same data, for the durable kinds)."""

    kind: str
    open: Callable[..., ArtifactStore]


def make_backend(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if kind == "memory":
        return Backend(kind, MemoryArtifactStore)
    if kind == "sqlite":
        path = str(tmp_path / "artifacts.db")
        return Backend(kind, lambda **kw: SqliteArtifactStore(path, **kw))
    dsn: str = request.getfixturevalue("postgres_dsn")
    return Backend(kind, lambda **kw: PostgresArtifactStore(dsn, **kw))


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    return make_backend(request.param, request, tmp_path)


@pytest.fixture(params=["sqlite", "postgres"])
def durable(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    return make_backend(request.param, request, tmp_path)


@pytest.fixture
def store(backend: Backend) -> Iterator[ArtifactStore]:
    with backend.open() as s:
        yield s


def test_put_get_and_idempotent_replay(store: ArtifactStore) -> None:
    ref = store.put(SCOPE, PNG, "image/png", name="chart.png", idempotency_key="chart:3")
    assert (ref.scope, ref.media_type, ref.size_bytes, ref.name) == (SCOPE, "image/png", len(PNG), "chart.png")
    assert ref.artifact_id.startswith("sha256:") and ref.expires_at_unix_ms is None
    assert store.get(ref) == PNG
    # The same write again is the stored reference, creation time included.
    assert store.put(SCOPE, PNG, "image/png", name="chart.png", idempotency_key="chart:3") == ref
    # A new key for the same content is an alias of it.
    assert store.put(SCOPE, PNG, "image/png", name="chart.png", idempotency_key="chart:3b") == ref
    # Without a key, the key follows the content.
    plain = store.put(SCOPE, b"notes", "text/plain")
    assert store.put(SCOPE, b"notes", "text/plain") == plain
    assert store.list(SCOPE).items == sorted([ref, plain], key=lambda r: r.artifact_id)


def test_failures_map_to_the_python_classes(store: ArtifactStore) -> None:
    ref = store.put(SCOPE, b"first", "text/plain", idempotency_key="k")
    # The key names other content: an idempotency conflict.
    with pytest.raises(ArtifactConflict) as conflict:
        store.put(SCOPE, b"second", "text/plain", idempotency_key="k")
    assert conflict.value.type == "artifact_conflict" and isinstance(conflict.value, ValueError)
    # The content is stored with another name: a metadata conflict.
    with pytest.raises(ArtifactConflict):
        store.put(SCOPE, b"first", "text/plain", name="renamed", idempotency_key="k2")
    # Neither stored anything.
    assert [r.artifact_id for r in store.list(SCOPE).items] == [ref.artifact_id]

    with pytest.raises(ArtifactIntegrityError):
        store.get(ref.model_copy(update={"name": "forged"}))
    with pytest.raises(ArtifactNotFound):
        store.get(ref.model_copy(update={"scope": "tenant.other"}))
    past = datetime.now(timezone.utc) - timedelta(seconds=1)
    expired = store.put(SCOPE, b"old", "text/plain", expires_at=past)
    with pytest.raises(ArtifactExpired):
        store.get(expired)
    bad_puts: list[Callable[[], object]] = [
        lambda: store.put("../etc", b"x", "text/plain"),
        lambda: store.put(SCOPE, b"not a png", "image/png"),
        lambda: store.put(SCOPE, b"x", "text/plain; charset=utf-8"),
        lambda: store.put(SCOPE, b"", "text/plain"),
    ]
    for bad in bad_puts:
        with pytest.raises(ArtifactInvalid):
            bad()
    for cls in (ArtifactConflict, ArtifactIntegrityError, ArtifactNotFound, ArtifactExpired, ArtifactInvalid):
        assert issubclass(cls, ArtifactError)


def test_max_bytes(backend: Backend) -> None:
    with backend.open(max_bytes=4) as small:
        small.put(SCOPE, b"1234", "text/plain")
        with pytest.raises(ArtifactInvalid, match="limit of 4"):
            small.put(SCOPE, b"12345", "text/plain")
    with pytest.raises(ValueError, match="max_bytes"):
        backend.open(max_bytes=-1)


def test_list_pages_with_a_cursor(store: ArtifactStore) -> None:
    refs = [store.put(SCOPE, f"artifact {i}".encode(), "text/plain") for i in range(5)]
    store.put("tenant.other", b"theirs", "text/plain")
    want = sorted(r.artifact_id for r in refs)

    seen: list[str] = []
    pages = 0
    after: str | None = None
    while True:
        page = store.list(SCOPE, after=after, limit=2)
        assert isinstance(page, ArtifactPage)
        pages += 1
        seen += [r.artifact_id for r in page.items]
        if page.next_cursor is None:
            break
        assert page.next_cursor == page.items[-1].artifact_id
        after = page.next_cursor
    assert seen == want and pages == 3
    # The default page holds them all and is the last; items are whole references.
    page = store.list(SCOPE)
    assert page.next_cursor is None and sorted(page.items, key=lambda r: r.artifact_id) == page.items
    assert {r.artifact_id: r for r in page.items} == {r.artifact_id: r for r in refs}
    assert store.list(SCOPE, limit=5).next_cursor is None  # no cursor to an empty page
    assert store.list("tenant.none") == ArtifactPage(items=[], next_cursor=None)

    with pytest.raises(ArtifactInvalid):
        store.list(SCOPE, limit=0)
    with pytest.raises(ArtifactInvalid):
        store.list(SCOPE, limit=1001)
    with pytest.raises(ArtifactInvalid, match="cursor"):
        store.list(SCOPE, after="not-an-id")
    with pytest.raises(ArtifactInvalid):
        store.list("../x")
    with pytest.raises(TypeError, match="limit"):
        store.list(SCOPE, limit="2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="limit"):
        store.list(SCOPE, limit=True)
    with pytest.raises(TypeError, match="after"):
        store.list(SCOPE, after=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="scope"):
        store.list(None)  # type: ignore[arg-type]


def test_delete_frees_the_key(store: ArtifactStore) -> None:
    ref = store.put(SCOPE, b"draft", "text/plain", idempotency_key="doc")
    theirs = store.put("tenant.other", b"draft", "text/plain", idempotency_key="doc")
    assert store.delete(SCOPE, ref.artifact_id) is True
    assert store.delete(SCOPE, ref.artifact_id) is False
    with pytest.raises(ArtifactNotFound):
        store.get(ref)
    # The key may name new content now; the other scope kept its own.
    assert store.put(SCOPE, b"final", "text/plain", idempotency_key="doc").artifact_id != ref.artifact_id
    assert store.get(theirs) == b"draft"
    with pytest.raises(ArtifactInvalid):
        store.delete(SCOPE, "sha256:nope")
    with pytest.raises(TypeError, match="artifact_id"):
        store.delete(SCOPE, ref)  # type: ignore[arg-type]


def test_purge_expired(store: ArtifactStore) -> None:
    now = datetime.now(timezone.utc)
    gone = [
        store.put(SCOPE, f"old {i}".encode(), "text/plain", expires_at=now - timedelta(minutes=i + 1)) for i in range(3)
    ]
    later = store.put(SCOPE, b"later", "text/plain", expires_at=now + timedelta(hours=1))
    kept = store.put(SCOPE, b"forever", "text/plain")
    store.put("tenant.other", b"old", "text/plain", expires_at=now - timedelta(minutes=1))

    # Expired artifacts are listed until purged; limit bounds each purge.
    assert len(store.list(SCOPE).items) == 5
    assert store.purge_expired(SCOPE, limit=2) == 2
    assert store.purge_expired(SCOPE, limit=2) == 1
    assert store.purge_expired(SCOPE) == 0
    for ref in gone:
        with pytest.raises(ArtifactNotFound):
            store.get(ref)
    # An explicit now purges what has expired by then.
    assert store.purge_expired(SCOPE, now=now + timedelta(hours=2)) == 1
    assert [r.artifact_id for r in store.list(SCOPE).items] == [kept.artifact_id]
    with pytest.raises(ArtifactNotFound):
        store.get(later)
    assert len(store.list("tenant.other").items) == 1

    with pytest.raises(TypeError, match="timezone-aware"):
        store.purge_expired(SCOPE, now=datetime(2030, 1, 1))
    with pytest.raises(ArtifactInvalid):
        store.purge_expired(SCOPE, now=datetime(1960, 1, 1, tzinfo=timezone.utc))
    with pytest.raises(ArtifactInvalid):
        store.purge_expired(SCOPE, limit=0)


def test_a_closed_store_refuses_every_call(backend: Backend) -> None:
    store = backend.open()
    ref = store.put(SCOPE, b"x", "text/plain")
    before = _capi.handle_count()
    store.close()
    store.close()
    assert store.closed and "closed" in repr(store)
    assert _capi.handle_count() == before - 1
    for closed_call in (
        lambda: store.put(SCOPE, b"x", "text/plain"),
        lambda: store.get(ref),
        lambda: store.list(SCOPE),
        lambda: store.delete(SCOPE, ref.artifact_id),
        lambda: store.purge_expired(SCOPE),
        lambda: create_agent(model=TestModel("ok"), artifact_store=store, artifact_scope=SCOPE),
    ):
        with pytest.raises(StateError, match="closed"):
            closed_call()


def test_durable_artifacts_outlive_their_store_object(durable: Backend) -> None:
    with durable.open() as first:
        ref = first.put(SCOPE, PNG, "image/png", name="chart.png", idempotency_key="chart:3")
    del first
    gc.collect()
    with durable.open() as second:
        assert second.get(ref) == PNG
        assert second.list(SCOPE).items == [ref]
        # The key replays across store objects, and still refuses other content.
        assert second.put(SCOPE, PNG, "image/png", name="chart.png", idempotency_key="chart:3") == ref
        with pytest.raises(ArtifactConflict):
            second.put(SCOPE, b"\x89PNG\r\n\x1a\nother", "image/png", idempotency_key="chart:3")


# -- SQLite ---------------------------------------------------------------------------


READER = """
import json, sys
from starweaver.artifacts import SqliteArtifactStore
from starweaver.content import ArtifactRef
path, raw = sys.argv[1], sys.argv[2]
with SqliteArtifactStore(path) as store:
    ref = ArtifactRef.model_validate_json(raw)
    sys.stdout.write(json.dumps({"bytes": store.get(ref).decode(), "listed": len(store.list(ref.scope).items)}))
"""


def test_sqlite_artifacts_are_read_by_another_process(tmp_path: Path) -> None:
    path = str(tmp_path / "artifacts.db")
    with SqliteArtifactStore(path) as store:
        ref = store.put(SCOPE, b"for the next process", "text/plain")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        proc = subprocess.run(
            [sys.executable, "-c", READER, path, ref.model_dump_json()],
            capture_output=True,
            text=True,
            timeout=PROCESS_TIMEOUT,
            env=env,
        )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"bytes": "for the next process", "listed": 1}


def test_sqlite_shares_the_session_stores_database() -> None:
    # A private in-memory database is reachable only through its store.
    sessions = SqliteSessionStore(":memory:")
    a = SqliteArtifactStore(sessions)
    b = SqliteArtifactStore(sessions, max_bytes=1024)
    assert repr(a) == "SqliteArtifactStore(':memory:')" and a.path == ":memory:"
    ref = a.put(SCOPE, b"shared", "text/plain")
    sessions.close()
    # The artifact stores keep the database open without the session store.
    assert b.get(ref) == b"shared"
    with pytest.raises(StateError, match="closed"):
        SqliteArtifactStore(sessions)
    # Two ":memory:" paths are two databases.
    with SqliteArtifactStore(":memory:") as other:
        with pytest.raises(ArtifactNotFound):
            other.get(ref)
    a.close()
    b.close()


def test_sqlite_arguments(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="path or a SqliteSessionStore"):
        SqliteArtifactStore(5)  # type: ignore[arg-type]

    class BytesPath:
        def __fspath__(self) -> bytes:
            return b"x.db"

    with pytest.raises(TypeError, match="bytes"):
        SqliteArtifactStore(BytesPath())  # type: ignore[arg-type]
    with pytest.raises(StoreUnavailableError):
        SqliteArtifactStore(tmp_path)  # a directory
    with SqliteArtifactStore(tmp_path / "p.db") as store:
        assert repr(store) == f"SqliteArtifactStore({str(tmp_path / 'p.db')!r})"


# -- agents -----------------------------------------------------------------------


@tool
async def render_chart(ctx: ToolContext, week: int) -> ToolOutput:
    """Render the weekly chart."""
    ref = await ctx.artifacts.put(PNG, "image/png", name=f"week-{week}.png", idempotency_key=f"chart:{week}")
    return ToolOutput.rich([f"week {week}:", Image.from_artifact(ref)])


def chart_model() -> TestModel:
    return TestModel.responses([TestModel.tool_call_response([call("render_chart", "c1", week=3)]), "nice chart"])


def test_a_tool_writes_to_sqlite_and_the_model_gets_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "artifacts.db"
    model = chart_model()
    with SqliteArtifactStore(path) as store:
        agent = create_agent(model=model, tools=[render_chart], artifact_store=store, artifact_scope=SCOPE)
        result = run(agent.run("draw"))
    assert result.output == "nice chart"
    (sent,) = tool_returns(model.captured_messages())  # type: ignore[arg-type]
    assert sent["parts"][1].source.model_dump() == {"kind": "base64", "media_type": "image/png", "data": PNG_B64}
    (kept,) = result.tool_returns()
    assert kept.parts is not None
    image = kept.parts[1]
    assert isinstance(image, Image) and image.source.kind == "artifact"
    ref = image.source.reference
    assert isinstance(ref, ArtifactRef) and ref.name == "week-3.png"
    # The artifact is in the file, for any later store.
    with SqliteArtifactStore(path) as later:
        assert later.list(SCOPE).items == [ref] and later.get(ref) == PNG


def test_a_retried_tool_replays_its_write(backend: Backend) -> None:
    """A call retried after it stored its artifact stores nothing twice; the
    same key with other bytes is a conflict the tool sees as ArtifactConflict."""
    attempts: list[ArtifactRef] = []
    conflicts: list[ArtifactConflict] = []

    @tool
    async def export_report(ctx: ToolContext) -> ToolOutput:
        ref = await ctx.artifacts.put(b"%PDF-1.7 report", "application/pdf", idempotency_key="report:q3")
        attempts.append(ref)
        if len(attempts) == 1:
            raise ModelRetry("the mail server was busy; try again")
        try:
            ctx.artifacts.put_sync(b"%PDF-1.7 other", "application/pdf", idempotency_key="report:q3")
        except ArtifactConflict as exc:
            conflicts.append(exc)
        return ToolOutput.rich(["sent"])

    model = TestModel.responses(
        [
            TestModel.tool_call_response([call("export_report", "c1")]),
            TestModel.tool_call_response([call("export_report", "c2")]),
            "sent",
        ]
    )
    with backend.open() as store:
        agent = create_agent(model=model, tools=[export_report], artifact_store=store, artifact_scope=SCOPE)
        assert run(agent.run("send the report")).output == "sent"
        assert len(attempts) == 2 and attempts[0] == attempts[1]
        assert [r.artifact_id for r in store.list(SCOPE).items] == [attempts[0].artifact_id]
    assert len(conflicts) == 1 and conflicts[0].type == "artifact_conflict"


def test_an_agent_keeps_a_closed_store(backend: Backend) -> None:
    model = chart_model()
    store = backend.open()
    agent = create_agent(model=model, tools=[render_chart], artifact_store=store, artifact_scope=SCOPE)
    store.close()
    # The agent's tools still write through ctx.artifacts, and the runtime reads.
    assert run(agent.run("draw")).output == "nice chart"
    (sent,) = tool_returns(model.captured_messages())  # type: ignore[arg-type]
    assert sent["parts"][1].source.data == PNG_B64
    # (the autouse leak check sees every handle released once agent and store go)


# -- PostgreSQL -----------------------------------------------------------------------


def test_postgres_shares_the_session_stores_database(postgres_dsn: str) -> None:
    with PostgresSessionStore(postgres_dsn) as sessions:
        with PostgresArtifactStore(sessions) as a, PostgresArtifactStore(postgres_dsn) as b:
            assert repr(a) == repr(b) == f"PostgresArtifactStore({_redact_dsn(postgres_dsn)!r})"
            ref = a.put(SCOPE, b"shared", "text/plain")
            assert b.get(ref) == b"shared"
    with pytest.raises(StateError, match="closed"):
        PostgresArtifactStore(sessions)


def test_postgres_arguments() -> None:
    with pytest.raises(TypeError, match="DSN or a PostgresSessionStore"):
        PostgresArtifactStore(b"postgres://x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dsn"):
        PostgresArtifactStore("")
    dsn = "postgres://worker:s3cret-pw@127.0.0.1:1/app?sslmode=disable&connect_timeout=5"
    with pytest.raises(StoreUnavailableError) as unavailable:
        PostgresArtifactStore(dsn)
    assert "s3cret-pw" not in str(unavailable.value)
