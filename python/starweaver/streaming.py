"""Live runs: a run's events as an async iterator, with control over the run.

``Agent.run_stream`` and ``AgentSession.run_stream`` start a run and return
an ``AgentRun`` at once. The run goes on by itself; its events wait in a
buffer until the consumer takes them with ``recv()`` or ``async for``.

The buffer never makes the runtime wait: the bridge reads the run's pipe
whatever the consumer does, so the run's speed never depends on the
consumer's. What waits is bounded by ``EVENT_BUFFER`` as follows:

- Delta events (``text_delta``, ``tool_call_delta``: the pieces of a
  response while it streams) arriving when the buffer is full are merged
  into the newest waiting event when that is a delta of the same kind and
  part (text appended to text, argument text to the same call's argument
  text). The merged event keeps the later sequence number, so a gap in
  ``sequence`` shows where deltas were merged. Nothing is lost: the
  concatenated text is the same.
- Every other event is kept. Those are bounded by the run's own work (its
  steps and tool calls), not by the speed of a model's stream.

Stopping early interrupts the run: leaving ``async with run`` before its
end, breaking out of ``async for ev in run`` (the iterator is closed when
dropped), cancelling a task awaiting ``recv()``, ``join()`` or ``result()``
(a timeout of ``asyncio.wait_for`` included), or calling ``interrupt()``.
Running tools then see ``CancelledError`` and ``ctx.is_cancelled()``; the
run ends ``cancelled`` and its messages stay in the session. A consumer that
wants the run to go on without it calls ``detach()`` first (a server
answering a client that went away, say); ``close_receiver()`` only stops the
events.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Protocol

from starweaver._deprecated import forwarding
from starweaver.errors import StateError
from starweaver.hitl import ApprovalsInput, DeferredInput, HITLSnapshot

if TYPE_CHECKING:
    from starweaver._bridge import EventCallback, RunDriver
    from starweaver._catalog import Catalog
    from starweaver._runs import RunResult, SessionRef

__all__ = [
    "DELTA_KINDS",
    "EVENT_BUFFER",
    "TERMINAL_KINDS",
    "AgentRun",
    "AgentStream",
    "RunHITL",
    "RunStatus",
    "StreamEvent",
    "StreamRunResult",
]

# Old names, for one release (see CHANGELOG.md).
if not TYPE_CHECKING:
    __getattr__ = forwarding(
        __name__,
        {
            "RunHitl": "starweaver.streaming:RunHITL",
        },
    )

_log = logging.getLogger("starweaver")

#: How many events wait for the consumer before deltas are merged.
EVENT_BUFFER = 1024
#: Event kinds that carry pieces of a streaming response.
DELTA_KINDS = frozenset({"text_delta", "tool_call_delta"})
#: Event kinds after which the run does no more work.
TERMINAL_KINDS = frozenset({"run_complete", "run_cancelled", "run_failed", "suspended"})

LiveState = Literal["running", "completed", "waiting", "failed", "cancelled"]


def _with_reason(message: str, reason: str | None) -> str:
    if not reason or reason in message:
        return message
    return f"{message}: {reason}" if message else reason


def _dict(value: Any) -> dict[str, Any] | None:
    return dict(value) if isinstance(value, Mapping) else None


class RunLauncherLike(Protocol):
    """What a live run asks of the launcher that started it: start and
    finish its run, and resume it after human in the loop. The agent's
    ``starweaver._launcher.RunLauncher`` is one; it makes live runs, so it
    sits above this module."""

    def start(
        self,
        session: SessionRef,
        request: dict[str, Any],
        catalog: Catalog,
        on_event: EventCallback | None,
        deps: Any = None,
    ) -> RunDriver: ...

    async def finish(self, session: SessionRef, driver: RunDriver) -> RunResult: ...

    async def resume(
        self,
        session: SessionRef,
        approvals: ApprovalsInput,
        deferred_results: DeferredInput,
        on_event: EventCallback | None,
        deps: Any = None,
    ) -> RunResult: ...

    def resume_stream(
        self, session: SessionRef, approvals: ApprovalsInput, deferred_results: DeferredInput, deps: Any
    ) -> AgentRun: ...


@dataclass(frozen=True)
class StreamEvent:
    """One event of a live run.

    ``kind`` is the runtime's event kind (``run_start``, ``model_request``,
    ``model_response``, ``tool_call``, ``tool_return``, ``custom``,
    ``deferred_requested``, ``hitl_resolved``, ``text_delta``,
    ``tool_call_delta``, ``model_fallback``, ``retry``, ``usage``, ``run_complete``,
    ``run_failed``, ``run_cancelled``), except that a run ending to wait for
    approvals or deferred results ends with ``suspended``. ``raw`` is
    ``{"sequence": n, "event": {...}}`` with the event as the runtime sent
    it.
    """

    kind: str
    raw: dict[str, Any]
    sequence: int
    run_id: str
    step: int
    #: The text piece of a ``text_delta`` event (``delta`` holds the piece
    #: as sent).
    text_delta: str | None = None
    #: The piece of a ``tool_call_delta`` event: ``{"kind":
    #: "tool_call_start" | "tool_call_arguments" | "tool_call_done",
    #: "index", "text"?, "tool_call"?}``.
    delta: dict[str, Any] | None = None
    tool_call: dict[str, Any] | None = None
    tool_return: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None
    custom: dict[str, Any] | None = None
    #: The failed request of a ``model_fallback`` event (``model``,
    #: ``provider``, ``status_code``, ``code``, ``error``, ``sent``,
    #: ``start``, ``end``), sent as the model fails, before the next
    #: model's deltas.
    attempt: dict[str, Any] | None = None
    #: The final text of ``run_complete``.
    output: str | None = None
    #: Why the run failed or was cancelled (``run_failed``,
    #: ``run_cancelled``), with the reason given to ``interrupt``.
    error: str | None = None
    #: The agent whose run made the event when it is a child agent's (an
    #: agent tool's, ``Agent.as_tool``); None for the streamed run's own.
    agent_name: str | None = None
    #: For a child's event, the call of the streamed run that ran it.
    parent_tool_call_id: str | None = None

    @property
    def is_terminal(self) -> bool:
        """True for the last event of the streamed run (``run_complete``,
        ``run_cancelled``, ``run_failed``, ``suspended``); a child agent's
        end is not the run's."""
        return self.kind in TERMINAL_KINDS and self.agent_name is None

    @classmethod
    def from_event(cls, event: Mapping[str, Any], *, kind: str | None = None, reason: str | None = None) -> StreamEvent:
        """Build from a runtime event; ``kind`` overrides its kind, and
        ``reason`` is added to a ``run_cancelled`` event's error."""
        kind = kind or str(event.get("kind", ""))
        sequence = int(event.get("sequence") or 0)
        delta = _dict(event.get("delta"))
        error = event.get("error") or None
        if kind == "run_cancelled":
            error = _with_reason(str(error or ""), reason) or None
        text = None
        if kind == "text_delta" and delta is not None and delta.get("kind", "text") == "text":
            text = str(delta.get("text", ""))
        return cls(
            kind=kind,
            raw={"sequence": sequence, "event": dict(event)},
            sequence=sequence,
            run_id=str(event.get("run_id", "")),
            step=int(event.get("step") or 0),
            text_delta=text,
            delta=delta,
            tool_call=_dict(event.get("tool_call")),
            tool_return=_dict(event.get("tool_return")),
            usage=_dict(event.get("usage")),
            custom=_dict(event.get("custom")),
            attempt=_dict(event.get("attempt")),
            output=event.get("output") if kind == "run_complete" else None,
            error=str(error) if error is not None else None,
            agent_name=str(event["agent_name"]) if event.get("agent_name") else None,
            parent_tool_call_id=str(event["parent_tool_call_id"]) if event.get("parent_tool_call_id") else None,
        )


