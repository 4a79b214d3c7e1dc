"""Two checkouts of this repository measured side by side: before and after a change.

Runs the benchmark scripts of each checkout (each against its own built library, `make build`)
in alternating processes, BEFORE then AFTER, then AFTER then BEFORE, for --rounds rounds, so load
drifts hit both alike. Every table row of the scripts' output is read as "name | first number of
each cell"; the summary gives each measurement's median per checkout and the ratio after/before.

    python3 bench/before_after.py --before /path/to/old/checkout --after . [--rounds 3]

The Go benchmarks are compared the same way with `--go PKG:REGEX` (go test -bench in each checkout,
alternating, -count 1 per round).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from _common import loadavg

SCRIPTS: tuple[tuple[str, ...], ...] = (
    ("bridge.py", "--rounds", "5"),
    ("tool_build.py", "--rounds", "3"),
)
# Columns that restate the setup (sample counts, targets), not measurements.
SKIP_COLUMNS = frozenset({"n", "target"})
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
GO_LINE = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(\d+(?:\.\d+)?) ns/op")

Samples = dict[str, list[float]]


def table_rows(text: str, script: str) -> Samples:
    """Each markdown row's first number per cell, keyed by script, row name and column."""
    out: Samples = {}
    header: list[str] = []
    for line in text.splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            if not line.startswith("|"):
                header = []
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if not header:
            header = cells
            continue
        for col, cell in zip(header[1:], cells[1:], strict=False):
            if col in SKIP_COLUMNS:
                continue
            # "gather of the 1000 coroutines: 7.38 [..]": the number is after the label.
            m = NUMBER.search(cell.rpartition(": ")[2])
            if m:
                out[f"{script}: {cells[0]} [{col}]"] = [float(m.group())]
    return out


def run_scripts(tree: Path, only: list[str]) -> Samples:
    got: Samples = {}
    for script, *args in SCRIPTS:
        if only and script not in only:
            continue
        path = tree / "bench" / script
        proc = subprocess.run(
            [sys.executable, str(path), *args], capture_output=True, text=True, timeout=600, check=False
        )
        if proc.returncode != 0:
            raise SystemExit(f"{path} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        got.update(table_rows(proc.stdout, script))
    return got


def run_go(tree: Path, pkg: str, pattern: str) -> Samples:
    proc = subprocess.run(
        ["go", "test", "-run=^$", f"-bench={pattern}", "-count=1", pkg],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"go test -bench in {tree} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    got: Samples = {}
    for line in proc.stdout.splitlines():
        m = GO_LINE.match(line)
        if m:
            got[f"go {pkg}: {m.group(1)} [ns/op]"] = [float(m.group(2))]
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--go", action="append", default=[], metavar="PKG:REGEX")
    ap.add_argument("--only", action="append", default=[], metavar="SCRIPT", help="run only these scripts")
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    samples: dict[str, Samples] = {"before": defaultdict(list), "after": defaultdict(list)}
    print(f"load average before: {loadavg()}", file=sys.stderr)
    for r in range(args.rounds):
        order = ("before", "after") if r % 2 == 0 else ("after", "before")
        for which in order:
            got = run_scripts(trees[which], args.only)
            for spec in args.go:
                pkg, _, pattern = spec.partition(":")
                got.update(run_go(trees[which], pkg, pattern or "."))
            for k, v in got.items():
                samples[which][k].extend(v)
        print(f"# round {r + 1}/{args.rounds} done; load {loadavg()}", file=sys.stderr)
    print(f"## before/after: {args.rounds} alternating rounds\n")
    print("| measurement | before (median) | after (median) | after / before |")
    print("|---|---|---|---|")
    for key in sorted(samples["before"].keys() & samples["after"].keys()):
        b = statistics.median(samples["before"][key])
        a = statistics.median(samples["after"][key])
        ratio = f"{a / b:.2f}x" if b else "-"
        print(f"| {key} | {b:.4g} | {a:.4g} | {ratio} |")
    print(f"\nload average after: {loadavg()}")


if __name__ == "__main__":
    main()
