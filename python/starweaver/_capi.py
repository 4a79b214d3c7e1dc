"""Typed wrappers over the C ABI (capi/starweaver.h), one function per call.

Every function here converts the library's status codes and JSON error
objects into Python exceptions (see ``_raise``), copies returned buffers and
frees them. Nothing else in the package touches cffi's ``lib``.

The library is loaded on the first call, not at import (see ``_Unloaded``).

Fork: the Go runtime does not survive ``fork()``; in a forked child entering
the library can hang forever. So every function checks first, without a
system call, whether this process is a child forked after the library was
loaded (a flag set by an ``os.register_at_fork`` hook): ``release`` and
``shutdown`` (what finalizers and exit hooks call) then do nothing, so a
child that merely drops inherited agents, sessions and models exits cleanly;
everything else raises ``RuntimeError``. A child forked before the first call
loads a runtime of its own. The library checks again in C before entering Go,
for callers that bypass this module.
"""

from __future__ import annotations

import json
import os
from typing import Any, NoReturn, Protocol

from starweaver import _library
from starweaver.errors import (
    AgentError,
    ArtifactConflict,
    ArtifactExpired,
    ArtifactIntegrityError,
    ArtifactInvalid,
    ArtifactNotFound,
    HandoffError,
    ModelError,
    OutputRetryLimitExceeded,
    SessionNotFoundError,
    StarweaverError,
    StateError,
    StoreUnavailableError,
    ToolFailed,
    ToolIntentBudgetRefused,
    ToolIntentDuplicateIdentity,
    ToolIntentForeignExecutionScope,
    ToolIntentForeignSession,
    ToolIntentIdentityBoundToDifferentIntent,
    ToolIntentInvalid,
    ToolIntentMalformedKey,
    ToolIntentRecordedOutcomeOutsideProtocol,
    ToolIntentSessionMismatch,
    ToolOutputNotVisible,
    ToolRetryLimitExceeded,
    UsageLimitExceeded,
)

__all__ = [
    "ERROR_TYPES",
    "NativeError",
    "NativeOwner",
    "agent_new",
    "agent_open_session",
    "artifact_delete",
    "artifact_get",
    "artifact_list",
    "artifact_purge_expired",
    "artifact_put",
    "artifact_store_new",
    "catalog_host",
    "check_process",
    "error_from",
    "error_kinds",
    "handle_count",
    "model_captured",
    "model_messages",
    "model_new",
    "release",
    "run_cancel",
    "run_complete",
    "run_interrupt",
    "run_start",
    "run_steer",
    "session_from_messages",
    "session_messages",
    "session_abandon_in_flight",
    "session_abandon_resume",
    "session_claimed_resume",
    "session_context",
    "session_export",
    "session_info",
    "session_new",
    "session_restore",
    "shutdown",
    "skills_activate",
    "skills_scan",
    "store_open",
    "tool_intent_key",
    "tool_intents_settle_parent_end",
    "tool_intents_submit",
    "version",
]


class NativeOwner(Protocol):
    """An object that owns a native handle the calls below take: an agent
    or a session. The modules that only pass such a handle on take this,
    not the classes that own one, which sit above them."""

    def _native_handle(self) -> int: ...


class _Unloaded:
    """``_ffi`` or ``_lib`` until the first call into the library.

    Importing starweaver does not start the Go runtime (dlopen starts its
    threads and costs a few milliseconds): the first attribute read loads the
    library and rebinds both module globals, so later calls read the real
    objects directly.
    """

    __slots__ = ("_index",)

    def __init__(self, index: int) -> None:
        self._index = index

    def __getattr__(self, name: str) -> Any:
        global _ffi, _lib
        _ffi, _lib = _library.load()
        return getattr((_ffi, _lib)[self._index], name)


_ffi: Any = _Unloaded(0)
_lib: Any = _Unloaded(1)

# Set in a child forked after the library was loaded; read on every call, so
# it is a plain module global (no getpid() system call on the hot
# run_complete path). A child forked before that loads its own runtime.
_forked = False


def _mark_forked() -> None:
    global _forked
    _forked = _library.loaded()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_mark_forked)


