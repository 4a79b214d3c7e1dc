"""``core_toolsets()``: the standard first-party toolsets, without
``ask_user_question``, which hosts add with ``user_input_tools()``."""

from __future__ import annotations

import asyncio

from starweaver import _capi
from starweaver.agent import create_agent
from starweaver.shell import shell_toolset
from starweaver.testing import TestModel
from starweaver.toolsets import Toolset, core_toolsets, filesystem_toolset, user_input_tools


def offered(*toolsets: Toolset) -> tuple[str, ...]:
    agent = create_agent(model=TestModel("done"), toolsets=list(toolsets))
    return asyncio.run(agent.availability_report()).available


def test_core_toolsets_are_the_runtimes_core_bundles() -> None:
    core = core_toolsets()
    assert [ts.name for ts in core] == _capi.error_kinds()["core_bundles"] == ["filesystem", "shell"]
    assert core[0] is not core_toolsets()[0]  # new ones each call
    names = offered(*core)
    assert names == offered(filesystem_toolset(), shell_toolset())
    assert {"ls", "view", "edit", "shell_exec"} <= set(names)
    assert "ask_user_question" not in names


def test_user_input_is_opt_in() -> None:
    names = offered(*core_toolsets(), user_input_tools())
    assert "ask_user_question" in names
