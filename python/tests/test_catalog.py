"""Tool search and tool proxy catalogues (starweaver.catalog), through real runs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import ApprovalRequired, CallDeferred, ToolContext, Toolset, tool
from starweaver.agent import create_agent
from starweaver.catalog import ToolLibrary, ToolProxyToolset, ToolSearchRefreshBinding, ToolSearchToolset
from starweaver.testing import TestModel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@tool
def lookup_docs(topic: str) -> str:
    """Look up documentation by topic."""
    return f"docs about {topic}"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def library() -> ToolLibrary:
    return ToolLibrary(
        [
            Toolset("docs", tools=[lookup_docs], id="docs_ns"),
            Toolset("math", tools=[add, multiply], id="math"),
        ]
    )


def call_tool(call_id: str, tool_name: str, arguments: dict[str, Any], *, surface: str = "call_tool") -> dict[str, Any]:
    """A call of the proxy's call tool (helpers.call takes ``name`` itself)."""
    return {"id": call_id, "name": surface, "arguments": {"name": tool_name, "arguments": arguments}}


def names(model: TestModel, request: int) -> list[str]:
    return [d["name"] for d in model.captured_params()[request]["tools"]]


def custom_kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["custom"]["kind"] for e in events if e.get("kind") == "custom"]


def find_key(value: Any, key: str) -> Any:
    """The first value under ``key`` anywhere in nested dicts and lists."""
    if isinstance(value, dict):
        if key in value:
            return value[key]
        items = list(value.values())
    elif isinstance(value, list):
        items = value
    else:
        return None
    for v in items:
        found = find_key(v, key)
        if found is not None:
            return found
    return None


def test_tool_library_validates_stable_ids() -> None:
    lib = library()
    assert lib.validate_ids().ok
    assert [d["name"] for d in lib.tool_definitions()] == ["lookup_docs", "add", "multiply"]
    bad = ToolLibrary([Toolset("a", id="x"), Toolset("a", id="x"), Toolset("b")])
    report = bad.validate_ids()
    assert not report.ok
    assert [e.code for e in report.errors] == ["duplicate_id", "missing_id"]
    assert [w.code for w in report.warnings] == ["duplicate_name"]
    assert bad.validate_ids(require_ids=False).to_dict()["errors"][0]["code"] == "duplicate_id"
    with pytest.raises(ValueError, match="used twice"):
        report.raise_for_errors()
    with pytest.raises(TypeError):
        ToolLibrary(["nope"])  # type: ignore[list-item]


def test_tool_search_and_proxy_toolsets_wrap_python_tools() -> None:
    async def main() -> None:
        model = TestModel.responses(
            [
                TestModel.tool_call_response([call("tool_search", "s1", query="documentation")]),
                TestModel.tool_call_response([call("lookup_docs", "d1", topic="go")]),
                "done",
            ]
        )
        session = create_agent(model=model, toolsets=[ToolSearchToolset(library())]).session()
        result = await session.run("find docs")
        assert result.output == "done"
        assert names(model, 0) == ["tool_search"]
        assert names(model, 1) == ["lookup_docs", "tool_search"]
        loaded = tool_returns(model.captured_messages()[:2], "tool_search")[0]["content"]
        assert loaded["message"] == "Loaded 1 tool(s) for the next model turn."
        assert loaded["loaded_tools"][0]["name"] == "lookup_docs"
        assert loaded["loaded_tools"][0]["namespace"] == "docs_ns"
        assert tool_returns(model.captured_messages(), "lookup_docs")[0]["content"] == "docs about go"

        model = TestModel.responses(
            [
                TestModel.tool_call_response([call("search_tools", "s1", query="add integers")]),
                TestModel.tool_call_response([call_tool("c1", "add", {"a": 2, "b": 3})]),
                "done",
            ]
        )
        session = create_agent(model=model, toolsets=[ToolProxyToolset(library())]).session()
        result = await session.run("add")
        assert result.output == "done"
        for i in range(3):
            assert names(model, i) == ["call_tool", "search_tools"]
        found = tool_returns(model.captured_messages()[:2], "search_tools")[0]["content"]
        assert found.startswith('<search-results query="add integers" count="')
        assert '<tool name="add" toolset="math" namespace="math">' in found
        assert tool_returns(model.captured_messages(), "call_tool")[0]["content"] == 5

    run(main())


