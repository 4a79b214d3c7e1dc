"""Artifact stores: where tools keep binary outputs, so that conversations
carry references instead of bytes.

Give an agent a store and a scope (``create_agent(artifact_store=...,
artifact_scope="tenant.acme")``); tools then reach it as ``ctx.artifacts``
(bound to that scope), return ``Image.from_artifact(ref)`` and the like, and
the runtime reads the bytes just before each model request. Returns larger
than the agent's output budget are spilled to the store too, and the model
pages through them with the ``read_artifact`` tool.

A store is a native object (the Go runtime's ``artifact.Store``): every
kind is created from a spec and reached through the same handle.
``MemoryArtifactStore`` keeps artifacts in process memory;
``SqliteArtifactStore`` and ``PostgresArtifactStore`` keep them in the
database of the durable stores (``starweaver.stores``), where they outlive
the process and are shared with every process using the same file or
server.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import os
import threading
import weakref
from datetime import datetime
from types import TracebackType
from typing import Any, final

from . import _capi
from .content import ArtifactRef
from .errors import StateError
from .stores import PostgresStore, SqliteStore, _redact_dsn

__all__ = (
    "ArtifactPage",
    "ArtifactStore",
    "MemoryArtifactStore",
    "OutputBudget",
    "PostgresArtifactStore",
    "SqliteArtifactStore",
    "ToolArtifacts",
    "artifacts_spec",
)


@dataclasses.dataclass(frozen=True)
class ArtifactPage:
    """One page of ``ArtifactStore.list``.

    Arguments:
        items: The references, in artifact id order.
        next_cursor: Pass it as ``after`` to read the next page; None on
            the last page.
    """

    items: list[ArtifactRef]
    next_cursor: str | None


class ArtifactStore:
    """An artifact store owned by the runtime. Use a subclass
    (``MemoryArtifactStore``, ``SqliteArtifactStore``,
    ``PostgresArtifactStore``); they all behave alike.

    The methods block while the store works: use them from application code,
    and ``ctx.artifacts`` (which runs them in a thread) from tools. They are
    safe to call from several threads at once.

    ``close()`` (or leaving a ``with`` block) releases the store. Agents
    built with it keep using it, their tools' ``ctx.artifacts`` included;
    the durable stores keep their database open for as long as anything
    uses them.
    """

    __slots__ = ("__weakref__", "_closed", "_handle", "_leases", "_lock", "_release")

    def __init__(self, spec: dict[str, Any]) -> None:
        self._handle = _capi.artifact_store_new(spec)
        self._release = weakref.finalize(self, _capi.release, self._handle)
        self._lock = threading.Lock()
        self._closed = False
        self._leases = 0  # ToolArtifacts using the handle

    def _native_handle(self) -> int:
        """The handle, for an agent being built.

        Raises:
            StateError: the store is closed.
        """
        if self._closed:
            raise StateError("the artifact store is closed", code="state")
        return self._handle

    def _lease(self) -> int:
        """The handle, kept valid until ``_unlease`` even if the store is
        closed meanwhile.

        Raises:
            StateError: the store is closed.
        """
        with self._lock:
            handle = self._native_handle()
            self._leases += 1
        return handle

    def _unlease(self) -> None:
        with self._lock:
            self._leases -= 1
            release = self._closed and self._leases == 0
        if release:
            self._release()

    @property
    def closed(self) -> bool:
        """Whether ``close()`` was called."""
        return self._closed

    def close(self) -> None:
        """Release the store (also done at garbage collection); closing twice
        is allowed. Agents built with it keep using it; building an agent
        with a closed store, and the methods of a closed store, raise
        ``StateError``."""
        with self._lock:
            self._closed = True
            release = self._leases == 0
        if release:
            self._release()

    def __enter__(self) -> ArtifactStore:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def put(
        self,
        scope: str,
        data: bytes,
        media_type: str,
        *,
        name: str | None = None,
        idempotency_key: str | None = None,
        expires_at: datetime | None = None,
    ) -> ArtifactRef:
        """Store ``data`` in ``scope`` and return its reference. Without an
        ``idempotency_key`` the key is derived from the content, the media
        type, the name and the expiry, so storing the same thing twice
        returns the same reference.

        Raises:
            TypeError: data is not bytes, or expires_at is naive.
            ArtifactInvalid: a rule of the write is broken (the scope, the
                key, the media type, content that is not of its media type,
                the store's size limit).
            ArtifactConflict: the key already names other content, or the
                scope holds the content with another name or expiry.
            StoreUnavailableError: the store failed.
            StateError: the store is closed.
        """
        spec = _put_spec(scope, data, media_type, name, idempotency_key, expires_at)
        return ArtifactRef.model_validate(_capi.artifact_put(self._native_handle(), spec, bytes(data)))

    def get(self, reference: ArtifactRef) -> bytes:
        """The bytes of the artifact ``reference`` names.

        Raises:
            TypeError: reference is not an ArtifactRef.
            ArtifactNotFound: the scope holds no such artifact.
            ArtifactIntegrityError: the reference differs from the stored
                one, or the stored bytes changed.
            ArtifactExpired: the artifact expired (it stays stored until
                purged).
            ArtifactInvalid: a malformed reference.
            StoreUnavailableError: the store failed.
            StateError: the store is closed.
        """
        if not isinstance(reference, ArtifactRef):
            raise TypeError(f"reference must be an ArtifactRef, got {type(reference).__name__}")
        return _capi.artifact_get(self._native_handle(), reference.model_dump(mode="json"))

    def list(self, scope: str, after: str | None = None, limit: int = 100) -> ArtifactPage:
        """One page of the references of ``scope``, in artifact id order,
        starting after the cursor ``after`` (a page's ``next_cursor``; None
        for the first page). Expired artifacts are listed until purged.

        Raises:
            TypeError: an argument of the wrong type.
            ArtifactInvalid: a bad scope or cursor, or a limit outside 1 to
                1000.
            StoreUnavailableError: the store failed.
            StateError: the store is closed.
        """
        _check_scope(scope)
        if after is not None and not isinstance(after, str):
            raise TypeError(f"after must be a str or None, got {type(after).__name__}")
        raw = _capi.artifact_list(self._native_handle(), scope, after, _check_limit(limit))
        return ArtifactPage(
            items=[ArtifactRef.model_validate(r) for r in raw["items"]],
            next_cursor=raw.get("next_cursor") or None,
        )

    def delete(self, scope: str, artifact_id: str) -> bool:
        """Delete the artifact ``artifact_id`` of ``scope`` and every
        idempotency key naming it (so the keys can be used again). Returns
        whether there was such an artifact; deleting again returns False.

        Raises:
            TypeError: an argument of the wrong type.
            ArtifactInvalid: a bad scope, or an id that is not ``sha256:``
                and 64 hex digits.
            StoreUnavailableError: the store failed.
            StateError: the store is closed.
        """
        _check_scope(scope)
        if not isinstance(artifact_id, str):
            raise TypeError(f"artifact_id must be a str, got {type(artifact_id).__name__}")
        return _capi.artifact_delete(self._native_handle(), scope, artifact_id)

    def purge_expired(self, scope: str, now: datetime | None = None, limit: int = 100) -> int:
        """Delete at most ``limit`` artifacts of ``scope`` that expired at
        ``now`` (the current time when None), earliest expiry first, with
        their idempotency keys. Returns how many it deleted: call it again
        while that equals ``limit`` to purge everything.

        Raises:
            TypeError: an argument of the wrong type, or a naive ``now``.
            ArtifactInvalid: a bad scope, a limit outside 1 to 1000, or a
                ``now`` before 1970.
            StoreUnavailableError: the store failed.
            StateError: the store is closed.
        """
        _check_scope(scope)
        now_ms = None if now is None else _unix_ms(now, "now")
        return _capi.artifact_purge_expired(self._native_handle(), scope, now_ms, _check_limit(limit))

    def _describe(self) -> str:
        return f"handle={self._handle}"

    def __repr__(self) -> str:
        closed = ", closed" if self._closed else ""
        return f"{type(self).__name__}({self._describe()}{closed})"


class MemoryArtifactStore(ArtifactStore):
    """An artifact store in process memory, for tests and single runs.

    Arguments:
        max_bytes: The largest artifact it accepts (16 MiB by default).
    """

    __slots__ = ()

    def __init__(self, *, max_bytes: int | None = None) -> None:
        spec: dict[str, Any] = {"kind": "memory"}
        if max_bytes is not None:
            spec["max_bytes"] = max_bytes
        super().__init__(spec)

    def __enter__(self) -> MemoryArtifactStore:
        return self


def _database_spec(kind: str, store: int, max_bytes: int | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"kind": kind, "store": store}
    if max_bytes is not None:
        spec["max_bytes"] = max_bytes
    return spec


def _session_store_handle(store: SqliteStore | PostgresStore) -> int:
    if store.closed:
        raise StateError(f"{type(store).__name__} is closed: open the artifact store first", code="state")
    return store._native_handle()


@final
class SqliteArtifactStore(ArtifactStore):
    """Artifacts in an SQLite file (created with its tables if needed),
    durable across processes; processes on one machine may share the file.
    The same file may hold sessions (``SqliteSessionStore``): within a
    process, stores of one file share one database.

    Arguments:
        database: The database file, or an open ``SqliteStore`` (or
            ``SqliteSessionStore``) whose database to share (the way to
            share a private ``":memory:"`` database, which no path names
            twice). The
            artifact store keeps the database open for as long as it lives,
            whether or not the session store is closed.
        max_bytes: The largest artifact it accepts (16 MiB by default).

    Raises:
        TypeError: ``database`` is neither a path nor a
            ``SqliteSessionStore``.
        StoreUnavailableError: the file cannot be opened as a database.
        StateError: the session store is closed.
    """

    __slots__ = ("path",)

    def __init__(self, database: str | os.PathLike[str] | SqliteStore, *, max_bytes: int | None = None) -> None:
        if isinstance(database, SqliteStore):
            self.path = database.path
            super().__init__(_database_spec("sqlite", _session_store_handle(database), max_bytes))
            return
        if not isinstance(database, (str, os.PathLike)):
            raise TypeError(f"database must be a path or a SqliteSessionStore, got {type(database).__name__}")
        path = os.fspath(database)
        if not isinstance(path, str):
            raise TypeError("database must be a text path, not bytes")
        self.path = path
        store = _capi.store_open({"kind": "sqlite", "path": path})
        try:
            super().__init__(_database_spec("sqlite", store, max_bytes))
        finally:
            _capi.release(store)  # the artifact store holds the database now

    def __enter__(self) -> SqliteArtifactStore:
        return self

    def _describe(self) -> str:
        return repr(self.path)


@final
class PostgresArtifactStore(ArtifactStore):
    """Artifacts in a PostgreSQL database (its tables created or migrated
    on open), shared by every worker connected to it. The same database may
    hold sessions (``PostgresSessionStore``): within a process, stores of
    one DSN share one connection pool.

    Arguments:
        database: A libpq connection string (a URL or ``key=value``
            pairs; kept only by the native store: the repr and the errors
            never show its password), or an open ``PostgresStore`` (or
            ``PostgresSessionStore``) whose database to share.
        max_bytes: The largest artifact it accepts (16 MiB by default).

    Raises:
        TypeError: ``database`` is neither a string nor a
            ``PostgresSessionStore``.
        ValueError: the DSN is empty.
        StoreUnavailableError: the server cannot be reached, or refuses.
        StateError: the session store is closed.
    """

    __slots__ = ("_redacted",)

    def __init__(self, database: str | PostgresStore, *, max_bytes: int | None = None) -> None:
        if isinstance(database, PostgresStore):
            self._redacted = database._location()  # noqa: SLF001 - only the store keeps its redacted DSN
            super().__init__(_database_spec("postgres", _session_store_handle(database), max_bytes))
            return
        if not isinstance(database, str):
            raise TypeError(f"database must be a DSN or a PostgresSessionStore, got {type(database).__name__}")
        self._redacted = _redact_dsn(database)
        store = _capi.store_open({"kind": "postgres", "dsn": database})
        try:
            super().__init__(_database_spec("postgres", store, max_bytes))
        finally:
            _capi.release(store)  # the artifact store holds the database now

    def __enter__(self) -> PostgresArtifactStore:
        return self

    def _describe(self) -> str:
        return repr(self._redacted)


def _check_scope(scope: str) -> None:
    if not isinstance(scope, str):
        raise TypeError(f"scope must be a str, got {type(scope).__name__}")


def _check_limit(limit: int) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool):
        raise TypeError(f"limit must be an int, got {type(limit).__name__}")
    return limit


def _unix_ms(at: datetime, what: str = "expires_at") -> int:
    if not isinstance(at, datetime):
        raise TypeError(f"{what} must be a datetime, got {type(at).__name__}")
    if at.tzinfo is None:
        raise TypeError(f"{what} must be timezone-aware (a naive datetime names no instant)")
    return int(at.timestamp() * 1000)


def _put_spec(
    scope: str,
    data: bytes,
    media_type: str,
    name: str | None,
    idempotency_key: str | None,
    expires_at: datetime | None,
) -> dict[str, Any]:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    spec: dict[str, Any] = {"scope": scope, "media_type": media_type}
    if name is not None:
        spec["name"] = name
    if expires_at is not None:
        spec["expires_at_unix_ms"] = _unix_ms(expires_at)
    if idempotency_key is None:
        h = hashlib.sha256()
        expiry = str(spec.get("expires_at_unix_ms", ""))
        for piece in (media_type.encode(), bytes(data), (name or "").encode(), expiry.encode()):
            h.update(piece)
            h.update(b"\0")
        idempotency_key = "content:" + h.hexdigest()
    spec["idempotency_key"] = idempotency_key
    return spec


class ToolArtifacts:
    """The agent's artifact store as a tool sees it (``ctx.artifacts``):
    bound to the agent's scope, so a tool neither writes into nor reads from
    another. ``put`` and ``get`` run the store's work in a thread, so a slow
    store never blocks the event loop; ``put_sync`` and ``get_sync`` block,
    for sync tools (which run in worker threads).

    It keeps the store usable while it lives, even once the store is
    closed (an agent built with a store keeps it).

    Raises:
        StateError: the store is closed.
    """

    __slots__ = ("__weakref__", "_handle", "_scope", "_store")

    def __init__(self, store: ArtifactStore, scope: str) -> None:
        self._store = store
        self._scope = scope
        self._handle = store._lease()  # noqa: SLF001 - ArtifactStore is this module's: a ToolArtifacts leases its handle
        weakref.finalize(self, store._unlease)  # noqa: SLF001 - see above

    @property
    def scope(self) -> str:
        """The scope every artifact of the run lives in."""
        return self._scope

    async def put(
        self,
        data: bytes,
        mime: str,
        *,
        name: str | None = None,
        idempotency_key: str | None = None,
        expires_at: datetime | None = None,
    ) -> ArtifactRef:
        """Store ``data`` (of media type ``mime``) and return its reference
        (see ``ArtifactStore.put``; pass a stable ``idempotency_key`` when a
        retried call may produce other bytes for the same thing).

        Raises:
            As ``ArtifactStore.put``.
        """
        spec = _put_spec(self._scope, data, mime, name, idempotency_key, expires_at)
        raw = await asyncio.to_thread(_capi.artifact_put, self._handle, spec, bytes(data))
        return ArtifactRef.model_validate(raw)

    async def get(self, ref: ArtifactRef) -> bytes:
        """The bytes of ``ref``, which must be of the run's scope.

        Raises:
            ArtifactInvalid: a reference of another scope; otherwise as
                ``ArtifactStore.get``.
        """
        if not isinstance(ref, ArtifactRef):
            raise TypeError(f"ref must be an ArtifactRef, got {type(ref).__name__}")
        return await asyncio.to_thread(_capi.artifact_get, self._handle, ref.model_dump(mode="json"), self._scope)

    def put_sync(
        self,
        data: bytes,
        mime: str,
        *,
        name: str | None = None,
        idempotency_key: str | None = None,
        expires_at: datetime | None = None,
    ) -> ArtifactRef:
        """``put`` for sync tools: blocks the calling (worker) thread.

        Raises:
            As ``ArtifactStore.put``.
        """
        spec = _put_spec(self._scope, data, mime, name, idempotency_key, expires_at)
        return ArtifactRef.model_validate(_capi.artifact_put(self._handle, spec, bytes(data)))

    def get_sync(self, ref: ArtifactRef) -> bytes:
        """``get`` for sync tools: blocks the calling (worker) thread.

        Raises:
            As ``get``.
        """
        if not isinstance(ref, ArtifactRef):
            raise TypeError(f"ref must be an ArtifactRef, got {type(ref).__name__}")
        return _capi.artifact_get(self._handle, ref.model_dump(mode="json"), self._scope)

    def __repr__(self) -> str:
        return f"ToolArtifacts(scope={self._scope!r})"


@dataclasses.dataclass(frozen=True)
class OutputBudget:
    """How much of one tool return a conversation keeps. With an artifact
    store, a return whose model-visible text is longer than ``max_bytes``
    (32 KiB unless set) is stored in it: the model reads the first
    ``head_bytes`` (4 KiB unless set), the size and the artifact's id, and
    pages through the rest with the ``read_artifact`` tool, which the agent
    then offers. ``disabled=True`` keeps every return whole.
    """

    max_bytes: int | None = None
    head_bytes: int | None = None
    disabled: bool = False


def output_budget_spec(budget: OutputBudget) -> dict[str, Any]:
    """The budget as the runtime reads it; unset fields are left out."""
    spec: dict[str, Any] = {}
    if budget.max_bytes is not None:
        spec["max_bytes"] = budget.max_bytes
    if budget.head_bytes is not None:
        spec["head_bytes"] = budget.head_bytes
    if budget.disabled:
        spec["disabled"] = True
    return spec


def artifacts_spec(
    store: ArtifactStore | None,
    scope: str | None,
    resolve_limit: int | None,
    max_tool_output_bytes: int | None,
    output_budget: OutputBudget | None,
) -> dict[str, Any]:
    """The agent spec keys of these options (only those set).

    Raises:
        TypeError: a store without a scope or the other way round, or an
            option of the wrong type.
    """
    spec: dict[str, Any] = {}
    if (store is None) != (scope is None):
        raise TypeError("artifact_store and artifact_scope go together")
    if store is not None:
        if not isinstance(store, ArtifactStore):
            raise TypeError(f"artifact_store must be an ArtifactStore, got {type(store).__name__}")
        if not isinstance(scope, str):
            raise TypeError(f"artifact_scope must be a string, got {type(scope).__name__}")
        art: dict[str, Any] = {"store": store._native_handle(), "scope": scope}
        if resolve_limit is not None:
            art["resolve_limit"] = resolve_limit
        spec["artifacts"] = art
    elif resolve_limit is not None:
        raise TypeError("artifact_resolve_limit needs an artifact_store")
    if max_tool_output_bytes is not None:
        spec["max_tool_output_bytes"] = max_tool_output_bytes
    if output_budget is not None:
        if not isinstance(output_budget, OutputBudget):
            raise TypeError(f"output_budget must be an OutputBudget, got {type(output_budget).__name__}")
        spec["output_budget"] = output_budget_spec(output_budget)
    return spec