class NativeError(StarweaverError):
    """An error the runtime library reported without a more specific class."""

    def __init__(self, message: str, *, type: str = "internal") -> None:
        super().__init__(message)
        self.type = type


def check_process() -> None:
    """Refuse use in a forked child, where the Go runtime's threads are gone.

    Raises:
        RuntimeError: when called in a process forked after the library was loaded.
    """
    if _forked:
        raise RuntimeError(
            "starweaver's runtime was started before this process was forked; the Go runtime does not "
            "survive fork(). Use the 'spawn' or 'forkserver' multiprocessing start method."
        )


def _raise(err: Any) -> NoReturn:
    """Turn the JSON error object written by the library into an exception."""
    if err[0] == _ffi.NULL:
        raise NativeError("native call failed without details")
    try:
        raw = _ffi.string(err[0]).decode("utf-8", "replace")
    finally:
        _lib.sw_free(err[0])
    try:
        data = json.loads(raw)
    except ValueError:
        raise NativeError(raw) from None
    raise error_from(data)


ERROR_TYPES: dict[str, type[BaseException]] = {
    "internal": NativeError,
    "invalid_argument": ValueError,
    "invalid_spec": ValueError,
    "bad_handle": StateError,
    "state": StateError,
    "invalid_decision": StateError,
    "invalid_result": StateError,
    "busy": StateError,
    "config": AgentError,
    "unavailable_tools": AgentError,
    "cancelled": AgentError,
    "output": AgentError,
    "model": ModelError,
    "retry_limit": ToolRetryLimitExceeded,
    "usage_limit_exceeded": UsageLimitExceeded,
    "bridge": NativeError,
    "unsupported": NativeError,
    "forked": NativeError,
    "session_not_found": SessionNotFoundError,
    "store_unavailable": StoreUnavailableError,
    "tool_output_not_visible": ToolOutputNotVisible,
    "tool_failed": ToolFailed,
    "handoff": HandoffError,
    "artifact_invalid": ArtifactInvalid,
    "artifact_not_found": ArtifactNotFound,
    "artifact_conflict": ArtifactConflict,
    "artifact_integrity": ArtifactIntegrityError,
    "artifact_expired": ArtifactExpired,
    "intent_malformed_key": ToolIntentMalformedKey,
    "intent_foreign_session": ToolIntentForeignSession,
    "intent_foreign_execution_scope": ToolIntentForeignExecutionScope,
    "intent_session_mismatch": ToolIntentSessionMismatch,
    "intent_identity_bound_to_different_intent": ToolIntentIdentityBoundToDifferentIntent,
    "intent_duplicate_identity": ToolIntentDuplicateIdentity,
    "intent_recorded_outcome_outside_protocol": ToolIntentRecordedOutcomeOutsideProtocol,
    "intent_refused": ToolIntentBudgetRefused,
    "intent_missing_tool_call_id": ToolIntentInvalid,
    "intent_index_overflow": ToolIntentInvalid,
    "intent_conflict": StoreUnavailableError,
    "intent_not_found": StoreUnavailableError,
    "intent_invalid": ToolIntentInvalid,
}
"""The library's error ``type`` slug -> the exception ``error_from`` raises
(``retry_limit`` of the output budget raises ``OutputRetryLimitExceeded``).
Equal to the library's list (``error_kinds()["error_types"]``), which a test
checks; an unknown slug becomes a ``NativeError``."""


def error_from(data: dict[str, Any]) -> BaseException:
    """Map an error object ``{"type", "message", ...}`` to an exception."""
    slug = str(data.get("type", "internal"))
    message = str(data.get("message", ""))
    cls = ERROR_TYPES.get(slug, NativeError)
    if slug == "retry_limit":
        # The runtime's message says whether the tool is unknown.
        cls = OutputRetryLimitExceeded if data.get("output") else ToolRetryLimitExceeded
        return cls(str(data.get("tool", "")), int(data.get("max_retries", 0)), message or None)
    if slug == "usage_limit_exceeded":
        value = data.get("value")
        return UsageLimitExceeded(
            message, limit=str(data.get("limit", "")) or None, value=int(value) if value is not None else None
        )
    if slug == "model":
        status = data.get("status_code")
        return ModelError(
            message,
            provider=data.get("provider") or None,
            status_code=int(status) if status else None,
            code=data.get("code") or None,
            attempts=[a for a in data.get("attempts") or [] if isinstance(a, dict)],
        )
    if issubclass(cls, StateError):
        # Durable sessions' state errors say which they are in "code".
        return cls(message, code=str(data.get("code") or slug))
    if slug == "tool_output_not_visible":
        return ToolOutputNotVisible(
            message, tool=data.get("tool") or None, tool_call_id=data.get("tool_call_id") or None
        )
    if slug == "tool_failed":
        return ToolFailed(
            message,
            tool=data.get("tool") or None,
            tool_call_id=data.get("tool_call_id") or None,
            kind=data.get("kind") or None,
        )
    if cls is StateError:
        return StateError(message, code=slug)
    if cls is NativeError:
        return NativeError(message, type=slug)
    return cls(message)


