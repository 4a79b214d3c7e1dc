"""Durable stores: where agents keep what must outlive a process.

A store is an open database (``SqliteStore(path)``, ``PostgresStore(dsn)``)
holding the tables of every durable concern. Agents use it as:

- a session store (``create_agent(..., session_store=store)``): every run's
  end is saved, any process sharing the store opens a session by id
  (``AgentRuntime.open_session``, ``resume_after_hitl_by_id``), and a waiting
  run is resumed at most once across them all;
- an effect journal (``create_agent(..., effect_journal=store)``): tool calls
  that may change the world are recorded before they run and when they end,
  so that a call met again replays its recorded return instead of running
  twice, and a call whose worker stopped while it ran is reported ambiguous
  rather than repeated. With both, a run whose process stopped mid-turn is
  continued by another with ``AgentSession.recover()``.

Two backends:

- ``SqliteStore(path)``: an SQLite file, the default for one process or for
  processes on one machine.
- ``PostgresStore(dsn)``: a PostgreSQL database shared by workers on
  several machines.

``SqliteSessionStore`` and ``PostgresSessionStore`` are the same stores under
their earlier names. Stores of the same file (or the same DSN) share one
database within the process. ``close()`` (or leaving a ``with`` block)
releases the store; agents built with it keep its database open as long as
they live.
"""

from __future__ import annotations

import os
import re
import weakref
from dataclasses import dataclass
from datetime import datetime, timezone
from types import TracebackType
from typing import Any, Literal, final
from urllib.parse import urlsplit, urlunsplit

from starweaver import _capi
from starweaver.hitl import ApprovalDecision, DeferredResult, HITLSnapshot

__all__ = [
    "ClaimedResume",
    "EffectRecovery",
    "InFlightRun",
    "PostgresSessionStore",
    "PostgresStore",
    "SessionStore",
    "SqliteSessionStore",
    "SqliteStore",
    "Store",
]


#: What a journaled call does when the journal holds a record of it that
#: started and never finished (its worker stopped while it ran): refuse it as
#: ambiguous (``"reject_ambiguous"``, the default), or run it again when its
#: effect class is safe to repeat (``"retry_safe"``: undeclared tools and
#: idempotent writes).
EffectRecovery = Literal["reject_ambiguous", "retry_safe"]


class Store:
    """An open store; see the module docstring. Build one with
    ``SqliteStore`` or ``PostgresStore``."""

    def __init__(self, spec: dict[str, Any]) -> None:
        if type(self) is Store:
            raise TypeError("Store is abstract: use SqliteStore or PostgresStore")
        self._handle = _capi.store_open(spec)
        self._release = weakref.finalize(self, _capi.release, self._handle)

    @property
    def closed(self) -> bool:
        """Whether ``close()`` was called."""
        return not self._release.alive

    def close(self) -> None:
        """Release the store (also done at garbage collection); closing twice
        is allowed. Agents built with it keep using its database; building
        an agent with a closed store fails (``StateError``)."""
        self._release()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _location(self) -> str:
        raise NotImplementedError

    def _native_handle(self) -> int:
        return int(self._handle)

    def __repr__(self) -> str:
        closed = ", closed" if self.closed else ""
        return f"{type(self).__name__}({self._location()!r}{closed})"


#: The name ``Store`` had when it kept sessions only.
SessionStore = Store