def test_tool_search_persists_loaded_state_and_sideband_events() -> None:
    async def main() -> None:
        model = TestModel.responses(
            [
                TestModel.tool_call_response([call("tool_search", "s0", query="  ")]),
                TestModel.tool_call_response([call("tool_search", "s1", query="zzqx")]),
                TestModel.tool_call_response([call("tool_search", "s2", query="math")]),
                "done",
                "again",
            ]
        )
        search = ToolSearchToolset(library(), max_results=3)
        agent = create_agent(model=model, toolsets=[search], state_key="catalog-test-key")
        session = agent.session()
        events: list[dict[str, Any]] = []
        await session.run("go", on_event=events.append)
        kinds = custom_kinds(events)
        for kind in ("tool_search_initialized", "tool_search_failed", "tool_search_no_match", "tool_search_loaded"):
            assert kind in kinds
        failed = next(e for e in events if e.get("kind") == "custom" and e["custom"]["kind"] == "tool_search_failed")
        assert failed["custom"]["payload"]["error_kind"] == "empty_query"
        assert names(model, 3) == ["add", "multiply", "tool_search"]

        state = session.export_state()
        assert find_key(state, "tool_search_loaded_namespaces") == ["math"]
        assert sorted(find_key(state, "tool_search_loaded_tools")) == ["add", "multiply"]
        restored = agent.session_from_state(state)
        await restored.run("again")
        assert names(model, 4) == ["add", "multiply", "tool_search"]

        # Host APIs on the session's loaded state.
        report = search.initialization_report()
        assert report["total_tools"] == 3 and report["total_namespaces"] == 2 and report["max_results"] == 3
        assert search.refresh_report(restored)["availability_checked"] is True
        assert search.preload_namespace(restored, "docs_ns") == {
            "loaded_tools": ["lookup_docs"],
            "loaded_namespaces": ["docs_ns"],
        }
        with pytest.raises(ValueError, match="unknown namespace"):
            search.preload_namespace(restored, "nope")
        refreshed = search.refresh_loaded_state(restored)
        assert refreshed["removed_loaded_tools"] == [] and "lookup_docs" in refreshed["retained_loaded_tools"]
        binding = ToolSearchRefreshBinding(interval_ms=1000, debounce_ms=50)
        assert search.refresh_loaded_state_if_due(restored, binding, 10) is None
        binding.inventory_changed(2, 20)
        assert binding.pending_inventory_version == 2
        assert search.refresh_loaded_state_if_due(restored, binding, 69) is None
        assert search.refresh_loaded_state_if_due(restored, binding, 70) is not None
        assert binding.inventory_version == 2 and binding.last_refresh_ms == 70
        gone = search.invalidate_loaded_state(restored, "catalogue replaced")
        assert gone["reason"] == "catalogue replaced" and gone["retained_loaded_tools"] == []
        assert search.publish_initialization_report(restored)["total_tools"] == 3
        assert search.publish_refresh_report(restored)["availability_checked"] is True

        # Events published by the host APIs reach the session's next run.
        events: list[dict[str, Any]] = []
        model_again = TestModel.responses(["ok"])
        later = create_agent(model=model_again, toolsets=[search])
        later_session = later.session()
        search.preload_namespace(later_session, "math")
        await later_session.run("go", on_event=events.append)
        assert "tool_search_loaded" in custom_kinds(events)
        assert names(model_again, 0) == ["add", "multiply", "tool_search"]

    run(main())