def _take(out: Any, out_len: Any) -> bytes:
    try:
        return bytes(_ffi.buffer(out[0], out_len[0]))
    finally:
        _lib.sw_free(out[0])


def version() -> str:
    """The library version. Raises RuntimeError in a forked child."""
    check_process()
    out, out_len = _ffi.new("char **"), _ffi.new("long long *")
    _lib.sw_version(out, out_len)
    return str(json.loads(_take(out, out_len)))


def error_kinds() -> dict[str, list[str]]:
    """The library's error vocabulary: ``{"error_kinds": [...], "error_types":
    [...]}``, the tool error kinds and the error object slugs, in Go's order.

    Raises:
        RuntimeError: in a forked child.
    """
    check_process()
    out, out_len = _ffi.new("char **"), _ffi.new("long long *")
    _lib.sw_error_kinds(out, out_len)
    result: dict[str, list[str]] = json.loads(_take(out, out_len))
    return result


def _new(fn: Any, spec: dict[str, Any]) -> int:
    check_process()
    data = json.dumps(spec).encode()
    handle, err = _ffi.new("sw_handle *"), _ffi.new("char **")
    if fn(data, len(data), handle, err) != 0:
        _raise(err)
    return int(handle[0])


def model_new(spec: dict[str, Any]) -> int:
    """Create a model from a spec. Raises ValueError for an invalid spec."""
    return _new(_lib.sw_model_new, spec)


def agent_new(spec: dict[str, Any]) -> int:
    """Create an agent. Raises AgentError (configuration) or ValueError (spec)."""
    return _new(_lib.sw_agent_new, spec)


def store_open(spec: dict[str, Any]) -> int:
    """Open (or share) the database of the durable stores a spec names:
    ``{"kind": "sqlite", "path": ...}`` or ``{"kind": "postgres", "dsn": ...}``.

    Raises:
        ValueError: an invalid spec.
        StoreUnavailableError: the database cannot be opened or migrated.
    """
    return _new(_lib.sw_store_open, spec)


def artifact_store_new(spec: dict[str, Any]) -> int:
    """Create an artifact store (``{"kind": "memory", "max_bytes"?: n}``,
    or ``{"kind": "sqlite" | "postgres", "store": store handle,
    "max_bytes"?: n}`` in the database of a ``store_open`` handle).

    Raises:
        ValueError: an invalid spec, or a store handle of another kind.
        StateError: ``store`` is not a live store handle.
    """
    return _new(_lib.sw_artifact_store_new, spec)


def artifact_put(store: int, spec: dict[str, Any], data: bytes) -> dict[str, Any]:
    """Store ``data`` as ``spec`` describes (``scope``, ``idempotency_key``,
    ``media_type``, ``name``?, ``expires_at_unix_ms``?) and return the
    reference's JSON. Blocks while the store works: call it from a thread
    when the store may be slow. Safe from any thread.

    Raises:
        ArtifactInvalid: the write breaks a rule (scope, key, media type,
            content, size).
        ArtifactConflict: the key names other content or metadata.
        StoreUnavailableError: the store failed.
        StateError: a bad handle.
        RuntimeError: in a forked child.
    """
    check_process()
    req = json.dumps(spec).encode()
    out, out_len, err = _ffi.new("char **"), _ffi.new("long long *"), _ffi.new("char **")
    if _lib.sw_artifact_put(store, req, len(req), data, len(data), out, out_len, err) != 0:
        _raise(err)
    result: dict[str, Any] = json.loads(_take(out, out_len))
    return result


