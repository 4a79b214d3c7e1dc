"""CPU of a streamed response against a whole JSON one, per provider, in one run.

Runs each provider's Go benchmark (``request`` and ``stream`` sub-benchmarks,
which report ``cpu-ns/op``: the process's CPU per request, the local fake
server's included and the same on both sides) ``--count`` times and prints
the median CPU per request and the median streamed/whole ratio.

    python3 bench/streaming.py [--count 6] [--requests 500]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: provider label -> (package, benchmark, whole sub-benchmark, streamed sub-benchmark)
BENCHES = {
    "OpenAI Chat": ("./core/model/openai/", "BenchmarkStream/chat", "chat/request", "chat/stream"),
    "OpenAI Responses": ("./core/model/openai/", "BenchmarkStream/responses", "responses/request", "responses/stream"),
    "Anthropic": ("./core/model/anthropic/", "BenchmarkStream", "request", "stream"),
    "Gemini": ("./core/model/google/", "BenchmarkGenerateContent", "request", "stream"),
    "Bedrock": ("./core/model/bedrock/", "BenchmarkConverse", "request", "stream"),
}

LINE = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+\S+ ns/op\s+(\S+) (cpu-ns/op|cpu-µs/op)")


def cpu_per_request(pkg: str, bench: str, count: int, requests: int) -> dict[str, list[float]]:
    """The cpu-µs/op of each sub-benchmark of bench, one value per run."""
    pattern = "^" + "$/^".join(bench.split("/")) + "$"
    out = subprocess.run(
        ["go", "test", "-run", "^$", "-bench", pattern, "-benchtime", f"{requests}x", "-count", str(count), pkg],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    runs: dict[str, list[float]] = defaultdict(list)
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            name = m.group(1).split("/", 1)[1]
            value = float(m.group(2))
            runs[name].append(value / 1000 if m.group(3) == "cpu-ns/op" else value)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=6)
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()
    print("| provider | whole (µs CPU) | streamed (µs CPU) | streamed / whole |")
    print("|---|---|---|---|")
    for label, (pkg, bench, whole, streamed) in BENCHES.items():
        runs = cpu_per_request(pkg, bench, args.count, args.requests)
        w, s = runs[whole], runs[streamed]
        ratios = [b / a for a, b in zip(w, s, strict=True)]
        print(
            f"| {label} | {statistics.median(w):.0f} | {statistics.median(s):.0f} | {statistics.median(ratios):.2f}x |"
        )


if __name__ == "__main__":
    main()