def test_tool_proxy_scoped_prefix_uses_fixed_surface_and_records_loaded_state() -> None:
    async def main() -> None:
        model = TestModel.responses(
            [
                TestModel.tool_call_response([call("workspace_search_tool", "s1", query="multiply")]),
                TestModel.tool_call_response(
                    [call_tool("c1", "multiply", {"a": 4, "b": 5}, surface="workspace_call_tool")]
                ),
                "done",
            ]
        )
        proxy = ToolProxyToolset(library(), prefix="workspace")
        agent = create_agent(model=model, toolsets=[proxy])
        session = agent.session()
        await session.run("go")
        for i in range(3):
            assert names(model, i) == ["workspace_call_tool", "workspace_search_tool"]
        assert tool_returns(model.captured_messages(), "workspace_call_tool")[0]["content"] == 20
        assert "multiply" in find_key(session.export_state(), "tool_search_loaded_tools")
        assert proxy.initialization_report()["search_tool_name"] == "workspace_search_tool"

        with pytest.raises(ValueError, match="prefix"):
            create_agent(model=TestModel.responses(["x"]), toolsets=[ToolProxyToolset(library(), prefix="9 bad")])

    run(main())


def test_tool_proxy_uses_namespace_descriptions_for_search() -> None:
    async def main() -> None:
        model = TestModel.responses(
            [TestModel.tool_call_response([call("search_tools", "s1", query="calculator")]), "done"]
        )
        proxy = ToolProxyToolset(library(), namespace_descriptions={"math": "Arithmetic calculator"})
        await create_agent(model=model, toolsets=[proxy]).session().run("go")
        found = tool_returns(model.captured_messages(), "search_tools")[0]["content"]
        assert 'count="2"' in found and 'name="add"' in found and 'name="multiply"' in found
        assert "lookup_docs" not in found

    run(main())


def test_tool_proxy_calls_go_through_the_runtime() -> None:
    async def main() -> None:
        model = TestModel.responses(
            [
                TestModel.tool_call_response([call_tool("c1", "add", {"a": "x"})]),
                TestModel.tool_call_response([call("add", "d1", a=1, b=2)]),
                "done",
            ]
        )
        await create_agent(model=model, toolsets=[ToolProxyToolset(library())]).session().run("go")
        invalid = tool_returns(model.captured_messages()[:2], "call_tool")[0]["content"]
        assert invalid.startswith('<tool-call-error tool="add">\n<message>')
        assert "<parameters>" in invalid
        direct = tool_returns(model.captured_messages(), "add")[0]
        # A hidden tool is never listed, and a direct call of it is not found.
        assert direct["content"]["kind"] == "not_found"

    run(main())


def test_tool_proxy_approval_pauses_and_resumes_through_call_tool() -> None:
    ran: list[str] = []

    @tool
    async def deploy(ctx: ToolContext, env: str) -> str:
        """Deploy the service."""
        if ctx.approval is None:
            raise ApprovalRequired("touches prod")
        ran.append(env)
        return f"deployed to {env}"

    async def main() -> None:
        model = TestModel.responses(
            [
                TestModel.tool_call_response([call_tool("c1", "deploy", {"env": "prod"})]),
                "done",
            ]
        )
        proxy = ToolProxyToolset([Toolset("ops", tools=[deploy], id="ops")])
        session = create_agent(model=model, toolsets=[proxy]).session()
        waiting = await session.run("deploy")
        assert waiting.is_waiting and ran == []
        (pending,) = waiting.hitl.approvals
        assert pending.tool_name == "call_tool"
        assert pending.metadata["proxied_tool"] == "deploy"
        result = await session.resume_after_hitl(approvals=[pending.approve(decided_by="ui")])
        assert result.output == "done" and ran == ["prod"]
        assert tool_returns(model.captured_messages(), "call_tool")[0]["content"] == "deployed to prod"

    run(main())


