"""What each Go dependency adds to the runtime library: its share of the
library's symbols (size) and of a cold build (compile and link time).

    python bench/lib_cost.py [--lib PATH] [--actiongraph FILE]

--lib: an unstripped library (default: built here into build/lib-cost/);
--actiongraph: the JSON of `go build -debug-actiongraph=FILE` of a cold build
(`go build -a`); without it only sizes are shown. Sizes come from
`go tool nm -size`: code, data and read-only data named after their package,
grouped by module; what no package names (the pcln tables, type links) is
"unattributed", which is why the stripped .so a wheel ships is smaller.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
from datetime import datetime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def modules() -> dict[str, str]:
    """Import path -> module path (std for the standard library)."""
    out = subprocess.run(
        ["go", "list", "-deps", "-f", "{{.ImportPath}} {{if .Module}}{{.Module.Path}}{{else}}std{{end}}", "./capi"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


def group(module: str) -> str:
    """Related modules read as one dependency (all of OpenTelemetry...)."""
    for prefix, name in (
        ("go.opentelemetry.io/", "OpenTelemetry"),
        ("modernc.org/", "modernc SQLite"),
        ("github.com/jackc/", "pgx (PostgreSQL)"),
        ("github.com/openai/", "OpenAI SDK"),
        ("github.com/anthropics/", "Anthropic SDK"),
        ("github.com/modelcontextprotocol/", "MCP SDK"),
        ("github.com/go-git/", "go-git"),
        ("github.com/starweaver-go/", "starweaver"),
        ("std", "Go standard library"),
    ):
        if module.startswith(prefix):
            return name
    return module


def owner(symbol: str, paths: list[str]) -> str | None:
    name = symbol.removeprefix("type:").removeprefix("go:").lstrip("*")
    # The package is what comes before the first dot after the last slash.
    slash = name.rfind("/", 0, name.find("(") if "(" in name else len(name))
    dot = name.find(".", slash + 1)
    pkg = name[:dot] if dot > 0 else name
    return pkg if pkg in paths else None


def sizes(lib: str, mods: dict[str, str]) -> collections.Counter[str]:
    out = subprocess.run(["go", "tool", "nm", "-size", lib], check=True, capture_output=True, text=True).stdout
    paths = set(mods)
    total: collections.Counter[str] = collections.Counter()
    for line in out.splitlines():
        fields = line.split()
        # Code only: data symbols include BSS (32 MiB of FIPS DRBG memory)
        # that takes no room in the file. Code is what a dependency costs:
        # the pcln tables and relocations grow with it.
        if len(fields) < 4 or fields[2] not in "Tt":
            continue
        size, symbol = int(fields[1]), fields[3]
        pkg = owner(symbol, list(paths)) if "/" in symbol else (symbol.split(".")[0] if "." in symbol else None)
        total[group(mods[pkg]) if pkg in mods else "unattributed"] += size
    return total


def build_times(actiongraph: str, mods: dict[str, str]) -> collections.Counter[str]:
    """Seconds of compiling, per dependency, from a cold build's action graph."""
    with open(actiongraph) as f:
        actions = json.load(f)
    total: collections.Counter[str] = collections.Counter()
    for a in actions:
        if a.get("Mode") not in ("build", "link") or not a.get("TimeStart") or not a.get("TimeDone"):
            continue
        start = datetime.fromisoformat(a["TimeStart"][:26].rstrip("Z"))
        done = datetime.fromisoformat(a["TimeDone"][:26].rstrip("Z"))
        pkg = a.get("Package", "")
        name = "link" if a["Mode"] == "link" else group(mods.get(pkg, "std" if "." not in pkg.split("/")[0] else pkg))
        total[name] += (done - start).total_seconds()
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lib")
    parser.add_argument("--actiongraph")
    args = parser.parse_args()
    lib = args.lib
    if not lib:
        lib = os.path.join(ROOT, "build", "lib-cost", "libstarweaver.so")
        subprocess.run(["go", "build", "-buildmode=c-shared", "-trimpath", "-o", lib, "./capi"], cwd=ROOT, check=True)
    mods = modules()
    by_size = sizes(lib, mods)
    times = build_times(args.actiongraph, mods) if args.actiongraph else collections.Counter()
    code = sum(by_size.values())
    print(f"library: {lib} ({os.path.getsize(lib) / 2**20:.1f} MiB unstripped, {code / 2**20:.1f} MiB of code)")
    cpu = sum(times.values())
    print("| dependency | code (MiB) | share of the code | compile time (s, actions summed) | share of the build |")
    print("|---|---:|---:|---:|---:|")
    shown = sorted(set(by_size) | set(times), key=lambda n: -(by_size[n] / code + (times[n] / cpu if cpu else 0)))
    for name in shown:
        if by_size[name] < code / 200 and (not cpu or times[name] < cpu / 200):
            continue  # under 0.5 % of both: folded into "other"
        t = f"{times[name]:.0f} | {100 * times[name] / cpu:.0f} %" if cpu else "- | -"
        print(f"| {name} | {by_size[name] / 2**20:.1f} | {100 * by_size[name] / code:.0f} % | {t} |")
    rest = [n for n in shown if by_size[n] < code / 200 and (not cpu or times[n] < cpu / 200)]
    if rest:
        size, secs = sum(by_size[n] for n in rest), sum(times[n] for n in rest)
        t = f"{secs:.0f} | {100 * secs / cpu:.0f} %" if cpu else "- | -"
        print(f"| {len(rest)} other modules | {size / 2**20:.1f} | {100 * size / code:.0f} % | {t} |")


if __name__ == "__main__":
    sys.exit(main())
