"""Human-in-the-loop: pending approvals and deferred calls, and the
decisions and results that resume a waiting run."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Union

from starweaver._deprecated import forwarding
from starweaver.errors import StateError

__all__ = [
    "ApprovalDecision",
    "DeferredResult",
    "HITLSnapshot",
    "PendingApproval",
    "PendingDeferred",
    "normalize_approvals",
    "normalize_deferred_results",
]

# Old names, for one release (see CHANGELOG.md).
if not TYPE_CHECKING:
    __getattr__ = forwarding(
        __name__,
        {
            "HitlSnapshot": "starweaver.hitl:HITLSnapshot",
        },
    )


def _md(metadata: Mapping[str, Any] | None, extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(metadata or {})
    out.update(extra)
    return out


def _arguments(raw: Mapping[str, Any]) -> dict[str, Any]:
    args = raw.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return {}
    return dict(args) if isinstance(args, Mapping) else {}


@dataclass(frozen=True)
class ApprovalDecision:
    """A person's answer to a pending approval."""

    id: str
    approved: bool
    decided_by: str | None = None
    reason: str | None = None
    override_arguments: dict[str, Any] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    user_input: Any = None

    def with_user_input(self, user_input: Any) -> ApprovalDecision:
        """The same decision carrying input for the tool's preprocessor
        (for ``ask_user_question``: a string, or answers keyed by question)."""
        return replace(self, user_input=user_input)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"approval_id": self.id, "approved": self.approved, "metadata": dict(self.metadata)}
        if self.decided_by is not None:
            out["decided_by"] = self.decided_by
        if self.reason is not None:
            out["reason"] = self.reason
        if self.override_arguments is not None:
            out["override_arguments"] = dict(self.override_arguments)
        if self.user_input is not None:
            out["user_input"] = self.user_input
        return out


@dataclass(frozen=True)
class DeferredResult:
    """The outcome of a deferred call, supplied by an external worker."""

    id: str
    status: str
    response: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "deferred_id": self.id,
            "status": self.status,
            "response": self.response,
            "metadata": dict(self.metadata),
        }


@dataclass(frozen=True)
class _Pending:
    id: str
    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any]
    metadata: dict[str, Any]
    raw: dict[str, Any]
    # The agents a child run's request came through (outermost first),
    # and the call of this run that ran the child; empty for the run's
    # own calls.
    path: tuple[str, ...] = ()
    parent_tool_call_id: str = ""

    _id_key = ""

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any]) -> Any:
        """Build the item from a pending dict (``id`` is the approval or
        deferred id, else the tool call id)."""
        return cls(
            id=str(raw.get("id") or raw.get(cls._id_key) or raw.get("tool_call_id") or ""),
            tool_call_id=str(raw.get("tool_call_id", "")),
            tool_name=str(raw.get("tool_name", "")),
            arguments=_arguments(raw),
            metadata=dict(raw.get("metadata") or {}),
            raw=dict(raw),
            path=tuple(str(a) for a in raw.get("path") or ()),
            parent_tool_call_id=str(raw.get("parent_tool_call_id") or ""),
        )


@dataclass(frozen=True)
class PendingApproval(_Pending):
    """A call that waits for a person's approval."""

    _id_key = "approval_id"

    def approve(
        self,
        *,
        decided_by: str | None = None,
        reason: str | None = None,
        override_arguments: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        **extra_metadata: Any,
    ) -> ApprovalDecision:
        """Approve the call; it re-runs with ``ctx.approval`` set."""
        return ApprovalDecision(
            self.id,
            True,
            decided_by,
            reason,
            dict(override_arguments) if override_arguments is not None else None,
            _md(metadata, extra_metadata),
        )

    def deny(
        self,
        reason: str,
        *,
        decided_by: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        **extra_metadata: Any,
    ) -> ApprovalDecision:
        """Deny the call; it never runs and the model reads the reason."""
        return ApprovalDecision(self.id, False, decided_by, reason, None, _md(metadata, extra_metadata))


@dataclass(frozen=True)
class PendingDeferred(_Pending):
    """A call handed to an external worker or the client."""

    _id_key = "deferred_id"

    @property
    def completion_key(self) -> str | None:
        """The completion key of a pending attempt (a tool's
        ``starweaver.intents.Pending``): a resume may answer the call by it
        as by its id. None for other deferrals."""
        key = self.raw.get("completion_key")
        return str(key) if key else None

    def complete(
        self, value: Any, *, metadata: Mapping[str, Any] | None = None, **extra_metadata: Any
    ) -> DeferredResult:
        """The call succeeded with ``value`` (it becomes the tool's return)."""
        return DeferredResult(self.id, "completed", value, _md(metadata, extra_metadata))

    def fail(self, error: str, *, metadata: Mapping[str, Any] | None = None, **extra_metadata: Any) -> DeferredResult:
        """The call failed; the model receives an error return."""
        return DeferredResult(self.id, "failed", {"error": error}, _md(metadata, extra_metadata))

    def cancel(
        self, reason: str | None = None, *, metadata: Mapping[str, Any] | None = None, **extra_metadata: Any
    ) -> DeferredResult:
        """The call was cancelled; the model receives an error return."""
        return DeferredResult(
            self.id, "cancelled", {"reason": reason} if reason is not None else None, _md(metadata, extra_metadata)
        )


