"""Tool intents: durable work a tool declares instead of doing.

A tool that starts a long job, signals a process or emits a trigger returns
``Done(value, intents=[...])``. The agent (built with ``intent_journal=``)
commits the tool's result first, then realises each intent exactly once,
under a replay key derived from the session, the turn, the call id and the
intent's index, even when the process crashes and the run is recovered.
The outcomes come back in the return's metadata under
``"starweaver_intents"`` and as lines the model reads after the tool's
output (``[tool intent start_process #0 executed: {...}]``).

Hosts outside a tool call submit intents through ``agent.tool_intents(session_id,
scope)``: ``.key(call_id, index)``, ``.submit(key, intent)`` and
``.settle_parent_end()``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from . import _capi, _declaring

__all__ = [
    "Admitted",
    "CancelHint",
    "CancelProcess",
    "Done",
    "EmitProcessEvent",
    "EmitTrigger",
    "Intent",
    "IntentKey",
    "ParentEndOutcome",
    "Pending",
    "ProcessParentEndPolicy",
    "SignalProcess",
    "StartProcess",
    "TimeoutBehavior",
    "ToolIntents",
]

PROTOCOL_VERSION = 1
"""The intent protocol version this package writes."""


class ProcessParentEndPolicy(str, enum.Enum):
    """What happens to a started process when the scope that started it
    (a turn, a process) ends: one replay-keyed cancellation (``CANCEL``, the
    default) or nothing (``ABANDON``). There is no hard kill."""

    CANCEL = "cancel"
    ABANDON = "abandon"


def _payload(value: Any) -> dict[str, Any]:
    return {} if value is None else {"payload": value}


@dataclass(frozen=True)
class StartProcess:
    """Start a background process owned by the session. Its process id is
    the intent's replay key (whatever ``id`` says). ``session_id`` defaults
    to the calling tool's session (or the ingress's)."""

    originator: str = ""
    input: Any = None
    on_parent_end: ProcessParentEndPolicy = ProcessParentEndPolicy.CANCEL
    session_id: str | None = None
    id: str = ""

    kind = "start_process"

    def _wire(self, session: str) -> dict[str, Any]:
        request: dict[str, Any] = {"id": self.id}
        if self.originator:
            request["originator"] = self.originator
        if self.input is not None:
            request["input"] = self.input
        policy = ProcessParentEndPolicy(self.on_parent_end)
        return {
            "kind": self.kind,
            "intent": {"session_id": self.session_id or session, "request": request, "on_parent_end": policy.value},
        }


@dataclass(frozen=True)
class SignalProcess:
    """Deliver the named signal to a running process; the result carries
    the event's ``sequence``."""

    process_id: str
    signal_name: str
    payload: Any = None
    session_id: str | None = None

    kind = "signal_process"

    def _wire(self, session: str) -> dict[str, Any]:
        body = {
            "session_id": self.session_id or session,
            "process_id": self.process_id,
            "signal_name": self.signal_name,
        }
        return {"kind": self.kind, "intent": {**body, **_payload(self.payload)}}


@dataclass(frozen=True)
class CancelProcess:
    """Cancel a running process."""

    process_id: str
    reason: str | None = None
    session_id: str | None = None

    kind = "cancel_process"

    def _wire(self, session: str) -> dict[str, Any]:
        body: dict[str, Any] = {"session_id": self.session_id or session, "process_id": self.process_id}
        if self.reason:
            body["reason"] = self.reason
        return {"kind": self.kind, "intent": body}


@dataclass(frozen=True)
class EmitProcessEvent:
    """Append an event to a running process's history."""

    process_id: str
    event_type: str
    payload: Any = None
    session_id: str | None = None

    kind = "emit_process_event"

    def _wire(self, session: str) -> dict[str, Any]:
        body = {"session_id": self.session_id or session, "process_id": self.process_id, "event_type": self.event_type}
        return {"kind": self.kind, "intent": {**body, **_payload(self.payload)}}


@dataclass(frozen=True)
class EmitTrigger:
    """Emit a trigger occurrence, deduplicated on ``idempotency_key``.
    ``route_session_id`` is where the occurrence goes (the session by
    default)."""

    trigger: str
    idempotency_key: str
    payload: Any = None
    session_id: str | None = None
    route_session_id: str | None = None

    kind = "emit_trigger"

    def _wire(self, session: str) -> dict[str, Any]:
        authority = self.session_id or session
        request = {
            "session_id": self.route_session_id or authority,
            "trigger": self.trigger,
            "idempotency_key": self.idempotency_key,
            **_payload(self.payload),
        }
        return {"kind": self.kind, "intent": {"session_id": authority, "request": request}}


Intent = Union[StartProcess, SignalProcess, CancelProcess, EmitProcessEvent, EmitTrigger]
"""One of the five intents of protocol version 1."""

_INTENT_TYPES = (StartProcess, SignalProcess, CancelProcess, EmitProcessEvent, EmitTrigger)


