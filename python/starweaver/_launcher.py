"""How an agent starts its runs: the one object an agent hands to its
sessions and live runs, so they start, finish and resume runs through it
rather than through the agent.

A ``RunLauncher`` holds what every run of its agent shares: the agent's
name, model and dependencies, its catalogue (the Python callables behind
the native tool, model and hook ids), its structured output, its tool
artifacts and the runs in progress (with their trace spans)."""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from starweaver import _capi, tracing
from starweaver._catalog import Catalog, ToolLike, as_tool, instructions_list, tags_list, toolsets_list
from starweaver._policy import ToolErrorPolicy, grants_spec, policy_spec
from starweaver._runs import RunResult, SessionRef, as_typed_messages
from starweaver.dependencies import merge_deps
from starweaver.errors import StarweaverError
from starweaver.settings import ModelSettings, settings_spec
from starweaver.usage import UsageLimits, usage_limits_spec

# Asyncio, the bridge, human in the loop and streaming are loaded with the
# first run (see agent.py).
if TYPE_CHECKING:
    from starweaver import _bridge
    from starweaver._bridge import EventCallback, StepHandlers
    from starweaver._testmodels import FunctionModel, TestModel
    from starweaver.artifacts import ToolArtifacts
    from starweaver.dynamic import AbstractToolset
    from starweaver.hitl import ApprovalsInput, DeferredInput
    from starweaver.models import FallbackModel, ProviderModel
    from starweaver.output import Output
    from starweaver.streaming import AgentRun
    from starweaver.toolsets import Toolset

__all__ = ["RunLauncher"]


def _policy_request(grants: Iterable[str] | None, tool_error_policy: ToolErrorPolicy | None) -> dict[str, Any]:
    """The run spec keys of a run's grants and tool error policy, the
    ones left unset omitted."""
    request: dict[str, Any] = {}
    names = grants_spec(grants)
    if names is not None:
        request["grants"] = names
    policy = policy_spec(tool_error_policy)
    if policy is not None:
        request["tool_error_policy"] = policy
    return request


def _resume_request(approvals: ApprovalsInput, deferred_results: DeferredInput) -> dict[str, Any]:
    """The run request's ``resume`` value."""
    from starweaver.hitl import normalize_approvals, normalize_deferred_results  # noqa: PLC0415 - see the imports above

    return {
        "approvals": normalize_approvals(approvals),
        "deferred_results": normalize_deferred_results(deferred_results),
    }


