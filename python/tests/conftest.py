"""Shared helpers for the pure-Python tool layer tests, and the native
handle leak check every test runs under."""

from __future__ import annotations

import asyncio
import gc
import glob
import json
import os
import secrets
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from starweaver import Tool, ToolContext, _bridge, _capi
from starweaver.context import tool_context_from_wire


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "keeps_handles: the test keeps native handles alive past its end on purpose (skips the handle leak check)",
    )
    # Tests and docs use the names' new homes: an old name is an error here
    # (the tests of the forwarding itself catch the warning with pytest.warns).
    config.addinivalue_line("filterwarnings", r"error:starweaver\..* is deprecated:DeprecationWarning")


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """One line saying what was skipped and why, grouped by reason, so that
    a run on a machine without a service (PostgreSQL, the MCP servers,
    opentelemetry-sdk) says what it did not test. CI sets the
    STARWEAVER_REQUIRE_* variables, under which those tests fail instead."""
    line = skip_summary(terminalreporter.stats.get("skipped", []))
    if line:
        terminalreporter.write_line(line, yellow=True)


def skip_summary(reports: list[Any]) -> str:
    """``"skipped N: k × reason; ..."`` for skip reports, most frequent
    reason first; empty when nothing was skipped."""
    reasons: Counter[str] = Counter()
    for rep in reports:
        longrepr = getattr(rep, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        reasons[reason.removeprefix("Skipped: ").strip()] += 1
    if not reasons:
        return ""
    total = sum(reasons.values())
    parts = [f"{n} × {reason}" for reason, n in sorted(reasons.items(), key=lambda item: (-item[1], item[0]))]
    return f"starweaver: skipped {total}: " + "; ".join(parts)


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
    return tool_context_from_wire(data)


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


# -- PostgreSQL: a schema of each test's own (tests of durable stores) ---------


def _need_postgres(what: str) -> None:
    msg = f"PostgreSQL tests need {what}: run `make postgres-up` and export the STARWEAVER_TEST_POSTGRES_DSN it prints"
    if os.environ.get("STARWEAVER_REQUIRE_POSTGRES"):
        pytest.fail(msg)
    pytest.skip(msg)


def _psql() -> str | None:
    found = shutil.which("psql")
    if found:
        return found
    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))
    return bins[-1] if bins else None


def _sql(psql: str, dsn: str, statement: str) -> None:
    subprocess.run(
        [psql, dsn, "-v", "ON_ERROR_STOP=1", "-q", "-c", statement], check=True, capture_output=True, timeout=60
    )


@pytest.fixture
def postgres_dsn() -> Iterator[str]:
    """A DSN whose search_path is a new schema of this test's, dropped after it."""
    base = os.environ.get("STARWEAVER_TEST_POSTGRES_DSN", "")
    if not base:
        _need_postgres("a server")
    psql = _psql()
    if psql is None:
        _need_postgres("psql (PostgreSQL's client, installed with the server)")
        return
    schema = "t_" + secrets.token_hex(6)
    _sql(psql, base, f"CREATE SCHEMA {schema}")
    try:
        if "://" in base:
            yield base + ("&" if "?" in base else "?") + f"search_path={schema}"
        else:
            yield f"{base} search_path={schema}"
    finally:
        gc.collect()  # closes the test's pools before their schema goes
        _sql(psql, base, f"DROP SCHEMA {schema} CASCADE")
