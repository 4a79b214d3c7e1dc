"""An agent as a tool of another: Agent.as_tool."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers import call, tool_returns
from pydantic import BaseModel
from starweaver import ToolContext, tool
from starweaver.agent import create_agent
from starweaver.testing import FunctionModel, TestModel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class City(BaseModel):
    name: str
    population: int


def parent_calling(tool_name: str, prompt: str, final: str = "done") -> TestModel:
    return TestModel.responses(
        [
            {
                **TestModel.tool_call_response([call(tool_name, prompt=prompt)]),
                "usage": {"input_tokens": 100, "output_tokens": 10},
            },
            {"text": final, "usage": {"input_tokens": 120, "output_tokens": 5}},
        ]
    )


def test_output_reaches_the_parent_and_usage_is_summed() -> None:
    child_model = TestModel.responses([{"text": "four", "usage": {"input_tokens": 7, "output_tokens": 3}}])
    child = create_agent(model=child_model, name="maths")
    parent_model = parent_calling("maths", "2+2?", "it is four")
    parent = create_agent(model=parent_model, tools=[child.as_tool(description="does sums")])
    result = run(parent.run("ask maths"))
    assert result.output == "it is four"
    (ret,) = tool_returns(parent_model.captured_messages(), "maths")
    assert ret["content"] == "four"
    assert "2+2?" in str(child_model.captured_messages()[0][-1])
    assert result.usage.requests == 3
    assert result.usage.input_tokens == 227
    assert result.usage.output_tokens == 18
    by_agent = result.usage_by_agent
    assert sorted(by_agent) == ["", "maths"]
    assert (by_agent["maths"].requests, by_agent["maths"].input_tokens) == (1, 7)
    assert (by_agent[""].requests, by_agent[""].input_tokens, by_agent[""].output_tokens) == (2, 220, 15)


def test_typed_output_is_the_structured_value() -> None:
    child_model = TestModel.responses([TestModel.output_response({"name": "Paris", "population": 2})])
    child = create_agent(model=child_model, output_type=City, name="geo")
    parent_model = parent_calling("find_city", "capital of France")
    run(create_agent(model=parent_model, tools=[child.as_tool(name="find_city")]).run("go"))
    (ret,) = tool_returns(parent_model.captured_messages(), "find_city")
    assert ret["content"] == {"name": "Paris", "population": 2}


def test_grants_narrow_the_child() -> None:
    ran: list[str] = []

    @tool
    def search(q: str) -> str:
        ran.append("search")
        return "found"

    @tool
    def delete_file(path: str) -> str:
        ran.append("delete_file")
        return "deleted"

    child_model = TestModel.responses([TestModel.tool_call_response([call("delete_file", path="/")]), "refused"])
    child = create_agent(model=child_model, tools=[search, delete_file], name="helper")
    with pytest.raises(ValueError, match='not registered: "nope"'):
        create_agent(model=TestModel(), tools=[child.as_tool(grants=["search", "nope"])])
    parent = create_agent(model=parent_calling("helper", "clean up"), tools=[child.as_tool(grants=["search"])])
    run(parent.run("go"))
    assert ran == []
    assert [t["name"] for t in child_model.captured_params()[0]["tools"]] == ["search"]
    (refused,) = tool_returns(child_model.captured_messages(), "delete_file")
    assert "not granted to this run" in str(refused["content"])


def test_child_events_reach_on_event_tagged() -> None:
    child = create_agent(model=TestModel.responses(["hi"]), name="greeter")
    parent = create_agent(model=parent_calling("greeter", "hello"), tools=[child.as_tool()])
    events: list[dict[str, Any]] = []
    result = run(parent.run("go", on_event=events.append))
    assert [e["sequence"] for e in events] == list(range(1, len(events) + 1))
    tagged = [e for e in events if e.get("agent_name") == "greeter"]
    assert {e.get("agent_name") for e in events} == {None, "greeter"}
    kinds = [e["kind"] for e in tagged]
    assert kinds[0] == "run_start" and kinds[-1] == "run_complete"
    assert all(e["run_id"] != result.run_id for e in tagged)
    assert result.output == "done"


def test_a_child_python_tool_runs() -> None:
    seen: list[str] = []

    @tool
    def shout(text: str) -> str:
        seen.append(text)
        return text.upper()

    child_model = TestModel.responses([TestModel.tool_call_response([call("shout", text="hey")]), "shouted"])
    child = create_agent(model=child_model, tools=[shout], name="loud")
    parent_model = parent_calling("loud", "shout hey")
    result = run(create_agent(model=parent_model, tools=[child.as_tool()]).run("go"))
    assert result.output == "done"
    assert seen == ["hey"]
    (ret,) = tool_returns(child_model.captured_messages(), "shout")
    assert ret["content"] == "HEY"
    (ret,) = tool_returns(parent_model.captured_messages(), "loud")
    assert ret["content"] == "shouted"


def test_a_failing_child_is_an_error_return() -> None:
    def broken(messages: list[dict[str, Any]], info: dict[str, Any]) -> Any:
        raise RuntimeError("provider down")

    child = create_agent(model=FunctionModel(broken), name="flaky")
    parent_model = parent_calling("flaky", "x", "coped")
    result = run(create_agent(model=parent_model, tools=[child.as_tool()]).run("go"))
    assert result.output == "coped"
    (ret,) = tool_returns(parent_model.captured_messages(), "flaky")
    assert 'agent "flaky" failed' in str(ret["content"])
    assert "provider down" in str(ret["content"])


def test_as_tool_needs_a_name() -> None:
    with pytest.raises(ValueError, match="name"):
        create_agent(model=TestModel()).as_tool()


def test_an_agent_tool_given_to_one_run() -> None:
    seen: list[str] = []

    @tool
    def note(text: str) -> str:
        seen.append(text)
        return "noted"

    child = create_agent(
        model=TestModel.responses([TestModel.tool_call_response([call("note", text="x")]), "kept"]),
        tools=[note],
        name="scribe",
    )
    parent_model = parent_calling("scribe", "note x")
    result = run(create_agent(model=parent_model).run("go", tools=[child.as_tool()]))
    assert result.output == "done"
    assert seen == ["x"]
    (ret,) = tool_returns(parent_model.captured_messages(), "scribe")
    assert ret["content"] == "kept"


def test_a_streamed_parent_streams_its_children_tagged() -> None:
    child = create_agent(model=TestModel.responses(["from the child"]), name="helper")
    parent_model = TestModel.responses(
        [TestModel.tool_call_response([{"id": "c1", "name": "helper", "arguments": {"prompt": "x"}}]), "done"]
    )
    parent = create_agent(model=parent_model, tools=[child.as_tool()])

    async def main() -> None:
        own: list[str] = []
        helper: list[str] = []
        ends: list[tuple[str, str | None]] = []
        async with parent.run_stream("go") as stream:
            async for ev in stream:
                if ev.text_delta is not None:
                    (helper if ev.agent_name == "helper" else own).append(ev.text_delta)
                if ev.kind in ("run_complete", "run_start"):
                    ends.append((ev.kind, ev.agent_name))
            result = await stream.result()
        assert "".join(helper) == "from the child" and "".join(own) == "done"
        # The child's end did not end the stream: the parent's came last.
        assert ends == [
            ("run_start", None),
            ("run_start", "helper"),
            ("run_complete", "helper"),
            ("run_complete", None),
        ]
        assert result.output == "done"

    run(main())


def test_interrupting_the_parent_cancels_its_children() -> None:
    both_started = asyncio.Event()
    started: list[str] = []
    cancelled: list[str] = []

    @tool
    async def dig(ctx: ToolContext) -> str:
        """Dig until cancelled (bounded)."""
        started.append(ctx.tool_call_id)
        if len(started) == 2:
            both_started.set()
        try:
            await asyncio.wait_for(asyncio.Event().wait(), 30)
        except asyncio.CancelledError:
            cancelled.append(ctx.tool_call_id)
            raise
        return "never"

    def child_calls(call_id: str) -> Any:
        return TestModel.responses([TestModel.tool_call_response([{"id": call_id, "name": "dig", "arguments": {}}])])

    left = create_agent(model=child_calls("d1"), name="left", tools=[dig])
    right = create_agent(model=child_calls("d2"), name="right", tools=[dig])
    parent = create_agent(
        model=TestModel.responses(
            [
                TestModel.tool_call_response(
                    [
                        {"id": "a", "name": "left", "arguments": {"prompt": "dig"}},
                        {"id": "b", "name": "right", "arguments": {"prompt": "dig"}},
                    ]
                ),
                "unused",
            ]
        ),
        tools=[left.as_tool(), right.as_tool()],
    )

    async def main() -> None:
        async with parent.run_stream("go") as stream:
            await asyncio.wait_for(both_started.wait(), 30)
            stream.interrupt("stop everything")
            result = await asyncio.wait_for(stream.result(), 30)
        assert result.status == "cancelled" and "stop everything" in (result.error or "")
        assert sorted(cancelled) == ["d1", "d2"]

    run(main())


def test_a_childs_tools_get_its_own_deps_and_only_the_granted_ones_of_the_caller() -> None:
    seen: list[dict[str, Any]] = []

    @tool
    def look(ctx: ToolContext) -> str:
        """Look at the dependencies."""
        seen.append(dict(ctx.deps))
        return "looked"

    def child(name: str) -> Any:
        return create_agent(
            model=TestModel.responses(
                [TestModel.tool_call_response([{"id": "l", "name": "look", "arguments": {}}]), "ok"]
            ),
            name=name,
            tools=[look],
            deps={"own": name},
        )

    narrow, granted = child("narrow"), child("granted")
    parent = create_agent(
        model=TestModel.responses(
            [
                TestModel.tool_call_response([{"id": "a", "name": "narrow", "arguments": {"prompt": "x"}}]),
                TestModel.tool_call_response([{"id": "b", "name": "granted", "arguments": {"prompt": "x"}}]),
                "done",
            ]
        ),
        tools=[narrow.as_tool(), granted.as_tool(deps=["db"])],
        deps={"db": "the database", "secret": "the key"},
    )
    assert run(parent.run("go", deps={"secret": "the run's key"})).output == "done"
    assert seen == [{"own": "narrow"}, {"own": "granted", "db": "the database"}]
