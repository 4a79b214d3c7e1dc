"""Shared scenario harness for the framework comparison (standard library only).

Each ``scen_<framework>.py`` script defines an adapter and calls ``main``:

    async def setup(scenario, names, funcs) -> state        # build tools once (not timed)
    async def prepare(state) -> Callable[[], Awaitable[None]]  # model/agent for one run (not timed)

The runner returned by ``prepare`` performs one agent run whose model asks
for every tool in ``names`` once, in one response, and then answers "done";
it raises if the run did not end with "done". The harness times the runner
against a plain-asyncio baseline of the same functions in the same process
(pairs alternate which one goes first; gc.collect() runs before each pair),
and prints one JSON object on stdout.

Scenarios:
  a     1000 async tools, ``await asyncio.sleep(0)``   vs asyncio.gather
  b     1000 async tools, ``await asyncio.sleep(0.1)`` vs asyncio.gather
  c     8 sync tools, ``time.sleep(0.2)``              vs the same on an 8-thread pool
  a100  100 async tools, sleep(0)                      vs asyncio.gather
  a16   16 async tools, sleep(0)                       vs asyncio.gather
  a1    1 async tool, sleep(0)                         vs a direct await (mean of 100)
  a200  200 async tools, sleep(0)                      vs asyncio.gather
  t100  100 model turns of one call each (one async tool, sleep(0)): what a
        sequential agent feels, a model request and a tool call per turn,
        vs 100 direct awaits of the tool one after another

In a turn scenario (``is_turns``) ``names`` holds the one tool's name and the
runner's model asks for it once per turn, k turns, then answers "done".
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

SCENARIOS: dict[str, tuple[int, str, str]] = {
    # key: (k, kind, description)
    "a": (1000, "fast", "1000 async calls, sleep(0)"),
    "b": (1000, "slow", "1000 async calls, sleep(0.1)"),
    "c": (8, "blocking", "8 sync calls, time.sleep(0.2)"),
    "a100": (100, "fast", "100 async calls, sleep(0)"),
    "a16": (16, "fast", "16 async calls, sleep(0)"),
    "a1": (1, "fast", "1 async call, sleep(0)"),
    "a200": (200, "fast", "200 async calls, sleep(0)"),
    "t100": (100, "turn", "100 model turns, one call each"),
}
# Timed pairs per round.
REPS = {"a": 2, "b": 1, "c": 1, "a100": 3, "a16": 5, "a1": 10, "a200": 3, "t100": 2}


def is_turns(scenario: str) -> bool:
    """Whether the scenario is k model turns of one call each."""
    return SCENARIOS[scenario][1] == "turn"


CALLS = [0]  # how many tool functions ran (checked after the warm-up run)


def make_funcs(kind: str, k: int) -> list[Callable[..., Any]]:
    def fast_(i: int) -> Callable[[], Awaitable[int]]:
        async def fast() -> int:
            CALLS[0] += 1
            await asyncio.sleep(0)
            return i

        return fast

    def slow_(i: int) -> Callable[[], Awaitable[int]]:
        async def slow() -> int:
            CALLS[0] += 1
            await asyncio.sleep(0.1)
            return i

        return slow

    def blocking_(i: int) -> Callable[[], int]:
        def blocking() -> int:
            CALLS[0] += 1
            time.sleep(0.2)
            return i

        return blocking

    if kind == "turn":
        return [fast_(0)]  # one tool, called once per turn
    make = {"fast": fast_, "slow": slow_, "blocking": blocking_}[kind]
    return [make(i) for i in range(k)]


def names_for(scenario: str, k: int) -> list[str]:
    if is_turns(scenario):
        return [f"{scenario}_t0"]
    return [f"{scenario}_t{i}" for i in range(k)]


def os_threads() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write("BENCH-JSON " + json.dumps(obj) + "\n")
    sys.stdout.flush()


async def _measure(
    adapter: Any, framework: str, version: str, scenario: str, rounds: int, timeout: float
) -> dict[str, Any]:
    k, kind, desc = SCENARIOS[scenario]
    funcs = make_funcs(kind, k)
    names = names_for(scenario, k)
    result: dict[str, Any] = {
        "framework": framework,
        "version": version,
        "scenario": scenario,
        "k": k,
        "description": desc,
    }
    pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="baseline")
    loop = asyncio.get_running_loop()

    async def baseline() -> float:
        t0 = time.perf_counter()
        if kind == "blocking":
            await asyncio.gather(*(loop.run_in_executor(pool, f) for f in funcs))
        elif k == 1:  # mean of 100 direct awaits (one is too short to time)
            for _ in range(100):
                await funcs[0]()
            return (time.perf_counter() - t0) / 100
        elif kind == "turn":  # the same k calls, one after another
            for _ in range(k):
                await funcs[0]()
        else:
            await asyncio.gather(*(f() for f in funcs))
        return time.perf_counter() - t0

    async def timed(runner: Callable[[], Awaitable[None]]) -> float:
        t0 = time.perf_counter()
        await runner()
        return time.perf_counter() - t0

    t_setup = time.perf_counter()
    state = await adapter.setup(scenario, names, funcs)
    result["setup_s"] = time.perf_counter() - t_setup

    # Warm-up run, with a timeout: a framework that hangs is reported, not waited for.
    CALLS[0] = 0
    runner = await adapter.prepare(state)
    t0 = time.perf_counter()
    try:
        await asyncio.wait_for(runner(), timeout)
    except asyncio.TimeoutError:
        result["error"] = (
            f"hang: the first run did not finish within {timeout:.0f} s ({CALLS[0]} of {k} tool functions had started)"
        )
        return result
    result["warmup_s"] = time.perf_counter() - t0
    if CALLS[0] != k:
        result["error"] = f"wrong call count: {CALLS[0]} tool functions ran, expected {k}"
        return result
    await baseline()

    fw: list[float] = []
    base: list[float] = []
    flip = False
    for _ in range(rounds):
        for _ in range(REPS[scenario]):
            runner = await adapter.prepare(state)
            gc.collect()
            if flip:
                b = await baseline()
                f = await timed(runner)
            else:
                f = await timed(runner)
                b = await baseline()
            flip = not flip
            fw.append(f)
            base.append(b)
    pool.shutdown()
    result.update(
        framework_s=fw,
        baseline_s=base,
        ratio=[f / b for f, b in zip(fw, base)],
        threads_py=threading.active_count(),
        threads_os=os_threads(),
    )
    return result


def main(adapter: Any, framework: str, version: str) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds the first run may take")
    args = ap.parse_args()
    try:
        result = asyncio.run(_measure(adapter, framework, version, args.scenario, args.rounds, args.timeout))
    except BaseException as exc:  # report, do not crash the driver
        result = {
            "framework": framework,
            "version": version,
            "scenario": args.scenario,
            "error": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc()[-3000:],
        }
    emit(result)
    if "error" in result and result["error"].startswith("hang"):
        os._exit(3)  # the hung run may keep non-daemon threads alive
