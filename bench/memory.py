#!/usr/bin/env python3
"""Memory and native-handle leak check over 100 000 tool calls.

Default: 1000 runs x 100 async tool calls (100 distinct trivial tools, each
``await asyncio.sleep(0)``), one fresh TestModel + agent per run (so model,
agent and session handles are created and released 1000 times), after a
warm-up of --warmup-runs runs that is not counted. This shape takes well under
a couple of minutes on a 2-core machine; 100 000 single-call runs take about
ten times longer (use ``--runs 100000 --calls 1`` for that).

Every --sample-every calls (default 10 000) it runs ``gc.collect()`` and reads
VmRSS from /proc/self/status, the native handle count
(``starweaver._capi.handle_count()``) and the OS thread count. It reports RSS
growth per 10k calls (least-squares slope over the samples after warm-up, and
last minus first), and checks that the handle count returns to its value
after import once the last agent and model are dropped and collected.

Usage: python3 bench/memory.py [--runs N] [--calls K] [--warmup-runs W] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
from typing import Any

from _common import environment_line, import_with_retry, loadavg, markdown_table, os_threads, rss_kib, use_source_tree

SRC = use_source_tree()
starweaver = import_with_retry("starweaver")
_capi = import_with_retry("starweaver._capi")
create_agent = import_with_retry("starweaver.agent").create_agent
TestModel = import_with_retry("starweaver.testing").TestModel
Tool = starweaver.Tool


def make_tool(i: int) -> Any:
    async def trivial() -> int:
        await asyncio.sleep(0)
        return i

    return Tool(trivial, name=f"m{i}")


def slope(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    if n < 2:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else float("nan")


async def main_async(runs: int, calls: int, warmup_runs: int, sample_every: int) -> bool:
    gc.collect()
    handles_base = _capi.handle_count()
    tools = [make_tool(i) for i in range(calls)]
    script = [{"id": f"call_{i}", "name": t.name, "arguments": {}} for i, t in enumerate(tools)]

    async def one_run() -> None:
        model = TestModel.responses([TestModel.tool_call_response(script), "done"])
        agent = create_agent(model=model, tools=tools)
        result = await agent.run("go")
        if result.output != "done" or result.usage.get("tool_calls") != calls:
            raise RuntimeError(f"unexpected result {result!r} {result.usage}")

    t0 = time.perf_counter()
    for _ in range(warmup_runs):
        await one_run()
    warm_s = time.perf_counter() - t0

    samples: list[tuple[int, int, int, int, float]] = []  # calls, rss KiB, handles, threads, elapsed s

    def sample(done_calls: int, start: float) -> None:
        gc.collect()
        samples.append((done_calls, rss_kib(), _capi.handle_count(), os_threads(), time.perf_counter() - start))

    start = time.perf_counter()
    sample(0, start)
    runs_per_sample = max(1, sample_every // calls)
    for r in range(1, runs + 1):
        await one_run()
        if r % runs_per_sample == 0 or r == runs:
            sample(r * calls, start)
            print(
                f"# {r * calls} calls, RSS {samples[-1][1] / 1024:.1f} MiB, handles {samples[-1][2]}",
                file=sys.stderr,
                flush=True,
            )
    total_s = time.perf_counter() - start
    del tools
    gc.collect()
    handles_end = _capi.handle_count()

    xs = [s[0] / 10_000 for s in samples]
    ys = [s[1] / 1024 for s in samples]
    fit = slope(xs, ys)
    naive = (ys[-1] - ys[0]) / (xs[-1] - xs[0]) if xs[-1] > xs[0] else float("nan")
    print()
    print(
        f"## memory.py: {runs} runs x {calls} calls = {runs * calls} calls after {warmup_runs} warm-up runs "
        f"({warmup_runs * calls} calls, {warm_s:.1f} s); timed part {total_s:.1f} s "
        f"({total_s / (runs * calls) * 1e6:.1f} µs per call, {total_s / runs * 1e3:.2f} ms per run incl. building its model and agent)"
    )
    print()
    print(
        markdown_table(
            ["calls", "RSS MiB", "live handles", "OS threads", "elapsed s"],
            [[c, f"{r / 1024:.1f}", h, t, f"{e:.1f}"] for c, r, h, t, e in samples],
        )
    )
    ok = handles_end == handles_base
    print()
    print(
        markdown_table(
            ["measure", "value"],
            [
                ["RSS growth per 10k calls (least-squares slope)", f"{fit:+.3f} MiB"],
                ["RSS growth per 10k calls ((last − first) / span)", f"{naive:+.3f} MiB"],
                ["RSS first → last sample", f"{ys[0]:.1f} → {ys[-1]:.1f} MiB"],
                [
                    "native handles: after import → at end, after gc.collect()",
                    f"{handles_base} → {handles_end} ({'OK, back to baseline' if ok else 'LEAK'})",
                ],
            ],
        )
    )
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=None, help="timed runs (default 1000; 300 with --quick)")
    ap.add_argument("--calls", type=int, default=100, help="tool calls per run (default 100)")
    ap.add_argument("--warmup-runs", type=int, default=None, help="untimed runs first (default: 10k calls worth)")
    ap.add_argument("--sample-every", type=int, default=10_000, help="calls between samples (default 10000)")
    ap.add_argument("--quick", action="store_true", help="30k calls instead of 100k")
    args = ap.parse_args()
    runs = args.runs or (300 if args.quick else 1000)
    warmup = args.warmup_runs if args.warmup_runs is not None else max(1, 10_000 // args.calls)
    print(f"# {environment_line()}")
    print(f"# starweaver from {starweaver.__file__}")
    ok = asyncio.run(main_async(runs, args.calls, warmup, args.sample_every))
    print()
    print(f"# load average at the end: {loadavg()}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