def _merged(older: StreamEvent, newer: StreamEvent) -> StreamEvent | None:
    """``newer`` merged into ``older`` when both are pieces of the same part
    that concatenate (text, or one call's argument text); else None."""
    if older.kind != newer.kind or older.delta is None or newer.delta is None or older.run_id != newer.run_id:
        return None
    a, b = older.delta, newer.delta
    if a.get("index") != b.get("index") or a.get("kind") != b.get("kind"):
        return None
    if newer.kind == "tool_call_delta" and b.get("kind") != "tool_call_arguments":
        return None  # a call's start and end are not pieces of text
    delta = {**b, "text": str(a.get("text", "")) + str(b.get("text", ""))}
    event = {**newer.raw["event"], "delta": delta}
    return StreamEvent.from_event(event)


class _EventBuffer:
    """The events waiting for the consumer, bounded as the module says."""

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self._events: collections.deque[StreamEvent] = collections.deque()
        #: How many deltas were merged into an earlier one.
        self.merged = 0
        #: The most events that waited at once.
        self.peak = 0

    def __len__(self) -> int:
        return len(self._events)

    def push(self, event: StreamEvent) -> None:
        if len(self._events) >= self.capacity and event.kind in DELTA_KINDS and self._events:
            merged = _merged(self._events[-1], event)
            if merged is not None:
                self._events[-1] = merged
                self.merged += 1
                return
        self._events.append(event)
        self.peak = max(self.peak, len(self._events))

    def pop(self) -> StreamEvent | None:
        return self._events.popleft() if self._events else None

    def clear(self) -> None:
        self._events.clear()