class RunLauncher:
    """Starts, drives and finishes the runs of one agent. The agent owns it
    and hands it to its sessions and live runs; ``name``, ``model`` and
    ``deps`` are the agent's (``Agent.override`` changes them here)."""

    def __init__(
        self,
        *,
        name: str | None,
        model: TestModel | FunctionModel | ProviderModel | FallbackModel,
        deps: Any,
        catalog: Catalog,
        output: Output | None,
        artifacts: ToolArtifacts | None,
        trace_content: bool,
    ) -> None:
        self.name = name
        self.model = model
        self.deps = deps
        self.catalog = catalog
        self.output = output
        self.artifacts = artifacts
        self.trace_content = trace_content
        # The spans of runs started and not yet finished (see tracing.py).
        self._traces: weakref.WeakKeyDictionary[_bridge.RunDriver, tracing.RunTrace] = weakref.WeakKeyDictionary()
        #: Runs started and not yet finished, for ``async with agent``.
        self.runs: weakref.WeakSet[_bridge.RunDriver] = weakref.WeakSet()
        #: The agent owning this launcher (set by the agent), whose handoff
        #: graph names a result's last agent.
        self.owner: weakref.ref[Any] | None = None

    def request(
        self,
        prompt: str,
        tools: Iterable[ToolLike] | None,
        toolsets: Iterable[Toolset | AbstractToolset] | None,
        instructions: str | Iterable[str] | None,
        metadata: Mapping[str, Any] | None,
        events: bool,
        usage_limits: UsageLimits | None = None,
        model_settings: ModelSettings | None = None,
        active_tags: Iterable[str] | None = None,
        grants: Iterable[str] | None = None,
        tool_error_policy: ToolErrorPolicy | None = None,
    ) -> tuple[dict[str, Any], Catalog]:
        """The run request of ``prompt`` with a run's options, and the
        catalogue of the agent's and the run's own tools and toolsets."""
        if not isinstance(prompt, str):
            raise TypeError("prompt must be a string")
        run_catalog = Catalog()
        request: dict[str, Any] = {
            "prompt": prompt,
            "tools": [run_catalog.tool_spec(as_tool(t)) for t in (tools or [])],
            "toolsets": [run_catalog.toolset_spec(ts) for ts in toolsets_list(toolsets)],
            "instructions": instructions_list(instructions),
            "events": events,
        }
        if metadata:
            request["metadata"] = dict(metadata)
        limits = usage_limits_spec(usage_limits)
        if limits is not None:
            request["usage_limits"] = limits
        settings = settings_spec(model_settings)
        if settings is not None:
            request["settings"] = settings
        if active_tags is not None:
            request["active_tags"] = tags_list(active_tags)
        request.update(_policy_request(grants, tool_error_policy))
        return request, self.catalog.merged(run_catalog)

    def start(
        self,
        session: SessionRef,
        request: dict[str, Any],
        catalog: Catalog,
        on_event: EventCallback | None,
        deps: Any = None,
        steps: StepHandlers | None = None,
    ) -> _bridge.RunDriver:
        """Start a run of ``request`` in ``session`` (traced when tracing is
        on) and return its driver; ``finish`` ends it. With ``steps``, the
        run hands its model requests and tool batches to them."""
        # A stepped run's loop is workflow code, replayed: its spans would be
        # made again on each replay. A step's spans are the engine's
        # activity's (starweaver.temporal).
        stepping = steps is not None or any(k in request for k in ("model_request", "run_batch", "availability"))
        trace = None if stepping else tracing.start_run(self.name, self.model, self.trace_content)
        if trace is not None:
            # Spans are made from the events, so a traced run asks for them,
            # and for every call's id, to run each call inside its span.
            request["events"] = True
            request["trace"] = True
            on_event = trace.wrap(on_event)
        from starweaver import _bridge  # noqa: PLC0415 - loaded with the first run

        run_deps = merge_deps(merge_deps(self.deps, session.named_deps or None), deps)
        try:
            driver = _bridge.start(
                session.handle,
                request,
                catalog.tools,
                catalog.models,
                run_deps,
                on_event,
                hooks=catalog.hooks,
                scope=trace,
                artifacts=self.artifacts,
                steps=steps,
                tool_deps=catalog.tool_deps(run_deps),
            )
        except BaseException as exc:
            if trace is not None:
                trace.close(repr(exc))
            raise
        if trace is not None:
            self._traces[driver] = trace
        session.active = driver
        self.runs.add(driver)
        return driver

    async def drive(
        self,
        session: SessionRef,
        request: dict[str, Any],
        catalog: Catalog,
        on_event: EventCallback | None,
        deps: Any = None,
        steps: StepHandlers | None = None,
    ) -> RunResult:
        """``start`` then ``finish``."""
        if steps is not None:
            request["executor"] = True
        return await self.finish(session, self.start(session, request, catalog, on_event, deps, steps))

    async def finish(self, session: SessionRef, driver: _bridge.RunDriver) -> RunResult:
        """Wait for the run ``driver`` drives to end; its result, or its error raised."""
        from starweaver import _bridge  # noqa: PLC0415 - loaded with the first run

        trace = self._traces.pop(driver, None)
        try:
            done = await _bridge.finish(driver)
        finally:
            self.runs.discard(driver)
            if session.active is driver:
                session.active = None
            if trace is not None:
                # A no-op after the run's last event; it ends the spans of a
                # run whose host failed before that.
                trace.close("the run ended without reporting its end")
        error = done.get("error")
        # A run the runtime cancelled (at shutdown) still reports its result.
        if error and not (error.get("type") == "cancelled" and done.get("result") is not None):
            exc = _capi.error_from(error)
            failed = done.get("result") or {}
            if isinstance(exc, StarweaverError) and failed.get("messages") is not None:
                exc.messages = as_typed_messages(failed["messages"])
            raise exc
        raw = done.get("result") or {}
        last, output = self.last_agent(raw.get("last_agent"))
        return RunResult(raw, session, output, last_agent=last)

    def last_agent(self, name: str | None) -> tuple[Any, Output | None]:
        """The agent that answered last, named name by the runtime, and the
        output type its answer has: the owner when it made no handoff, else
        the agent of that name it reaches (its name when none is)."""
        owner = self.owner() if self.owner is not None else None
        if owner is None or not owner._handoffs:  # noqa: SLF001 - the launcher reads its own agent
            return owner, self.output
        found = owner._reachable_named(name)  # noqa: SLF001 - the launcher reads its own agent
        if found is None:
            return name, self.output
        return found, found._output  # noqa: SLF001 - the launcher reads its own agent

    async def resume(
        self,
        session: SessionRef,
        approvals: ApprovalsInput,
        deferred_results: DeferredInput,
        on_event: EventCallback | None,
        deps: Any = None,
        grants: Iterable[str] | None = None,
        tool_error_policy: ToolErrorPolicy | None = None,
        steps: StepHandlers | None = None,
    ) -> RunResult:
        """Answer the waiting run of ``session`` and continue it to its end."""
        resume = _resume_request(approvals, deferred_results)
        request = {"resume": resume, "events": on_event is not None, **_policy_request(grants, tool_error_policy)}
        return await self.drive(session, request, self.catalog.whole(), on_event, deps, steps)

    def stream(self, session: SessionRef, request: dict[str, Any], catalog: Catalog, deps: Any) -> AgentRun:
        """Start ``request`` in ``session`` as a live run."""
        request["events"] = True
        request["deltas"] = True
        from starweaver.streaming import AgentRun  # noqa: PLC0415 - see the imports above

        return AgentRun(self, session, request, catalog, deps)

    def resume_stream(
        self,
        session: SessionRef,
        approvals: ApprovalsInput,
        deferred_results: DeferredInput,
        deps: Any,
        grants: Iterable[str] | None = None,
        tool_error_policy: ToolErrorPolicy | None = None,
    ) -> AgentRun:
        """Answer the waiting run of ``session`` and continue it as a live run."""
        resume = _resume_request(approvals, deferred_results)
        request = {"resume": resume, **_policy_request(grants, tool_error_policy)}
        return self.stream(session, request, self.catalog.whole(), deps)

    async def run(
        self,
        session: SessionRef,
        prompt: str,
        *,
        tools: Iterable[ToolLike] | None,
        toolsets: Iterable[Toolset | AbstractToolset] | None,
        instructions: str | Iterable[str] | None,
        metadata: Mapping[str, Any] | None,
        on_event: EventCallback | None,
        usage_limits: UsageLimits | None = None,
        model_settings: ModelSettings | None = None,
        deps: Any = None,
        active_tags: Iterable[str] | None = None,
        grants: Iterable[str] | None = None,
        tool_error_policy: ToolErrorPolicy | None = None,
        steps: StepHandlers | None = None,
        run_id: str | None = None,
    ) -> RunResult:
        """Run ``prompt`` in ``session`` to its end (``steps``, ``run_id``:
        see ``_remote``)."""
        request, catalog = self.request(
            prompt,
            tools,
            toolsets,
            instructions,
            metadata,
            on_event is not None,
            usage_limits,
            model_settings,
            active_tags,
            grants,
            tool_error_policy,
        )
        if run_id is not None:
            request["run_id"] = run_id
        return await self.drive(session, request, catalog, on_event, deps, steps)

    async def step(
        self, session: SessionRef, request: dict[str, Any], deps: Any = None, catalog: Catalog | None = None
    ) -> dict[str, Any]:
        """Carry out one step another run handed its executor: a
        ``{"model_request": ...}`` or ``{"run_batch": ...}`` request, or
        preview a run (``{"availability": true, ...}``, with the run's
        ``catalog``); the done item (``response``, ``returns`` or
        ``availability``), or its error raised."""
        from starweaver import _bridge  # noqa: PLC0415 - loaded with the first run

        driver = self.start(session, request, self.catalog.whole() if catalog is None else catalog, None, deps)
        try:
            done = await _bridge.finish(driver)
        finally:
            self.runs.discard(driver)
            if session.active is driver:
                session.active = None
        if done.get("error"):
            raise _capi.error_from(done["error"])
        return done

    async def recover(self, session: SessionRef, on_event: EventCallback | None, deps: Any = None) -> RunResult:
        """Continue the run a stopped worker left in ``session`` (see
        ``AgentSession.recover``)."""
        request = {"recover": True, "events": on_event is not None}
        return await self.drive(session, request, self.catalog.whole(), on_event, deps)
