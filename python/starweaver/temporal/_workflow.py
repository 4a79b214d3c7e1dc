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
from starweaver.errors import StarweaverError
from starweaver.hitl import ApprovalDecision, DeferredResult, HITLSnapshot
from starweaver.temporal._result import AgentRunOutcome, AgentWorkflowInput

__all__ = ["RunsChildInWorkflow", "RunsInWorkflow", "agent_workflow", "child_workflow"]


#: The signals of the relay between a parent's and its children's
#: workflows: what a child waits for, up; an answer to it, down.
SIGNAL_CHILD_PENDING = "starweaver.child_pending"
SIGNAL_ANSWER = "starweaver.answer"


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
        # What the run's waiting child workflows wait for, by workflow id
        # (see child_workflow), as this run's own child requests read.
        self._children: dict[str, list[dict[str, Any]]] = {}
        # A child workflow's agent label and parent call (else empty): its
        # parent hears of every change of what it waits for.
        self._label = ""
        self._call_id = ""

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
        """What the run waits for and nobody answered yet: its own items,
        then its waiting children's (``path`` names the agents)."""
        snap = self._snapshot()
        own = [a.raw for a in snap.approvals if a.id not in self._approvals] + [
            d.raw for d in snap.deferred if d.id not in self._results
        ]
        return own + [p for items in self._children.values() for p in items]

    # -- the relay between parent and child workflows ----------------------

    def _child_of(self, item_id: str, kind: str) -> str | None:
        """The child workflow that waits for the item ``item_id`` of
        ``kind``, if one does."""
        for wid, items in self._children.items():
            if any(p.get("kind") == kind and item_id in (p.get("id"), p.get("tool_call_id")) for p in items):
                return wid
        return None

    async def _relay(self, item_id: str, kind: str, answer: dict[str, Any]) -> bool:
        """Send ``answer`` to the child workflow that waits for it; False
        when none does (the answer is this run's)."""
        wid = self._child_of(item_id, kind)
        if wid is None:
            return False
        self._children[wid] = [p for p in self._children[wid] if item_id not in (p.get("id"), p.get("tool_call_id"))]
        await self._publish()
        await workflow.get_external_workflow_handle(wid).signal(SIGNAL_ANSWER, answer)
        return True

    async def _publish(self) -> None:
        """Tell the parent workflow (of a child workflow) what this one
        waits for now."""
        parent = workflow.info().parent
        if not self._label or parent is None:
            return
        message = {
            "workflow_id": workflow.info().workflow_id,
            "agent": self._label,
            "call_id": self._call_id,
            "pending": self.pending(),
        }
        await workflow.get_external_workflow_handle(parent.workflow_id).signal(SIGNAL_CHILD_PENDING, message)

    @workflow.signal(name="starweaver.child_pending")
    async def child_pending(self, message: dict[str, Any]) -> None:
        """A child workflow tells what it waits for now."""
        items = [
            {**p, "path": [message["agent"], *(p.get("path") or [])], "parent_tool_call_id": message["call_id"]}
            for p in message.get("pending") or []
        ]
        wid = str(message["workflow_id"])
        if items:
            self._children[wid] = items
        else:
            self._children.pop(wid, None)
        await self._publish()

    @workflow.signal(name="starweaver.answer")
    async def relayed_answer(self, answer: dict[str, Any]) -> None:
        """A parent relays an answer to something this run (or one of its
        children) waits for."""
        item_id, kind = str(answer["id"]), answer["kind"]
        if kind == "complete":
            self._complete(item_id, answer.get("value"), answer.get("status", "completed"))
        elif not await self._relay(item_id, "approval", answer):
            reason = answer.get("reason")
            self._approvals[item_id] = ApprovalDecision(item_id, kind == "approve", answer.get("decided_by"), reason)
        await self._publish()

    @workflow.query
    def events(self, since: int = 0) -> list[dict[str, Any]]:
        """The run's events from index ``since`` on (poll with the count
        read so far)."""
        return self._events[since:]

    @workflow.update
    async def approve(self, approval_id: str, decided_by: str | None = None) -> int:
        """Approve a pending call; returns how many items still wait."""
        answer = {"kind": "approve", "id": approval_id, "decided_by": decided_by}
        if not await self._relay(approval_id, "approval", answer):
            self._approvals[approval_id] = ApprovalDecision(approval_id, True, decided_by)
            await self._publish()
        return len(self.pending())

    @approve.validator
    def _check_approve(self, approval_id: str, decided_by: str | None = None) -> None:
        self._check(approval_id, "approval")

    @workflow.update
    async def deny(self, approval_id: str, reason: str, decided_by: str | None = None) -> int:
        """Deny a pending call (the model reads ``reason``); returns how
        many items still wait."""
        answer = {"kind": "deny", "id": approval_id, "decided_by": decided_by, "reason": reason}
        if not await self._relay(approval_id, "approval", answer):
            self._approvals[approval_id] = ApprovalDecision(approval_id, False, decided_by, reason)
            await self._publish()
        return len(self.pending())

    @deny.validator
    def _check_deny(self, approval_id: str, reason: str, decided_by: str | None = None) -> None:
        self._check(approval_id, "approval")

    @workflow.update
    async def complete(self, deferred_id: str, value: Any = None, status: str = "completed") -> int:
        """Answer a deferred call: ``value`` becomes its return (``status``
        ``"failed"`` or ``"cancelled"`` gives the model an error return);
        returns how many items still wait."""
        answer = {"kind": "complete", "id": deferred_id, "value": value, "status": status}
        if not await self._relay(deferred_id, "deferred", answer):
            self._complete(deferred_id, value, status)
            await self._publish()
        return len(self.pending())

    def _complete(self, deferred_id: str, value: Any, status: str) -> None:
        response = value if status == "completed" else {"error": value}
        self._results[deferred_id] = DeferredResult(deferred_id, status, response)

    @complete.validator
    def _check_complete(self, deferred_id: str, value: Any = None, status: str = "completed") -> None:
        if status not in ("completed", "failed", "cancelled"):
            raise ValueError(f"status must be completed, failed or cancelled, got {status!r}")
        self._check(deferred_id, "deferred")

    def _check(self, item_id: str, kind: str) -> None:
        """Refuse an answer to nothing the run waits for (the update is
        rejected, and never enters the history)."""
        if self._child_of(item_id, kind) is not None:
            return
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


class RunsChildInWorkflow(RunsInWorkflow, Protocol):
    """What the child workflow needs of its ``TemporalAgent``."""

    async def run_child(self, request: Mapping[str, Any]) -> RunResult[Any]: ...


class _ChildWorkflow(_AgentWorkflow):
    """What every agent's child workflow does: one run for a parent's call
    of an agent tool or of ``spawn_agent``; while it waits for people it
    waits as the ready-made workflow does, and tells its parent."""

    _ta: RunsChildInWorkflow

    async def run_child(self, request: dict[str, Any]) -> dict[str, Any]:
        ta = self._ta
        self._label, self._call_id = ta.name, str(request.get("call_id") or "")
        try:
            result = await ta.run_child(request)
            while result.status == "waiting":
                self._pending = list(result.pending)
                self._approvals, self._results = {}, {}
                await self._publish()
                await workflow.wait_condition(self._answered)
                approvals, results = list(self._approvals.values()), list(self._results.values())
                self._pending = []
                await self._publish()
                result = await ta.resume(result, approvals=approvals, deferred_results=results)
        except StarweaverError as exc:
            return {"error": str(exc)}
        return {"result": {k: v for k, v in result.raw.items() if k != "state"}}


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