def artifact_get(store: int, reference: dict[str, Any], scope: str | None = None) -> bytes:
    """The bytes of the artifact ``reference`` (its JSON) names; with a
    ``scope``, a reference of another scope is refused. Blocks like
    ``artifact_put``. Safe from any thread.

    Raises:
        ArtifactInvalid: a malformed reference, or one of another scope.
        ArtifactNotFound: no such artifact.
        ArtifactIntegrityError: the reference or the bytes do not match
            what was stored.
        ArtifactExpired: the artifact expired.
        StoreUnavailableError: the store failed.
        StateError: a bad handle.
        RuntimeError: in a forked child.
    """
    check_process()
    spec: dict[str, Any] = {"reference": reference}
    if scope is not None:
        spec["scope"] = scope
    req = json.dumps(spec).encode()
    out, out_len, err = _ffi.new("char **"), _ffi.new("long long *"), _ffi.new("char **")
    if _lib.sw_artifact_get(store, req, len(req), out, out_len, err) != 0:
        _raise(err)
    return _take(out, out_len)


def _artifact_call(fn: Any, store: int, spec: dict[str, Any]) -> Any:
    """Calls an export of the shape (handle, request JSON, out) -> JSON."""
    check_process()
    req = json.dumps(spec).encode()
    out, out_len, err = _ffi.new("char **"), _ffi.new("long long *"), _ffi.new("char **")
    if fn(store, req, len(req), out, out_len, err) != 0:
        _raise(err)
    return json.loads(_take(out, out_len))


def artifact_list(store: int, scope: str, after: str | None, limit: int) -> dict[str, Any]:
    """One page of the references of ``scope`` in id order: ``{"items":
    [...], "next_cursor"?: id}``, starting after the cursor ``after``.
    Blocks like ``artifact_put``. Safe from any thread.

    Raises:
        ArtifactInvalid: a bad scope, cursor or limit (1 to 1000).
        StoreUnavailableError: the store failed.
        StateError: a bad handle.
        RuntimeError: in a forked child.
    """
    spec: dict[str, Any] = {"scope": scope, "limit": limit}
    if after is not None:
        spec["after"] = after
    result: dict[str, Any] = _artifact_call(_lib.sw_artifact_list, store, spec)
    return result


def artifact_delete(store: int, scope: str, artifact_id: str) -> bool:
    """Delete an artifact of ``scope`` with its idempotency keys; False when
    there was none. Blocks like ``artifact_put``. Safe from any thread.

    Raises:
        ArtifactInvalid: a bad scope or id.
        StoreUnavailableError: the store failed.
        StateError: a bad handle.
        RuntimeError: in a forked child.
    """
    result = _artifact_call(_lib.sw_artifact_delete, store, {"scope": scope, "artifact_id": artifact_id})
    return bool(result["deleted"])


def artifact_purge_expired(store: int, scope: str, now_unix_ms: int | None, limit: int) -> int:
    """Delete at most ``limit`` artifacts of ``scope`` expired at
    ``now_unix_ms`` (the current time when None); returns how many. Blocks
    like ``artifact_put``. Safe from any thread.

    Raises:
        ArtifactInvalid: a bad scope, limit (1 to 1000) or negative time.
        StoreUnavailableError: the store failed.
        StateError: a bad handle.
        RuntimeError: in a forked child.
    """
    spec: dict[str, Any] = {"scope": scope, "limit": limit}
    if now_unix_ms is not None:
        spec["now_unix_ms"] = now_unix_ms
    result = _artifact_call(_lib.sw_artifact_purge_expired, store, spec)
    return int(result["purged"])


def _read(fn: Any, handle: int) -> Any:
    check_process()
    out, out_len, err = _ffi.new("char **"), _ffi.new("long long *"), _ffi.new("char **")
    if fn(handle, out, out_len, err) != 0:
        _raise(err)
    return json.loads(_take(out, out_len))


def model_captured(handle: int) -> list[dict[str, Any]]:
    """The requests a test model received. Raises StateError for a bad handle."""
    result: list[dict[str, Any]] = _read(_lib.sw_model_captured, handle)
    return result


