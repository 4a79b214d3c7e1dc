"""After sending the outcome a run waits for, the loop polls the run's pipe
briefly for the next item instead of going back to epoll (RunDriver._poll):
a sequential run then costs no loop wake-up per call. The poll never runs
while other callbacks are ready, and never past its bound."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest
from helpers import tool_returns
from starweaver import _bridge, create_agent, tool
from starweaver._bridge import RunDriver
from starweaver.testing import TestModel

BOUND = 30.0


@contextlib.asynccontextmanager
async def pipe_driver(tools: dict[int, Any]) -> AsyncIterator[tuple[RunDriver, int, int]]:
    """A run driver over real pipes, without Go: (driver, the items pipe's
    write end, the completions pipe's read end)."""
    loop = asyncio.get_running_loop()
    items_r, items_w = os.pipe()
    done_r, done_w = os.pipe()
    for fd in (items_r, done_r, done_w):
        os.set_blocking(fd, False)
    driver = RunDriver(loop, 10**12, items_r, done_w, tools, {}, None, None)
    try:
        yield driver, items_w, done_r
        os.write(items_w, b'{"kind":"done","result":{},"error":null}\n')
        await asyncio.wait_for(driver.closed, BOUND)
    finally:
        for fd in (items_r, items_w, done_r, done_w):
            os.close(fd)


def count_wakeups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the loop's reader callbacks of every run (one per wake-up)."""
    seen = [0]
    real = RunDriver._on_readable

    def counted(self: RunDriver) -> None:
        seen[0] += 1
        real(self)

    monkeypatch.setattr(RunDriver, "_on_readable", counted)
    return seen


def sequential_run(n: int) -> Any:
    @tool
    async def step(i: int) -> int:
        return i * 2

    calls = [{"id": f"c{i}", "name": "step", "arguments": {"i": i}} for i in range(n)]
    model = TestModel.responses([TestModel.tool_call_response(calls), "done"])
    result = asyncio.run(asyncio.wait_for(create_agent(model=model, tools=[step]).run("go"), BOUND))
    return result, model


def test_sequential_run_reads_its_items_by_polling(monkeypatch: pytest.MonkeyPatch) -> None:
    # A bound far above any turnaround, so the count cannot depend on load.
    monkeypatch.setattr(_bridge, "SPIN", 5.0)
    wakeups = count_wakeups(monkeypatch)
    result, model = sequential_run(50)
    assert result.output == "done"
    returns = tool_returns(model.captured_messages())
    assert [r["content"] for r in returns] == [i * 2 for i in range(50)]
    # The first call wakes the loop; the other 49 calls and the done item
    # are read by the polls that follow each outcome.
    assert wakeups[0] <= 2, wakeups[0]


def test_polling_off_wakes_the_loop_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_bridge, "SPIN", 0.0)
    wakeups = count_wakeups(monkeypatch)
    result, model = sequential_run(20)
    assert result.output == "done"
    assert len(tool_returns(model.captured_messages())) == 20
    assert wakeups[0] >= 20


def test_poll_leaves_the_pipe_to_the_loop_when_callbacks_are_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    """With other callbacks ready the poll returns at once, and the item is
    read by the loop's reader callback in its turn; with none it reads and
    handles the item itself."""
    # Items are written before each poll, so a short bound is enough; a
    # poll after an outcome here waits for an item that never comes.
    monkeypatch.setattr(_bridge, "SPIN", 0.05)

    @tool
    async def ok() -> str:
        return "ok"

    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with pipe_driver({1: ok}) as (driver, items_w, done_r):
            os.write(items_w, b"[7,1,{}]\n")
            loop.call_soon(lambda: None)  # someone else is ready to run
            driver._poll()
            assert 7 not in driver._pending  # not read: the reader callback will
            got = b""
            for _ in range(int(BOUND * 100)):  # the loop's reader callback starts the call
                await asyncio.sleep(0.01)
                with contextlib.suppress(BlockingIOError):
                    got += os.read(done_r, 1 << 16)
                if got.endswith(b"\n"):
                    break
            assert got == b'[7,{"ok":true,"content":"ok"}]\n'

            os.write(items_w, b"[8,1,{}]\n")
            driver._poll_skip = 0  # the poll after call 7's outcome missed (test_poll_backs_off_after_misses)
            driver._poll()  # nothing else ready: the poll reads and starts the call
            assert 8 in driver._pending
            await asyncio.wait_for(driver._pending[8][0], BOUND)  # type: ignore[arg-type]

    asyncio.run(asyncio.wait_for(main(), BOUND))


def test_poll_backs_off_after_misses(monkeypatch: pytest.MonkeyPatch) -> None:
    """A poll that finds nothing in time skips the next poll, twice as many
    after each further miss, and a poll that finds an item resets that: on
    a machine with no core to spare, polling would only delay the runtime."""
    monkeypatch.setattr(_bridge, "SPIN", 0.001)

    @tool
    async def ok() -> str:
        return "ok"

    async def main() -> None:
        async with pipe_driver({1: ok}) as (driver, items_w, _):
            reads = [0]
            real_read = driver._read

            def counted(first: bytes | None = None) -> None:
                reads[0] += 1
                real_read(first)

            driver._read = counted  # type: ignore[method-assign]
            for skip in (1, 2, 4):
                driver._poll()  # nothing to read: a miss
                assert (driver._poll_skip, driver._poll_backoff) == (skip, skip)
                for _ in range(skip):
                    os.write(items_w, b"[9,1,{}]\n")  # there to read, but the poll is skipped
                    driver._poll()
                    assert reads[0] == 0
                    assert os.read(driver._fd, 64) == b"[9,1,{}]\n"  # drained unread
            os.write(items_w, b"[8,1,{}]\n")
            driver._poll()  # the skips are used up: this poll reads the item
            assert reads[0] == 1 and driver._poll_backoff == 0 and 8 in driver._pending
            await asyncio.wait_for(driver._pending[8][0], BOUND)  # type: ignore[arg-type]

    asyncio.run(asyncio.wait_for(main(), BOUND))
