"""Built-in plugins installed by id (core/agent's plugin specs): the batch
tool as the plugin "starweaver.batch", of which batch_tool=True is the
shorthand."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers import tool_returns
from starweaver import AgentError, create_agent, tool
from starweaver.testing import TestModel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@tool
def add(a: int, b: int) -> int:
    return a + b


def offered(model: TestModel) -> list[str]:
    return sorted(t["name"] for t in model.captured_params()[0]["tools"])


def test_the_batch_plugin_installs_the_batch_tool() -> None:
    calls = [{"tool": "add", "parameters": {"a": 1, "b": 2}}, {"tool": "add", "parameters": {"a": 3, "b": 4}}]
    model = TestModel.responses(
        [TestModel.tool_call_response([{"id": "b1", "name": "batch", "arguments": {"tool_calls": calls}}]), "done"]
    )
    result = run(create_agent(model=model, tools=[add], plugins=["starweaver.batch"]).run("go"))
    assert result.output == "done" and offered(model) == ["add", "batch"]
    messages: Any = model.captured_messages()
    (ret,) = tool_returns(messages, "batch")
    assert [r["result"] for r in ret["content"]["results"]] == [3, 7]


def test_shorthand_and_plugin_install_one_batch_tool() -> None:
    model = TestModel("hi")
    run(create_agent(model=model, tools=[add], plugins=["starweaver.batch"], batch_tool=True).run("go"))
    assert offered(model) == ["add", "batch"]


def test_plugin_ids_are_checked() -> None:
    with pytest.raises(TypeError, match="plugins must be an iterable"):
        create_agent(model=TestModel("hi"), plugins="starweaver.batch")
    with pytest.raises((AgentError, ValueError), match='unknown plugin "nope"'):
        create_agent(model=TestModel("hi"), plugins=["nope"])
    with pytest.raises((AgentError, ValueError), match="installed twice"):
        create_agent(model=TestModel("hi"), plugins=["starweaver.batch", "starweaver.batch"])