@dataclass(frozen=True)
class RunStatus:
    """Where a live run stands (``AgentRun.status()``)."""

    live_state: LiveState
    run_id: str
    #: ``interrupt`` was called, or the consumer stopped early.
    cancel_requested: bool
    #: Events received from the runtime so far.
    events_received: int
    #: Events waiting for the consumer.
    buffered: int
    #: Delta events merged into an earlier one because the buffer was full.
    merged: int
    last_sequence: int
    drop_policy: str = "merge_deltas"


@dataclass(frozen=True)
class StreamRunResult:
    """What ``AgentRun.join()`` returns: the result and the events the
    consumer had not received yet."""

    result: RunResult
    events: list[StreamEvent] = field(default_factory=list)


class AgentRun:
    """A run in progress: an async iterator of ``StreamEvent`` and an async
    context manager. Build one with ``Agent.run_stream`` or
    ``AgentSession.run_stream``; it starts at once, on the running loop.

    ``recv()`` returns the next event, or None after the last one;
    ``result()`` waits for the run's ``RunResult`` (raising what
    ``Agent.run`` raises) whether or not the events were received;
    ``join()`` does both. See the module docstring for the buffer and for
    what interrupts the run.
    """

    def __init__(
        self,
        launcher: RunLauncherLike,
        session: SessionRef,
        request: dict[str, Any],
        catalog: Catalog,
        deps: Any = None,
    ) -> None:
        self._launcher = launcher
        self._session = session
        self._deps = deps
        self._buffer = _EventBuffer(EVENT_BUFFER)
        self._ready = asyncio.Event()
        self._ended = asyncio.Event()
        self._reason: str | None = None
        self._cancel_requested = False
        self._suspended = False
        self._terminal_delivered = False
        self._received = 0
        # close_receiver: events are no longer kept; detach: the consumer
        # no longer stops the run either.
        self._receiver_closed = False
        self._detached = False
        self._last_sequence = 0
        self._run_id = ""
        self._result: RunResult | None = None
        self._error: BaseException | None = None
        # Raises here (a busy session, a bad request) before any task exists.
        self._driver: RunDriver = launcher.start(session, request, catalog, self._on_event, deps)
        self._task = asyncio.get_running_loop().create_task(self._main())

    # -- the run -----------------------------------------------------------

    async def _main(self) -> None:
        try:
            result = await self._launcher.finish(self._session, self._driver)
            if result.status == "cancelled":
                result.error = _with_reason(result.error or "", self._reason) or None
            self._result = result
        except asyncio.CancelledError:
            # The loop is shutting down: the bridge has cancelled the run.
            self._error = StateError("the run was stopped: its task was cancelled", code="state")
            raise
        except BaseException as exc:  # noqa: BLE001 - kept for result(); re-raised below when fatal
            self._error = exc
            if not isinstance(exc, Exception):
                raise  # KeyboardInterrupt, SystemExit: as from Agent.run
        finally:
            self._ended.set()
            self._ready.set()

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = str(event.get("kind", ""))
        child = bool(event.get("agent_name"))
        if kind in ("run_waiting", "suspended") and not child:
            if self._suspended:
                return  # a runtime sending both gives one suspended event
            self._suspended = True
            kind = "suspended"
        ev = StreamEvent.from_event(event, kind=kind, reason=self._reason)
        self._received += 1
        self._last_sequence = max(self._last_sequence, ev.sequence)
        if not child:
            self._run_id = self._run_id or ev.run_id
        if self._receiver_closed:
            return
        self._buffer.push(ev)
        self._ready.set()

    def _stop(self, reason: str) -> None:
        """The consumer stopped before the run's end: interrupt it, unless
        it detached."""
        if self._detached:
            return
        if not self._ended.is_set() and not self._terminal_delivered:
            _log.debug("interrupting run %s: %s", self._run_id or "?", reason)
            self.interrupt(reason)

    # -- receiving ---------------------------------------------------------

    async def recv(self) -> StreamEvent | None:
        """The next event; None once the run has ended and every event was
        received. Cancelling the awaiting task interrupts the run.

        Raises:
            StarweaverError: the run ended without a terminal event (the
                bridge failed); the same error ``result()`` raises.
        """
        try:
            while True:
                if self._receiver_closed:
                    return None
                ev = self._buffer.pop()
                if ev is not None:
                    if ev.is_terminal:
                        self._terminal_delivered = True
                    return ev
                if self._ended.is_set():
                    if self._error is not None and not self._terminal_delivered:
                        self._terminal_delivered = True  # raised once; later calls return None
                        raise self._error
                    return None
                self._ready.clear()
                await self._ready.wait()
        except asyncio.CancelledError:
            self._stop("the task awaiting the run was cancelled")
            raise

    async def result(self) -> RunResult:
        """Wait for the run's end and return its result (``status``
        ``completed``, ``waiting`` or ``cancelled``; an interrupted run's
        ``error`` carries the reason). Cancelling the awaiting task
        interrupts the run.

        Raises:
            StarweaverError: what ``Agent.run`` raises for a failed run.
        """
        try:
            await self._ended.wait()
        except asyncio.CancelledError:
            self._stop("the task awaiting the run was cancelled")
            raise
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    async def join(self) -> StreamRunResult:
        """Receive every remaining event and the result.

        Raises:
            StarweaverError: what ``result()`` raises.
        """
        events: list[StreamEvent] = []
        while (ev := await self.recv()) is not None:
            events.append(ev)
        return StreamRunResult(await self.result(), events)

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[StreamEvent]:
        complete = False
        try:
            while (ev := await self.recv()) is not None:
                yield ev
            complete = True
        finally:
            if not complete:
                self._stop("the consumer stopped iterating")

    async def __aenter__(self) -> AgentRun:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._detached:
            return  # the run goes on; result() reaches its end
        self._stop("the consumer left the run early")
        # The runtime winds down in milliseconds: it never waits for tools.
        await asyncio.wait([self._task])

    # -- control -----------------------------------------------------------

    def interrupt(self, reason: str | None = None) -> None:
        """Ask the run to stop; it ends ``cancelled`` (running tools see
        cancellation), and ``reason`` is added to its ``run_cancelled``
        event and its result's ``error``. Does nothing once it has ended."""
        if reason is not None and not isinstance(reason, str):
            raise TypeError("reason must be a string")
        if self._ended.is_set() or self._driver.ended:
            return
        self._cancel_requested = True
        if self._reason is None:
            self._reason = reason
        self._driver.cancel(reason)

    def steer(self, text: str) -> None:
        """Add a user message that the run's next model request sees (the
        batch of tool calls in flight goes on).

        Raises:
            TypeError: text is not a string.
            StateError: the run has already completed.
        """
        if not isinstance(text, str):
            raise TypeError("text must be a string")
        if self._ended.is_set() or self._driver.ended:
            raise StateError("the run has already completed", code="state")
        self._driver.steer(text)

    def close_receiver(self) -> None:
        """Stop receiving events: the buffered ones are dropped, later ones
        are not kept, and ``recv()`` returns None. The run goes on (leaving
        the context or cancelling a waiting task still interrupts it);
        ``result()`` still returns its result."""
        self._receiver_closed = True
        self._buffer.clear()
        self._ready.set()

    def detach(self) -> None:
        """Let the run go on without this consumer: the receiver is closed
        (see ``close_receiver``) and nothing the consumer does afterwards
        (leaving the context, breaking out, cancelling its task) interrupts
        the run; ``interrupt()`` still does, and ``result()`` still waits
        for its end."""
        self._detached = True
        self.close_receiver()

    def status(self) -> RunStatus:
        """Where the run stands now."""
        state: LiveState = "running"
        if self._ended.is_set():
            if self._result is not None and self._result.status in ("completed", "waiting", "cancelled"):
                state = self._result.status  # type: ignore[assignment]
            else:
                state = "failed"
        return RunStatus(
            live_state=state,
            run_id=self._run_id,
            cancel_requested=self._cancel_requested,
            events_received=self._received,
            buffered=len(self._buffer),
            merged=self._buffer.merged,
            last_sequence=self._last_sequence,
        )

    @property
    def is_finished(self) -> bool:
        """True once the run has ended (events may still wait in the buffer)."""
        return self._ended.is_set()

    def hitl(self) -> RunHITL:
        """Human-in-the-loop operations, for a run that ended ``suspended``."""
        return RunHITL(self, self._launcher, self._session, self._deps, lambda: self._suspended)

    def __repr__(self) -> str:
        return f"AgentRun(run_id={self._run_id!r}, state={self.status().live_state!r})"


