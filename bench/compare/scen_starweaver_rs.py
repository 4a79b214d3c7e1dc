#!/usr/bin/env python3
"""Comparison scenarios for the `starweaver` package from PyPI (Rust core).

API used (read from its installed source): ``from starweaver import
create_agent, Tool``; ``from starweaver.testing import TestModel``;
``TestModel.responses([TestModel.tool_call_response([...]), "done"])``;
``await create_agent(model=..., tools=[...]).run(prompt)``. Its
``create_agent`` converts tools with ``Tool.to_native()``, which needs a
running event loop, so agents are built inside ``prepare`` (not timed).
"""

from __future__ import annotations

from importlib.metadata import version as dist_version
from typing import Any

import _harness
from starweaver import Tool, create_agent
from starweaver.testing import TestModel


async def setup(scenario: str, names: list[str], funcs: list[Any]) -> Any:
    tools = [Tool(f, name=n) for n, f in zip(names, funcs, strict=True)]
    if _harness.is_turns(scenario):
        k = _harness.SCENARIOS[scenario][0]
        script: list[Any] = [
            TestModel.tool_call_response([{"id": f"call_{i}", "name": names[0], "arguments": {}}]) for i in range(k)
        ]
    else:
        calls = [{"id": f"call_{i}", "name": n, "arguments": {}} for i, n in enumerate(names)]
        script = [TestModel.tool_call_response(calls)]
    return tools, script + ["done"]


async def prepare(state: Any) -> Any:
    tools, script = state
    model = TestModel.responses(script)
    agent = create_agent(model=model, tools=tools)

    async def run() -> None:
        result = await agent.run("go")
        if result.output != "done":
            raise RuntimeError(f"unexpected output {result.output!r}")

    return run


if __name__ == "__main__":
    import sys

    _harness.main(sys.modules[__name__], "starweaver (PyPI, Rust core)", dist_version("starweaver"))
