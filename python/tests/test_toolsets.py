"""Toolset combinators, availability, preparation and tags, through real runs."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import AgentError, tool
from starweaver.agent import create_agent
from starweaver.testing import FunctionModel, TestModel
from starweaver.toolsets import CombinedToolset, Toolset, ToolsetContext


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@tool
def read(path: str) -> str:
    """Read a file."""
    return f"read {path}"


@tool
def write(path: str, text: str) -> str:
    """Write a file."""
    return f"wrote {path}"


@tool
def remove(path: str) -> str:
    """Remove a file."""
    return f"removed {path}"


@tool
def fetch(url: str) -> str:
    """Fetch a URL."""
    return f"fetched {url}"


def files() -> Toolset:
    return Toolset("files", tools=[read, write, remove], id="files")


def sent(model: TestModel | FunctionModel, request: int = 0) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = model.captured_params()[request]["tools"]
    return tools


def names(model: TestModel | FunctionModel, request: int = 0) -> list[str]:
    return [d["name"] for d in sent(model, request)]


def unavailable_events(events: list[dict[str, Any]]) -> list[list[str]]:
    return [
        e["custom"]["payload"]["unavailable"]
        for e in events
        if e.get("kind") == "custom" and e.get("custom", {}).get("kind") == "tools_unavailable"
    ]


# -- static combinators ---------------------------------------------------------


def test_prefixed_renamed_filtered_and_with_metadata_reach_the_model_and_run() -> None:
    ts = (
        files()
        .filtered(exclude="remove")
        .renamed({"read": "cat"})
        .with_metadata({"bundle": "fs"}, owner="ops")
        .prefixed("fs")
    )
    model = TestModel(responses=[TestModel.tool_call_response([call("fs_cat", path="a.txt")]), "done"])
    res = run(create_agent(model=model, toolsets=[ts]).run("go"))
    assert res.output == "done"
    defs = {d["name"]: d for d in sent(model)}
    assert sorted(defs) == ["fs_cat", "fs_write"]
    assert defs["fs_cat"]["metadata"] == {"bundle": "fs", "owner": "ops", "original_tool_name": "read"}
    assert defs["fs_cat"]["description"] == "Read a file."
    [ret] = tool_returns(model.captured_messages(), "fs_cat")
    assert ret["content"] == "read a.txt"


def test_filtered_include_keeps_only_the_named_tools() -> None:
    model = TestModel("ok")
    run(create_agent(model=model, toolsets=[files().filtered(include=["read", "nope"])]).run("go"))
    assert names(model) == ["read"]
    with pytest.raises(ValueError, match="include or exclude"):
        files().filtered(include="read", exclude="write")


def test_combinators_return_copies() -> None:
    base = files()
    model = TestModel("ok")
    run(create_agent(model=model, toolsets=[base, base.prefixed("x").filtered(include="x_read")]).run("go"))
    assert sorted(names(model)) == ["read", "remove", "write", "x_read"]


def test_combined_toolset_unites_members_and_names_both_on_a_duplicate() -> None:
    web = Toolset("web", tools=[fetch], instructions="Fetch politely.")
    model = TestModel("ok")
    run(create_agent(model=model, toolsets=[CombinedToolset("all", [files().prefixed("fs"), web])]).run("go"))
    assert names(model) == ["fetch", "fs_read", "fs_remove", "fs_write"]
    assert "Fetch politely." in model.captured_messages()[0][0]["instructions"]
    twice = CombinedToolset("all", [files(), Toolset("more", tools=[read])])
    with pytest.raises(AgentError, match=r'"read".*"files".*"more"|read.*files.*more'):
        create_agent(model=TestModel("ok"), toolsets=[twice])


# -- tool availability and preparation ----------------------------------------------


def test_available_and_prepare_on_tools_are_asked_each_step_with_the_run_context() -> None:
    seen: list[tuple[str, int, dict[str, Any], tuple[str, ...], Any]] = []
    threads: list[str] = []

    def only_first_step(ctx: ToolsetContext) -> bool:
        threads.append(threading.current_thread().name)
        seen.append((ctx.run_id, ctx.run_step, dict(ctx.metadata), ctx.active_tags, ctx.deps.get("user")))
        return ctx.run_step == 0

    async def describe(ctx: ToolsetContext, definition: dict[str, Any]) -> dict[str, Any] | None:
        if ctx.metadata.get("hide"):
            return None
        return {**definition, "description": f"step {ctx.run_step}: {definition['description']}"}

    probe = tool(read.func, name="probe", available=only_first_step)
    described = tool(write.func, name="described", prepare=describe)
    events: list[dict[str, Any]] = []
    model = TestModel(responses=[TestModel.tool_call_response([call("probe", path="x")]), "done"])
    agent = create_agent(model=model, tools=[probe, described], deps={"user": "ada"}, metadata={"team": "a"})
    res = run(agent.run("go", on_event=events.append, active_tags=["beta"]))
    assert res.output == "done"
    assert names(model, 0) == ["described", "probe"] and names(model, 1) == ["described"]
    assert sent(model, 0)[0]["description"] == "step 0: Write a file."
    assert sent(model, 1)[0]["description"] == "step 1: Write a file."
    assert unavailable_events(events) == [["probe"]]
    run_ids = {s[0] for s in seen}
    assert len(run_ids) == 1 and run_ids != {""}
    assert [s[1:] for s in seen] == [(0, {"team": "a"}, ("beta",), "ada"), (1, {"team": "a"}, ("beta",), "ada")]
    assert all(name.startswith("starweaver-tool") for name in threads), threads  # sync checks run in the pool

    hidden = TestModel("ok")
    run(create_agent(model=hidden, tools=[described]).run("go", metadata={"hide": True}))
    assert names(hidden) == []


def test_unavailable_tools_fail_policy_fails_the_run_before_the_model_is_asked() -> None:
    gated = tool(read.func, name="gated", available=lambda ctx: False)
    model = TestModel("ok")
    with pytest.raises(AgentError, match="gated"):
        run(create_agent(model=model, tools=[gated], unavailable_tools="fail").run("go"))
    assert model.captured_params() == []


def test_a_raising_availability_check_ends_the_run_with_a_clear_error() -> None:
    def broken(ctx: ToolsetContext) -> bool:
        raise RuntimeError("no database")

    with pytest.raises(AgentError, match=r"available callback of tool 'flaky' raised RuntimeError: no database"):
        run(create_agent(model=TestModel("ok"), tools=[tool(read.func, name="flaky", available=broken)]).run("go"))

    def not_bool(ctx: ToolsetContext) -> Any:
        return "yes"

    with pytest.raises(AgentError, match="available must return a bool"):
        run(create_agent(model=TestModel("ok"), tools=[tool(read.func, name="flaky", available=not_bool)]).run("go"))


# -- toolset preparation ---------------------------------------------------------------


def test_prepared_rewrites_and_hides_definitions_with_the_run_context() -> None:
    contexts: list[ToolsetContext] = []

    def prepare(ctx: ToolsetContext, defs: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        contexts.append(ctx)
        if ctx.metadata.get("unchanged"):
            return None
        return [{**d, "description": "careful"} for d in defs if d["name"] != "remove"]

    ts = files().prepared(prepare).prefixed("fs")
    model = TestModel(responses=[TestModel.tool_call_response([call("fs_read", path="b")]), "done"])
    events: list[dict[str, Any]] = []
    res = run(create_agent(model=model, toolsets=[ts]).run("go", on_event=events.append))
    assert res.output == "done"
    assert [(d["name"], d["description"]) for d in sent(model)] == [("fs_read", "careful"), ("fs_write", "careful")]
    assert tool_returns(model.captured_messages(), "fs_read")[0]["content"] == "read b"
    assert contexts[0].run_id and contexts[0].run_step == 0

    unchanged = TestModel("ok")
    run(create_agent(model=unchanged, toolsets=[ts]).run("go", metadata={"unchanged": True}))
    assert [d["description"] for d in sent(unchanged)] == ["Read a file.", "Remove a file.", "Write a file."]


def test_async_prepared_and_predicate_filter() -> None:
    async def only_reads(ctx: ToolsetContext, defs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        await asyncio.sleep(0)
        return [d for d in defs if d["name"].startswith("re")]

    model = TestModel("ok")
    ts = files().with_metadata(safe=True).prepared(only_reads).filtered(predicate=lambda d: d["name"] != "remove")
    run(create_agent(model=model, toolsets=[ts]).run("go"))
    assert names(model) == ["read"]


def test_a_failing_prepared_callback_ends_the_run_with_a_clear_error() -> None:
    def broken(ctx: ToolsetContext, defs: list[dict[str, Any]]) -> Any:
        raise KeyError("tenant")

    with pytest.raises(AgentError, match=r"prepared\(\) callback of toolset 'files' raised KeyError"):
        run(create_agent(model=TestModel("ok"), toolsets=[files().prepared(broken)]).run("go"))

    def renames(ctx: ToolsetContext, defs: list[dict[str, Any]]) -> Any:
        return [{**defs[0], "name": "other"}]

    with pytest.raises(AgentError, match="other"):
        run(create_agent(model=TestModel("ok"), toolsets=[files().prepared(renames)]).run("go"))


# -- tags ------------------------------------------------------------------------------------


def test_hidden_by_tags_and_active_tags_of_agent_and_run() -> None:
    local = tool(read.func, name="search_files", tags=["search", "filesystem"], hidden_by_tags=["remote-search"])
    remote = tool(fetch.func, name="search_web", tags=["search"], hidden_by_tags=["offline"])
    assert local.definition()["metadata"] == {"tags": ["search", "filesystem"], "hidden_by_tags": ["remote-search"]}

    model = TestModel(responses=["a", "b"])
    agent = create_agent(model=model, tools=[local, remote], active_tags=["offline"])
    events: list[dict[str, Any]] = []
    run(agent.run("go", on_event=events.append))
    assert names(model, 0) == ["search_files"]
    assert unavailable_events(events) == [["search_web"]]
    run(agent.run("go", active_tags=["remote-search"]))
    assert names(model, 1) == []

    with pytest.raises(AgentError, match="search_web"):
        run(
            create_agent(model=TestModel("ok"), tools=[remote], unavailable_tools="fail").run(
                "go", active_tags=["offline"]
            )
        )
    with pytest.raises(TypeError):
        tool(read.func, tags="search")


# -- FunctionToolset ----------------------------------------------------------------------------


def test_function_toolset_decorators_defaults_and_per_context_instructions() -> None:
    from starweaver import FunctionToolset, ToolContext

    ops = FunctionToolset(
        "ops",
        instructions=["Use ops tools carefully.", lambda ctx: f"Tenant: {ctx.metadata.get('tenant')}."],
        metadata={"bundle": "ops", "owner": "team"},
        sequential=True,
        timeout_ms=5000,
        max_retries=1,
    )

    @ops.tool
    async def restart(ctx: ToolContext, service: str) -> str:
        """Restart a service."""
        return f"{ctx.tool_name} {service}"

    @ops.tool_plain(metadata={"owner": "sre"}, max_retries=4)
    def status(service: str) -> str:
        """Service status."""
        return f"{service} is up"

    @ops.instructions
    async def on_call(ctx: ToolsetContext) -> list[str]:
        return [f"On call for run step {ctx.run_step}."]

    def uptime() -> int:
        """Uptime in seconds."""
        return 42

    added = ops.add_function(uptime, name="uptime_s")
    assert added.name == "uptime_s" and added() == 42
    assert restart.name == "restart" and status("db") == "db is up"  # still callable

    model = TestModel(
        responses=[TestModel.tool_call_response([call("restart", service="web"), call("status", service="db")]), "ok"]
    )
    res = run(create_agent(model=model, toolsets=[ops]).run("go", metadata={"tenant": "acme"}))
    assert res.output == "ok"
    defs = {d["name"]: d for d in sent(model)}
    assert defs["restart"]["metadata"] == {"bundle": "ops", "owner": "team"}
    assert defs["status"]["metadata"] == {"bundle": "ops", "owner": "sre", "max_retries": 4}
    assert all(d.get("sequential") for d in defs.values())
    instructions = model.captured_messages()[0][0]["instructions"]
    assert "Use ops tools carefully.\n\nTenant: acme.\n\nOn call for run step 0." in instructions
    assert {r["name"]: r["content"] for r in tool_returns(model.captured_messages())} == {
        "restart": "restart web",
        "status": "db is up",
    }
    assert status.max_retries == 4 and ops.max_retries == 1


def test_function_toolset_rejects_duplicates_naming_both_definitions_and_ctx_in_tool_plain() -> None:
    from starweaver import FunctionToolset, ToolContext

    ts = FunctionToolset("files", tools=[read])

    def other_read(path: str) -> str:
        """Another read."""
        return path

    with pytest.raises(
        ValueError, match=r"duplicate tool name 'read' in toolset 'files': defined by .*read.*and by .*other_read"
    ):
        ts.add_function(other_read, name="read")
    with pytest.raises(ValueError, match="tool_plain functions cannot accept ToolContext"):

        @ts.tool_plain
        def needs_ctx(ctx: ToolContext, x: int) -> int:
            return x

    with pytest.raises(ValueError, match="requires a description"):
        FunctionToolset("strict", strict=True).add_function(
            lambda x: x, name="nodoc", parameters_schema={"type": "object", "properties": {"x": {"type": "integer"}}}
        )
    with pytest.raises(TypeError):
        ts.add_function(other_read, colour="red")


def test_a_raising_instructions_callback_ends_the_run_clearly() -> None:
    from starweaver import FunctionToolset

    def broken(ctx: ToolsetContext) -> str:
        raise ValueError("no tenant")

    ts = FunctionToolset("ops", tools=[read], instructions=[broken])
    with pytest.raises(AgentError, match=r"instructions callback of toolset 'ops' raised ValueError: no tenant"):
        run(create_agent(model=TestModel("ok"), toolsets=[ts]).run("go"))


def test_run_level_toolsets_and_async_checks_live_as_long_as_their_run() -> None:
    import gc

    async def later_steps_only(ctx: ToolsetContext) -> bool:
        gc.collect()  # the toolset below is only referenced by the run
        return ctx.run_step > 0

    def shout(ctx: ToolsetContext, defs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        gc.collect()
        return [{**d, "description": d["description"].upper()} for d in defs]

    late = tool(read.func, name="late", available=later_steps_only)
    model = TestModel(responses=[TestModel.tool_call_response([call("read", path="p")]), "done"])
    agent = create_agent(model=model)
    res = run(agent.run("go", tools=[late], toolsets=[Toolset("files", tools=[read]).prepared(shout)]))
    assert res.output == "done"
    assert [(d["name"], d["description"]) for d in sent(model, 0)] == [("read", "READ A FILE.")]
    assert names(model, 1) == ["late", "read"]
