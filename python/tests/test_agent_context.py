"""The agent context and least authority through real runs: session.context,
grants on the agent and the session, what each dependency profile receives,
context events as custom stream events, and export/restore."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import StateError, ToolContext, ToolDependencies, create_agent, tool
from starweaver.agent_context import AgentContext, TasksHandle, ToolCapabilityGrant, ToolSearchHandle
from starweaver.testing import TestModel

TASKS = "starweaver.context.tasks"
SEARCH = "starweaver.context.tool_search"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def calls(*names: str) -> TestModel:
    return TestModel.responses([TestModel.tool_call_response([call(n, f"c_{n}") for n in names]), "done"])


def test_session_context_reads_and_changes_the_runtime_state() -> None:
    session = create_agent(model=TestModel.responses(["ok"])).session()
    ctx = session.context
    assert isinstance(ctx, AgentContext)
    ctx.set_note("lang", "fr")
    ctx.set_metadata("tenant", {"id": 7})
    ctx.grant_tool_capabilities("mail", ToolCapabilityGrant(host_capabilities=("smtp",), shell_environment=True))
    added = ctx.record_tool_search_loaded(["lookup"], ["docs"])
    assert added == (("lookup",), ("docs",))
    assert ctx.record_tool_search_loaded(["lookup", "more"]) == (("more",), ())
    task = ctx.add_task("write docs")
    ctx.set_task_status(task["id"], "done")
    ctx.set_handoff_message("over to you")
    assert ctx.notes == {"lang": "fr"}
    assert ctx.metadata == {"tenant": {"id": 7}}
    assert ctx.tool_capability_grants == {"mail": ToolCapabilityGrant(("smtp",), (), True)}
    assert ctx.tool_search_loaded_tools == ("lookup", "more")
    assert ctx.tool_search_loaded_namespaces == ("docs",)
    assert [dict(t) for t in ctx.tasks] == [{"id": task["id"], "title": "write docs", "status": "done"}]
    assert ctx.handoff_message == "over to you"
    ctx.set_note("lang", "")
    ctx.set_metadata("tenant", None)
    ctx.revoke_tool_capabilities("mail")
    ctx.clear_tool_search_loaded()
    assert (ctx.notes, ctx.metadata, ctx.tool_capability_grants, ctx.tool_search_loaded_tools) == ({}, {}, {}, ())
    with pytest.raises(ValueError, match="no task"):
        ctx.set_task_status("task_999", "done")
    with pytest.raises(TypeError):
        ctx.grant_tool_capabilities("mail", {"host_capabilities": ["smtp"]})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ToolCapabilityGrant(host_capabilities=("",))


def test_context_travels_with_exported_state_and_host_configuration_does_not() -> None:
    agent = create_agent(model=TestModel.responses(["one", "two"]))
    session = agent.session()
    session.context.set_note("lang", "fr")
    session.context.grant_tool_capabilities("mail", ToolCapabilityGrant(host_capabilities=("smtp",)))
    session.context.record_tool_search_loaded(["lookup"], ["docs"])
    session.context.set_shell_environment({"HOME": "/home/agent"})
    run(session.run("hi"))
    state = session.export_state()
    restored = agent.session_from_state(state, allow_unsigned=True)
    rc = restored.context
    assert rc.notes == {"lang": "fr"}
    assert rc.tool_capability_grants == {"mail": ToolCapabilityGrant(host_capabilities=("smtp",))}
    assert (rc.tool_search_loaded_tools, rc.tool_search_loaded_namespaces) == (("lookup",), ("docs",))
    assert session.context.usage["requests"] == 1
    assert rc.usage.get("requests", 0) == 0


def test_legacy_tool_reads_notes_through_the_agent_context() -> None:
    """The seed's read_note example, in Python."""

    @tool
    def read_note(ctx: ToolContext, key: str) -> dict[str, str]:
        """Read one AgentContext note."""
        assert ctx.agent_context is not None
        ctx.agent_context.set_note("read", key)
        return {"value": ctx.agent_context.notes.get(key, "")}

    @tool(dependencies=ToolDependencies.filtered())
    def narrowed(ctx: ToolContext) -> bool:
        return ctx.agent_context is None

    model = TestModel.responses(
        [TestModel.tool_call_response([call("read_note", "c1", key="lang"), call("narrowed", "c2")]), "done"]
    )
    session = create_agent(model=model, tools=[read_note, narrowed]).session()
    session.context.set_note("lang", "Chinese")
    run(session.run("read note"))
    assert tool_returns(model.captured_messages(), "read_note")[0]["content"] == {"value": "Chinese"}
    assert tool_returns(model.captured_messages(), "narrowed")[0]["content"] is True
    assert session.context.notes["read"] == "lang"


