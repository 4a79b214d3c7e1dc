"""Projected argument values (``{"__projection_ref__": ref}``) are
materialised through the agent's projection resolver before validation,
except in a tool's preserved field (core/tool tests the rules)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from starweaver import create_agent, tool
from starweaver.testing import TestModel

T = TypeVar("T")

VALUES: dict[str, Any] = {"doc-1": {"title": "Q3", "pages": 12}, "n": 42}


def run(coro: Awaitable[T]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(coro, 30)

    return asyncio.run(bounded())


def resolve(ref: Any) -> Any:
    return VALUES[ref]


def calling(name: str, arguments: dict[str, Any]) -> TestModel:
    return TestModel.responses(
        [TestModel.tool_call_response([{"id": "c1", "name": name, "arguments": arguments}]), "ok"]
    )


def returns(result: Any) -> list[Any]:
    return [p for m in result.messages for p in m.parts if p.kind == "tool_return"]


def test_projected_values_are_materialised() -> None:
    seen: list[Any] = []

    @tool
    def summarise(doc: dict[str, Any], limit: int) -> str:
        seen.append((doc, limit))
        return "ok"

    model = calling("summarise", {"doc": {"__projection_ref__": "doc-1"}, "limit": {"__projection_ref__": "n"}})
    run(create_agent(model=model, tools=[summarise], projection_resolver=resolve).run("go"))
    assert seen == [({"title": "Q3", "pages": 12}, 42)]


def test_a_preserved_field_keeps_its_wrappers() -> None:
    seen: list[Any] = []

    @tool(preserve_projected_refs_in_field="seed")
    def spawn(seed: list[Any], limit: int) -> str:
        seen.append((seed, limit))
        return "ok"

    model = calling("spawn", {"seed": [{"__projection_ref__": "doc-1"}, "plain"], "limit": {"__projection_ref__": "n"}})
    run(create_agent(model=model, tools=[spawn], projection_resolver=resolve).run("go"))
    assert seen == [([{"__projection_ref__": "doc-1"}, "plain"], 42)]


def test_an_unknown_reference_is_invalid_arguments() -> None:
    ran: list[int] = []

    @tool
    def count(n: int) -> int:
        ran.append(n)
        return n

    model = calling("count", {"n": {"__projection_ref__": "missing"}})
    result = run(create_agent(model=model, tools=[count], projection_resolver=resolve).run("go"))
    (ret,) = returns(result)
    assert (
        ran == [] and ret.content["kind"] == "invalid_arguments" and "cannot be materialised" in ret.content["message"]
    )


def test_options_are_checked() -> None:
    with pytest.raises(TypeError, match="projection_resolver must be callable"):
        create_agent(model=TestModel("hi"), projection_resolver=3)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="preserve_projected_refs_in_field must be a str"):
        tool(lambda: None, preserve_projected_refs_in_field=1)  # type: ignore[call-overload]