@dataclass(frozen=True)
class HITLSnapshot:
    """What a waiting run waits for."""

    approvals: list[PendingApproval]
    deferred: list[PendingDeferred]
    raw_approvals: list[dict[str, Any]]
    raw_deferred: list[dict[str, Any]]

    @classmethod
    def from_pending(cls, pending: Sequence[Mapping[str, Any]]) -> HITLSnapshot:
        raw_a = [dict(p) for p in pending if p.get("kind") == "approval"]
        raw_d = [dict(p) for p in pending if p.get("kind") == "deferred"]
        return cls(
            [PendingApproval.from_raw(p) for p in raw_a], [PendingDeferred.from_raw(p) for p in raw_d], raw_a, raw_d
        )

    @property
    def pending_approvals(self) -> list[dict[str, Any]]:
        return self.raw_approvals

    @property
    def pending_deferred(self) -> list[dict[str, Any]]:
        return self.raw_deferred


ApprovalsInput = Union[ApprovalDecision, Mapping[str, Any], Sequence[Union[ApprovalDecision, Mapping[str, Any]]], None]
DeferredInput = Union[DeferredResult, Mapping[str, Any], Sequence[Union[DeferredResult, Mapping[str, Any]]], None]


def _approval_wire(item_id: str, data: Mapping[str, Any]) -> dict[str, Any]:
    approved = data.get("approved")
    if not isinstance(approved, bool):
        raise StateError(f"approval decision for {item_id!r} needs an explicit approved: bool", code="invalid_decision")
    out: dict[str, Any] = {"id": item_id, "approved": approved}
    for key in ("decided_by", "reason"):
        if data.get(key) is not None:
            out[key] = str(data[key])
    if data.get("override_arguments") is not None:
        if not isinstance(data["override_arguments"], Mapping):
            raise StateError(f"override_arguments for {item_id!r} must be an object", code="invalid_decision")
        out["override_arguments"] = dict(data["override_arguments"])
    if data.get("metadata"):
        out["metadata"] = dict(data["metadata"])
    if data.get("user_input") is not None:
        out["user_input"] = data["user_input"]
    return out


def normalize_approvals(approvals: ApprovalsInput) -> list[dict[str, Any]]:
    """Accept decisions in every documented shape and return wire dicts.

    Shapes: an ``ApprovalDecision``; a mapping ``{id: {"approved": bool,
    ...}}`` keyed by approval id or tool call id; a single mapping with
    ``approved`` and ``id``/``approval_id``; or a sequence of decisions and
    mappings. Raises StateError for a decision without an explicit
    ``approved`` bool or without an id.
    """
    if approvals is None:
        return []
    items: list[Any]
    if isinstance(approvals, ApprovalDecision):
        items = [approvals]
    elif isinstance(approvals, Mapping):
        if "approved" in approvals or "approval_id" in approvals or "id" in approvals:
            items = [approvals]
        else:
            return [_approval_wire(str(k), v if isinstance(v, Mapping) else {}) for k, v in approvals.items()]
    else:
        items = list(approvals)
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, ApprovalDecision):
            out.append(_approval_wire(item.id, item.to_dict()))
            continue
        if not isinstance(item, Mapping):
            raise StateError(
                f"an approval decision must be an ApprovalDecision or a mapping, got {type(item).__name__}"
            )
        item_id = item.get("approval_id") or item.get("id") or item.get("tool_call_id")
        if not item_id:
            raise StateError(
                "an approval decision needs an id (approval_id, id or tool_call_id)", code="invalid_decision"
            )
        out.append(_approval_wire(str(item_id), item))
    return out


def _deferred_wire(item_id: str, data: Mapping[str, Any]) -> dict[str, Any]:
    status = data.get("status")
    if status not in ("completed", "failed", "cancelled"):
        raise StateError(
            f"deferred result {item_id!r} needs status completed, failed or cancelled", code="invalid_result"
        )
    out: dict[str, Any] = {"id": item_id, "status": status}
    if data.get("response") is not None:
        out["response"] = data["response"]
    if data.get("metadata"):
        out["metadata"] = dict(data["metadata"])
    return out


def normalize_deferred_results(results: DeferredInput) -> list[dict[str, Any]]:
    """Accept deferred results in every documented shape: a
    ``DeferredResult``; ``{"results": [...]}``; a single mapping with
    ``deferred_id``/``id`` and ``status``; a mapping keyed by deferred id or
    tool call id; or a sequence. Raises StateError for malformed items."""
    if results is None:
        return []
    items: list[Any]
    if isinstance(results, DeferredResult):
        items = [results]
    elif isinstance(results, Mapping):
        if "results" in results:
            items = list(results["results"])
        elif "status" in results:
            items = [results]
        else:
            return [_deferred_wire(str(k), v if isinstance(v, Mapping) else {}) for k, v in results.items()]
    else:
        items = list(results)
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, DeferredResult):
            out.append(_deferred_wire(item.id, item.to_dict()))
            continue
        if not isinstance(item, Mapping):
            raise StateError(f"a deferred result must be a DeferredResult or a mapping, got {type(item).__name__}")
        item_id = item.get("deferred_id") or item.get("id") or item.get("tool_call_id")
        if not item_id:
            raise StateError("a deferred result needs an id (deferred_id, id or tool_call_id)", code="invalid_result")
        out.append(_deferred_wire(str(item_id), item))
    return out
