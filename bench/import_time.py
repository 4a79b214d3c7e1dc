#!/usr/bin/env python3
"""Import time of starweaver, in fresh interpreters.

For each statement (``import starweaver``, ``from starweaver import tool``,
``from starweaver import tool, create_agent``,
``import starweaver.agent``) it runs ``python -c STATEMENT`` in --reps fresh
subprocesses (default 15, interleaved with a baseline ``python -c pass``) and
reports the median of

  * the statement's own time, timed inside the interpreter around it
    (everything it imported that the interpreter had not loaded at start-up),
  * the wall time of the subprocess minus the median wall time of ``python -c pass``.

``-X importtime`` is not used for the first column: names that the package
loads on first use are imported through ``importlib.import_module``, which it
does not time. The last row also runs a first agent (``create_agent`` with
TestModel, one tool call, one answer), to show that what loads later is only
what a run uses.

It also lists the top-level packages that contribute most of the self time
inside ``import starweaver.agent`` (median run). Targets: ``import starweaver``
under 30 ms; ``from starweaver import tool`` and ``from starweaver import tool,
create_agent`` at most ``import pydantic`` + 10 ms, in-process (the wall column
adds start-up and shutdown, noisier than the margin). One untimed run first
writes the bytecode caches.

Usage: python3 bench/import_time.py [--reps N] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections import defaultdict

from _common import environment_line, fmt_summary, loadavg, markdown_table, subprocess_env

FIRST_RUN = """\
import asyncio
from starweaver import tool, create_agent
from starweaver.testing import TestModel

@tool
async def add(left: int, right: int) -> int:
    return left + right

