"""What building tools costs: one primitive-typed tool through the fast path
against the same tool through pydantic's create_model (the fast path switched
off), interleaved in one process, and create_agent with 1 000 such tools.

    python bench/tool_build.py [--rounds 7] [--tools 1000]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from typing import Any, Literal

from _common import environment_line, fmt_summary, loadavg, markdown_table, summary, use_source_tree


def make_functions(n: int, tag: str, distinct: bool = False) -> list[Callable[..., Any]]:
    """n distinct functions of one primitive signature (ints, strs, floats,
    bools, a list, a dict, Optional and Literal, with defaults and a docstring);
    with distinct, each docstring (so each schema) differs, as in an agent of
    many different tools."""

    def make(i: int) -> Callable[..., Any]:
        def f(
            city: str,
            days: int = 3,
            ratio: float | None = None,
            tags: list[str] | None = None,
            units: Literal["metric", "imperial"] = "metric",
            flags: dict[str, bool] | None = None,
            verbose: bool = False,
        ) -> dict[str, Any]:
            """Look up a forecast.

            Args:
                city: The city.
                days: How many days.
            """
            return {"city": city}

        f.__name__ = f.__qualname__ = f"{tag}_{i}"
        if distinct:
            f.__doc__ = f"Look up forecast {i}.\n\nArgs:\n    city: The city {i}.\n    days: How many days.\n"
        return f

    return [make(i) for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--tools", type=int, default=1000)
    ap.add_argument("--per-round", type=int, default=200)
    args = ap.parse_args()
    print(use_source_tree())
    from starweaver import _schema, create_agent, tool
    from starweaver.testing import TestModel

    print(f"{environment_line()}; load average before: {loadavg()}\n")
    fast_path = _schema._primitive_schema  # noqa: SLF001 - switched off for the baseline

    def slow_path(*a: Any, **k: Any) -> None:
        return None

    tool(make_functions(1, "warm")[0])  # caches, imports
    fast_us: list[float] = []
    slow_us: list[float] = []
    ratios: list[float] = []
    for r in range(args.rounds):
        fast_fns = make_functions(args.per_round, f"fast{r}")
        slow_fns = make_functions(args.per_round, f"slow{r}")
        times: dict[str, float] = {}
        for which in ("fast", "slow") if r % 2 == 0 else ("slow", "fast"):
            _schema._primitive_schema = fast_path if which == "fast" else slow_path  # type: ignore[assignment]  # noqa: SLF001
            fns = fast_fns if which == "fast" else slow_fns
            gc.collect()
            t = time.perf_counter()
            for f in fns:
                tool(f)
            times[which] = (time.perf_counter() - t) / len(fns) * 1e6
        _schema._primitive_schema = fast_path  # type: ignore[assignment]  # noqa: SLF001
        fast_us.append(times["fast"])
        slow_us.append(times["slow"])
        ratios.append(times["fast"] / times["slow"])

    agent_ms: list[float] = []
    for r in range(args.rounds):
        tools = [tool(f) for f in make_functions(args.tools, f"agent{r}")]
        gc.collect()
        t = time.perf_counter()
        create_agent(model=TestModel.text("done"), tools=tools)
        agent_ms.append((time.perf_counter() - t) * 1e3)
    distinct_ms: list[float] = []
    for r in range(args.rounds):
        tools = [tool(f) for f in make_functions(args.tools, f"distinct{r}", distinct=True)]
        gc.collect()
        t = time.perf_counter()
        create_agent(model=TestModel.text("done"), tools=tools)
        distinct_ms.append((time.perf_counter() - t) * 1e3)
    build_ms: list[float] = []
    for r in range(args.rounds):
        fns = make_functions(args.tools, f"both{r}")
        gc.collect()
        t = time.perf_counter()
        create_agent(model=TestModel.text("done"), tools=[tool(f) for f in fns])
        build_ms.append((time.perf_counter() - t) * 1e3)

    rows = [
        ("tool(f), fast path", fmt_summary(fast_us, unit=" µs")),
        ("tool(f), pydantic create_model", fmt_summary(slow_us, unit=" µs")),
        ("ratio fast / pydantic (per round)", fmt_summary(ratios, digits=3)),
        (f"create_agent(tools=[{args.tools} built tools])", fmt_summary(agent_ms, unit=" ms")),
        (f"create_agent(tools=[{args.tools} built tools]), distinct schemas", fmt_summary(distinct_ms, unit=" ms")),
        (f"tool() ×{args.tools} + create_agent", fmt_summary(build_ms, unit=" ms")),
    ]
    print(markdown_table(("measurement", f"median [p10–p90] of {args.rounds} rounds"), rows))
    print(f"\nload average after: {loadavg()}")
    med = summary(ratios)[0]
    print(f"fast path: {1 / med:.1f}x faster than create_model", file=sys.stderr)


if __name__ == "__main__":
    main()