class SqliteStore(Store):
    """A store in an SQLite file (created with its tables if needed);
    processes on one machine may share the file. ``":memory:"`` is a
    private in-memory database, for tests.

    Arguments:
        path: The database file.

    Raises:
        TypeError: ``path`` is not a string or path.
        StoreUnavailableError: the file cannot be opened as a database.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
        self.path = os.fspath(path)
        if not isinstance(self.path, str):
            raise TypeError("path must be a text path, not bytes")
        super().__init__({"kind": "sqlite", "path": self.path})

    def __enter__(self) -> SqliteStore:
        return self

    def _location(self) -> str:
        return self.path


@final
class SqliteSessionStore(SqliteStore):
    """``SqliteStore`` under the name it had when it kept sessions only."""

    def __enter__(self) -> SqliteSessionStore:
        return self


class PostgresStore(Store):
    """A store in a PostgreSQL database (its tables created or migrated on
    open), shared by every worker connected to it.

    Arguments:
        dsn: A libpq connection string: a URL
            (``postgres://user:password@host:5432/db?sslmode=require``) or
            ``key=value`` pairs. It is kept only by the native store: the
            repr and the errors never show its password.

    Raises:
        TypeError: ``dsn`` is not a string.
        ValueError: ``dsn`` is empty.
        StoreUnavailableError: the server cannot be reached, or refuses.
    """

    def __init__(self, dsn: str) -> None:
        if not isinstance(dsn, str):
            raise TypeError(f"dsn must be a str, got {type(dsn).__name__}")
        self._redacted = _redact_dsn(dsn)
        super().__init__({"kind": "postgres", "dsn": dsn})

    def __enter__(self) -> PostgresStore:
        return self

    def _location(self) -> str:
        return self._redacted


@final
class PostgresSessionStore(PostgresStore):
    """``PostgresStore`` under the name it had when it kept sessions only."""

    def __enter__(self) -> PostgresSessionStore:
        return self


_KV_PASSWORD = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S*)", re.IGNORECASE)
_QUERY_PASSWORD = re.compile(r"((?:^|&)password=)[^&]*", re.IGNORECASE)


def _redact_dsn(dsn: str) -> str:
    """``dsn`` with its password replaced by ``***`` (in a URL's user info
    or query, or in a ``password=`` pair)."""
    if "://" not in dsn:
        return _KV_PASSWORD.sub(r"\1***", dsn)
    try:
        parts = urlsplit(dsn)
    except ValueError:
        return "<unparsable dsn>"
    netloc = parts.netloc
    userinfo, at, hosts = netloc.rpartition("@")
    if at and ":" in userinfo:
        netloc = userinfo.split(":", 1)[0] + ":***@" + hosts
    query = _QUERY_PASSWORD.sub(r"\1***", parts.query)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


@dataclass(frozen=True)
class ClaimedResume:
    """A resume that claimed a session's waiting run in the session store
    and never saved its outcome: its worker is still running it, or
    stopped part way (see ``AgentSession.abandon_resume``).

    Arguments:
        run_id: The run whose waiting state the resume consumed.
        claimed_at: When it claimed it (UTC).
        pending: What the run waited for.
        approvals: The decisions the resume was given.
        deferred_results: The deferred results it was given.
    """

    run_id: str
    claimed_at: datetime
    pending: HITLSnapshot
    approvals: list[ApprovalDecision]
    deferred_results: list[DeferredResult]


def claimed_resume_from_wire(raw: dict[str, Any]) -> ClaimedResume:
    resolution = raw.get("resolution") or {}
    return ClaimedResume(
        run_id=str(raw.get("run_id", "")),
        claimed_at=datetime.fromtimestamp(int(raw.get("claimed_at_ms", 0)) / 1000, tz=timezone.utc),
        pending=HITLSnapshot.from_pending(raw.get("pending") or []),
        approvals=[
            ApprovalDecision(
                id=str(a.get("id", "")),
                approved=bool(a.get("approved")),
                decided_by=a.get("decided_by"),
                reason=a.get("reason"),
                override_arguments=a.get("override_arguments"),
                metadata=dict(a.get("metadata") or {}),
                user_input=a.get("user_input"),
            )
            for a in resolution.get("approvals") or []
        ],
        deferred_results=[
            DeferredResult(
                id=str(d.get("id", "")),
                status=str(d.get("status", "")),
                response=d.get("response"),
                metadata=dict(d.get("metadata") or {}),
            )
            for d in resolution.get("deferred_results") or []
        ],
    )


@dataclass(frozen=True)
class InFlightRun:
    """A run whose worker stopped while it ran its tool calls (or later in
    the run), as the session store recorded it before the calls started:
    the session refuses to run until ``AgentSession.recover()`` continues it
    (with an ``effect_journal``, see ``create_agent``) or
    ``AgentSession.abandon_in_flight()`` closes it. Without a journal,
    every call named here may have run.

    Arguments:
        run_id: The run.
        step: Its step whose calls were running.
        calls: Those calls, as ``(tool_call_id, tool_name)`` pairs in model
            order.
        recoveries: How many recoveries were claimed so far.
    """

    run_id: str
    step: int
    calls: tuple[tuple[str, str], ...]
    recoveries: int


def in_flight_run_from_wire(raw: dict[str, Any]) -> InFlightRun:
    return InFlightRun(
        run_id=str(raw.get("run_id", "")),
        step=int(raw.get("step", 0)),
        calls=tuple((str(c.get("id", "")), str(c.get("name", ""))) for c in raw.get("calls") or []),
        recoveries=int(raw.get("recoveries", 0)),
    )
