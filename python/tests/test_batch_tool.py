"""The native batch tool (create_agent(batch_tool=True)) driving Python tools."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from helpers import tool_returns
from starweaver import ApprovalRequired, Hook, ToolContext, create_agent, tool
from starweaver.testing import TestModel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def entry(name: str, /, **parameters: Any) -> dict[str, Any]:
    return {"tool": name, "parameters": parameters}


def batch_model(*calls: dict[str, Any], arguments: dict[str, Any] | None = None) -> TestModel:
    args = arguments if arguments is not None else {"tool_calls": list(calls)}
    part = {"id": "b1", "name": "batch", "arguments": args}
    return TestModel.responses([TestModel.tool_call_response([part]), "done"])


def batch_return(model: TestModel) -> dict[str, Any]:
    messages: Any = model.captured_messages()
    (ret,) = tool_returns(messages, "batch")
    return ret


def test_batch_is_opt_in() -> None:
    @tool
    def echo(text: str) -> str:
        return text

    model = TestModel("hi")
    run(create_agent(model=model, tools=[echo]).run("go"))
    assert [t["name"] for t in model.captured_params()[0]["tools"]] == ["echo"]
    model = TestModel("hi")
    run(create_agent(model=model, tools=[echo], batch_tool=True).run("go"))
    assert sorted(t["name"] for t in model.captured_params()[0]["tools"]) == ["batch", "echo"]


def test_children_run_python_tools_with_their_ids_and_results_come_in_index_order() -> None:
    seen: dict[str, str] = {}

    @tool
    def echo(ctx: ToolContext, text: str) -> str:
        seen[ctx.tool_call_id] = ctx.idempotency_key
        return text.upper()

    @tool
    async def add(a: int, b: int) -> int:
        return a + b

    model = batch_model(entry("echo", text="x"), entry("add", a=1, b=2), entry("echo", text="y"))
    result = run(create_agent(model=model, tools=[echo, add], batch_tool=True).run("go"))
    assert result.output == "done"
    ret = batch_return(model)
    assert not ret["is_error"]
    assert ret["content"] == {
        "results": [
            {"index": 0, "tool": "echo", "success": True, "duration_ms": 0, "result": "X"},
            {"index": 1, "tool": "add", "success": True, "duration_ms": 0, "result": 3},
            {"index": 2, "tool": "echo", "success": True, "duration_ms": 0, "result": "Y"},
        ]
    }
    assert sorted(seen) == ["b1:00", "b1:02"]
    assert seen["b1:02"].endswith("/child/2")
    assert [c["tool_call_id"] for c in ret["metadata"]["batch_calls"]] == ["b1:00", "b1:01", "b1:02"]


def test_malformed_arguments_are_invalid_arguments_with_the_reference_texts() -> None:
    @tool
    def echo(text: str) -> str:
        return text

    cases = [
        ({}, "Missing required parameter: tool_calls"),
        (
            {"tool_calls": [entry("echo", text="a"), {"tool": ""}]},
            "Invalid tool_calls[1].tool: expected non-empty string",
        ),
        ({"tool_calls": [{"parameters": {}}]}, "Invalid tool_calls[0].tool: expected non-empty string"),
    ]
    for arguments, message in cases:
        model = batch_model(arguments=arguments)
        run(create_agent(model=model, tools=[echo], batch_tool=True).run("go"))
        ret = batch_return(model)
        assert ret["is_error"]
        assert ret["content"]["kind"] == "invalid_arguments"
        assert ret["content"]["message"] == message


def test_nested_batch_unknown_tools_and_invalid_children_fail_one_by_one() -> None:
    ran: list[str] = []

    @tool
    def echo(text: str) -> str:
        ran.append(text)
        return text

    calls = [
        entry("batch", tool_calls=[entry("echo", text="inner")]),
        entry("missing"),
        entry("echo", text=3),
        *(entry("echo", text=str(i)) for i in range(3, 25)),
    ]
    model = batch_model(*calls)
    run(create_agent(model=model, tools=[echo], batch_tool=True).run("go"))
    ret = batch_return(model)
    assert not ret["is_error"], "the batch succeeds even when children fail"
    results = ret["content"]["results"]
    assert [r["index"] for r in results] == list(range(25))
    assert results[0] == {
        "index": 0,
        "tool": "batch",
        "success": False,
        "duration_ms": 0,
        "error": "Tool 'batch' is not allowed inside batch",
    }
    assert results[1]["error"] == "Tool 'missing' is unavailable in this session"
    assert not results[2]["success"] and "/text" in results[2]["error"]
    assert all(r["success"] for r in results[3:])
    assert sorted(ran, key=int) == [str(i) for i in range(3, 25)]


@pytest.mark.parametrize("count", [26, 10_000])
def test_more_than_25_calls_is_one_bounded_refusal(count: int) -> None:
    """Past the limit the batch is refused once, as invalid_arguments the
    model corrects, and none of its calls runs: the history holds one short
    refusal, not one error entry per call."""
    ran: list[str] = []

    @tool
    def echo(text: str) -> str:
        ran.append(text)
        return text

    model = batch_model(*(entry("echo", text=str(i)) for i in range(count)))
    result = run(create_agent(model=model, tools=[echo], batch_tool=True).run("go"))
    assert result.output == "done"
    ret = batch_return(model)
    assert ret["is_error"]
    assert ret["content"]["kind"] == "invalid_arguments"
    assert ret["content"]["message"].startswith(
        f"Maximum of 25 tool calls allowed in batch, got {count}: none of them ran"
    )
    assert len(json.dumps(ret["content"])) < 1024
    assert ran == []


def test_children_run_concurrently() -> None:
    # Each tool waits for the other to start: only concurrent children finish.
    started = {"ping": asyncio.Event(), "pong": asyncio.Event()}

    def meet(me: str, other: str) -> Any:
        async def wait() -> str:
            started[me].set()
            await asyncio.wait_for(started[other].wait(), 30)
            return me

        return tool(wait, name=me)

    async def main() -> None:
        for e in started.values():
            e.clear()
        model = batch_model(entry("ping"), entry("pong"))
        await create_agent(model=model, tools=[meet("ping", "pong"), meet("pong", "ping")], batch_tool=True).run("go")
        results = batch_return(model)["content"]["results"]
        assert [(r["success"], r.get("result")) for r in results] == [(True, "ping"), (True, "pong")]

    run(main())


def test_a_sequential_agent_runs_children_in_order() -> None:
    order: list[str] = []

    @tool
    async def step(name: str) -> str:
        order.append(f"start {name}")
        await asyncio.sleep(0)
        order.append(f"end {name}")
        return name

    model = batch_model(entry("step", name="a"), entry("step", name="b"), entry("step", name="c"))
    run(create_agent(model=model, tools=[step], batch_tool=True, sequential=True).run("go"))
    assert order == ["start a", "end a", "start b", "end b", "start c", "end c"]


def test_hooks_apply_to_children() -> None:
    seen: list[str] = []

    def before(ctx: ToolContext, args: dict[str, Any]) -> None:
        seen.append(f"{ctx.tool_name}@{ctx.tool_call_id}")
        if ctx.tool_name == "echo":
            args["text"] = args["text"] + "!"

    @tool
    def echo(text: str) -> str:
        return text

    model = batch_model(entry("echo", text="a"), entry("echo", text="b"))
    run(create_agent(model=model, tools=[echo], batch_tool=True, hooks=[Hook(before_call=before)]).run("go"))
    assert sorted(seen) == ["batch@b1", "echo@b1:00", "echo@b1:01"]
    assert [r["result"] for r in batch_return(model)["content"]["results"]] == ["a!", "b!"]


def test_a_child_needing_approval_pauses_the_batch_when_running_it_again_is_safe() -> None:
    reads: list[str] = []
    deployed: list[Any] = []

    @tool(effect="read_only")
    def status() -> str:
        reads.append("read")
        return "green"

    @tool
    def deploy(ctx: ToolContext, target: str) -> str:
        if ctx.approval is None:
            raise ApprovalRequired("deploy?", metadata={"target": target})
        deployed.append(ctx.approval["status"])
        return f"deployed {target}"

    model = batch_model(entry("status"), entry("deploy", target="prod"))
    agent = create_agent(model=model, tools=[status, deploy], batch_tool=True)

    async def main() -> None:
        session = agent.session()
        waiting = await session.run("go")
        assert waiting.status == "waiting"
        (pending,) = waiting.approvals
        assert (pending.tool_name, pending.tool_call_id) == ("batch", "b1")
        (child,) = pending.metadata["batch_approvals"]
        assert child["tool"] == "deploy" and child["tool_call_id"] == "b1:01" and child["index"] == 1
        assert child["arguments"] == {"target": "prod"} and child["metadata"]["target"] == "prod"
        assert deployed == []
        done = await session.hitl.resume(approvals=[pending.approve()])
        assert done.output == "done"

    run(main())
    assert deployed == ["approved"]
    assert reads == ["read", "read"], "the read-only sibling runs again with the approved batch"
    results = batch_return(model)["content"]["results"]
    assert [r.get("result") for r in results] == ["green", "deployed prod"]


def test_a_child_needing_approval_fails_when_a_sibling_would_run_twice() -> None:
    sent: list[str] = []

    @tool
    def send(text: str) -> str:
        sent.append(text)
        return "sent"

    @tool
    def deploy(ctx: ToolContext) -> str:
        if ctx.approval is None:
            raise ApprovalRequired("deploy?")
        return "deployed"

    model = batch_model(entry("send", text="hi"), entry("deploy"))
    result = run(create_agent(model=model, tools=[send, deploy], batch_tool=True).run("go"))
    assert result.status == "completed"
    results = batch_return(model)["content"]["results"]
    assert results[0]["success"] and not results[1]["success"]
    assert results[1]["error"].startswith("Tool 'deploy' requires approval")
    assert sent == ["hi"]
