"""Typed messages through real runs: results, captured requests, FunctionModel
callbacks, message_history, the messages of failed runs, and Execution."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from helpers import call
from starweaver import Execution, FunctionModel, TestModel, ToolContext, UsageLimits, _capi, create_agent, tool
from starweaver.errors import ModelError, UsageLimitExceeded
from starweaver.messages import (
    InstructionPart,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
    messages_from_json,
    messages_to_json,
)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@tool
def add(left: int, right: int) -> int:
    return left + right


def test_run_result_and_captured_messages_are_typed_and_dump_to_the_wire_shape() -> None:
    model = TestModel(responses=[{"tool_calls": [call("add", left=1, right=2)]}, "three"])
    agent = create_agent(model=model, tools=[add], instructions="be exact", system_prompt="You add.")
    session = agent.session()
    result = run(session.run("hi"))
    request, response, returns, answer = result.messages
    assert isinstance(request, ModelRequest) and isinstance(response, ModelResponse)
    assert isinstance(request.parts[0], SystemPromptPart) and isinstance(request.parts[1], UserPromptPart)
    assert request.parts[1].text == "hi" and request.instructions == "be exact"
    assert response.tool_calls == [ToolCallPart(id="call_add", name="add", arguments={"left": 1, "right": 2})]
    (ret,) = result.tool_returns()
    assert isinstance(ret, ToolReturnPart) and ret.content == 3 and ret.error_kind is None
    assert isinstance(answer, ModelResponse) and answer.text == "three"
    # The JSON form is exactly the runtime's (the dicts of earlier versions).
    for typed, raw in zip(result.messages, _capi.session_messages(session._handle), strict=True):
        assert typed.model_dump(mode="json") == raw
    # Captured requests are typed too; every list validates as a whole.
    captured = model.captured_messages()
    assert all(isinstance(m, (ModelRequest, ModelResponse)) for req in captured for m in req)
    assert ModelMessagesTypeAdapter.validate_python(captured[-1]) == captured[-1]


def test_messages_still_read_like_dicts() -> None:
    model = TestModel(responses=[{"tool_calls": [call("add", left=2, right=2)]}, "four"])
    result = run(create_agent(model=model, tools=[add]).run("go"))
    first = result.messages[0]
    assert first["kind"] == "request" and first.get("run_id") == result.run_id
    assert "instructions" not in first and first.get("instructions", "none") == "none"
    part = first["parts"][0]
    assert part == {"kind": "user_prompt", "content": [{"kind": "text", "text": "go"}]}
    assert dict(part) == {"kind": "user_prompt", "content": part["content"]}
    ret = result.tool_returns()[0]
    assert set(ret) == {"kind", "tool_call_id", "name", "content", "is_error", "metadata"}
    with pytest.raises(KeyError):
        ret["app_value"]


def test_function_model_receives_typed_messages() -> None:
    seen: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: dict[str, Any]) -> Any:
        seen.append(messages)
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        if any(isinstance(p, ToolReturnPart) for p in last.parts):
            return "done"
        return {"tool_calls": [call("add", left=1, right=1)]}

    model = FunctionModel(respond)
    run(create_agent(model=model, tools=[add]).run("go"))
    assert isinstance(seen[1][-1].parts[0], ToolReturnPart) and seen[1][-1].parts[0].content == 2
    assert model.captured_messages() == seen


def test_part_classes_build_and_round_trip() -> None:
    messages: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart(text="sys"), InstructionPart(text="do"), UserPromptPart(content="hi")]),
        ModelResponse(parts=[ThinkingPart(text="hmm", signature="sig"), ToolCallPart(id="c1", name="add")]),
        ModelRequest(parts=[ToolReturnPart(tool_call_id="c1", name="add", content=None)]),
        ModelResponse(parts=[TextPart(text="ok")]),
        ModelRequest(parts=[RetryPromptPart(text="again")]),
    ]
    data = messages_to_json(messages)
    assert data[1]["parts"] == [
        {"kind": "thinking", "text": "hmm", "signature": "sig"},
        {"kind": "tool_call", "id": "c1", "name": "add", "arguments": {}},
    ]
    # A null content is kept: it is the tool's answer.
    assert data[2]["parts"][0] == {
        "kind": "tool_return",
        "tool_call_id": "c1",
        "name": "add",
        "content": None,
        "is_error": False,
        "metadata": {},
    }
    assert messages_from_json(json.dumps(data)) == messages


def test_message_history_continues_on_a_fresh_session() -> None:
    first = run(create_agent(model=TestModel("Paris")).run("Capital of France?"))
    model = TestModel("About 2 million.")
    agent = create_agent(model=model)
    typed = run(agent.run("How many people live there?", message_history=first.messages))
    # Dicts (for example read back from JSON) work the same.
    as_dicts = json.loads(json.dumps(messages_to_json(first.messages)))
    plain = run(create_agent(model=TestModel("About 2 million.")).run("How many?", message_history=as_dicts))
    seen = model.captured_messages()[0]
    assert [m.kind for m in seen] == ["request", "response", "request"]
    assert seen[1] == first.messages[1]
    assert typed.messages[:2] == first.messages and len(typed.new_messages) == 2
    assert plain.messages[:2] == first.messages
    # A session can start from a history too.
    session = agent.session(message_history=first.messages)
    assert session.messages == first.messages


@pytest.mark.parametrize(
    ("history", "match"),
    [
        (
            [{"kind": "request", "parts": [{"kind": "user_prompt", "content": "hi"}]}, {"kind": "nope", "parts": []}],
            "kind",
        ),
        (
            [
                {"kind": "request", "parts": [{"kind": "user_prompt", "content": [{"kind": "text", "text": "hi"}]}]},
                {"kind": "response", "parts": [{"kind": "tool_call", "id": "c1", "name": "add", "arguments": {}}]},
            ],
            'tool call "c1" is not answered',
        ),
        ([{"kind": "request", "parts": []}], "no parts"),
    ],
)
def test_malformed_message_history_is_a_value_error(history: list[dict[str, Any]], match: str) -> None:
    agent = create_agent(model=TestModel("ok"))
    with pytest.raises(ValueError, match=match):
        run(agent.run("go", message_history=history))


def test_failed_run_keeps_its_messages_on_the_exception_and_in_the_session() -> None:
    model = TestModel(
        responses=[{"tool_calls": [call("add", "c1", left=1, right=1), call("add", "c2", left=2, right=2)]}, "next"]
    )
    agent = create_agent(model=model, tools=[add], usage_limits=UsageLimits(tool_calls_limit=1))

    async def main() -> None:
        session = agent.session()
        with pytest.raises(UsageLimitExceeded) as info:
            await session.run("go")
        kinds = [m.kind for m in info.value.messages]
        assert kinds == ["request", "response", "request"]
        # The calls that never ran are answered, so the history stays valid.
        closing = info.value.messages[-1]
        assert isinstance(closing, ModelRequest)
        assert [(p.tool_call_id, p.error_kind) for p in closing.parts if isinstance(p, ToolReturnPart)] == [
            ("c1", "cancelled"),
            ("c2", "cancelled"),
        ]
        assert session.messages == list(info.value.messages)
        after = await session.run("again")
        assert after.output == "next" and len(after.messages) == 5
        # The exception's messages are a valid history for a fresh session.
        again = await create_agent(model=TestModel("ok")).run("retry", message_history=info.value.messages)
        assert again.output == "ok"

    run(main())


def test_model_error_keeps_the_prompt() -> None:
    def broken(messages: list[ModelMessage], info: dict[str, Any]) -> Any:
        raise RuntimeError("provider down")

    with pytest.raises(ModelError) as info:
        run(create_agent(model=FunctionModel(broken)).run("hello"))
    (request,) = info.value.messages
    assert isinstance(request, ModelRequest) and request.parts[0] == UserPromptPart(content="hello")


def test_raising_execution_is_retried_internally_like_any_failure() -> None:
    attempts: list[int] = []

    @tool(max_retries=2)
    def flaky(ctx: ToolContext) -> str:
        attempts.append(ctx.retry)
        if len(attempts) < 3:
            raise Execution("backend hiccup")
        return "fine"

    @tool(max_retries=1)
    def broken() -> str:
        raise Execution("backend gone")

    model = TestModel(responses=[{"tool_calls": [call("flaky"), call("broken")]}, "done"])
    result = run(create_agent(model=model, tools=[flaky, broken]).run("go"))
    assert attempts == [0, 1, 2]
    by_name = {r.name: r for r in result.tool_returns()}
    assert by_name["flaky"].content == "fine" and not by_name["flaky"].is_error
    gone = by_name["broken"]
    assert gone.is_error and gone.error_kind == "execution" and gone.metadata["tool_retry"] == 1
    assert "backend gone" in gone.content["message"]
    assert gone.private_metadata is not None and gone.private_metadata["python_exception_type"] == "Execution"


def test_cancelled_run_keeps_its_messages_in_the_session() -> None:
    started = asyncio.Event()

    @tool
    async def hang() -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    async def main() -> None:
        model = TestModel(responses=[{"tool_calls": [call("hang")]}, "after"])
        session = create_agent(model=model, tools=[hang]).session()
        running = asyncio.ensure_future(session.run("go"))
        await started.wait()
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        kinds = [m.kind for m in session.messages]
        assert kinds == ["request", "response", "request"]
        (ret,) = [p for p in session.messages[-1].parts if isinstance(p, ToolReturnPart)]
        assert ret.error_kind == "cancelled"
        assert (await session.run("again")).output == "after"

    run(main())
