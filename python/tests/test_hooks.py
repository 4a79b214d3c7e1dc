"""Execution hooks and argument validators, through real runs."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import (
    ApprovalRequired,
    BaseTool,
    Hook,
    InvalidArguments,
    ModelRetry,
    ToolContext,
    ToolOutcome,
    ToolResult,
    create_agent,
    tool,
)
from starweaver.testing import TestModel
from starweaver.toolsets import user_input_tools


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def one_call(tool_name: str, call_id: str = "c1", /, **arguments: Any) -> TestModel:
    part = {"id": call_id, "name": tool_name, "arguments": arguments}
    return TestModel.responses([TestModel.tool_call_response([part]), "done"])


def test_order_global_before_tool_on_input_and_tool_before_global_on_output() -> None:
    order: list[str] = []

    def g_before(ctx: ToolContext, args: dict[str, Any]) -> None:
        order.append("global before")

    async def g_after(ctx: ToolContext, outcome: ToolOutcome) -> None:
        order.append("global after")

    @tool
    def add(a: int, b: int) -> int:
        order.append("tool")
        return a + b

    @add.before_call
    async def t_before(ctx: ToolContext, args: dict[str, Any]) -> None:
        order.append("tool before")

    @add.after_call
    def t_after(ctx: ToolContext, outcome: ToolOutcome) -> None:
        order.append("tool after")

    @add.argument_validator
    def check(ctx: ToolContext, args: dict[str, Any]) -> None:
        order.append("validator")

    model = one_call("add", a=1, b=2)
    agent = create_agent(model=model, tools=[add], hooks=[Hook(before_call=g_before, after_call=g_after)])
    run(agent.run("go"))
    assert order == ["global before", "tool before", "validator", "tool", "tool after", "global after"]
    assert tool_returns(model.captured_messages(), "add")[0]["content"] == 3


def test_before_hook_rewrites_arguments_and_metadata_which_are_revalidated() -> None:
    seen: list[Any] = []

    @tool
    def greet(ctx: ToolContext, name: str) -> str:
        seen.append(ctx.metadata.get("traced"))
        return f"hello {name}"

    def upper(ctx: ToolContext, args: dict[str, Any]) -> None:
        args["name"] = args["name"].upper()  # in place
        ctx.metadata["traced"] = True

    model = one_call("greet", name="ada")
    run(create_agent(model=model, tools=[greet], hooks=[Hook(before_call=upper)]).run("go"))
    assert tool_returns(model.captured_messages(), "greet")[0]["content"] == "hello ADA"
    assert seen == [True]

    # A returned mapping replaces the arguments, and the schema still applies.
    def bad(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        return {"name": 42}

    model = one_call("greet", name="ada")
    run(create_agent(model=model, tools=[greet.replace(name="greet")], hooks=[Hook(before_call=bad)]).run("go"))
    ret = tool_returns(model.captured_messages(), "greet")[0]
    assert ret["is_error"] and ret["content"]["kind"] == "invalid_arguments"
    assert seen == [True], "the tool did not run with arguments the schema refuses"


def test_after_hook_replaces_ordinary_outcomes() -> None:
    @tool
    def fails() -> str:
        raise ModelRetry("try again")

    @fails.after_call
    def recover(ctx: ToolContext, outcome: ToolOutcome) -> Any:
        assert not outcome.ok and outcome.error_kind == "model_retry" and outcome.message == "try again"
        return ToolResult("recovered", metadata={"by": "hook"})

    @tool
    def works() -> str:
        return "fine"

    @works.after_call
    async def veto(ctx: ToolContext, outcome: ToolOutcome) -> None:
        assert outcome.ok and outcome.content == "fine"
        raise ModelRetry("the result was vetoed")

    model = TestModel.responses([TestModel.tool_call_response([call("fails"), call("works")]), "done"])
    run(create_agent(model=model, tools=[fails, works]).run("go"))
    rets = {r["name"]: r for r in tool_returns(model.captured_messages())}
    assert rets["fails"]["content"] == "recovered" and rets["fails"]["metadata"]["by"] == "hook"
    assert rets["works"]["is_error"] and rets["works"]["content"]["kind"] == "model_retry"
    assert "vetoed" in rets["works"]["content"]["message"]


def test_after_hook_observes_but_cannot_replace_an_approval() -> None:
    observed: list[str | None] = []

    @tool
    def deploy(ctx: ToolContext) -> str:
        if ctx.approval is None:
            raise ApprovalRequired("deploy?")
        return "deployed"

    def swallow(ctx: ToolContext, outcome: ToolOutcome) -> str:
        observed.append(outcome.error_kind)
        assert outcome.is_control_flow or outcome.ok
        return "replaced"

    model = one_call("deploy")
    agent = create_agent(model=model, tools=[deploy], hooks=[Hook(after_call=swallow)])

    async def main() -> None:
        session = agent.session()
        waiting = await session.run("go")
        assert waiting.status == "waiting", "the approval stays control flow"
        await session.hitl.resume(approvals=[waiting.approvals[0].approve()])

    run(main())
    assert observed == ["approval_required", None]
    # After the approval the outcome is ordinary, so the hook replaced it.
    assert tool_returns(model.captured_messages(), "deploy")[0]["content"] == "replaced"


def test_a_raising_hook_is_a_clear_user_error_never_a_hang() -> None:
    ran: list[str] = []

    @tool
    def noop() -> str:
        ran.append("tool")
        return "x"

    def broken(ctx: ToolContext, args: dict[str, Any]) -> None:
        raise RuntimeError("boom")

    async def broken_after(ctx: ToolContext, outcome: ToolOutcome) -> None:
        raise KeyError("gone")

    model = one_call("noop")
    run(create_agent(model=model, tools=[noop], hooks=[Hook(before_call=broken, name="audit")]).run("go"))
    ret = tool_returns(model.captured_messages(), "noop")[0]
    assert ret["content"]["kind"] == "user_error"
    assert "'audit'" in ret["content"]["message"] and "RuntimeError: boom" in ret["content"]["message"]
    assert ran == []

    model = one_call("noop")
    run(create_agent(model=model, tools=[noop], hooks=[Hook(after_call=broken_after)]).run("go"))
    ret = tool_returns(model.captured_messages(), "noop")[0]
    assert ret["content"]["kind"] == "user_error" and "broken_after" in ret["content"]["message"]


def test_argument_validators_normalise_and_ask_for_corrections() -> None:
    calls: list[str] = []

    @tool
    async def lookup(city: str) -> str:
        calls.append(city)
        return f"sunny in {city}"

    @lookup.argument_validator
    def strip(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        return {**args, "city": args["city"].strip()}

    @lookup.argument_validator
    async def known(ctx: ToolContext, args: dict[str, Any]) -> None:
        if args["city"] not in ("Paris", "Oslo"):
            raise InvalidArguments(f"unknown city {args['city']!r}; use Paris or Oslo")

    model = TestModel.responses(
        [
            TestModel.tool_call_response([call("lookup", "c1", city="  Atlantis ")]),
            TestModel.tool_call_response([call("lookup", "c2", city=" Paris ")]),
            "done",
        ]
    )
    result = run(create_agent(model=model, tools=[lookup]).run("go"))
    assert result.output == "done"
    assert calls == ["Paris"]
    (first,) = tool_returns(model.captured_messages()[:2], "lookup")
    assert first["content"]["kind"] == "invalid_arguments" and "'Atlantis'" in first["content"]["message"]
    assert tool_returns(model.captured_messages(), "lookup")[-1]["content"] == "sunny in Paris"


def test_global_hooks_see_go_tools() -> None:
    seen: list[tuple[str, str | None]] = []

    def audit(ctx: ToolContext, outcome: ToolOutcome) -> None:
        seen.append((ctx.tool_name, outcome.error_kind))

    question = {
        "question": "Which region?",
        "header": "Region",
        "multiSelect": False,
        "options": [{"label": "EU", "description": "Frankfurt"}, {"label": "US", "description": "Virginia"}],
    }
    model = one_call("ask_user_question", questions=[question])
    agent = create_agent(model=model, toolsets=[user_input_tools()], hooks=[Hook(after_call=audit)])
    result = run(agent.run("go"))
    assert result.status == "waiting"
    assert seen == [("ask_user_question", "approval_required")]


def test_hook_needs_a_phase() -> None:
    with pytest.raises(ValueError, match="before_call or after_call"):
        Hook()
    with pytest.raises(TypeError, match="Hook"):
        tool(lambda: 1, hooks=[lambda ctx, args: None])  # type: ignore[list-item]


def test_sync_hooks_run_in_the_worker_pool_async_ones_on_the_loop() -> None:
    threads: dict[str, bool] = {}

    def sync_hook(ctx: ToolContext, args: dict[str, Any]) -> None:
        threads["sync"] = threading.current_thread() is threading.main_thread()

    async def async_hook(ctx: ToolContext, outcome: ToolOutcome) -> None:
        threads["async"] = threading.current_thread() is threading.main_thread()

    @tool
    async def noop() -> str:
        return "x"

    run(create_agent(model=one_call("noop"), tools=[noop], hooks=[Hook(sync_hook, async_hook)]).run("go"))
    assert threads == {"sync": False, "async": True}


def test_base_tool_hooks_and_unknown_phase() -> None:
    seen: list[str] = []

    class Echo(BaseTool):
        hooks = (Hook(before_call=lambda ctx, args: seen.append("before")),)

        async def call(self, ctx: ToolContext, args: dict[str, Any]) -> Any:
            return "echo"

    run(create_agent(model=one_call("echo"), tools=[Echo()]).run("go"))
    assert seen == ["before"]
    from starweaver.hooks import _Phase

    with pytest.raises(ValueError, match="unknown hook phase 'around'"):
        _Phase(Hook(before_call=lambda ctx, args: None), {"phase": "around"}, ToolContext())
