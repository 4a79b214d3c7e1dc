"""OpenTelemetry spans made from a run's events (starweaver.tracing), read
back through the SDK's in-memory exporter. The handle leak check of
conftest.py runs around every test.

The tests that read spans need opentelemetry-sdk (the test extra installs
it). Without it they skip, saying so, unless STARWEAVER_REQUIRE_OTEL is set
(CI sets it): then they fail.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import subprocess
import sys
from collections.abc import Awaitable, Iterator
from typing import Any, TypeVar

import pytest
from starweaver import create_agent, tool
from starweaver.testing import FunctionModel, TestModel

try:
    from opentelemetry import trace as otel_trace
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import StatusCode

    OTEL_MISSING = ""
except ImportError as exc:
    OTEL_MISSING = (
        f"the tracing tests need opentelemetry-sdk (pip install 'opentelemetry-sdk>=1.20'; "
        f"STARWEAVER_REQUIRE_OTEL=1 fails instead): {exc}"
    )

T = TypeVar("T")


@pytest.fixture
def sdk() -> None:
    """Skips the test without opentelemetry-sdk, or fails it when
    STARWEAVER_REQUIRE_OTEL is set."""
    if OTEL_MISSING:
        if os.environ.get("STARWEAVER_REQUIRE_OTEL"):
            pytest.fail(f"{OTEL_MISSING} (STARWEAVER_REQUIRE_OTEL is set)")
        pytest.skip(OTEL_MISSING)


def run(coro: Awaitable[T]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(coro, 30)

    return asyncio.run(bounded())


@pytest.fixture
def exporter(sdk: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    """A global SDK provider for one test. The API sets its global provider
    only once per process, so the test replaces the module's variable and
    monkeypatch restores it."""
    exp = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exp))
    monkeypatch.setattr(otel_trace, "_TRACER_PROVIDER", provider)
    yield exp
    provider.shutdown()


@tool
async def add(a: int, b: int) -> int:
    return a + b


@tool
async def boom() -> int:
    raise RuntimeError("the tool broke")


def two_calls(second: str = "add") -> TestModel:
    args = {"a": 1, "b": 2} if second == "add" else {}
    return TestModel(
        responses=[
            {
                "tool_calls": [
                    {"id": "c1", "name": "add", "arguments": {"a": 1, "b": 2}},
                    {"id": "c2", "name": second, "arguments": args},
                ],
                "usage": {"input_tokens": 10, "output_tokens": 4},
            },
            {"text": "done", "usage": {"input_tokens": 20, "output_tokens": 1}},
        ]
    )


def by_name(spans: tuple[ReadableSpan, ...]) -> dict[str, list[ReadableSpan]]:
    out: dict[str, list[ReadableSpan]] = {}
    for s in spans:
        out.setdefault(s.name, []).append(s)
    return out


def parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def span_id(span: ReadableSpan) -> int:
    ctx = span.context
    assert ctx is not None
    return ctx.span_id


def test_span_tree_of_two_parallel_calls(exporter: InMemorySpanExporter) -> None:
    agent = create_agent(model=two_calls(), tools=[add], name="calc")
    result = run(agent.run("add twice"))
    assert result.output == "done"

    spans = by_name(exporter.get_finished_spans())
    assert sorted(spans) == ["chat test", "execute_tool add", "invoke_agent calc"]
    (root,) = spans["invoke_agent calc"]
    assert len(spans["chat test"]) == 2 and len(spans["execute_tool add"]) == 2
    assert root.parent is None
    for child in spans["chat test"] + spans["execute_tool add"]:
        assert parent_id(child) == span_id(root)
    attrs = dict(root.attributes or {})
    assert attrs["gen_ai.operation.name"] == "invoke_agent"
    assert attrs["gen_ai.agent.name"] == "calc"
    assert attrs["gen_ai.usage.input_tokens"] == 30 and attrs["gen_ai.usage.output_tokens"] == 5
    assert str(attrs["starweaver.run_id"]).startswith("run_")

    first_chat, second_chat = sorted(spans["chat test"], key=lambda s: s.start_time or 0)
    chat = dict(first_chat.attributes or {})
    assert chat["gen_ai.operation.name"] == "chat"
    assert (chat["gen_ai.usage.input_tokens"], chat["gen_ai.usage.output_tokens"]) == (10, 4)

    tools = {dict(s.attributes or {})["gen_ai.tool.call.id"]: s for s in spans["execute_tool add"]}
    assert sorted(tools) == ["c1", "c2"]
    for s in tools.values():
        a = dict(s.attributes or {})
        assert a["gen_ai.operation.name"] == "execute_tool" and a["gen_ai.tool.name"] == "add"
        assert a["starweaver.tool.retry"] == 0
        assert "error.type" not in a and s.status.status_code != StatusCode.ERROR
        # Content is opt-in.
        assert "gen_ai.tool.call.arguments" not in a and "gen_ai.tool.call.result" not in a
        # The tool ran between the start of the response that asked for it
        # (a TestModel streams, so eager dispatch may start a call before its
        # response ends: test_eagerly_started_calls_have_one_span_each)
        # and the next request.
        assert (first_chat.start_time or 0) <= (s.start_time or 0)
        assert (s.end_time or 0) <= (second_chat.start_time or 0)


def test_failed_tool_has_error_type(exporter: InMemorySpanExporter) -> None:
    agent = create_agent(model=two_calls("boom"), tools=[add, boom], name="calc")
    run(agent.run("go"))
    (failed,) = by_name(exporter.get_finished_spans())["execute_tool boom"]
    attrs = dict(failed.attributes or {})
    assert attrs["error.type"] == "execution"
    assert attrs["gen_ai.tool.call.id"] == "c2"
    assert failed.status.status_code == StatusCode.ERROR


def test_content_is_recorded_with_the_opt_in(exporter: InMemorySpanExporter) -> None:
    agent = create_agent(model=two_calls(), tools=[add], trace_content=True)
    run(agent.run("go"))
    spans = by_name(exporter.get_finished_spans())
    assert "invoke_agent" in spans  # an agent without a name
    for s in spans["execute_tool add"]:
        attrs = dict(s.attributes or {})
        assert attrs["gen_ai.tool.call.arguments"] == '{"a":1,"b":2}'
        assert attrs["gen_ai.tool.call.result"] == "3"


def test_failed_run_marks_the_run_span(exporter: InMemorySpanExporter) -> None:
    def respond(messages: list[Any], info: dict[str, Any]) -> Any:
        raise RuntimeError("no answer")

    agent = create_agent(model=FunctionModel(respond, model_name="fn"))
    with pytest.raises(Exception):  # noqa: B017 - the run's own error class is not the point
        run(agent.run("go"))
    spans = by_name(exporter.get_finished_spans())
    (root,) = spans["invoke_agent"]
    (chat,) = spans["chat fn"]
    assert dict(root.attributes or {})["error.type"] == "run_failed"
    assert root.status.status_code == StatusCode.ERROR
    assert dict(chat.attributes or {})["gen_ai.request.model"] == "fn"


def test_user_callback_still_receives_events(exporter: InMemorySpanExporter) -> None:
    seen: list[str] = []

    async def on_event(event: dict[str, Any]) -> None:
        seen.append(event["kind"])

    agent = create_agent(model=two_calls(), tools=[add])
    run(agent.run("go", on_event=on_event))
    assert seen[0] == "run_start" and seen[-1] == "run_complete"
    assert len(exporter.get_finished_spans()) == 5


def test_parent_is_the_callers_current_span(exporter: InMemorySpanExporter) -> None:
    """What logfire.span(...) does: a current span from the global provider's
    tracer, opened with the plain API, around the run."""
    tracer = otel_trace.get_tracer("app")
    agent = create_agent(model=two_calls(), tools=[add], name="calc")

    async def main() -> None:
        with tracer.start_as_current_span("request handler"):
            await agent.run("go")

    run(main())
    spans = by_name(exporter.get_finished_spans())
    (outer,) = spans["request handler"]
    (root,) = spans["invoke_agent calc"]
    assert parent_id(root) == span_id(outer)
    assert root.context is not None and outer.context is not None
    assert root.context.trace_id == outer.context.trace_id


def test_streamed_run_is_traced(exporter: InMemorySpanExporter) -> None:
    agent = create_agent(model=two_calls(), tools=[add], name="calc")

    async def main() -> str:
        async with agent.run_stream("go") as live:
            async for _ in live:
                pass
            return str((await live.result()).output)

    assert run(main()) == "done"
    assert sorted(by_name(exporter.get_finished_spans())) == ["chat test", "execute_tool add", "invoke_agent calc"]


def test_nothing_is_recorded_without_a_provider(sdk: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the API's default provider the run asks for no events and no
    span reaches an SDK provider that is not the global one."""
    exp = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exp))
    monkeypatch.setattr(otel_trace, "_TRACER_PROVIDER", None)
    agent = create_agent(model=two_calls(), tools=[add])
    requests: list[dict[str, Any]] = []
    start = agent._launcher.start

    def spy(session: Any, request: dict[str, Any], *rest: Any) -> Any:
        requests.append(dict(request))
        return start(session, request, *rest)

    monkeypatch.setattr(agent._launcher, "start", spy)
    assert run(agent.run("go")).output == "done"
    assert requests and requests[0]["events"] is False
    assert exp.get_finished_spans() == ()
    provider.shutdown()


