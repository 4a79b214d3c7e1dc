#!/usr/bin/env python3
"""What durability on Temporal costs: the same agent run locally and as a
Temporal workflow (starweaver.temporal), side by side in one process
against one local server, and pydantic-ai's TemporalAgent on the same
scenarios, same server, same machine (in its own virtual environment,
/tmp/venv-pai-temporal, made on first use with pip).

Scenarios (a stateless function model and trivial async tools, each call
of a batch to a tool of its own name so the batch runs in parallel, so
what is measured is the machinery):

- turns K: K model turns of one tool call each, then the answer: the cost
  of a turn (one model request and one call, each an activity).
- calls N: one turn of N parallel calls: the cost of a call in a batch.
- throughput W: W workflows of one turn and one call started at once, on
  one worker: workflows per second.

Overheads are (Temporal − local) per turn or per call, measured in the
same process and round; ratios compare pydantic-ai's figure with ours.
Needs a Temporal server (STARWEAVER_TEMPORAL_ADDRESS, default
127.0.0.1:7233; `make temporal-up`).

    python bench/temporal.py [--rounds 5] [--no-compare]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    import _common

# Temporal imports this module again inside its workflow sandbox, where the
# package is already chosen (and the file system is off limits).
if not workflow.unsafe.in_sandbox():
    _common.use_source_tree()

with workflow.unsafe.imports_passed_through():
    from starweaver import tool
    from starweaver.agent import create_agent
    from starweaver.messages import ToolReturnPart
    from starweaver.temporal import AgentPlugin, StarweaverPlugin, TemporalAgent
    from starweaver.testing import FunctionModel, TestModel
    from starweaver.usage import UsageLimits

TOOLS = 64
PAI_VENV = Path(os.environ.get("VENV_ROOT", "/tmp")) / "venv-pai-temporal"
PAI_SPEC = "pydantic-ai-slim[temporal]==2.78.0"


def respond(messages: list[Any], info: dict[str, Any]) -> Any:
    """The prompt says the scenario (as in compare/temporal_pydantic_ai.py)."""
    content = messages[0].parts[-1].content
    text = content if isinstance(content, str) else " ".join(getattr(c, "text", "") for c in content)
    kind, n = text.split()
    k = int(n)
    done = sum(1 for m in messages for p in m.parts if isinstance(p, ToolReturnPart))
    if kind == "turns":
        if done < k:
            return TestModel.tool_call_response([{"id": f"c{done}", "name": "t0", "arguments": {"x": done}}])
        return f"done {done}"
    if done == 0 and k > 0:
        return TestModel.tool_call_response(
            [{"id": f"c{i}", "name": f"t{i % TOOLS}", "arguments": {"x": i}} for i in range(k)]
        )
    return f"done {done}"


def _make(i: int) -> Any:
    async def t(x: int) -> int:
        return x + i

    t.__name__ = f"t{i}"
    return tool(t)


agent = create_agent(model=FunctionModel(respond), tools=[_make(i) for i in range(TOOLS)], name="bench")
temporal_agent = TemporalAgent(agent, name="bench")
LIMITS = UsageLimits(request_limit=1000)


@workflow.defn
class BenchWorkflow:
    @workflow.run
    async def run(self, prompt: str) -> str:
        result = await temporal_agent.run(prompt, usage_limits=LIMITS)
        return str(result.output)


async def ours(address: str, scenarios: list[tuple[str, str, int, int]]) -> dict[str, Any]:
    client = await Client.connect(address, plugins=[StarweaverPlugin()])
    queue = f"bench-sw-{uuid.uuid4()}"
    out: dict[str, Any] = {}
    async with Worker(client, task_queue=queue, workflows=[BenchWorkflow], plugins=[AgentPlugin(temporal_agent)]):

        async def durable(prompt: str) -> None:
            output = await client.execute_workflow(
                BenchWorkflow.run, prompt, id=f"{queue}-{uuid.uuid4()}", task_queue=queue
            )
            if not output.startswith("done"):
                raise RuntimeError(f"unexpected output {output!r}")

        async def local(prompt: str) -> None:
            result = await agent.run(prompt, usage_limits=LIMITS)
            if not str(result.output).startswith("done"):
                raise RuntimeError(f"unexpected output {result.output!r}")

        await durable("turns 1")  # warm-up
        await local("turns 1")
        for name, prompt, concurrency, rounds in scenarios:
            for kind, run in (("temporal", durable), ("local", local)):
                times = []
                for _ in range(rounds):
                    start = time.perf_counter()
                    await asyncio.gather(*(run(prompt) for _ in range(concurrency)))
                    times.append(time.perf_counter() - start)
                out[f"{name}/{kind}"] = times
    return out


def pydantic_ai(address: str, scenarios: list[tuple[str, str, int, int]]) -> dict[str, Any] | str:
    """pydantic-ai's figures, or why there are none."""
    py = PAI_VENV / "bin" / "python"
    if not py.exists():
        print(f"creating {PAI_VENV} with {PAI_SPEC} (once)", file=sys.stderr)
        made = subprocess.run([sys.executable, "-m", "venv", str(PAI_VENV)], capture_output=True, text=True)
        pip = subprocess.run(
            [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", PAI_SPEC],
            capture_output=True,
            text=True,
        )
        if made.returncode or pip.returncode:
            return f"pip install {PAI_SPEC} failed: {(pip.stderr or made.stderr).strip()[-200:]}"
    script = _common.BENCH_DIR / "compare" / "temporal_pydantic_ai.py"
    proc = subprocess.run(
        [str(py), "-W", "ignore", str(script), "--address", address, "--scenarios", json.dumps(scenarios)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if proc.returncode:
        return f"the pydantic-ai run failed: {proc.stderr.strip()[-300:]}"
    data: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument(
        "--calls", type=int, default=50, help=f"at most {TOOLS}: a repeated tool name makes a batch sequential"
    )
    parser.add_argument("--workflows", type=int, default=100)
    parser.add_argument("--no-compare", action="store_true", help="leave pydantic-ai out")
    args = parser.parse_args()
    address = os.environ.get("STARWEAVER_TEMPORAL_ADDRESS", "127.0.0.1:7233")
    scenarios = [
        ("turns", f"turns {args.turns}", 1, args.rounds),
        ("calls", f"calls {args.calls}", 1, args.rounds),
        ("throughput", "turns 1", args.workflows, max(1, args.rounds // 2)),
    ]
    print(_common.environment_line())
    warnings.simplefilter("ignore", DeprecationWarning)
    mine = asyncio.run(ours(address, scenarios))
    theirs = None if args.no_compare else pydantic_ai(address, scenarios)
    med = lambda xs: _common.summary(xs)[0]  # noqa: E731 - a local shorthand

    per_turn = (med(mine["turns/temporal"]) - med(mine["turns/local"])) / args.turns * 1000
    per_call = (med(mine["calls/temporal"]) - med(mine["calls/local"])) / args.calls * 1000
    rate = args.workflows / med(mine["throughput/temporal"])
    rows = [
        [
            "a model turn with one call (ms of overhead)",
            _common.fmt_num(per_turn),
            f"{args.turns} turns: {_common.fmt_summary(mine['turns/temporal'], unit=' s')} on Temporal, {_common.fmt_summary(mine['turns/local'], unit=' s')} locally",
        ],
        [
            "a call in a parallel batch (ms of overhead)",
            _common.fmt_num(per_call),
            f"{args.calls} calls: {_common.fmt_summary(mine['calls/temporal'], unit=' s')} on Temporal, {_common.fmt_summary(mine['calls/local'], unit=' s')} locally",
        ],
        [
            "workflows per second, one worker",
            _common.fmt_num(rate),
            f"{args.workflows} at once: {_common.fmt_summary(mine['throughput/temporal'], unit=' s')}",
        ],
    ]
    print("\n## starweaver.temporal against a local run\n")
    print(_common.markdown_table(["measure", "starweaver", "detail"], rows))
    if isinstance(theirs, str):
        print(f"\npydantic-ai: {theirs}")
    elif theirs is not None:
        t_turn = med(theirs["turns"]) / args.turns * 1000
        o_turn = med(mine["turns/temporal"]) / args.turns * 1000
        t_call = med(theirs["calls"]) / args.calls * 1000
        o_call = med(mine["calls/temporal"]) / args.calls * 1000
        t_rate = args.workflows / med(theirs["throughput"])
        print(f"\n## against pydantic-ai {theirs['version']} TemporalAgent (same scenarios, same server)\n")
        print(
            _common.markdown_table(
                ["measure", "starweaver", "pydantic-ai", "starweaver ahead by (×)"],
                [
                    [
                        "ms per turn with one call, on Temporal",
                        _common.fmt_num(o_turn),
                        _common.fmt_num(t_turn),
                        _common.fmt_num(t_turn / o_turn, 2),
                    ],
                    [
                        "ms per call in a parallel batch, on Temporal",
                        _common.fmt_num(o_call),
                        _common.fmt_num(t_call),
                        _common.fmt_num(t_call / o_call, 2),
                    ],
                    [
                        "workflows per second, one worker",
                        _common.fmt_num(rate),
                        _common.fmt_num(t_rate),
                        _common.fmt_num(rate / t_rate, 2),
                    ],
                ],
            )
        )
    print(f"\n{_common.environment_line()}")


if __name__ == "__main__":
    main()
