"""What calling an agent as a tool costs over calling a plain tool.

Scenarios, interleaved per round, each a whole run of a parent whose model
(a TestModel) calls one tool and then answers:

  plain tool             the tool is a trivial async Python function
  agent tool, Go child   the tool is ``child.as_tool()``, the child's model a
                         TestModel: the child's run stays inside the runtime
  agent tool, Py child   the child's model is a FunctionModel: the child's
                         request crosses to Python and back
  no call                the parent answers at once (the run's fixed cost)

    python bench/agent_tool.py [--rounds 9] [--runs 300]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from typing import Any

from _common import environment_line, fmt_summary, loadavg, markdown_table, summary, use_source_tree


async def main_async(rounds: int, runs: int) -> None:
    from starweaver import create_agent, tool
    from starweaver.testing import FunctionModel, TestModel

    @tool
    async def helper(prompt: str) -> str:
        """Help."""
        return "ok"

    total = (rounds + 1) * runs + 10  # scripted answers run out otherwise
    call = TestModel.tool_call_response([{"id": "c1", "name": "helper", "arguments": {"prompt": "go"}}])
    go_child = create_agent(model=TestModel.responses(["ok"] * total), name="helper")
    py_child = create_agent(model=FunctionModel(lambda messages, info: "ok"), name="helper")

    def parent(tools: list[Any], calls: bool = True) -> Any:
        script = [call, "done"] * total if calls else ["done"] * total
        return create_agent(model=TestModel.responses(script), tools=tools)

    agents = {
        "no call": parent([helper], calls=False),
        "plain tool": parent([helper]),
        "agent tool, Go child": parent([go_child.as_tool()]),
        "agent tool, Py child": parent([py_child.as_tool()]),
    }

    async def measure(agent: Any) -> float:
        gc.collect()
        t0 = time.perf_counter()
        for _ in range(runs):
            result = await agent.run("go")
            if result.output != "done":
                raise RuntimeError(f"unexpected result {result!r}")
        return (time.perf_counter() - t0) / runs * 1e6

    samples: dict[str, list[float]] = {}
    order = list(agents)
    for r in range(rounds + 1):
        for name in order if r % 2 else reversed(order):
            us = await measure(agents[name])
            if r:  # the first round warms up
                samples.setdefault(name, []).append(us)
    plain = summary(samples["plain tool"])[0]
    rows = [(k, fmt_summary(v, unit=" µs"), f"{summary(v)[0] / plain:.2f}x") for k, v in samples.items()]
    print(markdown_table(("one run", f"median [p10–p90] of {rounds} rounds", "vs plain tool"), rows))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--runs", type=int, default=300)
    args = ap.parse_args()
    print(use_source_tree())
    print(f"{environment_line()}; load average before: {loadavg()}\n")
    asyncio.run(main_async(args.rounds, args.runs))
    print(f"\nload average after: {loadavg()}")


if __name__ == "__main__":
    main()