def model_messages(handle: int, transcript: int, start: int, stop: int) -> list[dict[str, Any]]:
    """Messages ``start`` to ``stop`` (excluded) of a host model's transcript
    (``sw_model_messages``). Safe from any thread.

    Raises:
        StateError: a bad handle.
        ValueError: an unknown transcript or a range outside it.
        RuntimeError: in a forked child.
    """
    request = {"transcript": transcript, "from": start, "to": stop}
    result: list[dict[str, Any]] = _artifact_call(_lib.sw_model_messages, handle, request)
    return result


def session_new(agent: int) -> int:
    """Start a session. Raises StateError for a bad handle."""
    check_process()
    out, err = _ffi.new("sw_handle *"), _ffi.new("char **")
    if _lib.sw_session_new(agent, out, err) != 0:
        _raise(err)
    return int(out[0])


def session_messages(session: int) -> list[dict[str, Any]]:
    """The session history. Raises StateError for a bad handle."""
    result: list[dict[str, Any]] = _read(_lib.sw_session_messages, session)
    return result


def session_info(session: int) -> dict[str, Any]:
    """``{"id", "waiting", "pending", "usage", "in_flight"}`` of a session.
    Raises StateError."""
    result: dict[str, Any] = _read(_lib.sw_session_info, session)
    return result


def session_context(session: int, request: dict[str, Any]) -> dict[str, Any]:
    """Applies one operation to the session's agent context and returns the
    context after it (see ``sw_session_context``). Safe from any thread.

    Raises:
        ValueError: an unknown operation, a malformed request or an unknown
            task id.
        StateError: a bad handle.
        RuntimeError: in a forked child.
    """
    result: dict[str, Any] = _artifact_call(_lib.sw_session_context, session, request)
    return result


def session_set_environment(session: int, spec: dict[str, Any] | None) -> None:
    """Replaces the session's environment from the next run on (see
    ``sw_session_set_environment``); None removes it.

    Raises:
        ValueError: a malformed spec or a local root that is not a directory.
        StateError: a bad handle.
        RuntimeError: in a forked child.
    """
    check_process()
    req = json.dumps(spec).encode()
    err = _ffi.new("char **")
    if _lib.sw_session_set_environment(session, req, len(req), err) != 0:
        _raise(err)


def session_export(session: int) -> bytes:
    """The session's signed state as JSON bytes. Raises StateError when busy."""
    check_process()
    out, out_len, err = _ffi.new("char **"), _ffi.new("long long *"), _ffi.new("char **")
    if _lib.sw_session_export(session, out, out_len, err) != 0:
        _raise(err)
    return _take(out, out_len)


def session_restore(agent: int, state: bytes, *, allow_unsigned: bool = False) -> int:
    """A new session of ``agent`` from exported state; ``allow_unsigned``
    accepts state exported without a state key (unprotected).

    Raises:
        StateError: stale, tampered, unsigned (without ``allow_unsigned``) or
            foreign state.
    """
    check_process()
    opts = b'{"allow_unsigned":true}' if allow_unsigned else _ffi.NULL
    opts_len = len(opts) if allow_unsigned else 0
    out, err = _ffi.new("sw_handle *"), _ffi.new("char **")
    if _lib.sw_session_restore(agent, state, len(state), opts, opts_len, out, err) != 0:
        _raise(err)
    return int(out[0])


def agent_open_session(agent: int, session_id: str, *, allow_unsigned: bool = False) -> int:
    """A new session handle of ``agent`` loaded from its session store.
    Blocks on the store: call it off the event loop.

    Raises:
        SessionNotFoundError: the store holds no session ``session_id``.
        StoreUnavailableError: the store failed.
        StateError: the stored state is refused (unsigned without
            ``allow_unsigned``, signed with another key, another id's).
        AgentError: the agent has no session store.
    """
    check_process()
    data = session_id.encode()
    opts = b'{"allow_unsigned":true}' if allow_unsigned else _ffi.NULL
    opts_len = len(opts) if allow_unsigned else 0
    out, err = _ffi.new("sw_handle *"), _ffi.new("char **")
    if _lib.sw_agent_open_session(agent, data, len(data), opts, opts_len, out, err) != 0:
        _raise(err)
    return int(out[0])


