"""A long-lived runtime for servers: one agent, its open sessions by id, and
a clean shutdown.

``create_agent_runtime(...)`` builds an agent (same options as
``create_agent``) and owns it: the runtime creates sessions, finds them
again by id (a request handler gets the id from its client), lists and
closes them, and on close waits for the active runs (up to a bound), then
cancels what is left and releases the native agent. After close, every
call on the runtime or its sessions raises ``StateError`` (code
``"runtime_closed"``).

With a ``session_store=`` (``starweaver.stores``) sessions are durable:
``open_session(id)`` finds a session another process (or an earlier run of
this one) left in the store, and ``resume_after_hitl_by_id`` answers a
waiting run wherever it started; of two resumes of one waiting run exactly
one runs, the other raises ``StateError``. With an ``effect_journal=`` too,
``recover_by_id`` continues a run whose process stopped while it ran.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from types import TracebackType
from typing import Any

from typing_extensions import Unpack

from starweaver._bridge import CANCEL_GRACE, EventCallback
from starweaver._policy import ToolErrorPolicy
from starweaver.agent import Agent, AgentOptions, AgentSession, Model, RunResult, create_agent
from starweaver.errors import SessionNotFoundError, StateError
from starweaver.hitl import ApprovalsInput, DeferredInput
from starweaver.messages import ModelMessage
from starweaver.session import MessageHistory, SessionHITL
from starweaver.stores import ClaimedResume, InFlightRun

__all__ = ("AgentRuntime", "RuntimeSession", "create_agent_runtime")

#: How long ``close()`` waits for active runs before cancelling them.
DEFAULT_CLOSE_TIMEOUT = 30.0


class RuntimeSession(AgentSession):
    """A session of an ``AgentRuntime``: an ``AgentSession`` whose runs the
    runtime tracks, so that closing the runtime (or the session) waits for
    them or cancels them."""

    def __init__(
        self,
        session: AgentSession,
        *,
        track: Callable[[RuntimeSession | None, Callable[[], Coroutine[Any, Any, RunResult]]], Awaitable[RunResult]],
        check_open: Callable[[RuntimeSession | None], None],
    ) -> None:
        """Made by ``AgentRuntime``: the same conversation as ``session``
        (``AgentSession.__init__``'s state, taken from it), its runs started
        through the runtime's ``track`` and its calls refused once
        ``check_open`` says the runtime or the session is closed."""
        self._adopt(session)
        self.hitl = SessionHITL(self)
        self._track = track
        self._check_open = check_open
        self._id = session.id
        self._task: asyncio.Future[RunResult] | None = None

    async def run(self, prompt: str, **options: Any) -> RunResult:
        """``AgentSession.run``, tracked by the runtime.

        Raises:
            StateError: the runtime or the session is closed (code
                ``"runtime_closed"``), or the run was cancelled because
                the runtime closed while it was active.
        """
        return await self._track(self, lambda: AgentSession.run(self, prompt, **options))

    async def resume_after_hitl(
        self,
        *,
        approvals: ApprovalsInput = None,
        deferred_results: DeferredInput = None,
        on_event: Any = None,
        deps: Any = None,
        grants: Iterable[str] | None = None,
        tool_error_policy: ToolErrorPolicy | None = None,
    ) -> RunResult:
        """``AgentSession.resume_after_hitl``, tracked by the runtime."""
        return await self._track(
            self,
            lambda: AgentSession.resume_after_hitl(
                self,
                approvals=approvals,
                deferred_results=deferred_results,
                on_event=on_event,
                deps=deps,
                grants=grants,
                tool_error_policy=tool_error_policy,
            ),
        )

    async def recover(self, *, on_event: EventCallback | None = None, deps: Any = None) -> RunResult:
        """``AgentSession.recover``, tracked by the runtime."""
        return await self._track(self, lambda: AgentSession.recover(self, on_event=on_event, deps=deps))

    def export_state(self) -> dict[str, Any]:
        self._check_open(self)
        return super().export_state()

    @property
    def messages(self) -> list[ModelMessage]:
        self._check_open(self)
        return super().messages

    @property
    def claimed_resume(self) -> ClaimedResume | None:
        self._check_open(self)
        return super().claimed_resume

    @property
    def in_flight(self) -> InFlightRun | None:
        self._check_open(self)
        return super().in_flight

    async def abandon_resume(self) -> None:
        """``AgentSession.abandon_resume``.

        Raises:
            StateError: the runtime or the session is closed (code
                ``"runtime_closed"``), or as ``AgentSession.abandon_resume``.
            StoreUnavailableError: the store failed.
        """
        self._check_open(self)
        await super().abandon_resume()

    async def abandon_in_flight(self) -> None:
        """``AgentSession.abandon_in_flight``.

        Raises:
            StateError: the runtime or the session is closed (code
                ``"runtime_closed"``), or as ``AgentSession.abandon_in_flight``.
            StoreUnavailableError: the store failed.
        """
        self._check_open(self)
        await super().abandon_in_flight()

    def _busy(self) -> bool:
        """Whether a run of this session (tracked, or streamed) is active."""
        return self.is_running or self._ref.active is not None

    @property
    def id(self) -> str:
        """The conversation id, by which ``AgentRuntime.get_session`` finds it."""
        return self._id

    @property
    def is_running(self) -> bool:
        """Whether a run of this session is active."""
        return self._task is not None and not self._task.done()


class AgentRuntime:
    """Owns an agent and its open sessions; see the module docstring.

    Use it as ``async with create_agent_runtime(...) as runtime:``: leaving
    the block closes it (waiting for active runs up to ``close_timeout``
    seconds; when the block raises, active runs are cancelled at once).
    Its methods run on the event loop that runs the sessions' runs.
    """

    def __init__(self, agent: Agent, *, close_timeout: float = DEFAULT_CLOSE_TIMEOUT) -> None:
        if not isinstance(agent, Agent):
            raise TypeError(f"AgentRuntime needs an Agent, got {type(agent).__name__}")
        if close_timeout < 0:
            raise ValueError("close_timeout must be 0 or more seconds")
        self._agent = agent
        self.close_timeout = close_timeout
        self._sessions: dict[str, RuntimeSession] = {}
        self._active: set[asyncio.Future[RunResult]] = set()
        # Runs cancelled by close(), which report it as StateError.
        self._stopped: set[asyncio.Future[RunResult]] = set()
        self._closed = False
        self._closing: asyncio.Future[None] | None = None

    # -- state ---------------------------------------------------------------

    @property
    def agent(self) -> Agent:
        """The agent the runtime owns.

        Raises:
            StateError: the runtime is closed.
        """
        self._check_open()
        return self._agent

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self, session: RuntimeSession | None = None) -> None:
        if self._closed:
            raise StateError("the agent runtime is closed", code="runtime_closed")
        if session is not None and self._sessions.get(session.id) is not session:
            raise StateError(f"session {session.id!r} is closed", code="runtime_closed")

    # -- sessions ------------------------------------------------------------

    def _register(self, session: AgentSession) -> RuntimeSession:
        tracked = RuntimeSession(session, track=self._track, check_open=self._check_open)
        sid = tracked.id
        if sid in self._sessions:
            raise StateError(f"a session with id {sid!r} is already open", code="duplicate_session")
        self._sessions[sid] = tracked
        return tracked

    def session(self, *, message_history: MessageHistory | None = None) -> RuntimeSession:
        """Open a new session (optionally continuing ``message_history``).

        Raises:
            StateError: the runtime is closed.
            ValueError: ``message_history`` is malformed.
        """
        self._check_open()
        return self._register(self._agent.session(message_history=message_history))

    def session_from_state(
        self, state: Mapping[str, Any] | str | bytes, *, allow_unsigned: bool = False
    ) -> RuntimeSession:
        """Open a session restored from ``export_state()`` (see
        ``Agent.session_from_state``); it keeps its id.

        Raises:
            StateError: the runtime is closed, the state is refused, or a
                session with its id is already open (code
                ``"duplicate_session"``).
        """
        self._check_open()
        return self._register(self._agent.session_from_state(state, allow_unsigned=allow_unsigned))

    def get_session(self, session_id: str) -> RuntimeSession:
        """The open session with this id (``open_session`` also finds one in
        the session store).

        Raises:
            StateError: the runtime is closed, or no open session has this
                id (code ``"unknown_session"``).
        """
        self._check_open()
        session = self._sessions.get(session_id)
        if session is None:
            hint = "; open_session() loads it from the session store" if self._agent.session_store else ""
            raise StateError(f"no open session {session_id!r}{hint}", code="unknown_session")
        return session

    async def open_session(self, session_id: str, *, allow_unsigned: bool = False) -> RuntimeSession:
        """The session ``session_id`` as the session store holds it now: a
        session left by another process (or by this one before it
        restarted) is loaded and opened here; an open session is brought up
        to date with the store (another worker may have run or resumed it
        since), unless it is running or was never saved. Without a session
        store, the open session with this id.

        Stored state is verified like ``session_from_state``'s:
        ``allow_unsigned=True`` accepts state of agents without a
        ``state_key``.

        Raises:
            TypeError: ``session_id`` is not a string.
            SessionNotFoundError: neither the store nor the runtime has
                such a session.
            StoreUnavailableError: the store failed.
            StateError: the runtime is closed, or the stored state is
                refused (see ``Agent.open_session``).
        """
        self._check_open()
        if not isinstance(session_id, str):
            raise TypeError(f"session_id must be a str, got {type(session_id).__name__}")
        current = self._sessions.get(session_id)
        # RuntimeSession is this module's: the runtime looks at and refreshes its state.
        if self._agent.session_store is None or (current is not None and current._busy()):  # noqa: SLF001
            if current is None:
                raise SessionNotFoundError(f"no open session {session_id!r}, and the runtime has no session store")
            return current
        try:
            loaded = await self._agent.open_session(session_id, allow_unsigned=allow_unsigned)
        except SessionNotFoundError:
            # A session that never ran is open here only.
            current = self._sessions.get(session_id)
            if current is None:
                raise
            return current
        # The runtime and its sessions may have changed while the store answered.
        self._check_open()
        current = self._sessions.get(session_id)
        if current is None:
            return self._register(loaded)
        if not current._busy():  # noqa: SLF001 - see above
            current._adopt(loaded)  # noqa: SLF001 - see above
        return current

    def sessions(self) -> list[RuntimeSession]:
        """The open sessions, oldest first.

        Raises:
            StateError: the runtime is closed.
        """
        self._check_open()
        return list(self._sessions.values())

    async def close_session(self, session_id: str, *, timeout: float | None = None) -> None:
        """Close a session: wait for its active run up to ``timeout``
        seconds (``close_timeout`` by default; 0 cancels it at once), then
        forget it. Results keep their messages.

        Raises:
            StateError: the runtime is closed, or no open session has this id.
        """
        session = self.get_session(session_id)
        del self._sessions[session_id]
        task = session._task  # noqa: SLF001 - RuntimeSession is this module's: the runtime settles its run
        if task is not None and not task.done():
            await self._settle({task}, self.close_timeout if timeout is None else timeout)
        session.close()

    # -- runs ----------------------------------------------------------------

    async def run(self, prompt: str, **options: Any) -> RunResult:
        """Run ``prompt`` on a fresh session that is not kept (see
        ``Agent.run``; ``message_history=`` included), tracked like the
        sessions' runs.

        Raises:
            StateError: the runtime is closed, or it closed during the run.
        """
        self._check_open()
        return await self._track(None, lambda: self._agent.run(prompt, **options))

    async def resume_after_hitl_by_id(
        self,
        session_id: str,
        run_id: str | None = None,
        *,
        approvals: ApprovalsInput = None,
        deferred_results: DeferredInput = None,
        on_event: Any = None,
        allow_unsigned: bool = False,
    ) -> RunResult:
        """Resume the waiting run of the session ``session_id`` (see
        ``AgentSession.resume_after_hitl``); ``run_id``, when given, must be
        the waiting run's.

        With a session store the session is found as ``open_session`` finds
        it (``allow_unsigned`` as there), so the run may have started in
        another process. The resume claims the waiting run in the store
        before anything runs: of two resumes of one waiting run (in this
        process or in several) one runs and the other raises
        ``StateError`` having run nothing (code ``"session_conflict"``,
        ``"resume_claimed"`` or ``"busy"`` while the first runs, ``"state"``
        once it finished: the session no longer waits).

        Raises:
            StateError: the runtime is closed, the session does not wait
                (for the run ``run_id``), another resume claimed the run,
                or the answers are refused.
            SessionNotFoundError: with a session store, no session has this
                id (without one: ``StateError``, code ``"unknown_session"``).
            StoreUnavailableError: the store failed.
        """
        if self._agent.session_store is not None:
            session = await self.open_session(session_id, allow_unsigned=allow_unsigned)
        else:
            session = self.get_session(session_id)
        if run_id is not None:
            snapshot = await session.hitl.snapshot()
            ids = [p.id for p in snapshot.approvals] + [d.id for d in snapshot.deferred]
            if not ids or not all(i.split("_", 1)[1].startswith(f"{run_id}_") for i in ids):
                raise StateError(f"session {session_id!r} does not wait for run {run_id!r}", code="state")
        return await session.resume_after_hitl(
            approvals=approvals, deferred_results=deferred_results, on_event=on_event
        )

    async def recover_by_id(
        self, session_id: str, *, on_event: EventCallback | None = None, allow_unsigned: bool = False
    ) -> RunResult:
        """Open the session ``session_id`` from the session store (as
        ``open_session``) and continue the run its worker left in flight (see
        ``AgentSession.recover``).

        Raises:
            StateError: the runtime is closed, the session has nothing to
                recover, or another worker recovered it first (code
                ``"session_conflict"``).
            SessionNotFoundError: no session has this id.
            AgentError: the agent has no ``session_store`` or no
                ``effect_journal``.
            StoreUnavailableError: the store failed.
        """
        session = await self.open_session(session_id, allow_unsigned=allow_unsigned)
        return await session.recover(on_event=on_event)

    async def _track(
        self, session: RuntimeSession | None, start: Callable[[], Coroutine[Any, Any, RunResult]]
    ) -> RunResult:
        self._check_open(session)
        task: asyncio.Future[RunResult] = asyncio.ensure_future(start())
        self._active.add(task)
        task.add_done_callback(self._active.discard)
        if session is not None:
            session._task = task  # noqa: SLF001 - RuntimeSession is this module's: the runtime tracks its run
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if task in self._stopped and task.done():
                raise StateError(
                    "the agent runtime closed while the run was active; the run was cancelled",
                    code="runtime_closed",
                ) from None
            # The caller was cancelled: so is its run (see Agent.run).
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait([task], timeout=CANCEL_GRACE + 1)
            raise

    async def _settle(self, runs: set[asyncio.Future[RunResult]], timeout: float) -> None:
        """Wait for runs up to timeout, then cancel the rest and wait for
        them to wind down (each within the bridge's cancel grace)."""
        pending = runs
        if timeout > 0:
            _, pending = await asyncio.wait(runs, timeout=timeout)
        if not pending:
            return
        self._stopped |= pending
        for task in pending:
            task.cancel()
        await asyncio.wait(pending, timeout=CANCEL_GRACE + 1)

    # -- shutdown ------------------------------------------------------------

    async def close(self, *, timeout: float | None = None) -> None:
        """Stop accepting calls, wait for active runs up to ``timeout``
        seconds (``close_timeout`` by default; 0 cancels them at once),
        cancel what is left, close every session and release the agent.
        Closing twice is allowed: the second call waits for the first."""
        if self._closing is not None:
            await asyncio.shield(self._closing)
            return
        self._closing = asyncio.get_running_loop().create_future()
        self._closed = True
        try:
            if self._active:
                await self._settle(set(self._active), self.close_timeout if timeout is None else timeout)
            for session in self._sessions.values():
                session.close()
            self._sessions.clear()
            self._agent._release()  # noqa: SLF001 - the runtime owns its agent
        finally:
            self._closing.set_result(None)

    async def __aenter__(self) -> AgentRuntime:
        self._check_open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close(timeout=0 if exc is not None else None)

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{len(self._sessions)} sessions, {len(self._active)} active runs"
        return f"AgentRuntime({state})"


def create_agent_runtime(
    *,
    model: Model,
    output_type: Any = str,
    deps: Any = None,
    close_timeout: float = DEFAULT_CLOSE_TIMEOUT,
    **options: Unpack[AgentOptions],
) -> AgentRuntime:
    """Build an agent with ``options`` (every keyword of ``create_agent``,
    ``session_store=`` included) and an ``AgentRuntime`` that owns it;
    ``close_timeout`` bounds how long closing waits for active runs before
    cancelling them.

    Raises:
        TypeError: an unknown option.
        AgentError, ValueError: as ``create_agent``.
    """
    return AgentRuntime(
        create_agent(model=model, output_type=output_type, deps=deps, **options), close_timeout=close_timeout
    )