def test_imports_and_runs_without_opentelemetry() -> None:
    """The package never imports opentelemetry: a process that blocks it
    still imports starweaver and runs an agent."""
    code = (
        "import sys, asyncio\n"
        "sys.modules['opentelemetry'] = None\n"
        "from starweaver import create_agent\n"
        "from starweaver.testing import TestModel\n"
        "print(asyncio.run(create_agent(model=TestModel('ok')).run('hi')).output)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "ok"


def test_resumed_run_has_its_own_span(exporter: InMemorySpanExporter) -> None:
    ran: list[str] = []

    @tool
    async def lookup(q: str) -> str:
        ran.append(q)
        return q.upper()

    async def main() -> str:
        model = TestModel.responses(
            [TestModel.tool_call_response([{"id": "l1", "name": "lookup", "arguments": {"q": "x"}}]), "ok"]
        )
        agent = create_agent(model=model, tools=[lookup], approval_required_tools=["lookup"], name="ops")
        session = agent.session()
        waiting = await session.run("go")
        assert waiting.is_waiting
        return str((await session.resume_after_hitl(approvals={"l1": {"approved": True}})).output)

    assert run(main()) == "ok" and ran == ["x"]
    roots = by_name(exporter.get_finished_spans())["invoke_agent ops"]
    assert len(roots) == 2
    run_ids = {dict(r.attributes or {})["starweaver.run_id"] for r in roots}
    assert len(run_ids) == 1  # a resume continues the same run
    resumed = max(roots, key=lambda s: s.start_time or 0)
    calls = [
        s for s in by_name(exporter.get_finished_spans())["execute_tool lookup"] if parent_id(s) == span_id(resumed)
    ]
    assert [dict(s.attributes or {})["gen_ai.tool.call.id"] for s in calls] == ["l1"]
    assert "error.type" not in dict(calls[0].attributes or {})
    # The call that paused the first run is not a failure.
    (paused,) = [s for s in by_name(exporter.get_finished_spans())["execute_tool lookup"] if s not in calls]
    assert dict(paused.attributes or {})["starweaver.tool.paused"] == "approval_required"
    assert "error.type" not in dict(paused.attributes or {}) and paused.status.status_code != StatusCode.ERROR


def _tracer() -> Any:
    return otel_trace.get_tracer("user-code")


@tool
async def traced_async(x: int) -> int:
    with _tracer().start_as_current_span("inside async tool"):
        await asyncio.sleep(0)
    return x


@tool
def traced_sync(x: int) -> int:
    # Runs in a worker thread: the span context must follow it there.
    with _tracer().start_as_current_span("inside sync tool"):
        pass
    return x


def calls_of(*names: str) -> TestModel:
    return TestModel(
        responses=[
            {"tool_calls": [{"id": f"c{i}", "name": n, "arguments": {"x": i}} for i, n in enumerate(names)]},
            "done",
        ]
    )


def test_spans_opened_in_tools_nest_under_their_call(exporter: InMemorySpanExporter) -> None:
    agent = create_agent(model=calls_of("traced_async", "traced_sync"), tools=[traced_async, traced_sync])
    assert run(agent.run("go")).output == "done"
    spans = by_name(exporter.get_finished_spans())
    (async_call,) = spans["execute_tool traced_async"]
    (sync_call,) = spans["execute_tool traced_sync"]
    (inner_async,) = spans["inside async tool"]
    (inner_sync,) = spans["inside sync tool"]
    assert parent_id(inner_async) == span_id(async_call)
    assert parent_id(inner_sync) == span_id(sync_call)
    assert dict(async_call.attributes or {})["gen_ai.tool.call.id"] == "c0"


def test_eagerly_started_calls_have_one_span_each(exporter: InMemorySpanExporter) -> None:
    # Whichever arrives first, a call or its tool_call event, the call has
    # one span, and the spans of parallel calls stay apart.
    agent = create_agent(
        model=calls_of("traced_async", "traced_async", "traced_sync"), tools=[traced_async, traced_sync]
    )
    assert run(agent.run("go")).output == "done"
    spans = by_name(exporter.get_finished_spans())
    calls = spans["execute_tool traced_async"] + spans["execute_tool traced_sync"]
    assert sorted(dict(s.attributes or {})["gen_ai.tool.call.id"] for s in calls) == ["c0", "c1", "c2"]
    ids = {span_id(s) for s in calls}
    inner = spans["inside async tool"] + spans["inside sync tool"]
    assert len(inner) == 3 and {parent_id(s) for s in inner} == ids


def test_arguments_reach_a_span_opened_by_its_call(exporter: InMemorySpanExporter) -> None:
    agent = create_agent(model=calls_of("traced_async"), tools=[traced_async], trace_content=True)
    run(agent.run("go"))
    (call,) = by_name(exporter.get_finished_spans())["execute_tool traced_async"]
    assert dict(call.attributes or {})["gen_ai.tool.call.arguments"] == '{"x":0}'


@pytest.mark.parametrize("is_async", [False, True])
def test_python_model_runs_inside_its_chat_span(exporter: InMemorySpanExporter, is_async: bool) -> None:
    def respond(messages: list[Any], info: dict[str, Any]) -> dict[str, Any]:
        with _tracer().start_as_current_span("inside model"):
            pass
        return {
            "text": "hi",
            "finish_reason": "stop",
            "response_id": "resp-1",
            "provider": "acme",
            "model_name": "m1-0601",
        }

    async def respond_async(messages: list[Any], info: dict[str, Any]) -> dict[str, Any]:
        return respond(messages, info)

    model = FunctionModel(respond_async if is_async else respond, model_name="m1")
    agent = create_agent(model=model, name="a")
    assert run(agent.run("go")).output == "hi"
    spans = by_name(exporter.get_finished_spans())
    (chat,) = spans["chat m1"]
    (inner,) = spans["inside model"]
    assert parent_id(inner) == span_id(chat)
    attrs = dict(chat.attributes or {})
    assert attrs["gen_ai.response.finish_reasons"] == ("stop",)
    assert attrs["gen_ai.response.id"] == "resp-1" and attrs["gen_ai.provider.name"] == "acme"
    assert attrs["gen_ai.system"] == "acme"  # the older name, still read by many backends
    assert attrs["gen_ai.response.model"] == "m1-0601"


def test_chat_span_is_named_after_the_model_that_answered(exporter: InMemorySpanExporter) -> None:
    # The Go TestModel has no name up front; its responses say "test".
    agent = create_agent(model=TestModel(responses=["hi"]))
    run(agent.run("go"))
    assert "chat test" in by_name(exporter.get_finished_spans())


def test_sync_tools_see_the_callers_context_variables() -> None:
    # As with asyncio.to_thread: a sync tool runs in a copy of the
    # caller's context, even in a worker thread.
    var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="unset")
    seen: list[str] = []

    @tool
    def read_var() -> str:
        seen.append(var.get())
        return "ok"

    async def main() -> None:
        var.set("req-42")
        model = TestModel(responses=[{"tool_calls": [{"name": "read_var", "arguments": {}}]}, "done"])
        await create_agent(model=model, tools=[read_var]).run("go")

    run(main())
    assert seen == ["req-42"]


