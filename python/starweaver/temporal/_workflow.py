"""The ready-made workflow of a ``TemporalAgent`` (``temporal_agent.workflow``),
for users who write none: it runs a prompt, and when the run waits for
people it waits (at no cost, for as long as it takes) for the ``approve``,
``deny`` and ``complete`` updates to answer everything pending, then
resumes.

It runs outside the workflow sandbox (``sandboxed=False``): its code is
this module's, which uses only the workflow's APIs and the deterministic
loop, and a class made per agent could not be re-imported by name inside a
sandbox.
"""

# No ``from __future__ import annotations``: Temporal reads the handlers'
# parameter types at definition time.

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, cast

from temporalio import workflow

from starweaver._runs import RunResult
from starweaver.hitl import ApprovalDecision, DeferredResult, HITLSnapshot
from starweaver.temporal._result import AgentRunOutcome, AgentWorkflowInput

__all__ = ["RunsChildInWorkflow", "RunsInWorkflow", "agent_workflow", "child_workflow"]


class RunsInWorkflow(Protocol):
    """What the ready-made workflow needs of its ``TemporalAgent`` (this
    module sits below the one that defines it)."""

    @property
    def name(self) -> str: ...

    async def run(
        self,
        prompt: str,
        *,
        message_history: Any = ...,
        deps: Any = ...,
        metadata: Mapping[str, Any] | None = ...,
        on_event: Callable[[dict[str, Any]], Any] | None = ...,
    ) -> RunResult[Any]: ...

    async def resume(
        self,
        result: RunResult[Any],
        *,
        approvals: Sequence[ApprovalDecision] = ...,
        deferred_results: Sequence[DeferredResult] = ...,
        deps: Any = ...,
        on_event: Callable[[dict[str, Any]], Any] | None = ...,
    ) -> RunResult[Any]: ...


class _AgentWorkflow:
    """What every agent's ready-made workflow does; ``agent_workflow`` makes
    the class of one agent (Temporal wants the run method on the workflow
    class itself)."""

    _ta: RunsInWorkflow

    def __init__(self) -> None:
        self._pending: list[dict[str, Any]] = []
        self._approvals: dict[str, ApprovalDecision] = {}
        self._results: dict[str, DeferredResult] = {}
        self._events: list[dict[str, Any]] = []

    async def run_agent(self, request: AgentWorkflowInput) -> AgentRunOutcome:
        ta = self._ta
        result = await ta.run(
            request.prompt,
            message_history=request.message_history,
            deps=request.deps,
            metadata=request.metadata,
            on_event=self._events.append,
        )
        while result.status == "waiting":
            self._pending = list(result.pending)
            self._approvals, self._results = {}, {}
            await workflow.wait_condition(self._answered)
            approvals, results = list(self._approvals.values()), list(self._results.values())
            self._pending = []
            result = await ta.resume(
                result, approvals=approvals, deferred_results=results, deps=request.deps, on_event=self._events.append
            )
        return AgentRunOutcome.from_result(result)

    def _answered(self) -> bool:
        snap = self._snapshot()
        return all(a.id in self._approvals for a in snap.approvals) and all(
            d.id in self._results for d in snap.deferred
        )

    def _snapshot(self) -> HITLSnapshot:
        return HITLSnapshot.from_pending(self._pending)

    @workflow.query
    def pending(self) -> list[dict[str, Any]]:
        """What the run waits for and nobody answered yet."""
        snap = self._snapshot()
        return [a.raw for a in snap.approvals if a.id not in self._approvals] + [
            d.raw for d in snap.deferred if d.id not in self._results
        ]

    @workflow.query
    def events(self, since: int = 0) -> list[dict[str, Any]]:
        """The run's events from index ``since`` on (poll with the count
        read so far)."""
        return self._events[since:]

    @workflow.update
    def approve(self, approval_id: str, decided_by: str | None = None) -> int:
        """Approve a pending call; returns how many items still wait."""
        self._approvals[approval_id] = ApprovalDecision(approval_id, True, decided_by)
        return len(self.pending())

    @approve.validator
    def _check_approve(self, approval_id: str, decided_by: str | None = None) -> None:
        self._check(approval_id, "approval")

    @workflow.update
    def deny(self, approval_id: str, reason: str, decided_by: str | None = None) -> int:
        """Deny a pending call (the model reads ``reason``); returns how
        many items still wait."""
        self._approvals[approval_id] = ApprovalDecision(approval_id, False, decided_by, reason)
        return len(self.pending())

    @deny.validator
    def _check_deny(self, approval_id: str, reason: str, decided_by: str | None = None) -> None:
        self._check(approval_id, "approval")

    @workflow.update
    def complete(self, deferred_id: str, value: Any = None, status: str = "completed") -> int:
        """Answer a deferred call: ``value`` becomes its return (``status``
        ``"failed"`` or ``"cancelled"`` gives the model an error return);
        returns how many items still wait."""
        response = value if status == "completed" else {"error": value}
        self._results[deferred_id] = DeferredResult(deferred_id, status, response)
        return len(self.pending())

    @complete.validator
    def _check_complete(self, deferred_id: str, value: Any = None, status: str = "completed") -> None:
        if status not in ("completed", "failed", "cancelled"):
            raise ValueError(f"status must be completed, failed or cancelled, got {status!r}")
        self._check(deferred_id, "deferred")

    def _check(self, item_id: str, kind: str) -> None:
        """Refuse an answer to nothing the run waits for (the update is
        rejected, and never enters the history)."""
        snap = self._snapshot()
        items = snap.approvals if kind == "approval" else snap.deferred
        answered = self._approvals if kind == "approval" else self._results
        if not any(p.id == item_id for p in items):
            known = ", ".join(p.id for p in items) or "none"
            raise ValueError(f"no pending {kind} {item_id!r} (pending: {known})")
        if item_id in answered:
            raise ValueError(f"{kind} {item_id!r} is already answered")


