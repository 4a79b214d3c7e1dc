"""Shared helpers for the pure-Python tool layer tests, and the native
handle leak check every test runs under."""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Iterator
from typing import Any

import pytest
from starweaver import Tool, ToolContext, _bridge, _capi


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "keeps_handles: the test keeps native handles alive past its end on purpose (skips the handle leak check)",
    )


@pytest.fixture(autouse=True)
def _no_leaked_handles(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every native handle a test creates (agent, session, model, run) is
    released by the time the test's objects are collected."""
    if request.node.get_closest_marker("keeps_handles"):
        yield
        return
    gc.collect()
    before = _capi.handle_count()
    yield
    gc.collect()
    after = _capi.handle_count()
    if after != before:
        # A sync worker signals its call's end from inside the call, so for a
        # moment its frame still holds the call (and the model or run behind
        # it) after the run returned: let the workers finish, then recount.
        _bridge._pool.wait_idle(5.0)
        gc.collect()
        after = _capi.handle_count()
    assert after == before, f"native handles leaked: {before} live before the test, {after} after"


def make_ctx(**overrides: Any) -> ToolContext:
    data: dict[str, Any] = {
        "run_id": "run_1",
        "conversation_id": "conv_1",
        "run_step": 2,
        "tool_call_id": "call_1",
        "tool_name": "tool",
        "retry": 0,
        "max_retries": 3,
        "approval": None,
        "metadata": {},
    }
    data.update(overrides)
    return ToolContext._from_wire(data)


def run_tool(t: Tool[..., Any], arguments: Any = None, *, ctx: ToolContext | None = None) -> dict[str, Any]:
    """Runs t the way the bridge does (async on a loop, sync in a worker
    thread) and checks the outcome is JSON-serialisable."""
    ctx = ctx or make_ctx(tool_name=t.name)
    raw = arguments if isinstance(arguments, (bytes, str)) else json.dumps(arguments or {}).encode()
    if t.is_async:
        outcome = asyncio.run(t._run_async(ctx, raw))
    else:

        async def in_thread() -> dict[str, Any]:
            return await asyncio.to_thread(t._run_sync, ctx, raw)

        outcome = asyncio.run(in_thread())
    json.dumps(outcome, allow_nan=False)
    return outcome


@pytest.fixture
def ctx() -> ToolContext:
    return make_ctx()
