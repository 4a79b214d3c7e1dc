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
import contextlib
import json
import os
import threading
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from types import MappingProxyType
from typing import Any, Protocol

from starweaver import _capi
from starweaver._capi import NativeError
from starweaver.context import ToolContext
from starweaver.errors import StarweaverError, exception_to_outcome
from starweaver.result import result_to_outcome
from starweaver.tools import Tool, _cancelled_from_outside

__all__ = ["HostModel", "RunDriver", "drive", "sync_executor"]

#: Upper bound of worker threads for sync tools (never one thread per call).
SYNC_WORKERS = int(os.environ.get("STARWEAVER_SYNC_WORKERS", "32"))

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def sync_executor() -> ThreadPoolExecutor:
    """The process-wide pool that runs sync tools, created on first use."""
    global _executor
    if _executor is None:
        with _executor_lock:
            if _executor is None:
                _executor = ThreadPoolExecutor(max_workers=SYNC_WORKERS, thread_name_prefix="starweaver-tool")
    return _executor


# Contexts of sync calls in flight, so that interpreter exit can ask them to
# stop before the thread pool's own exit hook joins its workers.
_inflight_sync: set[ToolContext] = set()


def _cancel_inflight_sync() -> None:
    for ctx in list(_inflight_sync):
        ctx._request_cancel()


# threading runs these hooks in reverse order of registration, so this one
# (registered after concurrent.futures') runs before the pool is joined.
_register_thread_exit = getattr(threading, "_register_atexit", None)
if _register_thread_exit is not None:
    _register_thread_exit(_cancel_inflight_sync)


def _at_exit() -> None:
    # Cancel native runs first so that no Go wait outlives the interpreter,
    # then let worker threads finish without blocking exit.
    _capi.shutdown()
    if _executor is not None:
        _executor.shutdown(wait=False, cancel_futures=True)


atexit.register(_at_exit)


class HostModel(Protocol):
    """A model answered by Python code (``FunctionModel``)."""

    async def _respond(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]: ...


_ENCODER = json.JSONEncoder(separators=(",", ":"))


_READ_SIZE = 1 << 20


def _dumps(value: Any) -> bytes:
    return _ENCODER.encode(value).encode()


