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
from pydantic_ai.usage import UsageLimits


async def setup(scenario: str, names: list[str], funcs: list[Any]) -> Any:
    calls = [ToolCallPart(tool_name=n, args={}, tool_call_id=f"call_{i}") for i, n in enumerate(names)]
    k = _harness.SCENARIOS[scenario][0]
    turns = _harness.is_turns(scenario)

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        if turns:  # one call per turn, k turns
            done = sum(isinstance(p, ToolReturnPart) for m in messages for p in m.parts)
            if done < k:
                return ModelResponse(parts=[ToolCallPart(tool_name=names[0], args={}, tool_call_id=f"call_{done}")])
            return ModelResponse(parts=[TextPart("done")])
        if any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=list(calls))

    agent = Agent(FunctionModel(respond))
    for n, f in zip(names, funcs, strict=True):
        agent.tool_plain(name=n)(f)
    return agent, UsageLimits(request_limit=k + 10)


async def prepare(state: Any) -> Any:
    agent, limits = state

    async def run() -> None:
        result = await agent.run("go", usage_limits=limits)
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
