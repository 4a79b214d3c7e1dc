"""``TemporalAgent``: an agent whose runs are Temporal workflow code.

The run's loop runs inside the workflow (it is deterministic: it decides
every next step from the answers it was given, with ids taken from the
workflow), and hands each model request and each tool call to an activity:
``"<name>.model"`` and ``"<name>.tool"``, which a worker registers with
``AgentPlugin``. A replay feeds the loop the recorded answers, so it makes
the same requests in the same order.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Generic

from temporalio import activity, workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError

from starweaver import _remote
from starweaver._bridge import CHILD_OUTCOME, model_error_details
from starweaver._runs import DepsT, MessageHistory, OutputT, RunResult
from starweaver.errors import ModelError
from starweaver.hitl import ApprovalsInput, DeferredInput
from starweaver.temporal._tracing import activity_span
from starweaver.temporal._workflow import agent_workflow, child_workflow
from starweaver.usage import UsageLimits

if TYPE_CHECKING:
    from starweaver.agent import Agent
    from starweaver.settings import ModelSettings

__all__ = ["TemporalAgent"]

EventCallback = Callable[[dict[str, Any]], Any]
"""What ``on_event`` receives inside a workflow: each event as a dict."""

#: How long one activity may run when the tool names no timeout (and for a
#: model request).
DEFAULT_START_TO_CLOSE = timedelta(minutes=5)
#: Added to a tool's own bound: the tool's timeout expires inside the
#: activity first, so the model reads the tool's ``timeout`` return rather
#: than a lost call.
TIMEOUT_GRACE = timedelta(seconds=5)
#: A call that may not run twice gets one attempt: a lost one is answered
#: with the lost-call return, never run again.
ONE_ATTEMPT = RetryPolicy(maximum_attempts=1)
#: Temporal refuses a payload over 2 MB by default (the server's blob size
#: limit); a return or a model request this large is answered with a clear
#: error instead: large data travels as artifacts (references).
MAX_PAYLOAD_BYTES = 1_800_000


class TemporalAgent(Generic[DepsT, OutputT]):
    """Runs ``agent`` durably: each model request and each tool call is a
    Temporal activity, the loop between them is workflow code.

    Define it where both the workflow and the worker import it (a module
    the workflow imports through ``workflow.unsafe.imports_passed_through()``),
    register its activities with ``AgentPlugin(temporal_agent)``, and call
    ``await temporal_agent.run(prompt)`` inside a ``@workflow.defn``.

    Arguments:
        agent: The agent; its model answers the ``"<name>.model"`` activity
            and its tools run in ``"<name>.tool"``, on the worker.
        name: Names the activities (``"<name>.model"``, ``"<name>.tool"``)
            and the ready-made workflow (``"<name>.run"``); unique per worker.
        start_to_close_timeout: Bounds a model request, and a tool call whose
            tool has no timeout (a tool's timeout times its retries plus 5 s
            bounds its call).
        heartbeat_timeout: When set, a tool call's activity heartbeats while
            it runs, so a lost worker is noticed after this long rather than
            after the whole start-to-close timeout.
        retry_policy: The retries of model requests and of calls that may
            run again (pure, read-only, undeclared and idempotent tools); a
            call of any other effect class gets one attempt.
        task_queue: The activities' task queue (the workflow's by default).
        deps_type: The type the run's ``deps`` are validated into on the
            worker (they travel as JSON data; without it a tool gets the
            plain data).
        max_payload_bytes: The largest tool return (as JSON) an activity
            sends back, and the largest model request the workflow sends:
            under Temporal's payload limit (2 MB by default). A larger
            return becomes an ``execution`` error return the model reads
            (return an artifact instead: only its reference travels); a
            larger request fails the run with ``ModelError``.
    """

    def __init__(
        self,
        agent: Agent[DepsT, OutputT],
        name: str,
        *,
        start_to_close_timeout: timedelta = DEFAULT_START_TO_CLOSE,
        heartbeat_timeout: timedelta | None = None,
        retry_policy: RetryPolicy | None = None,
        task_queue: str | None = None,
        deps_type: type[Any] | None = None,
        max_payload_bytes: int = MAX_PAYLOAD_BYTES,
    ) -> None:
        if not name or not isinstance(name, str):
            raise ValueError("TemporalAgent needs a name (it names the activities and the workflow)")
        self.agent = agent
        self.name = name
        self.start_to_close_timeout = start_to_close_timeout
        self.heartbeat_timeout = heartbeat_timeout
        self.retry_policy = retry_policy
        self.task_queue = task_queue
        self.deps_type = deps_type
        self.max_payload_bytes = max_payload_bytes
        # The runs each workflow execution started so far, for their ids;
        # an evicted workflow is replayed by a new instance from zero.
        self._runs: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
        self._workflow: type | None = None
        self._child_workflow: type | None = None

    @property
    def model_activity(self) -> str:
        return f"{self.name}.model"

    @property
    def tool_activity(self) -> str:
        return f"{self.name}.tool"

    @property
    def workflow(self) -> type:
        """The ready-made workflow ``"<name>.run"`` (see
        ``starweaver.temporal.AgentWorkflowInput``): it runs a prompt, waits
        for the ``approve``/``deny``/``complete`` updates when the run asks
        for people, and returns an ``AgentRunOutcome``; the ``pending`` and
        ``events`` queries read it while it runs."""
        if self._workflow is None:
            self._workflow = agent_workflow(self)
        return self._workflow

    @property
    def child_workflow(self) -> type:
        """The workflow ``"<name>.child"`` a parent run in a workflow starts
        for each call of an agent tool or of ``spawn_agent`` that runs this
        agent (see ``children``)."""
        if self._child_workflow is None:
            self._child_workflow = child_workflow(self)
        return self._child_workflow

    def children(self) -> list[TemporalAgent[Any, Any]]:
        """The agents a run of this one may start as child workflows, all
        the way down: those of its ``as_tool`` tools and ``subagents``
        routes, each named by its label (the child agent's name, else the
        tool's) with this agent's options. One per label, the first found;
        ``AgentPlugin`` registers them."""
        out: list[TemporalAgent[Any, Any]] = []
        seen = {self.name}
        queue: list[TemporalAgent[Any, Any]] = [self]
        while queue:
            ta = queue.pop(0)
            for route in ta.agent._catalog.agent_tools:  # noqa: SLF001 - the agent's agent tools, as given
                child = route.agent
                label = (child.name if child is not None else None) or route.name
                if child is None or label in seen:
                    continue
                seen.add(label)
                twin: TemporalAgent[Any, Any] = TemporalAgent(
                    child,
                    label,
                    start_to_close_timeout=self.start_to_close_timeout,
                    heartbeat_timeout=self.heartbeat_timeout,
                    retry_policy=self.retry_policy,
                    task_queue=self.task_queue,
                    deps_type=self.deps_type,
                    max_payload_bytes=self.max_payload_bytes,
                )
                out.append(twin)
                queue.append(twin)
        return out

    # -- inside a workflow -------------------------------------------------

    async def run_child(self, request: Mapping[str, Any]) -> RunResult[OutputT]:
        """The child workflow's run (``child_workflow``): ``request`` is a
        parent call's ``"child"`` (Go's ``agent.ChildRun``): its prompt,
        grants and usage limits (the parent's remaining ones included).

        Raises:
            RuntimeError: called outside workflow code.
        """
        _in_workflow("run_child")
        limits = request.get("limits") or {}
        known = {f.name for f in dataclasses.fields(UsageLimits)}
        usage_limits = UsageLimits(**{k: int(v) for k, v in limits.items() if k in known and v})
        conversation_id, run_id = self._ids()
        grants = request.get("grants")
        return await _remote.run_stepped(
            self.agent,
            str(request.get("prompt", "")),
            conversation_id=conversation_id,
            run_id=run_id,
            handlers=_Handlers(self, None),
            usage_limits=usage_limits,
            grants=None if grants is None else [str(g) for g in grants],
        )

    async def run(
        self,
        prompt: str,
        *,
        message_history: MessageHistory | None = None,
        usage_limits: UsageLimits | None = None,
        model_settings: ModelSettings | None = None,
        deps: Any = None,
        metadata: Mapping[str, Any] | None = None,
        on_event: EventCallback | None = None,
    ) -> RunResult[OutputT]:
        """Run ``prompt`` from workflow code; the keywords and the result
        are ``Agent.run``'s. A run that needs people returns with
        ``status == "waiting"`` and ``result.hitl``; ``resume`` continues it.

        ``deps`` travel to the tool activities as data (JSON: a pydantic
        model, a dataclass or plain values; see ``deps_type``). ``on_event``
        is called inside the workflow, with each event as a dict, again
        when the workflow replays: record events in the workflow's state
        (as the ready-made workflow's ``events`` query does) rather than
        sending them out from the callback.

        Raises:
            RuntimeError: called outside workflow code.
        """
        _in_workflow("run")
        conversation_id, run_id = self._ids()
        return await _remote.run_stepped(
            self.agent,
            prompt,
            conversation_id=conversation_id,
            run_id=run_id,
            handlers=_Handlers(self, deps),
            message_history=message_history,
            usage_limits=usage_limits,
            deps=deps,
            metadata=metadata,
            model_settings=model_settings,
            on_event=on_event,
        )

    async def resume(
        self,
        result: RunResult[OutputT],
        *,
        approvals: ApprovalsInput = None,
        deferred_results: DeferredInput = None,
        deps: Any = None,
        on_event: EventCallback | None = None,
    ) -> RunResult[OutputT]:
        """Continue a waiting run with the people's answers (as
        ``session.resume_after_hitl`` does locally), from workflow code.

        Raises:
            RuntimeError: called outside workflow code.
            StateError: ``result`` is not a waiting run of ``run``.
        """
        _in_workflow("resume")
        state = result.raw.get("state")
        if result.status != "waiting" or not isinstance(state, Mapping):
            from starweaver.errors import StateError  # noqa: PLC0415 - only this error path needs it

            raise StateError(f"resume needs a waiting run of TemporalAgent.run, got status {result.status!r}")
        return await _remote.resume_stepped(
            self.agent,
            dict(state),
            handlers=_Handlers(self, deps),
            approvals=approvals,
            deferred_results=deferred_results,
            deps=deps,
            on_event=on_event,
        )

    def _ids(self) -> tuple[str, str]:
        """The next run's conversation and run ids: the workflow's ids and
        the run's number in this execution (the same on every replay). The
        run id names the execution too, so a workflow id used again never
        gives two runs the same idempotency keys."""
        info = workflow.info()
        instance = workflow.instance()
        n = self._runs.get(instance, 0) + 1
        self._runs[instance] = n
        return f"{info.workflow_id}/{n}", f"{info.run_id}/{n}"

    # -- on the worker -----------------------------------------------------

    def activities(self) -> list[Callable[..., Any]]:
        """The activities a worker registers for this agent (``AgentPlugin``
        does it)."""

        model_name = getattr(self.agent.model, "model_name", None) or getattr(self.agent.model, "name", None)
        chat: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.agent.name": self.name}
        if isinstance(model_name, str) and model_name:
            chat["gen_ai.request.model"] = model_name

        @activity.defn(name=self.model_activity)
        async def model(request: dict[str, Any]) -> dict[str, Any]:
            try:
                with activity_span(f"chat {model_name}" if "gen_ai.request.model" in chat else "chat", chat):
                    return await _remote.request_model(self.agent, request)
            except ModelError as exc:
                # The model answered with an error after its own retries
                # (provider clients back off and retry): another attempt
                # would fail alike, so the run fails with it, as locally.
                # A lost worker or a timeout is still retried by policy.
                # Its provider, status, code and a fallback's attempts
                # travel as the details, for the workflow's side.
                details = model_error_details(exc)
                raise ApplicationError(str(exc), details, type="ModelError", non_retryable=True) from exc

        @activity.defn(name=self.tool_activity)
        async def tool(job: dict[str, Any]) -> dict[str, Any]:
            (call,) = job["batch"]["calls"]
            attrs = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.agent.name": self.name,
                "gen_ai.tool.name": call["name"],
                "gen_ai.tool.call.id": call["id"],
            }
            with activity_span(f"execute_tool {call['name']}", attrs):
                return await self._run_call(job)

        return [model, tool]

    async def _run_call(self, job: dict[str, Any]) -> dict[str, Any]:
        """One call of a batch, heartbeating while it runs when the
        activity has a heartbeat timeout."""
        deps = job.get("deps")
        if deps is not None and self.deps_type is not None:
            from pydantic import TypeAdapter  # noqa: PLC0415 - only typed deps need it

            deps = TypeAdapter(self.deps_type).validate_python(deps)
        task = asyncio.ensure_future(_remote.run_batch(self.agent, job["batch"], deps))
        beat = activity.info().heartbeat_timeout
        try:
            if beat:
                every = max(beat.total_seconds() / 3, 0.1)
                while not task.done():
                    activity.heartbeat()
                    await asyncio.wait({task}, timeout=every)
            returns = await task
        finally:
            task.cancel()
        if len(returns) != 1:
            raise RuntimeError(f"{self.tool_activity}: the batch of one call gave {len(returns)} returns")
        ret = returns[0]
        size = len(json.dumps(ret, separators=(",", ":")))
        if size > self.max_payload_bytes:
            return _oversized(ret, size, self.max_payload_bytes)
        return ret


class _Handlers:
    """The executor of a run in a workflow: activities for the model
    requests and the calls."""

    def __init__(self, ta: TemporalAgent[Any, Any], deps: Any) -> None:
        self._ta = ta
        self._deps = deps

    async def model(self, request: dict[str, Any]) -> dict[str, Any]:
        ta = self._ta
        size = len(json.dumps(request, separators=(",", ":")))
        if size > ta.max_payload_bytes:
            raise ModelError(
                f"the model request of step {request.get('step')} is {size} bytes, over the {ta.max_payload_bytes} "
                "a Temporal payload may carry: keep large tool data in artifacts (only references travel)"
            )
        try:
            result: dict[str, Any] = await workflow.execute_activity(
                ta.model_activity,
                request,
                result_type=dict,
                start_to_close_timeout=ta.start_to_close_timeout,
                retry_policy=ta.retry_policy,
                task_queue=ta.task_queue,
                summary=f"model request, step {request.get('step')} of run {request.get('run_id')}",
            )
        except ActivityError as exc:
            # The run fails with the model's own words and details, as
            # locally.
            cause = exc.cause
            if isinstance(cause, ApplicationError) and cause.type == "ModelError" and cause.details:
                details = cause.details[0]
                if isinstance(details, dict):
                    raise ModelError(
                        cause.message,
                        provider=details.get("provider"),
                        status_code=details.get("status_code"),
                        code=details.get("code"),
                        attempts=details.get("attempts"),
                    ) from exc
            raise ModelError(str(exc.cause or exc)) from exc
        return result

    async def batch(self, batch: dict[str, Any]) -> list[dict[str, Any] | None]:
        calls: Sequence[dict[str, Any]] = batch.get("calls") or []
        shared = {k: v for k, v in batch.items() if k != "calls"}

        def start(call: dict[str, Any]) -> Awaitable[dict[str, Any] | None]:
            if call.get("child"):
                return self._child(shared, call)
            return _settle(self._start(shared, call))

        if batch.get("sequential"):
            return [await start(call) for call in calls]
        limit = int(batch.get("max_concurrency") or 0)
        if limit <= 0 or limit >= len(calls):
            # Every activity is scheduled now, in model order (a child
            # workflow when its task first runs, in the same order).
            pending = [start(call) for call in calls]
            return list(await asyncio.gather(*pending))
        # At most limit at once; the semaphore admits in model order.
        gate = asyncio.Semaphore(limit)

        async def one(call: dict[str, Any]) -> dict[str, Any] | None:
            async with gate:
                return await start(call)

        return list(await asyncio.gather(*(one(call) for call in calls)))

    async def _child(self, shared: dict[str, Any], call: dict[str, Any]) -> dict[str, Any]:
        """Run a call's child agent as the child workflow ``"<label>.child"``,
        its id the parent run's conversation id (the workflow id and the
        run's number), the step and the call id: the same on every replay.
        The entry answers the call with the child's outcome."""
        child = call["child"]
        try:
            outcome: dict[str, Any] = await workflow.execute_child_workflow(
                f"{child['agent']}.child",
                {**child, "call_id": call.get("id")},
                id=f"{shared.get('conversation_id')}/{shared.get('step')}/{call.get('id')}",
                result_type=dict,
                static_summary=f"agent {child['agent']}, call {call.get('id')}",
            )
        except ChildWorkflowError as exc:
            outcome = {"error": str(exc.cause or exc)}
        return {CHILD_OUTCOME: outcome}

    def _start(self, shared: dict[str, Any], call: dict[str, Any]) -> workflow.ActivityHandle[dict[str, Any]]:
        ta = self._ta
        timeout = ta.start_to_close_timeout
        per_attempt_ns = int(call.get("timeout") or 0)
        if per_attempt_ns > 0:
            bound = timedelta(microseconds=per_attempt_ns // 1000) * (int(call.get("max_retries") or 0) + 1)
            timeout = bound + TIMEOUT_GRACE
        policy = ta.retry_policy if call.get("retry_safe") else ONE_ATTEMPT
        effect = call.get("effect") or "undeclared"
        return workflow.start_activity(
            ta.tool_activity,
            {"batch": {**shared, "calls": [call]}, "deps": self._deps},
            result_type=dict,
            start_to_close_timeout=timeout,
            heartbeat_timeout=ta.heartbeat_timeout,
            retry_policy=policy,
            task_queue=ta.task_queue,
            summary=f"tool {call.get('name')} call {call.get('id')} ({effect}), step {shared.get('step')}",
        )


async def _settle(handle: workflow.ActivityHandle[dict[str, Any]]) -> dict[str, Any] | None:
    """The call's return, or None when its activity failed (its worker was
    lost, it timed out, it used its attempts): the loop writes the lost
    call's return."""
    try:
        return await handle
    except ActivityError:
        return None


def _oversized(ret: dict[str, Any], size: int, limit: int) -> dict[str, Any]:
    """The error return that replaces a return too large for a payload."""
    name = str(ret.get("name", ""))
    message = f"the tool's return is {size} bytes as JSON, over the {limit} a durable run's payload may carry"
    how = "return less, or an artifact (only its reference travels)"
    content = {"kind": "execution", "tool": name, "message": message, "how_to_fix": how, "success": False}
    return {
        "tool_call_id": ret.get("tool_call_id", ""),
        "name": name,
        "content": content,
        "is_error": True,
        "metadata": {"error_kind": "execution", "tool": name, "message": message, "how_to_fix": how},
    }


def _in_workflow(what: str) -> None:
    if not workflow.in_workflow():
        raise RuntimeError(f"TemporalAgent.{what} runs inside workflow code (a @workflow.run method); use Agent.{what}")