class RunDriver:
    """Serves one native run's queue on the current event loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        handle: int,
        fd: int,
        fd_in: int,
        tools: Mapping[int, Tool],
        models: Mapping[int, HostModel],
        deps: Mapping[str, Any] | None,
        on_event: Callable[[dict[str, Any]], None] | None,
    ) -> None:
        self._loop = loop
        self._handle = handle
        self._fd = fd
        self._fd_in = fd_in
        self._unsent = b""  # completions the pipe could not take yet
        self._tools = tools
        self._models = models
        self._deps = MappingProxyType(dict(deps or {}))
        self._on_event = on_event
        self._pending: dict[int, tuple[asyncio.Task[None] | Future[None], ToolContext | None]] = {}
        self._closed = False
        self._partial = b""
        self._outbox: list[bytes] = []
        self.future: asyncio.Future[dict[str, Any]] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, self._on_readable)

    # -- the queue ---------------------------------------------------------

    def _on_readable(self) -> None:
        # Read everything the pipe holds; items are JSON lines, and a line
        # may be split across reads.
        chunks = [self._partial]
        try:
            while True:
                data = os.read(self._fd, _READ_SIZE)
                if not data:
                    break
                chunks.append(data)
                if len(data) < _READ_SIZE:
                    break
        except (BlockingIOError, InterruptedError):
            pass
        except OSError as exc:
            self._close(error=NativeError(f"reading the run pipe failed: {exc}"))
            return
        buf = b"".join(chunks)
        end = buf.rfind(b"\n")
        if end < 0:
            self._partial = buf
            return
        self._partial = buf[end + 1 :]
        try:
            items = json.loads(b"[" + buf[:end].replace(b"\n", b",") + b"]")
        except ValueError as exc:
            self._close(error=NativeError(f"malformed item from the runtime: {exc}"))
            return
        for item in items:
            if type(item) is list:
                self._start_compact_call(item)
                continue
            kind = item.get("kind")
            if kind == "call":
                self._start_call(item)
            elif kind == "cancel":
                self._cancel(int(item["token"]))
            elif kind == "model":
                self._start_model(item)
            elif kind == "preprocess":
                self._start_preprocess(item)
            elif kind == "event":
                if self._on_event is not None:
                    self._on_event(item["event"])
            elif kind == "done":
                self._close(done=item)

    @staticmethod
    def _encode(outcome: Mapping[str, Any]) -> bytes:
        encoded = getattr(outcome, "encoded", None)
        if encoded is not None:
            return encoded  # type: ignore[no-any-return]
        try:
            return _dumps(outcome)
        except (TypeError, ValueError) as exc:
            return _dumps({"ok": False, "kind": "execution", "message": f"outcome is not JSON serializable: {exc}"})

    def _complete(self, token: int, outcome: Mapping[str, Any]) -> None:
        """Queue an outcome from the loop thread; the queue is flushed to Go
        once per loop iteration."""
        if not self._outbox:
            self._loop.call_soon(self._flush)
        self._outbox.append(b"[%d,%s]" % (token, self._encode(outcome)))

    def _flush(self) -> None:
        batch, self._outbox = self._outbox, []
        if batch and not self._closed:
            self._write(b"\n".join(batch) + b"\n")

    def _write(self, data: bytes) -> None:
        """Write completions to the run's pipe; what does not fit waits for
        the pipe to drain (Go reads it continuously)."""
        if self._unsent:
            self._unsent += data
            return
        try:
            sent = os.write(self._fd_in, data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            return  # the run is gone
        if sent < len(data):
            self._unsent = data[sent:]
            self._loop.add_writer(self._fd_in, self._on_writable)

    def _on_writable(self) -> None:
        data, self._unsent = self._unsent, b""
        self._loop.remove_writer(self._fd_in)
        if not self._closed and data:
            self._write(data)

    def _complete_from_thread(self, token: int, outcome: Mapping[str, Any]) -> None:
        """Report an outcome from a worker thread; ignores finished runs."""
        with contextlib.suppress(StarweaverError):
            _capi.run_complete(self._handle, token, self._encode(outcome))

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
        ctx = ToolContext._from_wire(item["context"], self._deps) if context or tool.takes_ctx else None
        return token, tool, ctx

    def _start_compact_call(self, item: list[Any]) -> None:
        """A call in its compact form: [token, tool, arguments] for a tool
        that reads no context, else [token, tool, run_id, conversation_id,
        tool_call_id, tool_name, run_step, retry, max_retries, arguments]."""
        if len(item) == 3:
            token, tool_id, args = item
        else:
            token, tool_id, run_id, conversation_id, call_id, name, step, retry, max_retries, args = item
        tool = self._tools.get(tool_id)
        if tool is None:
            self._complete(token, {"ok": False, "kind": "user_error", "message": f"unknown host tool id {tool_id}"})
            return
        ctx = None
        if tool.takes_ctx and len(item) > 3:
            ctx = ToolContext(
                run_id=run_id,
                conversation_id=conversation_id,
                run_step=step,
                tool_call_id=call_id,
                tool_name=name,
                retry=retry,
                max_retries=max_retries,
                deps=self._deps,
            )
        self._dispatch(token, tool, ctx, args)

    def _start_call(self, item: Mapping[str, Any]) -> None:
        resolved = self._resolve_tool(item, context=False)
        if resolved is None:
            return
        token, tool, ctx = resolved
        self._dispatch(token, tool, ctx, item.get("arguments") or {})

    def _dispatch(self, token: int, tool: Tool, ctx: ToolContext | None, args: dict[str, Any]) -> None:
        plain = tool._plain_func
        if plain is not None and tool._schema.plain_call(args):
            task = self._loop.create_task(self._call_plain(token, tool, plain, args))
            self._pending[token] = (task, None)
        elif tool.is_async:
            task = self._loop.create_task(self._await_outcome(token, tool._run_async(ctx, args)))
            self._pending[token] = (task, ctx)
        else:
            fut = sync_executor().submit(self._call_sync, token, tool, ctx, args)
            self._pending[token] = (fut, ctx)

    async def _call_plain(
        self, token: int, tool: Tool, func: Callable[..., Awaitable[Any]], args: dict[str, Any]
    ) -> None:
        """The common call, without Tool._run_async's layers: an async
        function of plain keyword arguments (already validated by Go) and no
        context. Outcomes are built exactly as _run_async builds them."""
        try:
            try:
                outcome = result_to_outcome(await func(**args))
            except asyncio.CancelledError as exc:
                if _cancelled_from_outside():
                    return  # Go stopped waiting (timeout or run cancel).
                outcome = exception_to_outcome(exc, timeout_ms=tool.timeout_ms)
            except Exception as exc:
                outcome = exception_to_outcome(exc, timeout_ms=tool.timeout_ms)
        finally:
            self._pending.pop(token, None)
        self._complete(token, outcome)

    async def _await_outcome(self, token: int, outcome_of: Awaitable[dict[str, Any]]) -> None:
        """Await a call's (or a preprocessing's) outcome and queue it; a
        cancellation means Go stopped waiting (timeout or run cancel)."""
        try:
            outcome = await outcome_of
        except asyncio.CancelledError:
            return
        finally:
            self._pending.pop(token, None)
        self._complete(token, outcome)

    def _call_sync(self, token: int, tool: Tool, ctx: ToolContext | None, args: dict[str, Any]) -> None:
        if ctx is not None:
            _inflight_sync.add(ctx)
        try:
            outcome = tool._run_sync(ctx, args)
        finally:
            if ctx is not None:
                _inflight_sync.discard(ctx)
            self._pending.pop(token, None)
        self._complete_from_thread(token, outcome)

    def _cancel(self, token: int) -> None:
        entry = self._pending.pop(token, None)
        if entry is None:
            return
        work, ctx = entry
        if ctx is not None:
            ctx._request_cancel()
        work.cancel()

    def _start_preprocess(self, item: Mapping[str, Any]) -> None:
        resolved = self._resolve_tool(item)
        if resolved is None:
            return
        token, tool, ctx = resolved
        assert ctx is not None  # _resolve_tool always builds one for preprocessing
        task = self._loop.create_task(self._await_outcome(token, tool._run_preprocessor(ctx, item.get("input"))))
        self._pending[token] = (task, ctx)

    # -- model requests ----------------------------------------------------

    def _start_model(self, item: Mapping[str, Any]) -> None:
        token = int(item["token"])
        model = self._models.get(int(item["model"]))
        if model is None:
            self._complete(token, {"ok": False, "message": f"unknown host model {item['model']}"})
            return
        task = self._loop.create_task(self._call_model(token, model, item["messages"], item["params"]))
        self._pending[token] = (task, None)

    async def _call_model(
        self, token: int, model: HostModel, messages: list[dict[str, Any]], params: dict[str, Any]
    ) -> None:
        try:
            response = await model._respond(messages, params)
            outcome: dict[str, Any] = {"ok": True, "response": response}
        except asyncio.CancelledError:
            return
        except Exception as exc:  # the callback's failure becomes a model error
            outcome = {"ok": False, "message": f"{type(exc).__name__}: {exc}"}
        finally:
            self._pending.pop(token, None)
        self._complete(token, outcome)

    # -- lifecycle ---------------------------------------------------------

    def cancel(self) -> None:
        """Ask the native run to stop; its done item still arrives."""
        if not self._closed:
            with contextlib.suppress(StarweaverError):
                _capi.run_cancel(self._handle)

    def _close(self, *, done: Mapping[str, Any] | None = None, error: BaseException | None = None) -> None:
        if self._closed:
            return
        self._closed = True
        self._loop.remove_reader(self._fd)
        if self._unsent:
            self._loop.remove_writer(self._fd_in)
            self._unsent = b""
        with contextlib.suppress(StarweaverError):
            _capi.release(self._handle)
        for work, ctx in list(self._pending.values()):
            if ctx is not None:
                ctx._request_cancel()
            work.cancel()
        self._pending.clear()
        if not self.future.done():
            if error is not None:
                self.future.set_exception(error)
            elif done is not None and done.get("error") and done.get("result") is None:
                self.future.set_exception(_capi.error_from(done["error"]))
            else:
                self.future.set_result(dict(done or {}))
        if not self.closed.done():
            self.closed.set_result(None)


async def drive(
    session: int,
    request: dict[str, Any],
    tools: Mapping[int, Tool],
    models: Mapping[int, HostModel],
    deps: Mapping[str, Any] | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run ``request`` on a native session and return its done item.

    Cancelling the awaiting task cancels the native run (running tools see
    cancellation) and waits briefly for it to wind down before re-raising.
    """
    loop = asyncio.get_running_loop()
    handle, fd, fd_in = _capi.run_start(session, request)
    driver = RunDriver(loop, handle, fd, fd_in, tools, models, deps, on_event)
    try:
        return await asyncio.shield(driver.future)
    except asyncio.CancelledError:
        driver.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(driver.closed), 5)
        raise
