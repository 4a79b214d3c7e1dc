"""What a sequential agent feels: the round trip of one tool call through
the bridge, and one model turn, against plain asyncio in the same process.

Scenarios, interleaved per round (polling on and off take turns going first):

  sequential  one response calling one trivial async tool n times; calls of
              one name run in model order, so each waits for the previous
              one's outcome: (run - run with no call) / n per call
  turn        n responses of one call each, then text: a TestModel request
              and one call per turn, (run - run with no call) / n per turn
  baseline    n direct ``await tool()`` of the same function

each with the loop polling the run's pipe after an outcome (the default,
``STARWEAVER_SPIN_US``) and with polling off (``_bridge.SPIN = 0``). Go's
reader polls the completions pipe either way (capi/internal/bridge/spinread.go); its own
side alone is ``go test -bench HostRoundTrip ./capi/internal/bridge``.

    python bench/roundtrip.py [--rounds 9] [--calls 500]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from typing import Any

from _common import environment_line, fmt_summary, loadavg, markdown_table, summary, use_source_tree


async def main_async(rounds: int, n: int) -> None:
    from starweaver import _bridge, create_agent, tool
    from starweaver.testing import TestModel
    from starweaver.usage import UsageLimits

    async def step(i: int) -> int:
        return i

    t = tool(step)
    limits = UsageLimits(request_limit=n + 10)

    async def run(responses: list[Any]) -> float:
        agent = create_agent(model=TestModel.responses(responses), tools=[t], usage_limits=limits)
        gc.collect()
        t0 = time.perf_counter()
        result = await agent.run("go")
        dt = time.perf_counter() - t0
        if result.output != "done":
            raise RuntimeError(f"unexpected result {result!r}")
        return dt

    def call(i: int) -> dict[str, Any]:
        return {"id": f"c{i}", "name": "step", "arguments": {"i": i}}

    sequential = [TestModel.tool_call_response([call(i) for i in range(n)]), "done"]
    turns = [TestModel.tool_call_response([call(i)]) for i in range(n)] + ["done"]

    async def baseline() -> float:
        t0 = time.perf_counter()
        for i in range(n):
            await step(i)
        return (time.perf_counter() - t0) / n

    spin = _bridge.SPIN
    samples: dict[str, list[float]] = {}
    for _ in range(2):
        await run(sequential)
        await run(turns)
    for r in range(rounds):
        modes = [("polling", spin), ("no polling", 0.0)]
        if r % 2:
            modes.reverse()
        for label, value in modes:
            _bridge.SPIN = value
            empty = await run(["done"])
            samples.setdefault(f"sequential call, {label}", []).append((await run(sequential) - empty) / n * 1e6)
            samples.setdefault(f"model turn + call, {label}", []).append((await run(turns) - empty) / n * 1e6)
        samples.setdefault("plain `await step(i)`", []).append(await baseline() * 1e6)
    _bridge.SPIN = spin
    base = summary(samples["plain `await step(i)`"])[0]
    rows = [(k, fmt_summary(v, unit=" µs"), f"{summary(v)[0] / base:.0f}x") for k, v in samples.items()]
    print(markdown_table(("measurement", f"median [p10–p90] of {rounds} rounds", "vs plain await"), rows))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--calls", type=int, default=500)
    args = ap.parse_args()
    print(use_source_tree())
    print(f"{environment_line()}; load average before: {loadavg()}\n")
    asyncio.run(main_async(args.rounds, args.calls))
    print(f"\nload average after: {loadavg()}")


if __name__ == "__main__":
    main()
