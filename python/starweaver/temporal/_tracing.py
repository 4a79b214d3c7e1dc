"""Spans of a durable run's activities.

The loop of a durable run is workflow code: Temporal replays it, so it
makes no spans (they would be made again on each replay). What it hands
out runs once per attempt, in an activity: there the model request gets a
``chat`` span and a tool call an ``execute_tool`` span (the OpenTelemetry
GenAI names ``starweaver.tracing`` uses for local runs), current while the
model or the tool runs, so the user's own spans nest under them. With
``StarweaverPlugin(tracing=True)`` (Temporal's ``TracingInterceptor``) they
sit under the activity's span, in the trace of the caller who started the
workflow.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["activity_span"]


@contextlib.contextmanager
def activity_span(name: str, attributes: dict[str, Any]) -> Iterator[None]:
    """A span current for the block when tracing is on (an OpenTelemetry
    SDK provider is set, as for local runs), else nothing."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        yield
        return
    provider = trace.get_tracer_provider()
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        yield
        return
    kind = trace.SpanKind.CLIENT if attributes.get("gen_ai.operation.name") == "chat" else trace.SpanKind.INTERNAL
    with provider.get_tracer("starweaver").start_as_current_span(name, kind=kind, attributes=attributes):
        yield