def session_claimed_resume(session: int) -> dict[str, Any] | None:
    """The session's claimed, unfinished resume (``{"run_id",
    "claimed_at_ms", "pending", "resolution"}``), or None.

    Raises:
        StateError: a bad handle.
    """
    result: dict[str, Any] | None = _read(_lib.sw_session_claimed_resume, session)
    return result


def session_abandon_resume(session: int) -> None:
    """Settle the session's claimed resume whose worker stopped. Blocks on
    the store: call it off the event loop.

    Raises:
        StateError: no claimed resume, a session that changed in the
            store, a busy session or a bad handle.
        StoreUnavailableError: the store failed.
    """
    check_process()
    err = _ffi.new("char **")
    if _lib.sw_session_abandon_resume(session, err) != 0:
        _raise(err)


def session_abandon_in_flight(session: int) -> None:
    """Settle the session's run in flight whose worker stopped. Blocks on
    the store: call it off the event loop.

    Raises:
        StateError: no run in flight, a session that changed in the store,
            a busy session or a bad handle.
        StoreUnavailableError: the store failed.
    """
    check_process()
    err = _ffi.new("char **")
    if _lib.sw_session_abandon_in_flight(session, err) != 0:
        _raise(err)


def session_from_messages(agent: int, messages: list[dict[str, Any]], session_id: str | None = None) -> int:
    """A new session of ``agent`` continuing ``messages`` (their JSON form),
    with the id ``session_id`` when given (else a new random one).

    Raises:
        ValueError: a malformed history (the runtime names the first
            offending message).
        StateError: a bad handle.
    """
    check_process()
    data = json.dumps(messages if session_id is None else {"id": session_id, "messages": messages}).encode()
    out, err = _ffi.new("sw_handle *"), _ffi.new("char **")
    if _lib.sw_session_from_messages(agent, data, len(data), out, err) != 0:
        _raise(err)
    return int(out[0])


def run_start(session: int, request: dict[str, Any]) -> tuple[int, int, int]:
    """Start a run; returns ``(run handle, items fd, completions fd)``.

    Raises:
        StateError: bad handle, or the runtime is shut down.
        ValueError: an invalid request.
    """
    check_process()
    data = json.dumps(request).encode()
    run, fd_out, fd_in, err = _ffi.new("sw_handle *"), _ffi.new("int *"), _ffi.new("int *"), _ffi.new("char **")
    if _lib.sw_run_start(session, data, len(data), run, fd_out, fd_in, err) != 0:
        _raise(err)
    return int(run[0]), int(fd_out[0]), int(fd_in[0])


def run_complete(run: int, token: int, outcome: bytes) -> bool:
    """Deliver a call outcome; False when the call is no longer awaited.

    Safe to call from any thread. Raises StateError for a bad handle, and
    RuntimeError in a forked child.
    """
    if _forked:
        check_process()
    err = _ffi.new("char **")
    rc = int(_lib.sw_run_complete(run, token, outcome, len(outcome), err))
    if rc < 0:
        _raise(err)
    return rc == 0


def run_cancel(run: int) -> None:
    """Ask a run to stop. Raises StateError for a bad handle, and
    RuntimeError in a forked child."""
    check_process()
    err = _ffi.new("char **")
    if _lib.sw_run_cancel(run, err) != 0:
        _raise(err)


def run_steer(run: int, text: str) -> None:
    """Queue a user message for the run's next model request.

    Raises:
        StateError: a bad handle, or a run that has ended (nothing queued).
        RuntimeError: in a forked child.
    """
    check_process()
    data = text.encode()
    err = _ffi.new("char **")
    rc = _lib.sw_run_steer(run, data, len(data), err)
    if rc == 1:
        raise StateError("the run has already completed", code="state")
    if rc != 0:
        _raise(err)


def run_interrupt(run: int, reason: str) -> None:
    """Ask a run to stop, recording ``reason`` on its cancellation.

    Raises:
        StateError: a bad handle.
        RuntimeError: in a forked child.
    """
    check_process()
    data = reason.encode()
    err = _ffi.new("char **")
    if _lib.sw_run_interrupt(run, data, len(data), err) != 0:
        _raise(err)


