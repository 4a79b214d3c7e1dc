#!/usr/bin/env python3
"""Comparison scenarios for pydantic-ai.

One ``Agent`` per scenario with a ``FunctionModel`` whose function returns all
the tool calls in one ``ModelResponse`` and then the text "done" (the model
is stateless, so the agent is reused across runs). Tools are registered with
``agent.tool_plain(name=...)``; pydantic-ai runs parallel calls concurrently
and sync tools in worker threads.
"""

from __future__ import annotations

from importlib.metadata import version as dist_version
from typing import Any

import _harness
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


async def setup(scenario: str, names: list[str], funcs: list[Any]) -> Any:
    calls = [ToolCallPart(tool_name=n, args={}, tool_call_id=f"call_{i}") for i, n in enumerate(names)]

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        if any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=list(calls))

    agent = Agent(FunctionModel(respond))
    for n, f in zip(names, funcs):
        agent.tool_plain(name=n)(f)
    return agent


async def prepare(agent: Any) -> Any:
    async def run() -> None:
        result = await agent.run("go")
        if result.output != "done":
            raise RuntimeError(f"unexpected output {result.output!r}")

    return run


if __name__ == "__main__":
    import sys

    try:
        version = dist_version("pydantic-ai")
    except Exception:  # only pydantic-ai-slim installed
        version = dist_version("pydantic-ai-slim") + " (slim)"
    _harness.main(sys.modules[__name__], "pydantic-ai", version)
