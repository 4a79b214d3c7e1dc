"""The host preview: ``agent.availability_report()`` and
``agent.definitions_for_context()`` show what a run would offer the model
and why each other tool is hidden, computed by the runtime's own filter."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starweaver import AgentError, Toolset, ToolsetContext, tool
from starweaver.agent import AvailabilityReport, create_agent
from starweaver.catalog import ToolLibrary, ToolSearchToolset
from starweaver.testing import TestModel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@tool
def lookup_docs(topic: str) -> str:
    """Look up documentation by topic."""
    return topic


def enabled(ctx: ToolsetContext) -> bool:
    return bool(ctx.metadata.get("enable_gated_tool"))


async def for_tenant(ctx: ToolsetContext, definition: dict[str, Any]) -> dict[str, Any] | None:
    tenant = ctx.metadata.get("tenant")
    if tenant is None:
        return None
    return {**definition, "description": f"Lookup data for tenant {tenant}"}


def gated() -> str:
    """Only visible when enabled."""
    return "ok"


def tenant_lookup() -> str:
    """Lookup tenant data."""
    return "ok"


def search_files() -> str:
    """Search files."""
    return "ok"


def plain() -> str:
    """Always there."""
    return "ok"


def agent(model: TestModel | None = None) -> Any:
    docs = Toolset("docs", tools=[lookup_docs], id="docs_ns")
    return create_agent(
        model=model or TestModel("done"),
        tools=[
            tool(gated, available=enabled),
            tool(tenant_lookup, prepare=for_tenant),
            tool(search_files, hidden_by_tags=["remote-search"]),
            tool(plain),
        ],
        toolsets=[ToolSearchToolset(ToolLibrary([docs]))],
    )


def test_the_report_says_why_each_tool_is_hidden_and_matches_the_run() -> None:
    model = TestModel("done")
    a = agent(model)
    options: dict[str, Any] = {
        "metadata": {"tenant": "acme"},
        "active_tags": ["remote-search"],
        "grants": ["gated", "tenant_lookup", "search_files", "tool_search", "lookup_docs"],
    }
    report = run(a.availability_report(**options))
    assert isinstance(report, AvailabilityReport)
    assert report.available == ("tenant_lookup", "tool_search")
    assert report.unavailable == ("gated", "search_files")
    assert dict(report.reasons) == {
        "gated": "unavailable",
        "search_files": "hidden_by_tags",
        "lookup_docs": "not_loaded",
        "plain": "not_granted",
    }
    assert report.definitions[0]["description"] == "Lookup data for tenant acme"
    assert "tool_search" in report.instructions
    assert model.captured_params() == []  # no model was asked
    run(a.run("go", **options))
    assert [d["name"] for d in model.captured_params()[0]["tools"]] == list(report.available)


def test_definitions_for_context_reads_a_sessions_context() -> None:
    a = agent()
    session = a.session()
    session.context.record_tool_search_loaded(["lookup_docs"])
    defs = run(a.definitions_for_context(context=session.context, metadata={"enable_gated_tool": True}))
    assert [d["name"] for d in defs] == ["gated", "lookup_docs", "plain", "search_files", "tool_search"]
    report = run(a.availability_report(context=session.context))
    assert dict(report.reasons) == {"gated": "unavailable", "tenant_lookup": "prepare_hidden"}
    assert session.messages == []
    # Without the session's context, tool search has loaded nothing.
    fresh = run(a.availability_report())
    assert fresh.reasons["lookup_docs"] == "not_loaded"


def test_the_report_refuses_what_the_run_refuses() -> None:
    with pytest.raises(AgentError, match="nope"):
        run(agent().availability_report(grants=["nope"]))
    with pytest.raises(TypeError, match="session.context"):
        run(agent().availability_report(context=object()))