def release(handle: int) -> None:
    """Release a handle of any kind. Raises StateError for a bad handle.

    Does nothing in a forked child (the handle is the parent's): weakref
    finalizers call this when a child collects inherited objects.
    """
    if _forked:
        return
    err = _ffi.new("char **")
    if _lib.sw_release(handle, err) != 0:
        _raise(err)


def handle_count() -> int:
    """How many native handles are live (for leak checks).

    Raises:
        RuntimeError: in a forked child.
    """
    check_process()
    return int(_lib.sw_handle_count())


def shutdown() -> None:
    """Cancel every run and refuse new ones (registered at exit). Does
    nothing in a forked child."""
    if not _forked and _library.loaded():
        _lib.sw_shutdown()


def skills_scan(request: dict[str, Any]) -> Any:
    """Scan, or reload, the skills of an environment (``sw_skills_scan``).

    Raises:
        ValueError: a malformed request, an unknown scope kind or a scope
            path outside the environment, or (a plain scan) a skill file
            that cannot be read or parsed.
        NativeError: an environment kind the library cannot open here
            (type ``unsupported``).
    """
    return _json_call(_lib.sw_skills_scan, request)


def skills_activate(request: dict[str, Any]) -> Any:
    """Read one skill with its body (``sw_skills_activate``).

    Raises:
        ValueError: a malformed request, or a path that is missing, outside
            the environment or not a valid SKILL.md.
        NativeError: an environment kind the library cannot open here.
    """
    return _json_call(_lib.sw_skills_activate, request)


def _json_call(fn: Any, request: dict[str, Any]) -> Any:
    check_process()
    data = json.dumps(request).encode()
    out, out_len, err = _ffi.new("char **"), _ffi.new("long long *"), _ffi.new("char **")
    if fn(data, len(data), out, out_len, err) != 0:
        _raise(err)
    return json.loads(_take(out, out_len))


def catalog_host(session: int, request: dict[str, Any]) -> Any:
    """Run one host operation of a tool catalogue (``sw_catalog_host``);
    ``session`` is 0 for the operations that need none.

    Raises:
        ValueError: a malformed request, an unknown operation or namespace,
            or an operation that needs a session.
        StateError: a bad session handle.
    """
    check_process()
    data = json.dumps(request).encode()
    out, out_len, err = _ffi.new("char **"), _ffi.new("long long *"), _ffi.new("char **")
    if _lib.sw_catalog_host(session, data, len(data), out, out_len, err) != 0:
        _raise(err)
    return json.loads(_take(out, out_len))


def tool_intent_key(request: dict[str, Any]) -> dict[str, Any]:
    """The identity of one intent of a host ingress (``sw_tool_intent_key``):
    ``{"session_id", "execution_scope_id", "tool_call_id", "intent_index",
    "replay_key"}``.

    Raises:
        ToolIntentInvalid: no call id, or an index outside 0..2**32-1.
        ValueError: a malformed request.
    """
    result: dict[str, Any] = _json_call(_lib.sw_tool_intent_key, request)
    return result


def tool_intents_submit(agent: int, request: dict[str, Any]) -> dict[str, Any]:
    """Submit one intent through the agent's host ingress
    (``sw_tool_intents_submit``): ``{"replayed", "identity", "kind",
    "outcome", "model_addendum"}``.

    Raises:
        ToolIntentRefused: a refusal (its subclass names which).
        AgentError: the agent has no intent journal.
        StoreUnavailableError: the journal failed.
        StateError: a bad handle.
    """
    result: dict[str, Any] = _artifact_call(_lib.sw_tool_intents_submit, agent, request)
    return result


def tool_intents_settle_parent_end(agent: int, request: dict[str, Any]) -> list[dict[str, Any]]:
    """Settle a scope's parent-end actions (``sw_tool_intents_settle_parent_end``).

    Raises:
        AgentError: the agent has no intent journal.
        ToolIntentInvalid: a malformed scope.
        StoreUnavailableError: the journal failed.
        StateError: a bad handle.
    """
    result: list[dict[str, Any]] = _artifact_call(_lib.sw_tool_intents_settle_parent_end, agent, request)
    return result