def _chunk(delta: str, finish: str | None = None) -> str:
    f = "null" if finish is None else f'"{finish}"'
    return (
        'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini",'
        f'"choices":[{{"index":0,"delta":{delta},"finish_reason":{f}}}]}}\n\n'
    )


def test_a_call_started_while_the_response_streams_runs_inside_its_span(exporter: InMemorySpanExporter) -> None:
    """Eager dispatch starts the first call before the response ends (the
    server holds the rest of it until the call has started), so the call
    opens its span before its tool_call event arrives."""
    import threading

    from fixture_server import serving
    from starweaver.models import OpenAIModel

    started = threading.Event()

    @tool
    async def first(n: int) -> int:
        started.set()
        with _tracer().start_as_current_span("inside first"):
            pass
        return n

    @tool
    async def second(n: int) -> int:
        return n

    calls = [
        _chunk(
            '{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"first","arguments":""}}]}'
        ),
        _chunk('{"tool_calls":[{"index":0,"function":{"arguments":"{\\"n\\":1}"}}]}'),
        _chunk(
            '{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"second","arguments":""}}]}'
        ),
        _chunk('{"tool_calls":[{"index":1,"function":{"arguments":"{\\"n\\":2}"}}]}'),
        _chunk("{}", "tool_calls"),
        "data: [DONE]\n\n",
    ]
    answer = [_chunk('{"role":"assistant","content":"both done"}'), _chunk("{}", "stop"), "data: [DONE]\n\n"]
    with serving({"chunks": calls, "gate": (3, started)}, {"chunks": answer}) as server:
        model = OpenAIModel("gpt-4o-mini", base_url=server.url, stream=True, max_retries=0)
        agent = create_agent(model=model, tools=[first, second], trace_content=True)
        assert run(agent.run("go")).output == "both done"
    spans = by_name(exporter.get_finished_spans())
    (call_a,) = spans["execute_tool first"]
    (inner,) = spans["inside first"]
    assert parent_id(inner) == span_id(call_a)
    first_chat = min(spans["chat gpt-4o-mini"], key=lambda s: s.start_time or 0)
    # The call started (and its span opened) before the response ended.
    assert (call_a.start_time or 0) < (first_chat.end_time or 0)
    attrs = dict(call_a.attributes or {})
    assert attrs["gen_ai.tool.call.id"] == "call_a" and attrs["gen_ai.tool.call.arguments"] == '{"n":1}'
    assert dict(first_chat.attributes or {})["gen_ai.response.finish_reasons"] == ("tool_calls",)


