"""Drive one native run from an asyncio event loop.

The Go runtime owns scheduling, retries and timeouts; it never calls into
Python. Instead a run writes its work (tool calls, model requests,
cancellations, events, its final result) to a pipe as JSON lines. The loop
watches the pipe with ``add_reader`` and reads whatever is there in one go,
so a batch of a thousand tool calls costs a wake-up or two and no call into
Go (which would have to wait for Go's scheduler while it dispatches). Async tools run as tasks on this loop; sync tools
run in a bounded thread pool and report back from their worker thread.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import contextvars
import inspect
import json
import logging
import os
import re
import select
import time
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, Union

from starweaver import _capi, _declaring, _prepare
from starweaver._capi import NativeError
from starweaver._outcome import PASS_THROUGH, Runner, closing, encode_outcome, escapes
from starweaver._pool import SYNC_MAX_THREADS, SYNC_WORKERS, Work, sync_pool
from starweaver.context import ToolContext, tool_context_from_wire
from starweaver.errors import ModelError, StarweaverError, StateError, exception_to_outcome
from starweaver.hooks import Hook, _Phase
from starweaver.hooks import _runner as _hook_runner
from starweaver.result import plain_outcome
from starweaver.tools import Tool

if TYPE_CHECKING:
    from starweaver.artifacts import ToolArtifacts

__all__ = [
    "EXIT_GRACE",
    "CallScope",
    "SYNC_MAX_THREADS",
    "SYNC_WORKERS",
    "HostModel",
    "RunDriver",
    "CHILD_OUTCOME",
    "StepHandlers",
    "SteppedDriver",
    "drive",
    "finish",
    "start",
    "sync_pool",
]

_log = logging.getLogger("starweaver")

#: Seconds interpreter exit waits for sync calls after asking them to stop.
EXIT_GRACE = float(os.environ.get("STARWEAVER_EXIT_GRACE", "1.0"))
#: Seconds a cancelled run's caller waits for the runtime to wind it down
#: (it takes milliseconds: the runtime never waits for host calls).
CANCEL_GRACE = 2.0

_pool = sync_pool()


# Contexts of sync calls in flight, so that interpreter exit can ask them to stop.
_inflight_sync: set[ToolContext] = set()


def _at_exit() -> None:
    # Cancel native runs so that no Go wait outlives the interpreter, ask
    # running sync calls to stop, and give them a short grace: the workers
    # are daemon threads, so calls that ignore cancellation do not hold exit.
    _capi.shutdown()
    for ctx in list(_inflight_sync):
        ctx._request_cancel()  # noqa: SLF001 - the bridge cancels a call through its context
    _pool.wait_idle(EXIT_GRACE)


atexit.register(_at_exit)


class HostModel(Protocol):
    """A model answered by Python code (``FunctionModel``)."""

    @property
    def _is_async(self) -> bool: ...

    async def _respond(self, transcript: int, length: int, params: dict[str, Any]) -> dict[str, Any]: ...

    def _respond_sync(self, transcript: int, length: int, params: dict[str, Any]) -> dict[str, Any]: ...


EventCallback = Callable[[dict[str, Any]], Union[None, Awaitable[None]]]

# Strict: NaN and infinities are not JSON, and Go would refuse the line.
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)

# One pipe's worth (Linux pipes hold 64 KiB): os.read allocates the whole
# size before it reads, and a buffer past malloc's mmap threshold cost
# ~14 us of mmap, page faults and mremap per read, most of a round trip.
_READ_SIZE = 1 << 16

#: Seconds the loop polls a run's pipe for the next item after sending the
#: outcome the run waited for (see RunDriver._poll); 0 turns polling off.
SPIN = float(os.environ.get("STARWEAVER_SPIN_US", "100")) / 1e6
_MAX_POLL_SKIP = 64  # polls skipped at most after misses in a row

# The token of an item whose JSON could not be read: compact calls start
# with it, object items name it.
_TOKEN = re.compile(rb'^\[(\d+),|"token":(\d+)')


def _dumps(value: Any) -> bytes:
    return _ENCODER.encode(value).encode()


def _cancelled_outcome(exc: BaseException) -> dict[str, Any]:
    return {"ok": False, "kind": "cancelled", "message": f"the run was interrupted by {type(exc).__name__}"}


def _abandon(handle: int) -> None:
    """Finalizer of a driver its loop dropped before the run ended (the loop
    was closed): stop the native run and free its handle and pipes."""
    with contextlib.suppress(StarweaverError, RuntimeError):
        _capi.run_cancel(handle)
    with contextlib.suppress(StarweaverError, RuntimeError):
        _capi.release(handle)


class CallScope(Protocol):
    """Enters a call's scope (its trace span) in the contextvars context the
    call's user code runs in. Each method is called inside a fresh copy of
    the loop's context, which only that call uses."""

    def enter_call(self, tool_call_id: str, tool_name: str) -> None: ...

    def enter_model(self) -> None: ...


#: The key of a batch entry that answers a call by its child run's outcome
#: (see ``StepHandlers.batch``).
CHILD_OUTCOME = "child_outcome"