def agent_workflow(ta: RunsInWorkflow) -> type:
    """The workflow class ``"<name>.run"`` for ``ta``."""
    name = f"AgentWorkflow_{_ident(ta.name)}"

    # self unannotated: Temporal reads the parameters' types and skips only a
    # bare self.
    async def run(self, request: AgentWorkflowInput) -> AgentRunOutcome:  # type: ignore[no-untyped-def]
        return await cast(_AgentWorkflow, self).run_agent(request)

    # Temporal takes the run method of the workflow class itself, by name.
    run.__qualname__ = f"{name}.run"
    cls = type(name, (_AgentWorkflow,), {"run": workflow.run(run), "_ta": ta, "__module__": __name__})
    return workflow.defn(name=f"{ta.name}.run", sandboxed=False)(cls)


class RunsChildInWorkflow(Protocol):
    """What the child workflow needs of its ``TemporalAgent``."""

    @property
    def name(self) -> str: ...

    async def run_child(self, request: Mapping[str, Any]) -> dict[str, Any]: ...


class _ChildWorkflow:
    """What every agent's child workflow does: one run for a parent's call
    of an agent tool or of ``spawn_agent``."""

    _ta: RunsChildInWorkflow

    async def run_child(self, request: dict[str, Any]) -> dict[str, Any]:
        return await self._ta.run_child(request)


def child_workflow(ta: RunsChildInWorkflow) -> type:
    """The workflow class ``"<name>.child"`` for ``ta``."""
    name = f"AgentChildWorkflow_{_ident(ta.name)}"

    async def run(self, request: dict[str, Any]) -> dict[str, Any]:  # type: ignore[no-untyped-def]
        return await cast(_ChildWorkflow, self).run_child(request)

    run.__qualname__ = f"{name}.run"
    cls = type(name, (_ChildWorkflow,), {"run": workflow.run(run), "_ta": ta, "__module__": __name__})
    return workflow.defn(name=f"{ta.name}.child", sandboxed=False)(cls)


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)
