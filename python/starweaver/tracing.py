"""OpenTelemetry spans for runs, made in Python from the run's events.

The Go runtime cannot hand spans to Python's exporters, so Python makes
them: one ``invoke_agent {agent}`` span per run, parented under the span
current when the run starts, with a child ``chat {model}`` per model request
and a child ``execute_tool {tool}`` per tool call (OpenTelemetry GenAI
semantic conventions). Each span starts and ends when its event arrives;
the calls of one response report their returns together once all have
finished, so parallel calls end at the same time.

User code runs inside its span: a tool (its hooks too) sees its
``execute_tool`` span as the current span, and a Python model its ``chat``
span, so spans the user opens there nest under them. A call that starts
before its ``tool_call`` event (eager dispatch starts calls while the
response still streams) opens its span itself; the event then completes it.

Tracing is on when ``opentelemetry`` has been imported and a global tracer
provider is set (``trace.set_tracer_provider``, which ``logfire.configure``
and the SDK's auto-instrumentation do). Otherwise a run pays one dict
lookup and asks the runtime for no events. ``opentelemetry-api`` is an
optional dependency (``pip install 'starweaver[otel]'``) and is never
imported here: a process that uses OpenTelemetry has imported it already.

Tool arguments and results are recorded only with
``create_agent(..., trace_content=True)``: they may hold personal or secret
data.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, Tracer

    from starweaver._bridge import EventCallback

__all__ = ["RunTrace", "start_run"]

_SCOPE = "starweaver"
_TERMINAL = frozenset({"run_complete", "run_failed", "run_cancelled", "run_waiting"})


def start_run(agent_name: str | None, model: object, content: bool) -> RunTrace | None:
    """Start a run's ``invoke_agent`` span under the current span, or
    return None when tracing is off (see the module's docstring)."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    provider = trace.get_tracer_provider()
    # The API's defaults make spans nobody records: skip the events too.
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return None
    tracer: Tracer = provider.get_tracer(_SCOPE)
    return RunTrace(tracer, agent_name, _model_name(model), content)


def _model_name(model: object) -> str | None:
    for attr in ("model_name", "name"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return None


class RunTrace:
    """The spans of one run. Events arrive in order on the event loop, so
    it keeps no lock."""

    def __init__(
        self,
        tracer: Tracer,
        agent_name: str | None,
        model_name: str | None,
        content: bool,
        parent: Context | None = None,
    ) -> None:
        from opentelemetry import trace

        self._tracer = tracer
        self._content = content
        self._model = model_name
        attrs: dict[str, Any] = {"gen_ai.operation.name": "invoke_agent"}
        if agent_name:
            attrs["gen_ai.agent.name"] = agent_name
        if model_name:
            attrs["gen_ai.request.model"] = model_name
        name = f"invoke_agent {agent_name}" if agent_name else "invoke_agent"
        self._run: Span | None = tracer.start_span(name, parent, kind=trace.SpanKind.INTERNAL, attributes=attrs)
        self._ctx: Context = trace.set_span_in_context(self._run)
        self._chat: Span | None = None
        self._tools: dict[str, Span] = {}
        self._run_id = False
        # The runs of agent tools' child agents, by run id: their events
        # arrive tagged with agent_name among the run's own.
        self._children: dict[str, RunTrace] = {}

    def wrap(self, on_event: EventCallback | None) -> EventCallback:
        """Return a callback that records each event, then hands it to
        ``on_event`` (whose result, awaitable or not, it returns)."""

        def callback(event: dict[str, Any]) -> None | Awaitable[None]:
            self.on_event(event)
            return None if on_event is None else on_event(event)

        return callback

    def on_event(self, event: Mapping[str, Any]) -> None:
        """Record one run event. It never raises into the run."""
        try:
            self._record(event)
        except Exception as exc:  # a tracing fault must not break the run
            self.close(f"tracing failed: {exc!r}", "tracing_error")

    def _record(self, event: Mapping[str, Any]) -> None:
        if event.get("agent_name"):
            self._child(event)._record_own(event)  # noqa: SLF001 - a trace records its child's events
        else:
            self._record_own(event)

    def _record_own(self, event: Mapping[str, Any]) -> None:
        kind = event.get("kind")
        if not self._run_id and self._run is not None:
            # From the first event: a resumed run has no run_start.
            self._run.set_attribute("starweaver.run_id", str(event.get("run_id", "")))
            self._run_id = True
        if kind == "model_request":
            self._end_chat(None)
            self._start_chat()
        elif kind == "model_fallback":
            self._failed_attempt(event.get("attempt"))
        elif kind == "model_response":
            if self._chat is not None:
                self._chat.set_attributes(_usage(event.get("usage")))
                self._chat.set_attributes(self._response(event.get("response")))
            self._end_chat(None)
        elif kind == "tool_call":
            call = event.get("tool_call") or {}
            call_id = str(call.get("id", ""))
            span = self._tools.get(call_id)
            if span is None:
                self._start_tool(call_id, str(call.get("name", "")), call.get("arguments"))
            elif self._content and call.get("arguments") is not None:
                # Opened by the call itself, which started first.
                span.set_attribute("gen_ai.tool.call.arguments", _json(call.get("arguments")))
        elif kind == "tool_return":
            self._end_tool(event.get("tool_return") or {})
        elif kind in _TERMINAL:
            if self._run is not None:
                self._run.set_attributes(_usage(event.get("usage")))
            failed = kind in ("run_failed", "run_cancelled")
            self.close(str(event.get("error", "")) if failed else None, str(kind))

    def _child(self, event: Mapping[str, Any]) -> RunTrace:
        """The trace of the child run that made ``event``, nested under the
        call of this run that ran it (for a grandchild too: events name
        only this run's call)."""
        from opentelemetry import trace

        run_id = str(event.get("run_id", ""))
        child = self._children.get(run_id)
        if child is None:
            call = self._tools.get(str(event.get("parent_tool_call_id", "")))
            parent = trace.set_span_in_context(call, self._ctx) if call is not None else self._ctx
            child = RunTrace(self._tracer, str(event["agent_name"]), None, self._content, parent)
            self._children[run_id] = child
        if event.get("kind") in _TERMINAL:
            # Its last event: it closes itself while recording it.
            del self._children[run_id]
        return child

    def _start_chat(self) -> Span:
        from opentelemetry import trace

        attrs: dict[str, Any] = {"gen_ai.operation.name": "chat"}
        if self._model:
            attrs["gen_ai.request.model"] = self._model
        name = f"chat {self._model}" if self._model else "chat"
        self._chat = self._tracer.start_span(name, self._ctx, kind=trace.SpanKind.CLIENT, attributes=attrs)
        return self._chat

    def _response(self, info: Any) -> dict[str, Any]:
        """The chat span's attributes from a model_response event's
        ``response``; the span is renamed after the model that answered
        when the agent's model gave no name up front."""
        if not isinstance(info, Mapping):
            return {}
        attrs: dict[str, Any] = {}
        if info.get("model_name"):
            attrs["gen_ai.response.model"] = str(info["model_name"])
            if not self._model and self._chat is not None:
                self._chat.update_name(f"chat {info['model_name']}")
        if info.get("finish_reason"):
            attrs["gen_ai.response.finish_reasons"] = (str(info["finish_reason"]),)
        if info.get("provider"):
            attrs.update(_provider_attrs(str(info["provider"])))
        if info.get("response_id"):
            attrs["gen_ai.response.id"] = str(info["response_id"])
        return attrs

    # -- the scope user code runs in (starweaver._bridge.CallScope) -------

    def enter_call(self, tool_call_id: str, tool_name: str) -> None:
        """Make the call's execute_tool span current in the context the call
        runs in (a copy made for it), opening the span if the call started
        before its tool_call event."""
        from opentelemetry import context, trace

        if self._run is None:
            return  # the run's spans are closed: leave the caller's context
        span = self._tools.get(tool_call_id)
        if span is None:
            span = self._start_tool(tool_call_id, tool_name, None)
        context.attach(trace.set_span_in_context(span, self._ctx))

    def enter_model(self) -> None:
        """Make the open chat span current in the context a Python model
        runs in (a copy made for it)."""
        from opentelemetry import context, trace

        if self._run is None:
            return
        span = self._chat if self._chat is not None else self._start_chat()
        context.attach(trace.set_span_in_context(span, self._ctx))

    def _start_tool(self, call_id: str, name: str, arguments: Any) -> Span:
        from opentelemetry import trace

        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
        }
        if self._content and arguments is not None:
            attrs["gen_ai.tool.call.arguments"] = _json(arguments)
        span = self._tracer.start_span(
            f"execute_tool {name}", self._ctx, kind=trace.SpanKind.INTERNAL, attributes=attrs
        )
        self._tools[call_id] = span
        return span

    def _end_tool(self, ret: Mapping[str, Any]) -> None:
        call_id = str(ret.get("tool_call_id", ""))
        # A call re-run by a resume had its tool_call event in the run that
        # paused: its span here covers only the return.
        span = self._tools.pop(call_id, None)
        if span is None:
            span = self._start_tool(call_id, str(ret.get("name", "")), None)
            del self._tools[call_id]
        metadata = ret.get("metadata") or {}
        span.set_attribute("starweaver.tool.retry", int(metadata.get("retry", 0)))
        kind = metadata.get("error_kind")
        if kind in ("approval_required", "call_deferred"):
            # A paused call waits for people or deferred work: not a failure.
            span.set_attribute("starweaver.tool.paused", str(kind))
        elif ret.get("is_error") and kind:
            span.set_attribute("error.type", str(kind))
            self._fail(span, None, str(metadata.get("message") or kind))
        if self._content:
            span.set_attribute("gen_ai.tool.call.result", _json(ret.get("content")))
        span.end()

    def _failed_attempt(self, attempt: Any) -> None:
        """A request a fallback's model failed: a failed child span of the
        chat span (which is the answering model's)."""
        from opentelemetry import trace

        if self._chat is None or not isinstance(attempt, Mapping):
            return
        model = str(attempt.get("model") or "")
        attrs: dict[str, Any] = {"gen_ai.operation.name": "chat"}
        if model:
            attrs["gen_ai.request.model"] = model
        if attempt.get("provider"):
            attrs.update(_provider_attrs(str(attempt["provider"])))
        ctx = trace.set_span_in_context(self._chat, self._ctx)
        span = self._tracer.start_span(
            f"chat {model}" if model else "chat", ctx, kind=trace.SpanKind.CLIENT, attributes=attrs
        )
        error_type = str(attempt.get("status_code") or attempt.get("code") or "error")
        self._fail(span, error_type, str(attempt.get("error", "")))
        span.end()

    def _end_chat(self, error: str | None) -> None:
        if self._chat is None:
            return
        if error is not None:
            self._fail(self._chat, None, error)
        self._chat.end()
        self._chat = None

    @staticmethod
    def _fail(span: Span, error_type: str | None, message: str) -> None:
        from opentelemetry.trace import Status, StatusCode

        if error_type is not None:
            span.set_attribute("error.type", error_type)
        span.set_status(Status(StatusCode.ERROR, message))

    def close(self, error: str | None, error_type: str = "run_failed") -> None:
        """End every open span; ``error`` marks the open ones failed, the
        run's with ``error_type``. A run that never reported its end (the
        host failed) is closed this way too. Closing twice does nothing."""
        for child in self._children.values():
            child.close(error, error_type)
        self._children.clear()
        self._end_chat(error)
        for span in self._tools.values():
            if error is not None:
                self._fail(span, None, error)
            span.end()
        self._tools.clear()
        if self._run is not None:
            if error is not None:
                self._fail(self._run, error_type, error)
            self._run.end()
            self._run = None


def _usage(usage: Any) -> dict[str, Any]:
    if not isinstance(usage, Mapping):
        return {}
    return {
        "gen_ai.usage.input_tokens": int(usage.get("input_tokens", 0)),
        "gen_ai.usage.output_tokens": int(usage.get("output_tokens", 0)),
    }


#: The GenAI semantic conventions' well-known provider values (what
#: observability backends group by); other names are sent as they are.
_WELL_KNOWN_PROVIDERS = {"bedrock": "aws.bedrock", "google": "gcp.gemini", "google-vertex": "gcp.vertex_ai"}


def _provider_attrs(provider: str) -> dict[str, str]:
    """A chat span's provider, under the current attribute and its older
    name (``gen_ai.system``, still read by many backends)."""
    value = _WELL_KNOWN_PROVIDERS.get(provider, provider)
    return {"gen_ai.provider.name": value, "gen_ai.system": value}


def _json(value: Any) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return repr(value)