def test_an_agent_tools_child_run_nests_under_its_call(exporter: InMemorySpanExporter) -> None:
    child = create_agent(model=TestModel.responses(["4"]), name="maths")
    parent_model = TestModel.responses(
        [TestModel.tool_call_response([{"id": "c1", "name": "maths", "arguments": {"prompt": "2+2"}}]), "four"]
    )
    parent = create_agent(model=parent_model, name="front", tools=[child.as_tool()])
    assert run(parent.run("go")).output == "four"

    spans = by_name(exporter.get_finished_spans())
    (root,) = spans["invoke_agent front"]
    (call,) = spans["execute_tool maths"]
    (child_run,) = spans["invoke_agent maths"]
    assert parent_id(call) == span_id(root)
    assert parent_id(child_run) == span_id(call)
    chats = spans["chat test"]
    assert len(chats) == 3
    assert sorted(parent_id(c) == span_id(child_run) for c in chats) == [False, False, True]
    # The child's end does not end its parent's spans.
    assert (root.end_time or 0) >= (call.end_time or 0) >= (child_run.end_time or 0)
    assert root.status.status_code != StatusCode.ERROR


def test_chat_span_names_the_provider_by_its_well_known_value(exporter: InMemorySpanExporter) -> None:
    def respond(messages: list[Any], info: dict[str, Any]) -> dict[str, Any]:
        return {"text": "hi", "provider": "bedrock"}

    run(create_agent(model=FunctionModel(respond, model_name="m1")).run("go"))
    (chat,) = by_name(exporter.get_finished_spans())["chat m1"]
    attrs = dict(chat.attributes or {})
    assert attrs["gen_ai.provider.name"] == "aws.bedrock" and attrs["gen_ai.system"] == "aws.bedrock"
