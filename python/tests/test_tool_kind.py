"""``kind=``/``ToolKind`` on Python tools and the metadata readers
``tool_metadata_kind``, ``tool_metadata_tags`` and
``tool_metadata_hidden_by_tags``, through the definitions a model receives."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starweaver import BaseTool, ToolContext, _capi, tool
from starweaver.agent import create_agent
from starweaver.testing import TestModel
from starweaver.tools import (
    TOOL_KIND_KEY,
    ToolKind,
    tool_metadata_hidden_by_tags,
    tool_metadata_kind,
    tool_metadata_tags,
)


@tool(kind=ToolKind.EXTERNAL, tags=["filesystem", " search", "filesystem"], hidden_by_tags=["remote-search"])
def external_search(query: str) -> str:
    """Search externally."""
    return query


def test_tool_kinds_are_the_runtimes() -> None:
    assert [k.value for k in ToolKind] == _capi.error_kinds()["tool_kinds"]


def test_kind_and_tags_read_back_from_the_definition() -> None:
    md = external_search.definition()["metadata"]
    assert md[TOOL_KIND_KEY] == "external"
    assert tool_metadata_kind(md) is ToolKind.EXTERNAL
    assert external_search.kind is ToolKind.EXTERNAL
    assert tool_metadata_tags(md) == ["filesystem", "search"]
    assert tool_metadata_hidden_by_tags(md) == ["remote-search"]
    # Readers of hand-written metadata normalise as the runtime does.
    assert tool_metadata_tags({"tags": [" a", "", 3, "a", "b"]}) == ["a", "b"]
    assert tool_metadata_kind({TOOL_KIND_KEY: "weird"}) is None
    assert tool_metadata_kind(None) is None and tool_metadata_tags({}) == []


def test_kind_takes_a_value_and_replace_changes_it() -> None:
    t = tool(lambda: "x", name="deferred_one", kind="deferred")
    assert t.kind is ToolKind.DEFERRED
    assert t.replace(kind=ToolKind.OUTPUT).kind is ToolKind.OUTPUT
    assert TOOL_KIND_KEY not in t.replace(kind=None).definition().get("metadata", {})
    with pytest.raises(ValueError, match="unknown tool kind 'weird'"):
        tool(lambda: "x", name="bad", kind="weird")
    with pytest.raises(TypeError, match="kind must be a ToolKind"):
        tool(lambda: "x", name="bad", kind=3)  # type: ignore[call-overload]


class Lookup(BaseTool):
    """Look something up."""

    kind = ToolKind.UNAPPROVED

    def call(self, ctx: ToolContext, args: dict[str, Any]) -> Any:
        return args


def test_the_model_receives_the_kind() -> None:
    model = TestModel("done")
    asyncio.run(create_agent(model=model, tools=[external_search, Lookup()]).run("go"))
    sent = {d["name"]: d for d in model.captured_params()[0]["tools"]}
    assert tool_metadata_kind(sent["external_search"]["metadata"]) is ToolKind.EXTERNAL
    assert tool_metadata_kind(sent["lookup"]["metadata"]) is ToolKind.UNAPPROVED
    assert tool_metadata_tags(sent["external_search"]["metadata"]) == ["filesystem", "search"]
