#!/usr/bin/env python3
"""Throughput and overhead of starweaver's Python <-> Go bridge, in one process.

Scenarios (each timed against a plain-asyncio baseline measured right next to
it, in the same round, so that ratios are computed side by side):

  (a)  one run whose model asks for 1000 trivial async tool calls at once
       (1000 distinct tools; each does ``await asyncio.sleep(0); return i``)
       vs ``asyncio.gather`` of the same 1000 coroutine functions;
  (b)  the same with ``await asyncio.sleep(0.1)`` in every tool (target: <= 1.05x);
  (c)  8 sync tools that each ``time.sleep(0.2)`` in one batch vs the same 8
       functions on an 8-thread pool (expect ~0.2 s, not 1.6 s);
  (d)  (a) with k=1, k=100 and k=200 calls (k distinct tools);
  (e)  OS thread count (threading.active_count() and /proc/self/status Threads)
       after import, after warm-up and after every round;
  (f)  per-call overhead: a run with one call vs a direct ``await`` of the tool
       function, plus a run with no call (the fixed cost of a run).

Agents and TestModels are built before each timed region (a TestModel's script
is consumed by one run, so each run gets a fresh model and agent); tools are
built once. ``gc.collect()`` runs before every timed pair, outside the timers.

Usage: python3 bench/bridge.py [--rounds N] [--quick] [--profile RUNS] [--breakdown RUNS]
(--profile: cProfile of (a); --breakdown: wall/CPU time of (a) split by native call.)
The repository's python/ directory is used when it holds a built library and
STARWEAVER_BENCH_INSTALLED is not 1; otherwise the installed package.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import pstats
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from _common import (
    environment_line,
    fmt_num,
    fmt_summary,
    import_with_retry,
    loadavg,
    markdown_table,
    os_threads,
    summary,
    use_source_tree,
)

SRC = use_source_tree()
starweaver = import_with_retry("starweaver")
_agent_mod = import_with_retry("starweaver.agent")
_testing_mod = import_with_retry("starweaver.testing")
Tool = starweaver.Tool
create_agent = _agent_mod.create_agent
TestModel = _testing_mod.TestModel

N = 1000


# -- the tool functions (identical for the bridge and the baseline) ----------


def make_fast(i: int) -> Callable[[], Awaitable[int]]:
    async def fast() -> int:
        await asyncio.sleep(0)
        return i

    return fast


def make_slow(i: int) -> Callable[[], Awaitable[int]]:
    async def slow() -> int:
        await asyncio.sleep(0.1)
        return i

    return slow


def make_blocking(i: int) -> Callable[[], int]:
    def blocking() -> int:
        time.sleep(0.2)
        return i

    return blocking


class Batch:
    """k distinct tools over k functions, and the script that calls each once."""

    def __init__(self, prefix: str, funcs: Sequence[Callable[..., Any]]) -> None:
        self.funcs = list(funcs)
        self.tools = [Tool(f, name=f"{prefix}{i}") for i, f in enumerate(self.funcs)]
        self.calls = [{"id": f"call_{i}", "name": t.name, "arguments": {}} for i, t in enumerate(self.tools)]
        self.is_async = all(t.is_async for t in self.tools)

    def agent(self) -> Any:
        """A fresh agent + TestModel for one run (not timed)."""
        if self.calls:
            model = TestModel.responses([TestModel.tool_call_response(self.calls), "done"])
        else:
            model = TestModel.responses(["done"])
        return create_agent(model=model, tools=self.tools)


async def timed_run(agent: Any, expect_calls: int) -> float:
    t0 = time.perf_counter()
    result = await agent.run("go")
    dt = time.perf_counter() - t0
    if result.output != "done" or result.usage.get("tool_calls", 0) != expect_calls:
        raise RuntimeError(f"unexpected result: {result!r} usage={result.usage}")
    return dt


async def timed_gather(funcs: Sequence[Callable[[], Awaitable[Any]]]) -> float:
    t0 = time.perf_counter()
    await asyncio.gather(*(f() for f in funcs))
    return time.perf_counter() - t0


async def timed_gather_threads(funcs: Sequence[Callable[[], Any]], pool: ThreadPoolExecutor) -> float:
    loop = asyncio.get_running_loop()
    t0 = time.perf_counter()
    await asyncio.gather(*(loop.run_in_executor(pool, f) for f in funcs))
    return time.perf_counter() - t0


async def timed_direct(func: Callable[[], Awaitable[Any]], reps: int) -> float:
    """Mean time of one direct ``await func()``, over reps awaits."""
    t0 = time.perf_counter()
    for _ in range(reps):
        await func()
    return (time.perf_counter() - t0) / reps


class Series:
    """Samples of one bridge scenario and of its baseline, paired."""

    def __init__(self, key: str, label: str, baseline_label: str) -> None:
        self.key, self.label, self.baseline_label = key, label, baseline_label
        self.bridge: list[float] = []
        self.plain: list[float] = []
        self.ratio: list[float] = []
        self.round_bridge: list[list[float]] = []

    def new_round(self) -> None:
        self.round_bridge.append([])

    def add(self, bridge: float, plain: float) -> None:
        self.bridge.append(bridge)
        self.plain.append(plain)
        self.ratio.append(bridge / plain if plain > 0 else float("nan"))
        self.round_bridge[-1].append(bridge)


async def pair(
    series: Series, bridge: Callable[[], Awaitable[float]], plain: Callable[[], Awaitable[float]], flip: bool
) -> None:
    gc.collect()
    if flip:
        p = await plain()
        b = await bridge()
    else:
        b = await bridge()
        p = await plain()
    series.add(b, p)


async def measure(rounds: int, quick: bool) -> None:
    reps = (
        {"a": 1, "b": 1, "c": 1, "k100": 3, "small": 10} if quick else {"a": 2, "b": 1, "c": 1, "k100": 5, "small": 20}
    )
    direct_reps = 200

    threads: list[tuple[str, int, int]] = [("after import", threading.active_count(), os_threads())]

    t_build = time.perf_counter()
    fast = Batch("t", [make_fast(i) for i in range(N)])
    slow = Batch("s", [make_slow(i) for i in range(N)])
    blocking = Batch("b", [make_blocking(i) for i in range(8)])
    k100 = Batch("h", [make_fast(i) for i in range(100)])
    k200 = Batch("w", [make_fast(i) for i in range(200)])
    k1 = Batch("o", [make_fast(0)])
    k0 = Batch("z", [])
    build_s = time.perf_counter() - t_build
    pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="baseline")

    # Warm-up: one run of each (checks the results, fills caches, starts pools).
    for b in (fast, slow, blocking, k100, k200, k1, k0):
        await timed_run(b.agent(), len(b.calls))
    await timed_gather(fast.funcs)
    await timed_gather_threads(blocking.funcs, pool)
    threads.append(("after warm-up", threading.active_count(), os_threads()))

    sa = Series("a", "(a) 1000 async calls, sleep(0)", "gather of the 1000 coroutines")
    sb = Series("b", "(b) 1000 async calls, sleep(0.1)", "gather of the 1000 coroutines")
    sc = Series("c", "(c) 8 sync calls, time.sleep(0.2)", "8 calls on an 8-thread pool")
    sk100 = Series("k100", "(d) 100 async calls, sleep(0)", "gather of the 100 coroutines")
    sk200 = Series("k200", "(d) 200 async calls, sleep(0)", "gather of the 200 coroutines")
    sk1 = Series("k1", "(d)/(f) 1 async call, sleep(0)", "direct await of the function")
    sk0 = Series("k0", "(f) run with no tool call", "direct await of the function")
    all_series = (sa, sb, sc, sk100, sk200, sk1, sk0)

    flip = False
    t_start = time.perf_counter()
    for r in range(rounds):
        for s in all_series:
            s.new_round()
        for _ in range(reps["a"]):
            agent = fast.agent()
            await pair(sa, lambda agent=agent: timed_run(agent, N), lambda: timed_gather(fast.funcs), flip)
            flip = not flip
        for _ in range(reps["b"]):
            agent = slow.agent()
            await pair(sb, lambda agent=agent: timed_run(agent, N), lambda: timed_gather(slow.funcs), flip)
            flip = not flip
        for _ in range(reps["c"]):
            agent = blocking.agent()
            await pair(
                sc, lambda agent=agent: timed_run(agent, 8), lambda: timed_gather_threads(blocking.funcs, pool), flip
            )
            flip = not flip
        for _ in range(reps["k100"]):
            agent = k100.agent()
            await pair(sk100, lambda agent=agent: timed_run(agent, 100), lambda: timed_gather(k100.funcs), flip)
            flip = not flip
            agent = k200.agent()
            await pair(sk200, lambda agent=agent: timed_run(agent, 200), lambda: timed_gather(k200.funcs), flip)
            flip = not flip
        for _ in range(reps["small"]):
            agent = k1.agent()
            await pair(
                sk1, lambda agent=agent: timed_run(agent, 1), lambda: timed_direct(k1.funcs[0], direct_reps), flip
            )
            agent = k0.agent()
            await pair(
                sk0, lambda agent=agent: timed_run(agent, 0), lambda: timed_direct(k1.funcs[0], direct_reps), flip
            )
            flip = not flip
        threads.append((f"after round {r + 1}", threading.active_count(), os_threads()))
        print(
            f"# round {r + 1}/{rounds}: (a) {sa.round_bridge[-1][-1] * 1e3:.1f} ms, (b) {sb.round_bridge[-1][-1] * 1e3:.1f} ms, "
            f"(c) {sc.round_bridge[-1][-1] * 1e3:.1f} ms, threads {threads[-1][2]}",
            file=sys.stderr,
            flush=True,
        )
    elapsed = time.perf_counter() - t_start
    pool.shutdown()

    # ---- report ---------------------------------------------------------
    ms = 1e3
    rows = []
    for s, target in (
        (sa, "ratio <= 2"),
        (sb, "ratio <= 1.05"),
        (sc, "~200 ms, not 1600 ms"),
        (sk100, ""),
        (sk200, "ratio <= 2"),
    ):
        status = ""
        if s in (sa, sk200):
            status = "OK" if summary(s.ratio)[0] <= 2 else "MISS"
        elif s is sb:
            status = "OK" if summary(s.ratio)[0] <= 1.05 else "MISS"
        elif s is sc:
            status = "OK" if summary(s.bridge)[0] < 0.3 else "MISS"
        rows.append(
            [
                s.label,
                fmt_summary([x * ms for x in s.bridge]),
                s.baseline_label + ": " + fmt_summary([x * ms for x in s.plain]),
                fmt_summary(s.ratio, 2) + "x",
                f"{len(s.bridge)}",
                (status + " " + target).strip(),
            ]
        )
    print()
    print(f"## bridge.py: {rounds} rounds, {'quick' if quick else 'full'} mode")
    print()
    print(markdown_table(["scenario", "starweaver ms", "baseline ms", "ratio (per pair)", "n", "target"], rows))

    # (f): per-call overhead.
    us = 1e6
    k1_minus_direct = [b - p for b, p in zip(sk1.bridge, sk1.plain)]
    k1_minus_k0 = [b - z for b, z in zip(sk1.bridge, sk0.bridge)]
    k1_round_med = [summary(x)[0] for x in sk1.round_bridge]
    marginal = [(summary(a)[0] - m) / (N - 1) for a, m in zip(sa.round_bridge, k1_round_med)]
    marginal100 = [(summary(h)[0] - m) / 99 for h, m in zip(sk100.round_bridge, k1_round_med)]
    rows_f = [
        ["run with 0 tool calls (model answers text at once)", fmt_summary([x * us for x in sk0.bridge]) + " µs"],
        ["run with 1 tool call", fmt_summary([x * us for x in sk1.bridge]) + " µs"],
        [f"direct `await fn()` (mean of {direct_reps})", fmt_summary([x * us for x in sk1.plain], 2) + " µs"],
        [
            "overhead of a 1-call run over a direct await (paired)",
            fmt_summary([x * us for x in k1_minus_direct]) + " µs",
        ],
        [
            "cost of the call inside a run: 1-call run − 0-call run (paired)",
            fmt_summary([x * us for x in k1_minus_k0]) + " µs",
        ],
        [
            "marginal cost per call at k=100: (run100 − run1)/99, per round",
            fmt_summary([x * us for x in marginal100]) + " µs",
        ],
        [
            "marginal cost per call at k=1000: (run1000 − run1)/999, per round",
            fmt_summary([x * us for x in marginal]) + " µs",
        ],
    ]
    print()
    print("### (f) per-call overhead")
    print()
    print(markdown_table(["measure", "median [p10–p90]"], rows_f))

    # (e): threads.
    print()
    print("### (e) thread counts (threading.active_count() / OS threads from /proc/self/status)")
    print()
    print(markdown_table(["when", "Python threads", "OS threads"], [[w, a, o] for w, a, o in threads]))
    after_rounds = [o for w, _, o in threads if w.startswith("after round")]
    growth = max(after_rounds) - after_rounds[0] if after_rounds else 0
    print()
    print(
        f"OS threads after the rounds: min {min(after_rounds)}, max {max(after_rounds)} "
        f"(growth over the rounds: {growth}; {'bounded' if growth <= 2 else 'GROWING'}). "
        f"The sync pool is capped at STARWEAVER_SYNC_WORKERS (default 32); the baseline pool has 8 threads."
    )
    print()
    print(f"Tool construction (untimed): {build_s:.2f} s for {2 * N + 8 + 100 + 1} tools. Timed loop: {elapsed:.1f} s.")


async def profile(runs: int, sort_limit: int = 30) -> None:
    """cProfile the Python side of ``runs`` runs of scenario (a)."""
    fast = Batch("t", [make_fast(i) for i in range(N)])
    await timed_run(fast.agent(), N)  # warm-up
    agents = [fast.agent() for _ in range(runs)]
    prof = cProfile.Profile()
    gc.collect()
    wall = 0.0
    for agent in agents:
        prof.enable()
        t0 = time.perf_counter()
        await agent.run("go")
        wall += time.perf_counter() - t0
        prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("tottime").print_stats(sort_limit)
    stats.sort_stats("cumulative").print_stats(sort_limit)
    print(
        f"## cProfile of {runs} runs of (a) (1000 async calls each); wall {wall / runs * 1e3:.1f} ms/run under the profiler"
    )
    print(out.getvalue())


class _TimedJSON:
    """Stands in for the ``json`` module inside ``starweaver._capi`` to time
    the decoding of drained items (no package file is changed)."""

    def __init__(self, real: Any, acc: dict[str, float]) -> None:
        self._real, self._acc = real, acc

    def loads(self, *a: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return self._real.loads(*a, **kw)
        finally:
            self._acc["json.loads (decode drained items etc.)"] += time.perf_counter() - t0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


async def breakdown(runs: int, k: int = N) -> None:
    """Where the time of a k-call run goes, without a profiler: wall time,
    CPU of the loop thread and of the whole process (Go threads included),
    and the time spent in each native call, measured by wrapping the
    functions of ``starweaver._capi`` at run time."""
    capi = import_with_retry("starweaver._capi")
    bridge = import_with_retry("starweaver._bridge")
    acc: dict[str, float] = {}
    names = ["session_new", "run_start", "run_complete", "release"]
    for name in names:
        acc[f"_capi.{name}"] = 0.0
    acc["json.loads (decode drained items etc.)"] = 0.0
    acc["os.read of the run pipe"] = 0.0

    class _TimedOS:
        def __init__(self, real: Any) -> None:
            self._real = real

        def read(self, fd: int, n: int) -> bytes:
            t0 = time.perf_counter()
            try:
                return self._real.read(fd, n)
            finally:
                acc["os.read of the run pipe"] += time.perf_counter() - t0

        def __getattr__(self, name: str) -> Any:
            return getattr(self._real, name)

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        key = f"_capi.{name}"

        def timed(*a: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                acc[key] += time.perf_counter() - t0

        return timed

    originals = {name: getattr(capi, name) for name in names}
    real_json, real_os = bridge.json, bridge.os
    fast = Batch("t", [make_fast(i) for i in range(k)])
    await timed_run(fast.agent(), k)  # warm-up
    agents = [fast.agent() for _ in range(runs)]
    gc.collect()
    for name, fn in originals.items():
        setattr(capi, name, wrap(name, fn))
    bridge.json = _TimedJSON(real_json, acc)
    bridge.os = _TimedOS(real_os)
    wall = cpu_thread = cpu_proc = 0.0
    try:
        for agent in agents:
            w0, t0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
            await agent.run("go")
            wall += time.perf_counter() - w0
            cpu_thread += time.thread_time() - t0
            cpu_proc += time.process_time() - p0
    finally:
        for name, fn in originals.items():
            setattr(capi, name, fn)
        bridge.json, bridge.os = real_json, real_os
    per = 1e3 / runs
    in_native = sum(acc[f"_capi.{n}"] for n in names) + acc["os.read of the run pipe"]
    rows = [
        ["wall time of the run", fmt_num(wall * per)],
        ["CPU time of the loop thread", fmt_num(cpu_thread * per)],
        ["CPU time of the whole process (Go threads included)", fmt_num(cpu_proc * per)],
        ["loop thread idle (wall − loop CPU): waiting for Go or for the OS", fmt_num((wall - cpu_thread) * per)],
        ["  os.read of the run pipe", fmt_num(acc["os.read of the run pipe"] * per)],
        ["  json.loads of the items read", fmt_num(acc["json.loads (decode drained items etc.)"] * per)],
        [
            "  _capi.run_complete (sync tools only; async ones answer through the pipe)",
            fmt_num(acc["_capi.run_complete"] * per),
        ],
        [
            "  _capi.run_start + session_new + release",
            fmt_num((acc["_capi.run_start"] + acc["_capi.session_new"] + acc["_capi.release"]) * per),
        ],
        [
            "  Python on the loop outside those calls (tasks, contexts, outcomes, encoding)",
            fmt_num((cpu_thread - in_native - acc["json.loads (decode drained items etc.)"]) * per),
        ],
    ]
    print(f"## breakdown of one {k}-call run (mean of {runs} runs, ms; CPU-time rows assume calls are CPU-bound)")
    print()
    print(markdown_table(["part", "ms per run"], rows))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=None, help="rounds (default 7, or 3 with --quick)")
    ap.add_argument("--quick", action="store_true", help="fewer rounds and repetitions")
    ap.add_argument("--profile", type=int, default=0, metavar="RUNS", help="cProfile RUNS runs of (a) instead")
    ap.add_argument(
        "--breakdown", type=int, default=0, metavar="RUNS", help="time the parts of RUNS runs of (a) instead"
    )
    args = ap.parse_args()
    rounds = args.rounds or (3 if args.quick else 7)

    print(f"# {environment_line()}")
    print(f"# starweaver from {starweaver.__file__} (source tree: {bool(SRC)})")
    if args.profile:
        asyncio.run(profile(args.profile))
        return
    if args.breakdown:
        asyncio.run(breakdown(args.breakdown))
        return
    asyncio.run(measure(rounds, args.quick))
    print(f"# load average at the end: {loadavg()}")


if __name__ == "__main__":
    main()