calls = [{"id": "a", "name": "add", "arguments": {"left": 1, "right": 2}}]
model = TestModel.responses([TestModel.tool_call_response(calls), "done"])
assert asyncio.run(create_agent(model=model, tools=[add]).run("go")).output == "done"
"""
STATEMENTS = [
    "import pydantic",
    "import starweaver",
    "from starweaver import tool",
    "from starweaver import tool, create_agent",
    "import starweaver.agent",
    FIRST_RUN,
]
# The statement whose -X importtime tree the contributors table reads.
CONTRIBUTORS = "import starweaver.agent"
# Statements that may cost what ``import pydantic`` costs plus TOOL_MARGIN_MS.
NEAR_PYDANTIC = ("from starweaver import tool", "from starweaver import tool, create_agent")
TARGET_MS = 30.0
# NEAR_PYDANTIC statements may cost what ``import pydantic`` costs plus
# this, both measured in the same run.
TOOL_MARGIN_MS = 10.0


def parse_importtime(stderr: str) -> list[tuple[int, int, int, str]]:
    """(depth, self_us, cumulative_us, module) per line of -X importtime output."""
    out = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        parts = line[len("import time:") :].split("|")
        if len(parts) != 3:
            continue
        self_us, cum_us, raw_name = parts
        if not self_us.strip().isdigit():
            continue
        depth = (len(raw_name) - len(raw_name.lstrip(" ")) - 1) // 2
        out.append((depth, int(self_us), int(cum_us), raw_name.strip()))
    return out


def package_cumulative_ms(entries: list[tuple[int, int, int, str]], package: str = "starweaver") -> float:
    return (
        sum(
            cum for depth, _, cum, name in entries if depth == 0 and (name == package or name.startswith(package + "."))
        )
        / 1e3
    )


def contributors(entries: list[tuple[int, int, int, str]], by_module: bool = False) -> dict[str, float]:
    """Self time (ms) by top-level package (or by module), inside the
    top-level starweaver* imports."""
    by_pkg: dict[str, float] = defaultdict(float)
    # -X importtime prints a module after its children, so a top-level
    # starweaver* line closes the group of lines printed before it.
    group: list[tuple[int, int, int, str]] = []
    for entry in entries:
        group.append(entry)
        depth, _, _, name = entry
        if depth == 0:
            if name == "starweaver" or name.startswith("starweaver."):
                for _, self_us, _, mod in group:
                    by_pkg[mod if by_module else mod.split(".")[0]] += self_us / 1e3
            group = []
    return by_pkg


PYCACHE_PREFIX = "/tmp/starweaver-bench-pycache"
_ENV: dict[str, str] = {}


def timed(stmt: str) -> list[str]:
    """``-c`` arguments that run stmt and write its own duration (s) to stderr."""
    code = f"import time as _t\n_s = _t.perf_counter()\n{stmt}\n_e = _t.perf_counter()\n"
    return ["-c", code + "import sys as _y\n_y.stderr.write(repr(_e - _s))\n"]


def run(args: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=_ENV, check=False)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{args} failed: {proc.stderr[-2000:]}")
    return dt, proc.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=None, help="subprocesses per measurement (default 15, 7 with --quick)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument(
        "--no-pyc",
        action="store_true",
        help="keep the environment's bytecode settings (by default bytecode caches are written to "
        f"{PYCACHE_PREFIX}, so nothing is written into the source tree, as an installed package would have them)",
    )
    args = ap.parse_args()
    reps = args.reps or (7 if args.quick else 15)
    _ENV.update(subprocess_env())
    if not args.no_pyc:
        _ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        _ENV["PYTHONPYCACHEPREFIX"] = PYCACHE_PREFIX
    pyc = (
        "off (PYTHONDONTWRITEBYTECODE)"
        if args.no_pyc and _ENV.get("PYTHONDONTWRITEBYTECODE")
        else f"cached under {_ENV.get('PYTHONPYCACHEPREFIX', '__pycache__')}"
    )

    print(f"# {environment_line()}")
    _, where = run(["-c", "import sys, starweaver; sys.stderr.write(starweaver.__file__)"])
    print(f"# starweaver from {where.strip()}")
    for stmt in STATEMENTS:  # write bytecode caches
        run(["-c", stmt])

    base_wall: list[float] = []
    wall: dict[str, list[float]] = {s: [] for s in STATEMENTS}
    cum: dict[str, list[float]] = {s: [] for s in STATEMENTS}
    samples: list[tuple[float, dict[str, float], dict[str, float]]] = []
    for _ in range(reps):
        base_wall.append(run(["-c", "pass"])[0])
        for stmt in STATEMENTS:
            wall[stmt].append(run(["-c", stmt])[0])
            cum[stmt].append(float(run(timed(stmt))[1]) * 1e3)
        _, err = run(["-X", "importtime", "-c", CONTRIBUTORS])
        entries = parse_importtime(err)
        c = package_cumulative_ms(entries)
        samples.append((c, contributors(entries), contributors(entries, by_module=True)))
    base = statistics.median(base_wall)

    rows = []
    pydantic_cum = statistics.median(cum["import pydantic"])
    for stmt in STATEMENTS:
        med = statistics.median(cum[stmt])
        status = ""
        if stmt == "import starweaver":
            status = ("OK" if med < TARGET_MS else "MISS") + f" (< {TARGET_MS:.0f} ms)"
        elif stmt in NEAR_PYDANTIC:
            # Judged in-process: the wall column adds interpreter start-up and
            # shutdown, whose noise (see `import starweaver`) is larger than the margin.
            ok = med <= pydantic_cum + TOOL_MARGIN_MS
            status = ("OK" if ok else "MISS") + f" (≤ import pydantic + {TOOL_MARGIN_MS:.0f} ms, in-process)"
        rows.append(
            [
                "first agent run (TestModel, one tool call)" if stmt == FIRST_RUN else f"`{stmt}`",
                fmt_summary(cum[stmt]),
                fmt_summary([(w - base) * 1e3 for w in wall[stmt]]),
                status,
            ]
        )
    rows.append(["`python -c pass` (baseline wall)", "", fmt_summary([w * 1e3 for w in base_wall]), ""])
    print()
    print(f"## import_time.py: {reps} fresh subprocesses per row, ms, median [p10–p90]; bytecode {pyc}")
    print()
    print(markdown_table(["statement", "in-process", "wall − baseline", "target"], rows))

    # Contributors in the median run of the full import.
    stmt = CONTRIBUTORS
    ordered = sorted(samples, key=lambda s: s[0])
    _, contrib, contrib_mod = ordered[len(ordered) // 2]
    top = sorted(contrib.items(), key=lambda kv: -kv[1])[:12]
    top_mod = sorted(contrib_mod.items(), key=lambda kv: -kv[1])[:12]
    print()
    print(f"### where `{stmt}` spends its time (median run; self ms by top-level package, and the slowest modules)")
    print()
    rows = [[f"{k}", f"{v:.1f}", f"{m}", f"{w:.1f}"] for (k, v), (m, w) in zip(top, top_mod)]
    print(markdown_table(["package", "self ms", "module", "self ms"], rows))
    print()
    print(f"# load average at the end: {loadavg()}")


if __name__ == "__main__":
    main()