def test_catalogue_specs_are_what_the_runtime_reads() -> None:
    from starweaver._catalog import Catalog as _Catalog

    proxy = ToolProxyToolset(
        [Toolset("math", tools=[add], id="math")],
        prefix="ws",
        max_results=2,
        namespace_descriptions={"math": "Arithmetic"},
    )
    spec = _Catalog().toolset_spec(proxy)
    assert spec["catalog"] == {
        "kind": "tool_proxy",
        "max_results": 2,
        "prefix": "ws",
        "namespace_descriptions": {"math": "Arithmetic"},
    }
    assert [m["id"] for m in spec["combined"]] == ["math"]
    # Defaults are the runtime's: nothing is sent for them.
    assert _Catalog().toolset_spec(ToolSearchToolset(library()))["catalog"] == {"kind": "tool_search"}
    with pytest.raises(TypeError):
        ToolSearchToolset(library(), max_results="5")  # type: ignore[arg-type]


def test_tool_proxy_search_texts_for_blank_and_unmatched_queries() -> None:
    async def main() -> None:
        model = TestModel.responses(
            [
                TestModel.tool_call_response([call("search_tools", "s0", query="  ")]),
                TestModel.tool_call_response([call("search_tools", "s1", query='zzqx"<')]),
                "done",
            ]
        )
        events: list[dict[str, Any]] = []
        await (
            create_agent(model=model, toolsets=[ToolProxyToolset(library())])
            .session()
            .run("go", on_event=events.append)
        )
        blank, none = (r["content"] for r in tool_returns(model.captured_messages(), "search_tools"))
        assert blank == "<error>Parameter 'query' is required.</error>"
        assert none == (
            '<search-results query="zzqx&quot;&lt;" count="0">\n'
            "No tools found matching query. Try different keywords.\n"
            "</search-results>"
        )
        kinds = custom_kinds(events)
        assert "tool_search_failed" in kinds and "tool_search_no_match" in kinds

    run(main())


def test_tool_proxy_deferred_tool_pauses_and_its_result_is_call_tools_return() -> None:
    ran: list[str] = []

    @tool
    async def render(scene: str) -> str:
        """Render a scene on the render farm."""
        ran.append(scene)
        raise CallDeferred("queued on the farm", metadata={"queue": "gpu"})

    async def main() -> None:
        model = TestModel.responses([TestModel.tool_call_response([call_tool("c1", "render", {"scene": "a"})]), "ok"])
        proxy = ToolProxyToolset([Toolset("farm", tools=[render], id="farm")])
        session = create_agent(model=model, toolsets=[proxy]).session()
        waiting = await session.run("render")
        assert waiting.is_waiting and ran == ["a"]
        (pending,) = waiting.deferred
        assert pending.tool_name == "call_tool"
        assert pending.metadata["proxied_tool"] == "render" and pending.metadata["queue"] == "gpu"
        result = await session.resume_after_hitl(deferred_results=[pending.complete({"url": "s3://out.png"})])
        assert result.output == "ok" and ran == ["a"]
        (ret,) = tool_returns(model.captured_messages(), "call_tool")
        assert ret["content"] == {"url": "s3://out.png"} and ret["is_error"] is False

    run(main())


def test_host_apis_publish_refreshed_and_invalidated_events() -> None:
    search = ToolSearchToolset(library())
    session = create_agent(model=TestModel.responses(["ok"]), toolsets=[search]).session()
    search.preload_namespace(session, "math")
    search.refresh_loaded_state(session)
    search.invalidate_loaded_state(session, "catalogue replaced")
    events = session.context.take_events()
    assert [e.kind for e in events] == ["tool_search_loaded", "tool_search_refreshed", "tool_search_invalidated"]
    refreshed, invalidated = events[1].payload, events[2].payload
    assert sorted(refreshed["retained_loaded_tools"]) == ["add", "multiply"]
    assert invalidated["reason"] == "catalogue replaced"
    assert sorted(invalidated["removed_loaded_tools"]) == ["add", "multiply"]
    assert session.context.take_events() == []