class Done:
    """A tool's final result with the intents to realise once it is
    committed: ``return Done(value, intents=[StartProcess(...)])``.

    ``value`` is what the tool would otherwise return (any value a tool may
    return). Only a final result carries intents: a tool that builds a
    ``Done`` with intents and then raises ``CallDeferred`` or
    ``ApprovalRequired`` fails with a ``UserError``, and an agent without an
    ``intent_journal`` refuses the intents the same way.
    """

    __slots__ = ("intents", "value")

    def __init__(self, value: Any = None, *, intents: Iterable[Intent] = ()) -> None:
        self.value = value
        self.intents: tuple[Intent, ...] = tuple(intents)
        for i, it in enumerate(self.intents):
            if not isinstance(it, _INTENT_TYPES):
                raise TypeError(f"intents[{i}] must be an intent (StartProcess, ...), got {type(it).__name__}")
        if self.intents:
            d = _declaring.current.get()
            if d is not None:
                d.declared = True

    def __repr__(self) -> str:
        return f"Done({self.value!r}, intents={list(self.intents)!r})"

    def _outcome(self, encode: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
        """The outcome Go receives: the value's, plus the intents. Intents
        that name no session get the call's in Go."""
        out = encode(self.value)
        if not self.intents or not out.get("ok"):
            return out
        wire = [it._wire("") for it in self.intents]  # noqa: SLF001 - the intent types are this module's: their wire form
        return {**out, "intents": {"protocol_version": PROTOCOL_VERSION, "intents": wire}}


TimeoutBehavior = Literal["error_as_result", "fail_turn"]
"""What a pending result's missed deadline does."""

CancelHint = Literal["ignore", "cancel_external_work"]
"""What cancelling a pending call asks of the external work."""


class Pending:
    """An attempt whose result arrives later: ``return Pending(...)`` from a
    tool declared ``@tool(attempt_may_defer=True)``.

    The run pauses with the call among ``result.hitl.deferred``; its
    ``completion_key`` (the tool's ``ctx.completion_key``) is reserved for
    the call, stable across replay and recovery, and the host completes it
    with that key (or the call id) in ``session.hitl.resume(deferred_results=...)``.
    A ``Pending`` has no intents (there is no place for them: intents are
    realised only with a final result), and a tool that did not declare
    ``attempt_may_defer`` returning one fails with a ``UserError``.

    Arguments:
        reason: Why the result is not there yet (the request's reason).
        deadline_ms: Unix time in milliseconds by which the result must arrive.
        on_timeout: What a missed deadline does (the runtime's default:
            ``"error_as_result"``).
        on_cancel: What cancelling the call asks of the external work (the
            runtime's default: ``"ignore"``).
    """

    __slots__ = ("deadline_ms", "on_cancel", "on_timeout", "reason")

    def __init__(
        self,
        reason: str | None = None,
        *,
        deadline_ms: int | None = None,
        on_timeout: TimeoutBehavior | None = None,
        on_cancel: CancelHint | None = None,
    ) -> None:
        for option, value in (("reason", reason), ("on_timeout", on_timeout), ("on_cancel", on_cancel)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"Pending {option} must be a str, got {type(value).__name__}")
        if deadline_ms is not None and (not isinstance(deadline_ms, int) or isinstance(deadline_ms, bool)):
            raise TypeError(f"Pending deadline_ms must be an int, got {type(deadline_ms).__name__}")
        self.reason = reason
        self.deadline_ms = deadline_ms
        self.on_timeout = on_timeout
        self.on_cancel = on_cancel

    def __repr__(self) -> str:
        return (
            f"Pending({self.reason!r}, deadline_ms={self.deadline_ms!r}, "
            f"on_timeout={self.on_timeout!r}, on_cancel={self.on_cancel!r})"
        )

    def _outcome(self) -> dict[str, Any]:
        """The outcome Go receives: a deferral with its completion (the
        runtime checks it and keeps the defaults)."""
        completion: dict[str, Any] = {}
        if self.deadline_ms is not None:
            completion["deadline_ms"] = self.deadline_ms
        if self.on_timeout is not None:
            completion["on_timeout"] = self.on_timeout
        if self.on_cancel is not None:
            completion["on_cancel"] = self.on_cancel
        return {"ok": False, "kind": "call_deferred", "message": self.reason or "", "pending": completion}


# -- host ingress -------------------------------------------------------


@dataclass(frozen=True)
class IntentKey:
    """The key of one intent submitted through a host ingress: the
    ``index``-th intent of host call ``call_id``, with its derived
    ``replay_key`` (``tool-intent:v1:sha256:...``)."""

    session_id: str
    scope_kind: str
    scope_id: str
    call_id: str
    index: int
    replay_key: str


@dataclass(frozen=True)
class Admitted:
    """A submitted intent's admission: ``replayed`` is True when the same
    intent was submitted under the key before (it was realised once);
    ``outcome`` is the recorded outcome (``{"status": "executed", ...}`` or
    ``{"status": "refused", ...}`` when its command refused it)."""

    replayed: bool
    identity: Mapping[str, Any]
    kind: str
    outcome: Mapping[str, Any]
    model_addendum: str

    @property
    def replay_key(self) -> str:
        return str(self.identity["replay_key"])

    @property
    def result(self) -> Any:
        """The command's result of an executed intent (None otherwise)."""
        return self.outcome.get("result")


@dataclass(frozen=True)
class ParentEndOutcome:
    """How the parent-end action of one started process settled:
    ``result`` is ``"abandoned"``, ``"cancelled"`` or ``"refused"``."""

    process_id: str
    policy: str
    result: str
    identity: Mapping[str, Any] = field(default_factory=dict)
    receipt: Any = None
    code: str | None = None
    message: str | None = None


ScopeKind = Literal["turn", "process"]


class ToolIntents:
    """The host ingress of one execution scope of one session
    (``Agent.tool_intents``). Each key is bound to the first intent
    submitted under it; refusals raise ``ToolIntentRefused`` subclasses."""

    def __init__(
        self, agent: _capi.NativeOwner, session_id: str, scope_id: str, scope_kind: ScopeKind = "process"
    ) -> None:
        if scope_kind not in ("turn", "process"):
            raise ValueError(f"scope_kind must be 'turn' or 'process', got {scope_kind!r}")
        self._agent = agent
        self.session_id = session_id
        self.scope_id = scope_id
        self.scope_kind: ScopeKind = scope_kind

    def _request(self, **extra: Any) -> dict[str, Any]:
        return {"session_id": self.session_id, "scope": {"kind": self.scope_kind, "id": self.scope_id}, **extra}

    def key(self, call_id: str, index: int) -> IntentKey:
        """The key of intent ``index`` of host call ``call_id``.

        Raises:
            ToolIntentInvalid: no call id, or an index outside 0..2**32-1.
        """
        identity = _capi.tool_intent_key(self._request(call_id=call_id, index=index))
        return IntentKey(self.session_id, self.scope_kind, self.scope_id, call_id, index, identity["replay_key"])

    def submit(self, key: IntentKey, intent: Intent) -> Admitted:
        """Admit ``intent`` under ``key`` and realise it, journal first; the
        same intent under the same key again returns the recorded outcome.

        Raises:
            ToolIntentForeignSession, ToolIntentForeignExecutionScope: the
                key is another ingress's.
            ToolIntentSessionMismatch: the intent names another session.
            ToolIntentIdentityBoundToDifferentIntent: the key carries another
                intent.
            ToolIntentDuplicateIdentity: a tool call realised the identity.
            ToolIntentBudgetRefused: the intent is over its budget (``code``).
            StoreUnavailableError: the journal failed.
        """
        if not isinstance(intent, _INTENT_TYPES):
            raise TypeError(f"intent must be an intent (StartProcess, ...), got {type(intent).__name__}")
        if (key.session_id, key.scope_kind, key.scope_id) != (self.session_id, self.scope_kind, self.scope_id):
            from .errors import ToolIntentForeignExecutionScope, ToolIntentForeignSession

            if key.session_id != self.session_id:
                raise ToolIntentForeignSession(
                    f"the key is of session {key.session_id!r}, the ingress of {self.session_id!r}",
                    code="intent_foreign_session",
                )
            raise ToolIntentForeignExecutionScope(
                f"the key is of {key.scope_kind} scope {key.scope_id!r}, the ingress of "
                f"{self.scope_kind} scope {self.scope_id!r}",
                code="intent_foreign_execution_scope",
            )
        req = self._request(call_id=key.call_id, index=key.index, intent=intent._wire(self.session_id))  # noqa: SLF001 - the intent types are this module's: their wire form
        out = _capi.tool_intents_submit(self._agent._native_handle(), req)
        return Admitted(
            replayed=bool(out["replayed"]),
            identity=out["identity"],
            kind=str(out["kind"]),
            outcome=out["outcome"],
            model_addendum=str(out["model_addendum"]),
        )

    def settle_parent_end(self) -> list[ParentEndOutcome]:
        """Settle the parent-end actions of the processes started in this
        scope (by host submissions or tool calls), in start order. Safe to
        call again, and after a crash."""
        out = _capi.tool_intents_settle_parent_end(self._agent._native_handle(), self._request())
        return [
            ParentEndOutcome(
                process_id=str(o["process_id"]),
                policy=str(o["policy"]),
                result=str(o["result"]),
                identity=o.get("identity") or {},
                receipt=o.get("receipt"),
                code=o.get("code") or None,
                message=o.get("message") or None,
            )
            for o in out
        ]


def intent_outcomes(metadata: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The intent outcomes recorded in a tool return's metadata
    (``"starweaver_intents"``), in source order; none when it has none."""
    if not metadata:
        return []
    return [dict(o) for o in metadata.get("starweaver_intents") or []]
