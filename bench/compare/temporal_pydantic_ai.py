#!/usr/bin/env python3
"""pydantic-ai's TemporalAgent on the scenarios of bench/temporal.py, run in
the pydantic-ai virtual environment (bench/temporal.py starts it): the
same stateless function model, the same trivial tools, the same server.

Prints one JSON object: {"version": ..., "<scenario>": [seconds, ...]}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from datetime import timedelta
from importlib.metadata import version as dist_version
from typing import Any

from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from pydantic_ai import Agent
    from pydantic_ai.durable_exec.temporal import AgentPlugin, PydanticAIPlugin, TemporalAgent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import UsageLimits

TOOLS = 64


def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The prompt says the scenario: "turns K" asks for K turns of one call
    each, "calls N" for one turn of N parallel calls."""
    prompt = str(messages[0].parts[-1].content)  # type: ignore[union-attr]
    kind, n = prompt.split()
    k = int(n)
    done = sum(isinstance(p, ToolReturnPart) for m in messages for p in m.parts)
    if kind == "turns":
        if done < k:
            return ModelResponse(parts=[ToolCallPart(tool_name="t0", args={"x": done}, tool_call_id=f"c{done}")])
        return ModelResponse(parts=[TextPart(f"done {done}")])
    if done == 0 and k > 0:
        return ModelResponse(
            parts=[ToolCallPart(tool_name=f"t{i % TOOLS}", args={"x": i}, tool_call_id=f"c{i}") for i in range(k)]
        )
    return ModelResponse(parts=[TextPart(f"done {done}")])


agent = Agent(FunctionModel(respond), name="bench")
for _i in range(TOOLS):

    def _make(i: int) -> Any:
        async def t(x: int) -> int:
            return x + i

        t.__name__ = f"t{i}"
        return t

    agent.tool_plain(name=f"t{_i}")(_make(_i))

temporal_agent = TemporalAgent(agent, activity_config={"start_to_close_timeout": timedelta(seconds=60)})


@workflow.defn
class BenchWorkflow:
    @workflow.run
    async def run(self, prompt: str) -> str:
        result = await temporal_agent.run(prompt, usage_limits=UsageLimits(request_limit=1000))
        return result.output


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", default="127.0.0.1:7233")
    parser.add_argument("--scenarios", required=True, help="JSON list of [name, prompt, concurrency, rounds]")
    args = parser.parse_args()
    client = await Client.connect(args.address, plugins=[PydanticAIPlugin()])
    queue = f"bench-pai-{uuid.uuid4()}"
    out: dict[str, Any] = {"version": dist_version("pydantic-ai-slim")}
    async with Worker(client, task_queue=queue, workflows=[BenchWorkflow], plugins=[AgentPlugin(temporal_agent)]):

        async def one(prompt: str) -> None:
            output = await client.execute_workflow(
                BenchWorkflow.run, prompt, id=f"{queue}-{uuid.uuid4()}", task_queue=queue
            )
            if not output.startswith("done"):
                raise RuntimeError(f"unexpected output {output!r}")

        await one("turns 1")  # warm-up
        for name, prompt, concurrency, rounds in json.loads(args.scenarios):
            times = []
            for _ in range(rounds):
                start = time.perf_counter()
                await asyncio.gather(*(one(prompt) for _ in range(concurrency)))
                times.append(time.perf_counter() - start)
            out[name] = times
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
