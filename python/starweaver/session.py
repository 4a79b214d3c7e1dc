"""Sessions: a conversation with an agent (``AgentSession``), one run at a
time, and its human-in-the-loop operations. What a run gives back
(``RunResult``) and the native session handle (``SessionRef``) live in
``starweaver._runs`` and are re-exported here."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Protocol

from starweaver import _capi
from starweaver._catalog import ToolLike
from starweaver._deprecated import forwarding
from starweaver._policy import ToolErrorPolicy
from starweaver._runs import DepsT, MessageHistory, OutputT, RunResult, SessionRef, as_typed_messages, settle_runs
from starweaver.errors import StarweaverError, StateError
from starweaver.settings import ModelSettings
from starweaver.toolsets import Toolset
from starweaver.usage import RunUsage, UsageLimits, usage_dict

# What only some agents use (messages and their pydantic models, human in the
# loop, stores, artifacts, intents, streaming, environments) and what only a
# run uses (asyncio, the bridge) is imported where it is first needed, so
# ``from starweaver import create_agent`` stays cheap.
if TYPE_CHECKING:
    from starweaver._bridge import EventCallback
    from starweaver._launcher import RunLauncher
    from starweaver.agent_context import AgentContext
    from starweaver.dynamic import AbstractToolset
    from starweaver.environment import Environment
    from starweaver.hitl import ApprovalsInput, DeferredInput, HITLSnapshot
    from starweaver.messages import ModelMessage
    from starweaver.stores import ClaimedResume, InFlightRun
    from starweaver.streaming import AgentRun

__all__ = [
    "AgentSession",
    "DepsT",
    "MessageHistory",
    "OutputT",
    "RunResult",
    "SessionAgent",
    "SessionHITL",
    "SessionRef",
    "ToolLike",
]

# Old names, for one release (see CHANGELOG.md).
if not TYPE_CHECKING:
    __getattr__ = forwarding(
        __name__,
        {
            "SessionHitl": "starweaver.session:SessionHITL",
        },
    )


class SessionAgent(Protocol):
    """The agent a session belongs to (``AgentSession.agent``), as the
    session knows it: ``starweaver.agent.Agent``, which makes sessions and
    sits above this module."""

    @property
    def name(self) -> str | None: ...


def environment_spec_of(environment: Environment | None) -> dict[str, Any] | None:
    if environment is None:
        return None
    from starweaver.environment import environment_spec  # noqa: PLC0415 - see the imports above

    return environment_spec(environment)


class AgentSession(Generic[DepsT, OutputT]):
    """A conversation with an agent; one run at a time. As an async context
    manager, leaving on an exception interrupts its run in progress and
    leaving normally waits for it; either way the session is closed."""

    def __init__(self, agent: SessionAgent, *, _launcher: RunLauncher, _ref: SessionRef) -> None:
        """Made by the agent (``Agent.session``, ``open_session``,
        ``session_from_state``), which hands over its run launcher and the
        native session."""
        self.agent = agent
        self._launcher = _launcher
        self._ref = _ref
        self._handle = self._ref.handle
        self.hitl = SessionHITL(self)

    def _native_handle(self) -> int:
        return int(self._handle)

    def _adopt(self, session: AgentSession) -> None:
        """Continue as ``session``: the same conversation, loaded anew (from
        the session store) or wrapped (by ``AgentRuntime``)."""
        self.agent = session.agent
        self._launcher = session._launcher
        self._ref = session._ref
        self._handle = session._ref.handle

    def __repr__(self) -> str:
        try:
            return f"AgentSession(id={self.id!r})"
        except StarweaverError:  # closed: its id went with it
            return "AgentSession(closed)"

    def set_environment(self, environment: Environment | None) -> None:
        """Give the session its own environment (replacing the agent's) from
        the next run on; None removes it.

        Raises:
            TypeError: not an environment.
            ValueError: the core refused the spec (a local root that is not a
                directory, a file path leaving the root).
        """
        _capi.session_set_environment(self._handle, environment_spec_of(environment))

    def steer(self, text: str) -> None:
        """Add a user message that the session's running run sees in its next
        model request (queued while a batch of tools runs), whether the run
        was started with ``run`` or ``run_stream``.

        Raises:
            TypeError: text is not a string.
            StateError: no run is in progress.
        """
        if not isinstance(text, str):
            raise TypeError("text must be a string")
        driver = self._ref.active
        if driver is None:
            raise StateError("the session has no run in progress", code="state")
        driver.steer(text)

    def interrupt(self, reason: str | None = None) -> bool:
        """Stop the session's running run: its tools are cancelled and it
        ends ``cancelled`` with its messages kept (``run`` raises, a live
        run yields ``run_cancelled``). Returns False when no run is in
        progress."""
        driver = self._ref.active
        if driver is None:
            return False
        driver.cancel(reason)
        return True

    async def run(
        self,
        prompt: str,
        *,
        tools: Iterable[ToolLike] | None = None,
        toolsets: Iterable[Toolset | AbstractToolset] | None = None,
        instructions: str | Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        on_event: EventCallback | None = None,
        usage_limits: UsageLimits | None = None,
        model_settings: ModelSettings | None = None,
        deps: Any = None,
        active_tags: Iterable[str] | None = None,
        grants: Iterable[str] | None = None,
        tool_error_policy: ToolErrorPolicy | None = None,
    ) -> RunResult[OutputT]:
        """Continue the conversation with ``prompt``; see ``Agent.run``.

        Raises:
            StateError: the session is already running or waits for HITL.
        """
        return await self._launcher.run(
            self._ref,
            prompt,
            tools=tools,
            toolsets=toolsets,
            instructions=instructions,
            metadata=metadata,
            on_event=on_event,
            usage_limits=usage_limits,
            model_settings=model_settings,
            deps=deps,
            active_tags=active_tags,
            grants=grants,
            tool_error_policy=tool_error_policy,
        )

    def run_stream(
        self,
        prompt: str,
        *,
        tools: Iterable[ToolLike] | None = None,
        toolsets: Iterable[Toolset | AbstractToolset] | None = None,
        instructions: str | Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        usage_limits: UsageLimits | None = None,
        model_settings: ModelSettings | None = None,
        deps: Any = None,
        active_tags: Iterable[str] | None = None,
        grants: Iterable[str] | None = None,
        tool_error_policy: ToolErrorPolicy | None = None,
    ) -> AgentRun:
        """Continue the conversation with ``prompt`` as a live run; see
        ``Agent.run_stream``.

        Raises:
            StateError: the session is already running or waits for HITL.
        """
        request, catalog = self._launcher.request(
            prompt,
            tools,
            toolsets,
            instructions,
            metadata,
            True,
            usage_limits,
            model_settings,
            active_tags,
            grants,
            tool_error_policy,
        )
        return self._launcher.stream(self._ref, request, catalog, deps)

    async def resume_after_hitl_stream(
        self,
        *,
        approvals: ApprovalsInput = None,
        deferred_results: DeferredInput = None,
        deps: Any = None,
        grants: Iterable[str] | None = None,
        tool_error_policy: ToolErrorPolicy | None = None,
    ) -> AgentRun:
        """As ``resume_after_hitl``, continuing as a live run.

        Raises:
            StateError: as ``resume_after_hitl``.
        """
        return self._launcher.resume_stream(self._ref, approvals, deferred_results, deps, grants, tool_error_policy)

    async def resume_after_hitl(
        self,
        *,
        approvals: ApprovalsInput = None,
        deferred_results: DeferredInput = None,
        on_event: EventCallback | None = None,
        deps: Any = None,
        grants: Iterable[str] | None = None,
        tool_error_policy: ToolErrorPolicy | None = None,
    ) -> RunResult[OutputT]:
        """Answer every pending approval and deferred call of the waiting run
        at once, and continue it. ``deps`` are merged over the agent's as in
        ``Agent.run`` (approved calls and their preprocessors see them
        through each tool's dependency profile). ``grants`` and
        ``tool_error_policy`` are the resumed run's, as in ``Agent.run``: an
        approved call of a tool it does not grant is refused.

        Raises:
            StateError: the session is not waiting, an id is unknown or
                answered twice, a pending item is left unanswered, or a
                decision lacks an explicit ``approved`` bool. Nothing changes:
                the run stays waiting and resumable.
        """
        return await self._launcher.resume(
            self._ref, approvals, deferred_results, on_event, deps, grants, tool_error_policy
        )

    def export_state(self) -> dict[str, Any]:
        """The session as JSON-compatible data: history and, when a run
        waits, its pending items, paused batch, retry counters and ids.
        Restore it with ``agent.session_from_state(state)``.

        Raises:
            StateError: a run is active.
        """
        state: dict[str, Any] = json.loads(_capi.session_export(self._handle))
        return state

    @property
    def context(self) -> AgentContext:
        """The session's agent context: metadata, notes, per-tool capability
        grants, tool-search loaded state, tasks and context events (see
        ``starweaver.agent_context``); part of ``export_state()``."""
        from starweaver.agent_context import AgentContext  # noqa: PLC0415 - see the imports above

        return AgentContext(self._handle, self._ref.named_deps, self._ref)

    @property
    def id(self) -> str:
        """The conversation id (kept across export and restore)."""
        return str(_capi.session_info(self._handle)["id"])

    @property
    def messages(self) -> list[ModelMessage]:
        """The conversation so far: every run's messages, a failed run's
        included."""
        return as_typed_messages(_capi.session_messages(self._handle))

    @property
    def usage(self) -> RunUsage:
        """What the session's runs consumed so far, summed (failed runs
        included; a run resumed after waiting counts once). A restored
        session counts from zero."""
        return usage_dict(_capi.session_info(self._handle).get("usage"))

    @property
    def claimed_resume(self) -> ClaimedResume | None:
        """The claimed resume this session was opened with (see
        ``Agent.open_session``): a resume of its waiting run that claimed the
        run in the session store and never saved its outcome, because its
        worker still runs it or stopped part way. None otherwise."""
        raw = _capi.session_claimed_resume(self._handle)
        from starweaver.stores import claimed_resume_from_wire  # noqa: PLC0415 - see the imports above

        return claimed_resume_from_wire(raw) if raw is not None else None

    @property
    def in_flight(self) -> InFlightRun | None:
        """The run this session was opened with while it ran its tool calls
        (see ``Agent.open_session``): its worker stopped part way, or still
        runs it. Every agent with a ``session_store`` saves a run in flight,
        naming its calls, before the calls start, and its end clears it. The
        session refuses to run (``StateError``, code ``"run_in_flight"``)
        until ``recover()`` continues the run (with an ``effect_journal``)
        or ``abandon_in_flight()`` closes it. None otherwise."""
        raw = _capi.session_info(self._handle).get("in_flight")
        from starweaver.stores import in_flight_run_from_wire  # noqa: PLC0415 - see the imports above

        return in_flight_run_from_wire(raw) if raw is not None else None

    async def recover(self, *, on_event: EventCallback | None = None, deps: Any = None) -> RunResult[OutputT]:
        """Continue the run a stopped worker left in this session (``in_flight``,
        or a ``claimed_resume`` made by a worker with an effect journal;
        another raises ``StateError``, code ``"resume_claimed"``: only
        ``abandon_resume()`` repairs it), with the agent's ``effect_journal``: the
        session is first claimed in the store (of two workers recovering it,
        one goes on and the other raises ``StateError``, code
        ``"session_conflict"``, having run nothing); then the interrupted
        tool calls run again through the journal, where a call that
        completed replays its recorded return, a call that started and never
        finished returns an error marked ``"starweaver_ambiguous"`` (unless
        ``effect_recovery="retry_safe"`` allows it to run again) and a call
        that never started runs; then the run goes on to its end, as
        ``run`` does (``on_event`` and ``deps`` as there).

        Raises:
            StateError: the session has nothing to recover, changed in the
                store since it was opened (code ``"session_conflict"``), or
                is busy.
            AgentError: the agent has no ``effect_journal``.
            StoreUnavailableError: the store failed.
        """
        return await self._launcher.recover(self._ref, on_event, deps)

    async def abandon_resume(self) -> None:
        """Repair a session whose claimed resume will never finish because its
        worker stopped: the paused batch is closed without running anything
        (denied calls and supplied deferred results get their returns;
        approved calls get a cancelled return saying whether they ran is
        unknown, to be checked before calling them again) and the session is
        saved idle, so the next ``run`` continues the conversation. There is
        no way back to waiting: an approved call may have run. Abandoning a
        resume whose worker in fact still runs makes that worker's save
        fail.

        Raises:
            StateError: the session has no claimed resume, changed in the
                store since it was opened (code ``"session_conflict"``), or
                is busy.
            StoreUnavailableError: the store failed.
        """
        import asyncio  # noqa: PLC0415 - loaded with the first run

        ref = self._ref
        await asyncio.to_thread(_capi.session_abandon_resume, ref.handle)

    async def abandon_in_flight(self) -> None:
        """Settle the run this session holds in flight (``in_flight``) without
        running anything: each of its calls gets a cancelled return saying
        that it may have run, to be checked before calling it again, and the
        session is saved idle, so the next ``run`` continues the
        conversation. Without an ``effect_journal`` this is how the session
        goes on after its worker stopped mid-run; with one, ``recover()``
        finishes the run instead. Abandoning a run whose worker in fact
        still runs makes that worker's save fail.

        Raises:
            StateError: the session has no run in flight, changed in the
                store since it was opened (code ``"session_conflict"``), or
                is busy.
            StoreUnavailableError: the store failed.
        """
        import asyncio  # noqa: PLC0415 - loaded with the first run

        ref = self._ref
        await asyncio.to_thread(_capi.session_abandon_in_flight, ref.handle)

    def close(self) -> None:
        """Release the native session once nothing needs it (results read
        their messages from it); also done at garbage collection."""
        self._ref = None  # type: ignore[assignment]

    async def __aenter__(self) -> AgentSession[DepsT, OutputT]:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Settle the session's run in progress (interrupted when leaving on
        an exception, else awaited), then close the session."""
        ref = self._ref
        driver = ref.active if ref is not None else None
        await settle_runs([] if driver is None else [driver], exc, "the session's context")
        self.close()


class SessionHITL:
    """Human-in-the-loop operations of a session."""

    def __init__(self, session: AgentSession) -> None:
        self._session = session

    async def snapshot(self) -> HITLSnapshot:
        """What the session's waiting run waits for (empty when not waiting)."""
        from starweaver.hitl import HITLSnapshot  # noqa: PLC0415 - see the imports above

        return HITLSnapshot.from_pending(_capi.session_info(self._session._native_handle())["pending"])

    async def resume(
        self,
        *,
        approvals: ApprovalsInput = None,
        deferred_results: DeferredInput = None,
        on_event: EventCallback | None = None,
    ) -> RunResult:
        """Same as ``AgentSession.resume_after_hitl``."""
        return await self._session.resume_after_hitl(
            approvals=approvals, deferred_results=deferred_results, on_event=on_event
        )

    resume_collected = resume

    async def resume_stream(
        self, *, approvals: ApprovalsInput = None, deferred_results: DeferredInput = None, deps: Any = None
    ) -> AgentRun:
        """Same as ``AgentSession.resume_after_hitl_stream``."""
        return await self._session.resume_after_hitl_stream(
            approvals=approvals, deferred_results=deferred_results, deps=deps
        )
