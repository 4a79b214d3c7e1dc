#!/usr/bin/env python3
"""Comparison scenarios for this repository's starweaver (Go core).

Run with the repository's python/ directory on PYTHONPATH (run.py does that).
"""

from __future__ import annotations

from typing import Any

import _harness
import starweaver
from starweaver import Tool
from starweaver.agent import create_agent
from starweaver.testing import TestModel
from starweaver.usage import UsageLimits


async def setup(scenario: str, names: list[str], funcs: list[Any]) -> Any:
    tools = [Tool(f, name=n) for n, f in zip(names, funcs, strict=True)]
    k = _harness.SCENARIOS[scenario][0]
    if _harness.is_turns(scenario):
        script: list[Any] = [
            TestModel.tool_call_response([{"id": f"call_{i}", "name": names[0], "arguments": {}}]) for i in range(k)
        ]
    else:
        calls = [{"id": f"call_{i}", "name": n, "arguments": {}} for i, n in enumerate(names)]
        script = [TestModel.tool_call_response(calls)]
    return tools, script + ["done"], UsageLimits(request_limit=k + 10)


async def prepare(state: Any) -> Any:
    tools, script, limits = state
    agent = create_agent(model=TestModel.responses(script), tools=tools, usage_limits=limits)

    async def run() -> None:
        result = await agent.run("go")
        if result.output != "done":
            raise RuntimeError(f"unexpected output {result.output!r}")

    return run


if __name__ == "__main__":
    import sys

    version = getattr(starweaver, "__version__", "?") + " (source tree)"
    _harness.main(sys.modules[__name__], "starweaver (this repo, Go core)", version)
