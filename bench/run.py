#!/usr/bin/env python3
"""Run the bridge benchmarks one after another and print everything.

  bridge.py       throughput/overhead of the Go bridge vs plain asyncio
  import_time.py  import cost in fresh interpreters
  memory.py       RSS and native handles over many tool calls

Quick mode by default (a few minutes in all on 2 cores); --full runs the
default sizes (7 rounds, 15 subprocesses, 100 000 calls). --compare also
runs compare/run.py (creates virtual environments under /tmp on first use).
Each script runs in its own interpreter (``sys.executable``), with the
repository's python/ directory first on sys.path when it holds a built
library (`make build`) and STARWEAVER_BENCH_INSTALLED is not 1; otherwise
the installed package is measured (right after `pip install .`).

Usage: python3 bench/run.py [--full] [--compare] [--rounds N]
Exit status: non-zero when a script fails (memory.py fails on a handle leak).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="default sizes instead of --quick")
    ap.add_argument("--compare", action="store_true", help="also run compare/run.py")
    ap.add_argument("--rounds", type=int, default=None, help="rounds for bridge.py (and compare)")
    args = ap.parse_args()
    quick = [] if args.full else ["--quick"]
    rounds = ["--rounds", str(args.rounds)] if args.rounds else []
    jobs = [
        ["bridge.py", *quick, *rounds],
        ["import_time.py", *quick],
        ["memory.py", *quick],
    ]
    if args.compare:
        jobs.append(["compare/run.py", *quick, *rounds])
    failed = []
    for job in jobs:
        print(f"\n===== {' '.join(job)} =====", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.run([sys.executable, str(HERE / job[0]), *job[1:]], cwd=str(HERE)).returncode
        print(f"===== {job[0]}: exit {rc}, {time.perf_counter() - t0:.0f} s =====", flush=True)
        if rc != 0:
            failed.append(job[0])
    if failed:
        print(f"failed: {', '.join(failed)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
