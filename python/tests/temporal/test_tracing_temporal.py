"""A durable run continues its caller's trace: Temporal's interceptor
(StarweaverPlugin(tracing=True)) carries it into the workflow and the
activities, and each model request and tool call has its GenAI span under
its activity's. The loop, replayed as workflow code, makes no span."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator

import pytest

if os.environ.get("STARWEAVER_REQUIRE_TEMPORAL") != "1":
    pytest.importorskip("temporalio")

from starweaver.temporal import AgentPlugin, AgentRunOutcome, AgentWorkflowInput, StarweaverPlugin
from temporal_shop import greeter
from temporal_support import ADDRESS, queue
from temporalio.client import Client
from temporalio.worker import Worker

try:
    from opentelemetry import trace as otel_trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    OTEL_MISSING = ""
except ImportError as exc:
    OTEL_MISSING = f"the tracing test needs opentelemetry-sdk: {exc}"

pytestmark = [pytest.mark.keeps_handles, pytest.mark.usefixtures("temporal_server")]


@pytest.fixture
def exporter(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    """A global SDK provider for this test (see tests/test_tracing.py)."""
    if OTEL_MISSING:
        if os.environ.get("STARWEAVER_REQUIRE_OTEL"):
            pytest.fail(OTEL_MISSING)
        pytest.skip(OTEL_MISSING)
    exp = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exp))
    monkeypatch.setattr(otel_trace, "_TRACER_PROVIDER", provider)
    yield exp
    provider.shutdown()


def test_a_durable_run_continues_the_callers_trace(exporter: InMemorySpanExporter) -> None:
    async def main() -> tuple[AgentRunOutcome, int]:
        client = await Client.connect(ADDRESS, plugins=[StarweaverPlugin(tracing=True)])
        tq = queue()
        async with Worker(client, task_queue=tq, plugins=[AgentPlugin(greeter)]):
            with otel_trace.get_tracer("test").start_as_current_span("caller") as caller:
                out = await client.execute_workflow(
                    "greeter.run",
                    AgentWorkflowInput("hi"),
                    id=f"traced-{uuid.uuid4()}",
                    task_queue=tq,
                    result_type=AgentRunOutcome,
                )
            return out, caller.get_span_context().trace_id

    out, trace_id = asyncio.run(main())
    assert out.output == "greeted"
    spans = exporter.get_finished_spans()
    by_id = {s.context.span_id: s for s in spans}
    ours = sorted((s for s in spans if s.name.startswith(("chat", "execute_tool"))), key=lambda s: s.start_time or 0)
    assert [s.name for s in ours] == ["chat greeter-model", "execute_tool hello", "chat greeter-model"], [
        s.name for s in spans
    ]
    for span in ours:
        assert span.context.trace_id == trace_id, span.name
        parent = by_id.get(span.parent.span_id) if span.parent else None
        assert parent is not None and parent.name.startswith("RunActivity:greeter."), (span.name, parent)
    tool_span = ours[1]
    assert tool_span.attributes is not None and tool_span.attributes["gen_ai.tool.call.id"] == "g1"
    # The loop is workflow code (replayed): it makes no run span of its own.
    assert not [s.name for s in spans if s.name.startswith("invoke_agent")]
