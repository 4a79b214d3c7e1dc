"""The worker threads that run sync user code (tools, model callbacks,
preprocessors) off the event loop.

Why not ``concurrent.futures.ThreadPoolExecutor``: its workers are joined at
interpreter exit, so one sync tool that ignores cancellation kept ``sys.exit``
and Ctrl-C from ever returning; and a fixed set of workers is used up by
tools that outlive their timeout (later calls then time out without running)
or by sync tools that run nested agents (deadlock once every worker waits for
a nested run). Here:

- at most ``workers`` threads run work that is still awaited;
- work whose caller stopped waiting (timeout, cancellation) is *abandoned*:
  its thread runs on but no longer counts, and another thread takes the
  queue, up to ``max_threads`` threads in all (a warning is logged each time);
- a worker that drives a nested run ``park()``s itself for that long, so the
  nested run's own sync calls get threads;
- threads are daemons: exit waits for them at most a short grace
  (``STARWEAVER_EXIT_GRACE`` seconds, default 1) after asking them to stop.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["SYNC_MAX_THREADS", "SYNC_WORKERS", "SyncPool", "Work", "in_pool", "sync_pool"]

_log = logging.getLogger("starweaver")

# Idle threads beyond ``workers`` exit after this many seconds.
_IDLE_EXIT_S = 30.0

_QUEUED, _RUNNING, _DONE, _DROPPED = range(4)


class Work:
    """One submitted function; ``cancel()`` abandons it."""

    __slots__ = ("_pool", "abandoned", "counted", "fn", "state")

    def __init__(self, pool: SyncPool, fn: Callable[[], None]) -> None:
        self._pool = pool
        self.fn = fn
        self.state = _QUEUED
        self.counted = False
        self.abandoned = False

    def cancel(self) -> None:
        """Stop waiting for this work: queued work never runs, running work
        stops counting against the pool's workers."""
        self._pool.abandon(self)


class SyncPool:
    """Daemon worker threads with replacement of abandoned work (see the
    module docstring). Thread-safe."""

    def __init__(self, workers: int, max_threads: int, *, name: str = "starweaver-sync") -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = workers
        self.max_threads = max(max_threads, workers)
        self._name = name
        self._cv = threading.Condition()
        self._queue: collections.deque[Work] = collections.deque()
        self._threads = 0
        self._idle = 0
        self._counted = 0
        self._running = 0
        self._abandoned = 0  # running work nobody awaits any more
        self._local = threading.local()

    @property
    def threads(self) -> int:
        """How many worker threads are alive."""
        return self._threads

    def submit(self, fn: Callable[[], None]) -> Work:
        """Queue fn (which must not raise) for a worker thread."""
        work = Work(self, fn)
        with self._cv:
            self._queue.append(work)
            self._wake_or_spawn()
        return work

    def _wake_or_spawn(self) -> None:
        # Called with the lock held whenever work is queued or capacity frees.
        if self._idle:
            self._cv.notify(min(self._idle, len(self._queue)))
        if self._idle >= len(self._queue) or self._counted + self._idle >= self.workers:
            return
        if self._threads >= self.max_threads:
            _log.warning(
                "%d sync calls are queued and all %d worker threads are busy (%d with calls "
                "nobody awaits any more); raise STARWEAVER_SYNC_MAX_THREADS or make the tools honour "
                "cancellation",
                len(self._queue),
                self._threads,
                self._threads - self._counted,
            )
            return
        if self._threads >= self.workers and self._abandoned:
            _log.warning(
                "%d sync calls ignored their timeout or cancellation and still run; "
                "starting another worker thread (%d of at most %d)",
                self._abandoned,
                self._threads + 1,
                self.max_threads,
            )
        self._threads += 1
        self._idle += 1
        threading.Thread(target=self._worker, name=f"{self._name}-{self._threads}", daemon=True).start()

    def _worker(self) -> None:
        local = self._local
        with self._cv:
            while True:
                while not self._queue:
                    if not self._cv.wait(_IDLE_EXIT_S) and not self._queue and self._threads > self.workers:
                        self._idle -= 1
                        self._threads -= 1
                        return
                work = self._queue.popleft()
                self._idle -= 1
                self._counted += 1
                self._running += 1
                work.counted = True
                work.state = _RUNNING
                local.work = work
                self._cv.release()
                try:
                    work.fn()
                except BaseException:  # noqa: BLE001 - fn must not raise; never let a worker die
                    _log.exception("a sync worker's function raised")
                finally:
                    self._cv.acquire()
                    local.work = None
                    work.state = _DONE
                    self._running -= 1
                    if work.abandoned:
                        self._abandoned -= 1
                    if work.counted:
                        work.counted = False
                        self._counted -= 1
                    self._idle += 1
                    self._cv.notify_all()
                    # An idle worker must not keep its last work (and the
                    # run objects its function holds) alive until the next.
                    del work

    def _uncount(self, work: Work) -> None:
        # With the lock held: work's thread no longer counts as a worker.
        if work.counted:
            work.counted = False
            self._counted -= 1
            if self._queue:
                self._wake_or_spawn()

    def abandon(self, work: Work) -> None:
        """Stop waiting for ``work`` (see ``Work.cancel``)."""
        with self._cv:
            if work.state == _QUEUED:
                work.state = _DROPPED
                with contextlib.suppress(ValueError):
                    self._queue.remove(work)
            elif work.state == _RUNNING and not work.abandoned:
                work.abandoned = True
                self._abandoned += 1
                self._uncount(work)

    @contextlib.contextmanager
    def park(self) -> Iterator[None]:
        """While a worker thread waits for a nested run, it does not count,
        so the nested run's sync calls cannot starve. A no-op elsewhere."""
        work: Work | None = getattr(self._local, "work", None)
        if work is None:
            yield
            return
        with self._cv:
            was_counted = work.counted
            self._uncount(work)
        try:
            yield
        finally:
            if was_counted:
                with self._cv:
                    if work.state == _RUNNING and not work.counted and not work.abandoned:
                        work.counted = True
                        self._counted += 1

    def wait_idle(self, timeout: float) -> bool:
        """Wait up to timeout seconds until no work runs or is queued."""
        with self._cv:
            return self._cv.wait_for(lambda: not self._running and not self._queue, timeout)


#: Worker threads that run awaited sync user code at once (never one thread per call).
SYNC_WORKERS = int(os.environ.get("STARWEAVER_SYNC_WORKERS", "32"))
#: Hard cap on sync worker threads, counting those left running by calls
#: that ignored their timeout or cancellation, and those driving nested runs.
SYNC_MAX_THREADS = int(os.environ.get("STARWEAVER_SYNC_MAX_THREADS", str(max(256, SYNC_WORKERS))))

_shared: SyncPool | None = None
_shared_lock = threading.Lock()


def sync_pool() -> SyncPool:
    """The process-wide pool that runs sync user code (made on first use)."""
    global _shared  # noqa: PLW0603 - one pool per process
    if _shared is None:
        with _shared_lock:
            if _shared is None:
                _shared = SyncPool(SYNC_WORKERS, SYNC_MAX_THREADS, name="starweaver-tool")
    return _shared


async def in_pool(func: Callable[[], Any]) -> Any:
    """Run sync user code in the pool of sync tools, never on the loop."""
    import asyncio  # noqa: PLC0415 - loaded with the first run

    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def work() -> None:
        try:
            outcome: tuple[bool, Any] = (True, func())
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            outcome = (False, exc)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:
            pass  # the loop closed: nobody awaits the validator any more

    sync_pool().submit(work)
    return await future