AgentStream = AgentRun


class RunHITL:
    """The pending approvals and deferred calls of a suspended live run, and
    resuming it, live or collected."""

    def __init__(
        self,
        run: AgentRun,
        launcher: RunLauncherLike,
        session: SessionRef,
        deps: Any,
        suspended: Callable[[], bool],
    ) -> None:
        """Made by ``AgentRun.hitl()``: the run, what resumes it (its agent's
        run launcher, its session and deps) and whether it has suspended."""
        self._run = run
        self._launcher = launcher
        self._session = session
        self._deps = deps
        self._suspended = suspended

    async def _waiting(self) -> RunResult:
        if not self._suspended():
            raise StateError("the run has not suspended (no suspended event yet)", code="state")
        result = await self._run.result()
        if not result.is_waiting:
            raise StateError(f"the run is {result.status}, not waiting", code="state")
        return result

    async def snapshot(self) -> HITLSnapshot:
        """What the suspended run waits for.

        Raises:
            StateError: no ``suspended`` event has arrived.
        """
        return (await self._waiting()).hitl

    async def resume(
        self, *, approvals: ApprovalsInput = None, deferred_results: DeferredInput = None, deps: Any = None
    ) -> AgentRun:
        """Answer every pending item and continue as a new live run (this
        run's result stays ``waiting``); ``deps`` default to this run's.

        Raises:
            StateError: no ``suspended`` event has arrived, or the answers
                do not match the pending items (see
                ``AgentSession.resume_after_hitl``).
        """
        await self._waiting()
        return self._launcher.resume_stream(
            self._session, approvals, deferred_results, deps if deps is not None else self._deps
        )

    async def resume_collected(
        self, *, approvals: ApprovalsInput = None, deferred_results: DeferredInput = None, deps: Any = None
    ) -> RunResult:
        """As ``resume``, returning the continued run's result.

        Raises:
            StateError: as ``resume``.
        """
        await self._waiting()
        return await self._launcher.resume(
            self._session, approvals, deferred_results, None, deps if deps is not None else self._deps
        )
