"""ToolContext: wire decoding, read-only attributes and cross-thread cancellation."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from conftest import make_ctx
from starweaver.context import tool_context_from_wire


def test_from_wire_reads_every_field() -> None:
    ctx = tool_context_from_wire(
        {
            "run_id": "r1",
            "conversation_id": "c1",
            "run_step": 4,
            "tool_call_id": "call_9",
            "tool_name": "deploy",
            "retry": 1,
            "max_retries": 2,
            "approval": {"status": "approved", "metadata": {"decided_by": "ui"}},
            "metadata": {"tenant": "acme"},
        },
        {"db": "conn"},
    )
    assert (ctx.run_id, ctx.conversation_id, ctx.run_step) == ("r1", "c1", 4)
    assert (ctx.tool_call_id, ctx.tool_name, ctx.retry, ctx.max_retries) == ("call_9", "deploy", 1, 2)
    assert ctx.approval == {"status": "approved", "metadata": {"decided_by": "ui"}}
    assert ctx.metadata == {"tenant": "acme"}
    assert dict(ctx.deps) == {"db": "conn"}
    assert not ctx.is_cancelled()


def test_from_wire_defaults() -> None:
    ctx = tool_context_from_wire({})
    assert (ctx.run_id, ctx.run_step, ctx.retry, ctx.max_retries, ctx.approval) == ("", 0, 0, 0, None)
    assert ctx.metadata == {} and dict(ctx.deps) == {}


def test_attributes_are_read_only() -> None:
    ctx = make_ctx()
    with pytest.raises(AttributeError):
        ctx.run_id = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ctx.deps["x"] = 1  # type: ignore[index]


def test_deps_are_the_hosts_objects() -> None:
    client = object()
    ctx = tool_context_from_wire({}, {"client": client})
    assert ctx.deps["client"] is client


def test_is_cancelled_and_idempotent_request() -> None:
    ctx = make_ctx()
    ctx._request_cancel()
    ctx._request_cancel()
    assert ctx.is_cancelled()
    assert asyncio.run(ctx.cancelled()) is True  # already cancelled: returns at once


def test_cancelled_resolves_on_the_same_loop() -> None:
    ctx = make_ctx()

    async def main() -> bool:
        waiter = asyncio.create_task(ctx.cancelled())
        await asyncio.sleep(0.01)
        assert not waiter.done()
        ctx._request_cancel()
        return await asyncio.wait_for(waiter, 1)

    assert asyncio.run(main()) is True


def test_cancelled_resolves_when_requested_from_another_thread() -> None:
    ctx = make_ctx()

    async def main() -> tuple[bool, bool]:
        waiters = [asyncio.create_task(ctx.cancelled()) for _ in range(3)]
        await asyncio.sleep(0.01)
        threading.Timer(0.02, ctx._request_cancel).start()
        results = await asyncio.wait_for(asyncio.gather(*waiters), 2)
        return all(results), ctx.is_cancelled()

    assert asyncio.run(main()) == (True, True)


def test_cancelled_works_on_a_loop_in_a_worker_thread() -> None:
    """A sync tool in a worker thread may run its own loop and await cancelled()."""
    ctx = make_ctx()
    result: dict[str, Any] = {}
    waiting = threading.Event()

    def worker() -> None:
        async def body() -> bool:
            waiting.set()
            return await asyncio.wait_for(ctx.cancelled(), 2)

        result["value"] = asyncio.run(body())

    t = threading.Thread(target=worker)
    t.start()
    assert waiting.wait(2)
    time.sleep(0.02)
    ctx._request_cancel()
    t.join(2)
    assert result == {"value": True}


def test_sync_check_from_a_worker_thread() -> None:
    ctx = make_ctx()
    seen: list[bool] = []

    def worker() -> None:
        seen.append(ctx.is_cancelled())
        seen.append(ctx.wait_cancelled(2))

    t = threading.Thread(target=worker)
    t.start()
    time.sleep(0.02)
    ctx._request_cancel()
    t.join(2)
    assert seen == [False, True]
    assert make_ctx().wait_cancelled(0.01) is False


def test_abandoned_waiter_is_removed() -> None:
    ctx = make_ctx()

    async def main() -> None:
        waiter = asyncio.create_task(ctx.cancelled())
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter

    asyncio.run(main())
    assert ctx._waiters == []
    ctx._request_cancel()  # nothing left to wake; must not fail
    assert ctx.is_cancelled()


def test_request_after_waiter_loop_closed_does_not_raise() -> None:
    ctx = make_ctx()
    loop = asyncio.new_event_loop()
    fut = loop.create_future()
    ctx._waiters.append((loop, fut))
    loop.close()
    ctx._request_cancel()
    assert ctx.is_cancelled()


def test_repr_names_the_call() -> None:
    assert "call_1" in repr(make_ctx())