def test_strict_gets_the_intersection_of_declaration_and_grant() -> None:
    seen: dict[str, Any] = {}

    @tool(
        dependencies=ToolDependencies.strict(
            "db", "mail", shell_environment=True, context_capabilities=(TASKS, SEARCH, "starweaver.context.nope")
        )
    )
    def strict(ctx: ToolContext) -> str:
        seen[ctx.tool_call_id] = (dict(ctx.deps), ctx.context_capabilities, ctx.shell_environment, ctx.profile)
        return "ok"

    model = TestModel.responses(
        [
            TestModel.tool_call_response([call("strict", "c1")]),
            "one",
            TestModel.tool_call_response([call("strict", "c2")]),
            "two",
            TestModel.tool_call_response([call("strict", "c3")]),
            "three",
        ]
    )
    agent = create_agent(model=model, tools=[strict], deps={"db": 1, "mail": 2, "secret": 3})
    session = agent.session()
    session.context.set_shell_environment({"HOME": "/h"})
    run(session.run("no grant"))
    session.context.grant_tool_capabilities(
        "strict",
        ToolCapabilityGrant(
            host_capabilities=("db", "secret"), context_capabilities=(TASKS, "starweaver.context.nope")
        ),
    )
    run(session.run("grant without shell"))
    session.context.grant_tool_capabilities(
        "strict", ToolCapabilityGrant(host_capabilities=("mail",), shell_environment=True)
    )
    run(session.run("grant with shell"))
    assert seen["c1"] == ({}, (), None, "strict")
    assert seen["c2"] == ({"db": 1}, (TASKS,), None, "strict")
    assert seen["c3"] == ({"mail": 2}, (), {"HOME": "/h"}, "strict")


def test_filtered_and_legacy_shell_environment() -> None:
    seen: dict[str, Any] = {}

    @tool
    def legacy(ctx: ToolContext) -> str:
        seen["legacy"] = ctx.shell_environment
        return "ok"

    @tool(dependencies=ToolDependencies.filtered())
    def plain(ctx: ToolContext) -> str:
        seen["plain"] = ctx.shell_environment
        return "ok"

    @tool(dependencies=ToolDependencies.filtered(shell_environment=True))
    def shell(ctx: ToolContext) -> str:
        seen["shell"] = ctx.shell_environment
        return "ok"

    session = create_agent(model=calls("legacy", "plain", "shell"), tools=[legacy, plain, shell]).session()
    session.context.set_shell_environment({"PATH": "/bin"})
    run(session.run("go"))
    assert seen == {"legacy": {"PATH": "/bin"}, "plain": None, "shell": {"PATH": "/bin"}}


def test_tools_asking_for_context_capabilities_run_one_at_a_time() -> None:
    active = 0
    most = 0
    lock = threading.Lock()

    async def body() -> str:
        nonlocal active, most
        with lock:
            active += 1
            most = max(most, active)
        await asyncio.sleep(0.02)
        with lock:
            active -= 1
        return "ok"

    @tool(dependencies=ToolDependencies.filtered(context_capabilities=(TASKS,)))
    async def first() -> str:
        return await body()

    @tool(dependencies=ToolDependencies.filtered())
    async def second() -> str:
        return await body()

    run(create_agent(model=calls("first", "second"), tools=[first, second]).run("go"))
    assert most == 1


