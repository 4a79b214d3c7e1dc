"""``PrefixedToolset`` around a tool proxy: two proxies over tools of the
same names coexist in one agent, each with its own surface and each call
tool reaching its own tools."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers import call
from starweaver import Toolset, tool
from starweaver.agent import create_agent
from starweaver.catalog import ToolLibrary, ToolProxyToolset
from starweaver.testing import TestModel
from starweaver.toolsets import PrefixedToolset


def library(where: str) -> ToolLibrary:
    @tool(name="lookup_docs")
    def lookup_docs(topic: str) -> str:
        """Look up documentation by topic."""
        return f"{where} docs about {topic}"

    return ToolLibrary([Toolset("docs", tools=[lookup_docs], id="docs_ns")])


def proxy_call(call_id: str, surface: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "name": surface, "arguments": {"name": name, "arguments": arguments}}


def test_two_prefixed_proxies_in_one_agent() -> None:
    model = TestModel(
        responses=[
            TestModel.tool_call_response([call("workspace_search_tools", "1", query="docs")]),
            TestModel.tool_call_response(
                [
                    proxy_call("2", "workspace_call_tool", "lookup_docs", {"topic": "a"}),
                    proxy_call("3", "web_call_tool", "lookup_docs", {"topic": "b"}),
                ]
            ),
            "done",
        ]
    )
    workspace = PrefixedToolset("workspace", ToolProxyToolset(library("workspace")))
    web = PrefixedToolset("web", ToolProxyToolset(library("web")))
    result = asyncio.run(create_agent(model=model, toolsets=[workspace, web]).run("go"))
    assert result.output == "done"
    names = sorted(d["name"] for d in model.captured_params()[0]["tools"])
    assert names == ["web_call_tool", "web_search_tools", "workspace_call_tool", "workspace_search_tools"]
    returns = [r["content"] for r in result.tool_returns()]
    assert '<tool name="lookup_docs"' in returns[0]
    assert returns[1:] == ["workspace docs about a", "web docs about b"]


def test_prefixed_toolset_checks_its_arguments() -> None:
    with pytest.raises(TypeError, match="wraps a Toolset"):
        PrefixedToolset("x", object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="prefix"):
        PrefixedToolset("", ToolProxyToolset(library("x")))