class StepHandlers(Protocol):
    """Where a run with an executor (``"executor": true``) sends its model
    requests and tool batches (Go's ``agent.Executor``): a durable engine
    runs them as activities."""

    async def model(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answer an ``agent.ModelRequest`` (its JSON) with the response
        message's JSON; what it raises fails the run as a model error."""
        ...

    async def batch(self, batch: dict[str, Any]) -> list[dict[str, Any] | None]:
        """Run an ``agent.Batch`` (its JSON): one return per call, in order,
        ``None`` for a call lost with its worker. A call with a ``"child"``
        (an agent tool's or ``spawn_agent``'s, Go's ``agent.ChildRun``)
        that the handler ran as a child run of its own may be answered by
        ``{CHILD_OUTCOME: {"result": <the child's RunResult JSON>}}`` or
        ``{CHILD_OUTCOME: {"error": <why it gave none>}}``: the runtime
        makes the return of it (as the agent tool would) and adds the
        child's usage to the run's."""
        ...


class RunDriver:
    """Serves one native run's queue on the current event loop.

    Every item the runtime sends is answered, and every failure of user code
    becomes an outcome; a line that cannot be read fails its call (or the
    run, when it names no call), never silently.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        handle: int,
        fd: int,
        fd_in: int,
        tools: Mapping[int, Tool],
        models: Mapping[int, HostModel],
        deps: Any,
        on_event: EventCallback | None,
        hooks: Mapping[int, Hook] | None = None,
        scope: CallScope | None = None,
        artifacts: ToolArtifacts | None = None,
        session: int | None = None,
        tool_deps: Mapping[int, Any] | None = None,
    ) -> None:
        self._loop = loop
        self._session = session  # the run's native session, for ctx.agent_context
        self._artifacts = artifacts  # the agent's store, for ctx.artifacts
        self._scope = scope
        self._handle = handle
        self._fd = fd
        self._fd_in = fd_in
        # Completions the pipe could not take yet, oldest first; views, so a
        # large outcome written in many pieces is never copied again.
        self._unsent: collections.deque[memoryview] = collections.deque()
        self._tools = tools
        self._models = models
        # A mapping holds named dependencies; any other object is the typed one.
        self._deps: Any = MappingProxyType(dict(deps or {})) if deps is None or isinstance(deps, Mapping) else deps
        # The dependencies of child agents' tools, by tool id (see
        # Catalog.tool_deps); every other tool gets the run's.
        self._tool_deps: Mapping[int, Any] = tool_deps or {}
        self._hooks = hooks or {}
        # Set once a dynamic toolset adds tools for this run (_adopt); the
        # catalogs it made stay alive with the run.
        self._own_maps = False
        self._kept: list[Any] = []
        self._on_event = on_event
        self._events: asyncio.Task[None] | None = None  # the last async event callback, chained in order
        self._pending: dict[int, tuple[asyncio.Task[None] | Work, ToolContext | None]] = {}
        self._closed = False
        self._interrupt: BaseException | None = None  # KeyboardInterrupt/SystemExit raised by user code
        self._partial: list[bytes] = []  # the start of a line not yet complete
        self._polling = False  # in _poll
        # Polls to skip, and the skip after the next miss (see _poll).
        self._poll_skip = 0
        self._poll_backoff = 0
        self._outbox: list[bytes] = []
        self.future: asyncio.Future[dict[str, Any]] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        # A loop closed before the run ends never calls back: the finalizer
        # then stops the native run, which frees its session.
        self._finalizer = weakref.finalize(self, _abandon, handle)
        if self._watch:
            loop.add_reader(fd, self._on_readable)

    #: The loop watches the pipe (a SteppedDriver reads it itself).
    _watch = True

    # -- the queue ---------------------------------------------------------

    def _on_readable(self) -> None:
        try:
            self._read()
        except Exception as exc:  # a fault here must end the run, never leave it waiting
            self._close(error=NativeError(f"reading the run's items failed: {exc!r}"))

    def _read(self, first: bytes | None = None) -> None:
        # Read everything the pipe holds (after first, what a poll already
        # read); items are JSON lines, and a line may be split across reads
        # (its start is kept as pieces, joined once when its end arrives,
        # so a large item costs linear time).
        lines: list[bytes] = []
        while True:
            if first is not None:
                data, first = first, None
            else:
                try:
                    data = os.read(self._fd, _READ_SIZE)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError as exc:
                    self._close(error=NativeError(f"reading the run pipe failed: {exc}"))
                    return
            if not data:
                break
            end = data.rfind(b"\n")
            if end < 0:
                self._partial.append(data)
            else:
                self._partial.append(data[:end])
                lines.append(b"".join(self._partial))
                self._partial = [data[end + 1 :]] if end + 1 < len(data) else []
            if len(data) < _READ_SIZE:
                break
        if not lines:
            return
        text = b"\n".join(lines)
        try:
            items = json.loads(b"[" + text.replace(b"\n", b",") + b"]")
        except (ValueError, RecursionError):
            self._read_lines(text.split(b"\n"))
            return
        for item in items:
            self._handle_item(item)

    def _read_lines(self, lines: list[bytes]) -> None:
        """Read items one line at a time, after a batch failed to decode: a
        bad line fails only its own call."""
        for line in lines:
            if self._closed:
                return
            try:
                item = json.loads(line)
            except (ValueError, RecursionError) as exc:
                match = _TOKEN.search(line[:64])
                reason = f"malformed item from the runtime ({type(exc).__name__}: {str(exc)[:200]})"
                if line.startswith(b'{"kind":"event"'):
                    # An event only informs: it is reported, and the run goes on.
                    _log.error("an event could not be read and was not delivered: %s", reason)
                    continue
                if match is None:
                    self._close(error=NativeError(reason))
                    return
                token = int(match.group(1) or match.group(2))
                self._complete(token, {"ok": False, "kind": "user_error", "message": reason})
                continue
            self._handle_item(item)

    def _handle_item(self, item: Any) -> None:
        if self._closed:
            return
        try:
            if type(item) is list:
                self._start_compact_call(item)
                return
            kind = item.get("kind")
            if kind == "call":
                self._start_call(item)
            elif kind == "cancel":
                self._cancel(int(item["token"]))
            elif kind == "model":
                self._start_model(item)
            elif kind == "preprocess":
                self._start_preprocess(item)
            elif kind == "resource_keys":
                self._resource_keys(item)
            elif kind == "hook":
                self._start_hook(item)
            elif kind in ("prepare", "instructions"):
                self._start_prepare(item)
            elif kind in ("toolset_enter", "toolset_exit", "toolset_prepare"):
                self._start_toolset(item)
            elif kind in ("step_model", "step_batch"):
                self._start_step(item)
            elif kind == "event":
                self._emit(item["event"])
            elif kind == "warning":
                self._warn(item["warning"])
            elif kind == "done":
                self._close(done=item)
            else:
                raise ValueError(f"unknown item kind {kind!r}")
        except Exception as exc:
            # A malformed item fails its own call, or the run when it names none.
            token: Any = None
            if type(item) is list and item:
                token = item[0]
            elif type(item) is dict and item.get("kind") in (
                "call",
                "model",
                "preprocess",
                "resource_keys",
                "hook",
                "prepare",
                "instructions",
                "toolset_enter",
                "toolset_exit",
                "toolset_prepare",
                "step_model",
                "step_batch",
            ):
                token = item.get("token")
            reason = f"malformed item from the runtime: {type(exc).__name__}: {exc}"
            if type(token) is int:
                self._complete(token, {"ok": False, "kind": "user_error", "message": reason})
            else:
                self._close(error=NativeError(reason))

    @staticmethod
    def _encode(outcome: Mapping[str, Any]) -> bytes:
        encoded = getattr(outcome, "encoded", None)
        if encoded is not None:
            return encoded  # type: ignore[no-any-return]
        try:
            return _dumps(outcome)
        except (TypeError, ValueError, RecursionError) as exc:
            # The same value fails every time: user_error is never retried.
            return _dumps({"ok": False, "kind": "user_error", "message": f"outcome is not JSON serializable: {exc}"})

    def _complete(self, token: int, outcome: Mapping[str, Any]) -> None:
        """Queue an outcome from the loop thread; the queue is flushed to Go
        once per loop iteration, or at once when it was the last work the
        run waits for (a sequential run then saves a loop iteration per
        call)."""
        self._send(b"[%d,%s]" % (token, self._encode(outcome)))

    def _send(self, line: bytes) -> None:
        """Queue one completion line (see ``_complete``)."""
        if self._closed:
            return
        if not self._pending:
            self._outbox.append(line)
            self._flush()
            self._poll()
            return
        if not self._outbox:
            self._loop.call_soon(self._flush)
        self._outbox.append(line)

    def _poll(self) -> None:
        """Poll the run's pipe for up to SPIN seconds after the run's last
        awaited outcome was sent: the runtime usually answers with the next
        item within tens of microseconds, and waking the loop from epoll
        (and Go from its poller) costs more than that on each side. Only
        when no other callback is ready, so nothing else waits for it, and
        never nested (items handled here may complete at once). A loop that
        does not show its ready queue (uvloop) is never held up by a poll.

        A poll that finds nothing in time backs off: the next poll is
        skipped, twice as many after each further miss in a row (up to
        _MAX_POLL_SKIP), since misses mean the runtime is slower than the
        bound or the machine has no core to spare, and polling would then
        only delay the runtime. A poll that finds an item resets it."""
        if SPIN <= 0 or self._polling or self._closed:
            return
        ready = getattr(self._loop, "_ready", None)
        if ready is None or ready:
            return
        if self._poll_skip:
            self._poll_skip -= 1
            return
        self._polling = True
        try:
            deadline = time.perf_counter() + SPIN
            while time.perf_counter() < deadline:
                try:
                    data = os.read(self._fd, _READ_SIZE)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    return  # the reader callback reports it
                self._poll_backoff = 0
                self._read(data)
                return
            self._poll_backoff = min(2 * self._poll_backoff or 1, _MAX_POLL_SKIP)
            self._poll_skip = self._poll_backoff
        except Exception as exc:  # as in _on_readable: a fault here ends the run
            self._close(error=NativeError(f"reading the run's items failed: {exc!r}"))
        finally:
            self._polling = False

    def _flush(self) -> None:
        batch, self._outbox = self._outbox, []
        if batch and not self._closed:
            self._write(b"\n".join(batch) + b"\n")

    def _write(self, data: bytes) -> None:
        """Write completions to the run's pipe; what does not fit waits for
        the pipe to drain (Go reads it continuously)."""
        if self._unsent:
            self._unsent.append(memoryview(data))
            return
        try:
            sent = os.write(self._fd_in, data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            return  # the run is gone
        if sent < len(data):
            self._unsent.append(memoryview(data)[sent:])
            self._loop.add_writer(self._fd_in, self._on_writable)

    def _on_writable(self) -> None:
        while self._unsent and not self._closed:
            view = self._unsent[0]
            try:
                sent = os.write(self._fd_in, view)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._unsent.clear()
                break
            if sent < len(view):
                self._unsent[0] = view[sent:]
                return
            self._unsent.popleft()
        self._loop.remove_writer(self._fd_in)

    def _complete_from_thread(self, token: int, outcome: Mapping[str, Any]) -> None:
        """Report an outcome from a worker thread; ignores finished runs."""
        with contextlib.suppress(StarweaverError, RuntimeError):
            _capi.run_complete(self._handle, token, self._encode(outcome))

    # -- user code that ends the run ---------------------------------------

    def _interrupted(self, exc: BaseException) -> None:
        """User code raised KeyboardInterrupt or SystemExit: stop the run and
        re-raise exc in the caller once the run has wound down."""
        if self._interrupt is None:
            self._interrupt = exc
        self.cancel()

    def _interrupted_from_thread(self, exc: BaseException) -> None:
        # Recorded and cancelled before the call's outcome is sent, so the
        # run can neither go on past the call nor end without the exception.
        if self._interrupt is None:
            self._interrupt = exc
        with contextlib.suppress(StarweaverError, RuntimeError):
            _capi.run_cancel(self._handle)

    # -- tool calls --------------------------------------------------------

    def _resolve_tool(
        self, item: Mapping[str, Any], *, context: bool = True
    ) -> tuple[int, Tool, ToolContext | None] | None:
        """The token, tool and context of a call or preprocess item; an
        unknown tool id is answered at once with a user error. Calls of
        tools that take no context get none: their cancellation is the
        task's own."""
        token = int(item["token"])
        tool = self._tools.get(int(item["tool"]))
        if tool is None:
            self._complete(
                token, {"ok": False, "kind": "user_error", "message": f"unknown host tool id {item['tool']}"}
            )
            return None
        ctx = (
            tool_context_from_wire(
                item["context"], self._tool_deps.get(int(item["tool"]), self._deps), self._artifacts, self._session
            )
            if context or tool.takes_ctx
            else None
        )
        return token, tool, ctx

    def _start_compact_call(self, item: list[Any]) -> None:
        """A call in its compact form: [token, tool, arguments] for a tool
        that reads no context, else [token, tool, run_id, conversation_id,
        tool_call_id, tool_name, run_step, retry, max_retries,
        idempotency_key, runtime, arguments]."""
        if len(item) == 3:
            token, tool_id, args = item
        else:
            token, tool_id, run_id, conversation_id, call_id, name, step, retry, max_retries, key, runtime, args = item
        tool = self._tools.get(tool_id)
        if tool is None:
            self._complete(token, {"ok": False, "kind": "user_error", "message": f"unknown host tool id {tool_id}"})
            return
        ctx = None
        if len(item) == 3:
            coro = tool._plain_coroutine(args)  # noqa: SLF001 - the bridge runs a tool through the tool's run protocol
            if coro is not None:
                self._pending[token] = (self._loop.create_task(self._await_plain(token, tool, coro)), None)
                return
            self._dispatch(token, tool, None, args, None)
            return
        if tool.takes_ctx:
            ctx = ToolContext(
                run_id=run_id,
                conversation_id=conversation_id,
                run_step=step,
                tool_call_id=call_id,
                tool_name=name,
                retry=retry,
                max_retries=max_retries,
                idempotency_key=key,
                deps=self._tool_deps.get(tool_id, self._deps),
                artifacts=self._artifacts,
                session=self._session,
                runtime=runtime,
            )
        self._dispatch(token, tool, ctx, args, (call_id, name))

    def _start_call(self, item: Mapping[str, Any]) -> None:
        resolved = self._resolve_tool(item, context=False)
        if resolved is None:
            return
        token, tool, ctx = resolved
        self._dispatch(token, tool, ctx, item.get("arguments") or {}, _call_of(item))

    def _dispatch(
        self, token: int, tool: Tool, ctx: ToolContext | None, args: dict[str, Any], call: tuple[str, str] | None
    ) -> None:
        # _declaring.guard: a pause after declaring intents is a user_error.
        self._start(token, ctx, _declaring.guard(tool._runner(ctx, args)), call)  # noqa: SLF001 - the bridge runs a tool through the tool's run protocol

    def _start(self, token: int, ctx: ToolContext | None, run: Runner, call: tuple[str, str] | None = None) -> None:
        """Run user code the way its runner asks: a coroutine as a task on
        this loop, a function in the worker pool. Either runs in a copy of
        the loop's contextvars (as ``asyncio.to_thread`` does for threads),
        entered into the call's scope when the run has one."""
        scope = self._scope
        if isinstance(run, Coroutine):
            if scope is None or call is None:
                task = self._loop.create_task(self._await_outcome(token, run))
            else:
                cv = contextvars.copy_context()
                cv.run(scope.enter_call, *call)
                # The task copies the context current when it is created.
                task = cv.run(self._loop.create_task, self._await_outcome(token, run))
            self._pending[token] = (task, ctx)
        else:
            cv = contextvars.copy_context()
            if scope is not None and call is not None:
                cv.run(scope.enter_call, *call)
            self._submit(token, ctx, run, cv)

    def _escaped(self, exc: BaseException) -> dict[str, Any] | None:
        """The outcome to send for exc, which escaped the outcome of user code
        on the loop (``_outcome.escapes``): None for a cancellation (Go
        stopped waiting: a timeout or a run cancel), a cancelled outcome for
        KeyboardInterrupt/SystemExit (which also end the run), exc again when
        the coroutine itself is being closed, and a failure for any other."""
        if isinstance(exc, asyncio.CancelledError):
            return None
        if isinstance(exc, PASS_THROUGH):
            self._interrupted(exc)
            return _cancelled_outcome(exc)
        if isinstance(exc, GeneratorExit) and closing():
            raise exc  # the coroutine itself is being closed, not failing
        return exception_to_outcome(exc, timeout_ms=None)

    async def _await_outcome(self, token: int, outcome_of: Awaitable[dict[str, Any]]) -> None:
        """Await an outcome of user code and queue it; never leaves the token
        unanswered unless Go stopped waiting for it."""
        try:
            outcome: dict[str, Any] | None = await outcome_of
        except BaseException as exc:  # noqa: BLE001 - never leave a token unanswered
            outcome = self._escaped(exc)
        finally:
            self._pending.pop(token, None)
        if outcome is not None:
            self._complete(token, outcome)

    async def _await_plain(self, token: int, tool: Tool, coro: Awaitable[Any]) -> None:
        """``_await_outcome`` of ``_declaring.guard(tool._run_plain(...))`` in one
        frame, for the most common call (a plain async tool, no context):
        each frame a task resumes through costs on every call of a large
        batch. A JSON value's completion is encoded straight to its line."""
        d = _declaring.declaring()
        outcome: dict[str, Any] | None
        try:
            try:
                value = await coro
            except BaseException as exc:  # noqa: BLE001 - every outcome of user code is an outcome
                outcome = tool._failure_on_loop(exc)  # noqa: SLF001 - the bridge runs a tool through the tool's run protocol
            else:
                body = plain_outcome(value)
                if body is not None:
                    self._pending.pop(token, None)
                    self._send(b"[%d,%s]" % (token, body))
                    return
                outcome = encode_outcome(value)
            outcome = _declaring.paused_after_declaring(outcome, d)
        except BaseException as exc:  # noqa: BLE001 - never leave a token unanswered
            outcome = self._escaped(exc)
        finally:
            self._pending.pop(token, None)
        if outcome is not None:
            self._complete(token, outcome)

    def _submit(
        self,
        token: int,
        ctx: ToolContext | None,
        run: Callable[[], dict[str, Any]],
        cv: contextvars.Context,
    ) -> None:
        """Run sync user code in the pool, inside cv; its outcome goes to Go
        from the worker thread."""

        def work() -> None:
            if ctx is not None:
                _inflight_sync.add(ctx)
            try:
                outcome = cv.run(run)
            except PASS_THROUGH as exc:
                self._interrupted_from_thread(exc)
                outcome = _cancelled_outcome(exc)
            except BaseException as exc:  # noqa: BLE001
                outcome = exception_to_outcome(exc, timeout_ms=None)
            finally:
                if ctx is not None:
                    _inflight_sync.discard(ctx)
                self._pending.pop(token, None)
            self._complete_from_thread(token, outcome)

        self._pending[token] = (_pool.submit(work), ctx)

    def _cancel(self, token: int) -> None:
        entry = self._pending.pop(token, None)
        if entry is None:
            return
        work, ctx = entry
        if ctx is not None:
            ctx._request_cancel()  # noqa: SLF001 - the bridge cancels a call through its context
        work.cancel()

    def _start_preprocess(self, item: Mapping[str, Any]) -> None:
        resolved = self._resolve_tool(item)
        if resolved is None:
            return
        token, tool, ctx = resolved
        assert ctx is not None  # _resolve_tool always builds one for preprocessing
        self._start(token, ctx, tool._preprocessor_runner(ctx, item.get("input")), _call_of(item))  # noqa: SLF001 - the bridge runs a tool through the tool's run protocol

    def _resource_keys(self, item: Mapping[str, Any]) -> None:
        """Answer the resource keys of one tool's calls in a batch (a tool
        whose ``resource_key`` is a callable): Go orders the batch before any
        call reaches Python, so it asks once per tool per batch. The key
        functions run here, on the loop, and must not block; one that raises
        answers null for its call, which Go orders as a write on every key."""
        token = int(item["token"])
        t = self._tools.get(int(item["tool"]))
        if t is None:
            self._complete(
                token, {"ok": False, "kind": "user_error", "message": f"unknown host tool id {item['tool']}"}
            )
            return
        self._complete(token, {"ok": True, "keys": [t._resource_key_of(args) for args in item["arguments"]]})  # noqa: SLF001 - the bridge runs a tool through the tool's run protocol

    def _start_hook(self, item: Mapping[str, Any]) -> None:
        """Run one phase of an execution hook or argument validator; its
        context carries the run's dependencies as the agent gave them."""
        token = int(item["token"])
        hook = self._hooks.get(int(item["hook"]))
        if hook is None:
            self._complete(
                token, {"ok": False, "kind": "user_error", "message": f"unknown host hook id {item['hook']}"}
            )
            return
        # Hooks are the host's own code: they see every dependency.
        ctx = tool_context_from_wire({**item["context"], "authority": None}, self._deps, self._artifacts)
        phase = _Phase(hook, item, ctx)  # an unknown phase raises: the item fails
        self._start(token, ctx, _hook_runner(phase), _call_of(item))

    def _start_prepare(self, item: Mapping[str, Any]) -> None:
        token = int(item["token"])
        preparer = _prepare.lookup(int(item["callback"]))
        if preparer is None:
            self._complete(token, {"ok": False, "message": f"unknown host preparation {item['callback']}"})
            return
        c = item["context"]
        ctx = _prepare.ToolsetContext(
            run_id=c.get("run_id") or "",
            conversation_id=c.get("conversation_id") or "",
            run_step=int(c.get("run_step") or 0),
            metadata=c.get("metadata"),
            active_tags=c.get("active_tags") or (),
            deps=self._deps,
        )
        definitions = list(item.get("definitions") or [])
        task = self._loop.create_task(self._await_outcome(token, preparer.outcome(ctx, definitions)))
        self._pending[token] = (task, None)

    def _start_toolset(self, item: Mapping[str, Any]) -> None:
        """Run one phase of a dynamic toolset (starweaver.dynamic)."""
        from starweaver import dynamic  # noqa: PLC0415 - dynamic imports the agent, which imports this module

        token = int(item["token"])
        handle = dynamic.lookup(int(item["callback"]))
        if handle is None:
            self._complete(token, {"ok": False, "message": f"unknown dynamic toolset {item['callback']}"})
            return
        ctx = _prepare.toolset_context_from_wire(item["context"], self._deps)
        outcome = handle.outcome(str(item["kind"]), ctx, bool(item.get("refresh")), self._adopt)
        task = self._loop.create_task(self._await_outcome(token, outcome))
        self._pending[token] = (task, None)

    def _adopt(self, catalog: Any) -> None:
        """Know the tools and hooks a dynamic toolset prepared for this run
        (copied on the first write: the maps given may be the agent's)."""
        if not self._own_maps:
            self._tools = dict(self._tools)
            self._hooks = dict(self._hooks)
            self._own_maps = True
        self._tools.update(catalog.tools)  # type: ignore[attr-defined]
        self._hooks.update(catalog.hooks)  # type: ignore[attr-defined]
        self._kept.append(catalog)

    # -- steps of a run with an executor ------------------------------------

    def _start_step(self, item: Mapping[str, Any]) -> None:
        """Only a SteppedDriver serves a run with an executor."""
        self._complete(int(item["token"]), {"ok": False, "message": "this run's host has no executor"})

    def served(self) -> Awaitable[dict[str, Any]]:
        """What ends with the run's done item."""
        return self.future

    # -- model requests ----------------------------------------------------

    def _start_model(self, item: Mapping[str, Any]) -> None:
        token = int(item["token"])
        model = self._models.get(int(item["model"]))
        if model is None:
            self._complete(token, {"ok": False, "message": f"unknown host model {item['model']}"})
            return
        # The request's messages are the first `length` of a transcript,
        # which the model fetches as far as it lacks them (sw_model_messages).
        transcript, length, params = int(item["transcript"]), int(item["length"]), item["params"]
        cv = contextvars.copy_context()
        if self._scope is not None:
            cv.run(self._scope.enter_model)
        if model._is_async:  # noqa: SLF001 - the bridge answers a FunctionModel through its model protocol
            outcome = self._await_outcome(token, _model_outcome_async(model, transcript, length, params))
            task = cv.run(self._loop.create_task, outcome)
            self._pending[token] = (task, None)
        else:
            self._submit(
                token,
                None,
                lambda: _model_outcome(lambda: model._respond_sync(transcript, length, params)),  # noqa: SLF001 - as above
                cv,
            )

    # -- events ------------------------------------------------------------

    def _warn(self, warning: dict[str, Any]) -> None:
        """Log a warning of the run (something it went on despite, such as
        an optional toolset that could not start), events or not."""
        _log.warning("starweaver: %s", warning.get("message"), extra={"starweaver_warning": warning})

    def _emit(self, event: dict[str, Any]) -> None:
        """Hand an event to the run's callback. A callback never breaks the
        run: its exceptions are logged; async callbacks are awaited in event
        order, and the run's result waits for them."""
        callback = self._on_event
        if callback is None:
            return
        try:
            value = callback(event)
        except (KeyboardInterrupt, SystemExit) as exc:
            self._interrupted(exc)
            return
        except Exception:
            # Swallowed by design (callbacks never break a run), so a warning.
            _log.warning(
                "the on_event callback raised on a %r event; the run goes on",
                event.get("kind"),
                exc_info=True,
            )
            return
        if inspect.isawaitable(value):
            self._events = self._loop.create_task(self._await_event(self._events, value, event.get("kind")))

    async def _await_event(self, previous: asyncio.Task[None] | None, value: Awaitable[None], kind: Any) -> None:
        if previous is not None:
            await asyncio.wait([previous])
        try:
            await value
        except asyncio.CancelledError:
            raise
        except (KeyboardInterrupt, SystemExit) as exc:
            self._interrupted(exc)
        except Exception:
            _log.warning("the on_event callback raised on a %r event; the run goes on", kind, exc_info=True)

    async def events_done(self) -> None:
        """Wait until every async event callback has finished."""
        while self._events is not None:
            last = self._events
            await asyncio.wait([last])
            if self._events is last:
                return

    def cancel_events(self) -> None:
        if self._events is not None:
            self._events.cancel()

    # -- lifecycle ---------------------------------------------------------

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop serving the run."""
        return self._loop

    @property
    def handle(self) -> int:
        """The native run handle (released once the run has ended)."""
        return self._handle

    @property
    def ended(self) -> bool:
        """True once the run's done item (or a failure to read it) arrived."""
        return self._closed

    def cancel(self, reason: str | None = None) -> None:
        """Ask the native run to stop; its done item still arrives, with
        ``reason`` (when given) on the run's cancellation."""
        if not self._closed:
            with contextlib.suppress(StarweaverError, RuntimeError):
                if reason is not None:
                    _capi.run_interrupt(self._handle, reason)
                else:
                    _capi.run_cancel(self._handle)

    def steer(self, text: str) -> None:
        """Add a user message the run's next model request sees.

        Raises:
            StateError: the run has ended.
        """
        if self._closed:
            raise StateError("the run has already completed", code="state")
        _capi.run_steer(self._handle, text)

    def _close(self, *, done: Mapping[str, Any] | None = None, error: BaseException | None = None) -> None:
        if self._closed:
            return
        self._closed = True
        if self._watch:
            self._loop.remove_reader(self._fd)
        if self._unsent:
            self._loop.remove_writer(self._fd_in)
            self._unsent.clear()
        self._finalizer.detach()
        with contextlib.suppress(StarweaverError, RuntimeError):
            _capi.release(self._handle)
        for work, ctx in list(self._pending.values()):
            if ctx is not None:
                ctx._request_cancel()  # noqa: SLF001 - the bridge cancels a call through its context
            work.cancel()
        self._pending.clear()
        if not self.future.done():
            if self._interrupt is not None:
                self.future.set_exception(self._interrupt)
            elif error is not None:
                self.future.set_exception(error)
            elif done is not None and done.get("error") and done.get("result") is None:
                self.future.set_exception(_capi.error_from(done["error"]))
            else:
                self.future.set_result(dict(done or {}))
        if not self.closed.done():
            self.closed.set_result(None)


#: Seconds a SteppedDriver waits for the runtime's next item while nothing
#: it started is pending (the loop then computes; it takes microseconds).
STEP_BOUND = 60.0


class SteppedDriver(RunDriver):
    """Serves a run with an executor (see ``StepHandlers``) from a loop that
    cannot watch a file descriptor and must do the same things in the same
    order each time it replays the run: a Temporal workflow's.

    The run's loop waits for the answer to each step and each callback, so
    whenever nothing this driver started is pending, the runtime is
    computing and writes its next item within microseconds: the driver
    then reads it synchronously (bounded by STEP_BOUND). It awaits only
    what it started, so everything it does follows from the items, in
    their order. Sync user callbacks run inline (no thread), for the same
    reason.
    """

    _watch = False

    def __init__(self, *args: Any, steps: StepHandlers, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._steps = steps

    def _start_step(self, item: Mapping[str, Any]) -> None:
        token = int(item["token"])
        steps = self._steps

        async def model(request: dict[str, Any]) -> dict[str, Any]:
            try:
                return {"ok": True, "response": await steps.model(request)}
            except Exception as exc:  # a failed request fails the run as a model error
                return _model_failure(exc)

        async def batch(spec: dict[str, Any]) -> dict[str, Any]:
            try:
                entries = await steps.batch(spec)
                children = [e.get(CHILD_OUTCOME) if e is not None else None for e in entries]
                returns = [None if c is not None else e for e, c in zip(entries, children, strict=True)]
                if any(c is not None for c in children):
                    return {"ok": True, "returns": returns, "children": children}
                return {"ok": True, "returns": returns}
            except Exception as exc:  # every call of the batch is then lost
                return {"ok": False, "message": f"{type(exc).__name__}: {exc}"}

        step = model(item["request"]) if item["kind"] == "step_model" else batch(item["batch"])
        self._pending[token] = (self._loop.create_task(self._await_outcome(token, step)), None)

    def _submit(
        self, token: int, ctx: ToolContext | None, run: Callable[[], dict[str, Any]], cv: contextvars.Context
    ) -> None:
        try:
            outcome = cv.run(run)
        except PASS_THROUGH as exc:
            self._interrupted(exc)
            outcome = _cancelled_outcome(exc)
        except BaseException as exc:  # noqa: BLE001 - every outcome of user code is an outcome
            outcome = exception_to_outcome(exc, timeout_ms=None)
        self._complete(token, outcome)

    def _poll(self) -> None:
        """Never spins: the driver reads when it has nothing pending."""

    def _write(self, data: bytes) -> None:
        """Write completions whole: the runtime reads its pipe
        continuously, so a full pipe drains within the bound."""
        view = memoryview(data)
        deadline = time.monotonic() + STEP_BOUND
        while view and not self._closed:
            try:
                sent = os.write(self._fd_in, view)
            except (BlockingIOError, InterruptedError):
                if not select.select([], [self._fd_in], [], max(0.0, deadline - time.monotonic()))[1]:
                    self._close(error=NativeError(f"the run did not take its answers for {STEP_BOUND:g} s"))
                    return
                continue
            except OSError:
                return  # the run is gone
            view = view[sent:]

    async def _wait_pending(self) -> None:
        """Wait until one of the pending steps or callbacks ends."""
        woke: asyncio.Future[None] = self._loop.create_future()

        def wake(_: Any) -> None:
            if not woke.done():
                woke.set_result(None)

        tasks = [work for work, _ in self._pending.values() if isinstance(work, asyncio.Future)]
        if not tasks:
            return
        for task in tasks:
            task.add_done_callback(wake)
        try:
            await woke
        finally:
            for task in tasks:
                task.remove_done_callback(wake)

    async def _pump(self) -> dict[str, Any]:
        while not self._closed:
            if self._pending:
                await self._wait_pending()
                continue
            if self._outbox:
                self._flush()
            if not select.select([self._fd], [], [], STEP_BOUND)[0]:
                self._close(
                    error=NativeError(f"the run wrote nothing for {STEP_BOUND:g} s while it had no step pending")
                )
                break
            try:
                self._read()
            except Exception as exc:  # as in _on_readable: a fault here ends the run
                self._close(error=NativeError(f"reading the run's items failed: {exc!r}"))
        return await self.future

    def served(self) -> Awaitable[dict[str, Any]]:
        return self._pump()


def _call_of(item: Mapping[str, Any]) -> tuple[str, str] | None:
    """The (tool_call_id, tool_name) of an item's context, if it names a call."""
    c = item.get("context")
    if type(c) is dict and c.get("tool_call_id"):
        return str(c["tool_call_id"]), str(c.get("tool_name") or "")
    return None


def _model_outcome(respond: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A sync model callback's outcome (KeyboardInterrupt/SystemExit pass)."""
    try:
        return {"ok": True, "response": respond()}
    except BaseException as exc:  # noqa: BLE001 - the callback's failure becomes a model error
        if escapes(exc, on_loop=False):
            raise
        return _model_failure(exc)


async def _model_outcome_async(
    model: HostModel, transcript: int, length: int, params: dict[str, Any]
) -> dict[str, Any]:
    """An async model callback's outcome (what ``_outcome.escapes`` passes)."""
    try:
        return {"ok": True, "response": await model._respond(transcript, length, params)}  # noqa: SLF001 - the bridge answers a FunctionModel through its model protocol
    except BaseException as exc:  # noqa: BLE001 - the callback's failure becomes a model error
        if escapes(exc, on_loop=True):
            raise
        return _model_failure(exc)


def _model_failure(exc: BaseException) -> dict[str, Any]:
    out: dict[str, Any] = {"ok": False, "message": f"{type(exc).__name__}: {exc}"}
    if isinstance(exc, ModelError):
        # What the model said where it ran (a durable run's activity): the
        # run fails with it, as a local run would.
        out.update(model_error_details(exc))
    return out


def model_error_details(exc: ModelError) -> dict[str, Any]:
    """A ModelError's provider, status, code and attempts, the ones set."""
    details: dict[str, Any] = {}
    if exc.provider:
        details["provider"] = exc.provider
    if exc.status_code:
        details["status_code"] = exc.status_code
    if exc.code:
        details["code"] = exc.code
    if exc.attempts:
        details["attempts"] = exc.attempts
    return details


def start(
    session: int,
    request: dict[str, Any],
    tools: Mapping[int, Tool],
    models: Mapping[int, HostModel],
    deps: Any = None,
    on_event: EventCallback | None = None,
    hooks: Mapping[int, Hook] | None = None,
    scope: CallScope | None = None,
    artifacts: ToolArtifacts | None = None,
    steps: StepHandlers | None = None,
    tool_deps: Mapping[int, Any] | None = None,
) -> RunDriver:
    """Start ``request`` on a native session and serve it on the running loop.
    With ``steps``, the run hands its model requests and tool batches to
    them (the request must set ``"executor": true``; see SteppedDriver).
    With a ``scope``, each call runs entered into it; the request should
    then ask for calls with their context (``"trace": true``).
    ``tool_deps`` gives tools of child agents their own dependencies (see
    ``Catalog.tool_deps``).

    Raises:
        RuntimeError: no event loop is running in this thread.
        StateError: the session is busy, waits for HITL, or the runtime is
            shut down.
        ValueError: an invalid request.
    """
    loop = asyncio.get_running_loop()
    handle, fd, fd_in = _capi.run_start(session, request)
    _log.debug("run started (handle %d)", handle)
    if steps is not None:
        return SteppedDriver(
            loop,
            handle,
            fd,
            fd_in,
            tools,
            models,
            deps,
            on_event,
            hooks,
            scope,
            artifacts,
            session,
            tool_deps,
            steps=steps,
        )
    return RunDriver(
        loop, handle, fd, fd_in, tools, models, deps, on_event, hooks, scope, artifacts, session, tool_deps
    )


async def finish(driver: RunDriver) -> dict[str, Any]:
    """Wait for a started run's done item (see ``drive``)."""
    # A sync tool driving this nested run does not count as a busy worker
    # meanwhile, so nested runs cannot use up the pool.
    with _pool.park():
        try:
            done = await asyncio.shield(driver.served())
            await driver.events_done()
        except asyncio.CancelledError:
            _log.debug("run cancelled by its caller (handle %d)", driver.handle)
            driver.cancel()
            driver.cancel_events()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(driver.closed), CANCEL_GRACE)
            raise
        except BaseException as exc:
            _log.debug("run ended with %s (handle %d)", type(exc).__name__, driver.handle)
            raise
    result = done.get("result") or {}
    _log.debug(
        "run %s ended: %s (handle %d)",
        result.get("run_id") or "?",
        result.get("status") or (done.get("error") or {}).get("type") or "?",
        driver.handle,
    )
    return done


async def drive(
    session: int,
    request: dict[str, Any],
    tools: Mapping[int, Tool],
    models: Mapping[int, HostModel],
    deps: Any = None,
    on_event: EventCallback | None = None,
    hooks: Mapping[int, Hook] | None = None,
) -> dict[str, Any]:
    """Run ``request`` on a native session and return its done item.

    Cancelling the awaiting task cancels the native run (running tools see
    cancellation) and waits briefly (``CANCEL_GRACE``) for the runtime to
    wind it down, never for the tools themselves, before re-raising.
    ``KeyboardInterrupt`` or ``SystemExit`` raised by user code ends the run
    and is re-raised here.
    """
    return await finish(start(session, request, tools, models, deps, on_event, hooks))