def test_context_events_reach_the_stream_as_custom_events() -> None:
    @tool
    def announce(ctx: ToolContext) -> str:
        assert ctx.agent_context is not None
        ctx.agent_context.publish("announced", {"by": ctx.tool_call_id})
        return "ok"

    agent = create_agent(model=calls("announce"), tools=[announce])

    async def main() -> list[Any]:
        session = agent.session()
        session.context.publish("queued_before", {"n": 1})
        async with session.run_stream("go") as stream:
            return [ev async for ev in stream]

    events = run(main())
    customs = [ev.custom for ev in events if ev.kind == "custom"]
    kinds = [c["kind"] for c in customs if c]
    assert "queued_before" in kinds and "announced" in kinds
    assert kinds.index("queued_before") < kinds.index("announced")
    assert next(c for c in customs if c and c["kind"] == "announced")["payload"] == {"by": "c_announce"}


def test_events_published_between_runs_can_be_taken() -> None:
    session = create_agent(model=TestModel.responses(["ok"])).session()
    session.context.publish("hello", {"x": 1})
    events = session.context.take_events()
    assert [(e.kind, dict(e.payload)) for e in events] == [("hello", {"x": 1})]
    assert session.context.take_events() == []
    with pytest.raises(ValueError):
        session.context.publish("")


def test_agent_grants_are_session_defaults_and_reject_bad_values() -> None:
    seen: list[Any] = []

    @tool(dependencies=ToolDependencies.strict("db"))
    def probe(ctx: ToolContext) -> str:
        seen.append(dict(ctx.deps))
        return "ok"

    grants = {"probe": ToolCapabilityGrant(host_capabilities=("db",))}
    agent = create_agent(model=calls("probe"), tools=[probe], deps={"db": 1}, tool_capability_grants=grants)
    run(agent.run("go"))
    assert seen == [{"db": 1}]
    with pytest.raises(TypeError, match="ToolCapabilityGrant"):
        create_agent(model=TestModel("ok"), tool_capability_grants={"probe": {"host_capabilities": ["db"]}})  # type: ignore[dict-item]


def test_named_dependencies_of_the_session_join_its_runs() -> None:
    seen: list[Any] = []

    @tool(dependencies=ToolDependencies.filtered("db", "cache"))
    def probe(ctx: ToolContext) -> str:
        seen.append(dict(ctx.deps))
        return "ok"

    model = TestModel.responses(
        [
            TestModel.tool_call_response([call("probe", "a")]),
            "1",
            TestModel.tool_call_response([call("probe", "b")]),
            "2",
        ]
    )
    session = create_agent(model=model, tools=[probe], deps={"db": "agent-db"}).session()
    session.context.insert_named_dependency("cache", "session-cache")
    assert session.context.named_dependencies == {"cache": "session-cache"}
    run(session.run("one"))
    run(session.run("two", deps={"cache": "run-cache"}))
    assert seen == [{"db": "agent-db", "cache": "session-cache"}, {"db": "agent-db", "cache": "run-cache"}]
    with pytest.raises(StateError):
        AgentContext(0).insert_named_dependency("x", 1)


def test_context_handles_are_given_only_for_authorised_capabilities() -> None:
    seen: dict[str, Any] = {}

    @tool(dependencies=ToolDependencies.filtered(context_capabilities=(TASKS,)))
    def planner(ctx: ToolContext) -> str:
        tasks = ctx.context_handle(TASKS)
        assert isinstance(tasks, TasksHandle)
        task = tasks.add("review")
        tasks.set_status(task["id"], "in_progress")
        seen["search"] = ctx.context_handle(SEARCH)
        return "planned"

    @tool(dependencies=ToolDependencies.strict(context_capabilities=(SEARCH, TASKS)))
    def finder(ctx: ToolContext) -> str:
        search = ctx.context_handle(SEARCH)
        assert isinstance(search, ToolSearchHandle)
        search.record(["found_tool"])
        seen["finder_tasks"] = ctx.context_handle(TASKS)
        return "found"

    grants = {"finder": ToolCapabilityGrant(context_capabilities=(SEARCH,))}
    session = create_agent(
        model=calls("planner", "finder"), tools=[planner, finder], tool_capability_grants=grants
    ).session()
    run(session.run("go"))
    assert [(t["title"], t["status"]) for t in session.context.tasks] == [("review", "in_progress")]
    assert session.context.tool_search_loaded_tools == ("found_tool",)
    assert seen == {"search": None, "finder_tasks": None}
