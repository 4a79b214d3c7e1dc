#!/usr/bin/env python3
"""Run the comparison scenarios for every framework and print one table.

Frameworks, each in its own interpreter:
  ours          this repository's starweaver (Go core): the driver's own
                python3 with PYTHONPATH=<repo>/python
  pydantic-ai   /tmp/venv-pydantic-ai    (pip install pydantic-ai)
  starweaver-rs /tmp/venv-starweaver-rs  (pip install starweaver, the Rust-core SDK)

Virtual environments are created under /tmp when missing and the packages
installed with their pip (never into the global interpreter). Each
(scenario, framework) pair runs in a fresh subprocess (``scen_<fw>.py``) that
times the framework against plain asyncio in the same process (see
_harness.py); a framework that cannot be installed, fails, or hangs gets a
row saying so.

Usage: python3 bench/compare/run.py [--rounds N] [--quick] [--scenarios a,b,c,...]
       [--frameworks ours,pydantic-ai,starweaver-rs] [--timeout S]
Environment: PYDANTIC_AI_SPEC (default "pydantic-ai"), STARWEAVER_RS_SPEC
(default "starweaver") choose what pip installs; VENV_ROOT (default /tmp).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from _common import SOURCE_DIR, environment_line, fmt_summary, loadavg, markdown_table, measure_source_tree  # noqa: E402

VENV_ROOT = Path(os.environ.get("VENV_ROOT", "/tmp"))
FRAMEWORKS = {
    "ours": {"script": "scen_ours.py", "venv": None, "spec": None},
    "pydantic-ai": {
        "script": "scen_pydantic_ai.py",
        "venv": VENV_ROOT / "venv-pydantic-ai",
        "spec": os.environ.get("PYDANTIC_AI_SPEC", "pydantic-ai"),
    },
    "starweaver-rs": {
        "script": "scen_starweaver_rs.py",
        "venv": VENV_ROOT / "venv-starweaver-rs",
        "spec": os.environ.get("STARWEAVER_RS_SPEC", "starweaver"),
    },
}
SCENARIO_ORDER = ["a", "b", "c", "a200", "a100", "a16", "a1", "t100"]
DESCRIPTIONS = {
    "a": "(a) 1000 async calls, sleep(0)",
    "b": "(b) 1000 async calls, sleep(0.1)",
    "c": "(c) 8 sync calls, time.sleep(0.2)",
    "a100": "100 async calls, sleep(0)",
    "a16": "16 async calls, sleep(0)",
    "a1": "1 async call, sleep(0)",
    "a200": "200 async calls, sleep(0)",
    "t100": "100 model turns, one call each",
}
SCENARIO_K = {"a": 1000, "b": 1000, "c": 8, "a100": 100, "a16": 16, "a1": 1, "a200": 200, "t100": 100}
BASELINES = {"c": "8-thread pool", "a1": "direct await (mean of 100)", "t100": "100 direct awaits in a row"}


def log(msg: str) -> None:
    print(f"# {msg}", file=sys.stderr, flush=True)


def ensure_venv(name: str, venv: Path, spec: str) -> tuple[str | None, str]:
    """(python path or None, note). Creates the venv and installs spec when missing."""
    py = venv / "bin" / "python"
    probe = "import importlib.metadata as m, sys; sys.exit(0 if m.version(sys.argv[1]) else 1)"
    dist = spec.split("=")[0].split("<")[0].split(">")[0].strip()
    if py.exists() and subprocess.run([str(py), "-c", probe, dist], capture_output=True).returncode == 0:
        return str(py), ""
    try:
        if not py.exists():
            log(f"creating {venv}")
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, text=True)
        log(f"pip install {spec} into {venv} (may take a few minutes)")
        proc = subprocess.run(
            [str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q", spec],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
            return None, f"pip install {spec} failed: {tail[0][:200]}"
    except (subprocess.SubprocessError, OSError) as exc:
        return None, f"could not create {venv}: {exc}"
    return str(py), "installed now"


def run_one(py: str, script: str, scenario: str, rounds: int, timeout: float, env: dict[str, str]) -> dict:
    cmd = [py, str(HERE / script), "--scenario", scenario, "--rounds", str(rounds), "--timeout", str(timeout)]
    # The harness reports a hang itself after `timeout` s; this is the backstop.
    hard = timeout + 600
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=hard, cwd=str(HERE))
    except subprocess.TimeoutExpired:
        return {"error": f"killed after {hard:.0f} s"}
    result: dict = {}
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH-JSON "):
            result = json.loads(line[len("BENCH-JSON ") :])
    if not result:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        result = {"error": f"exit code {proc.returncode}, no result: {tail[:200]}"}
    elif proc.returncode not in (0, 3):
        result["exit_note"] = f"process exited with code {proc.returncode} after reporting"
        if proc.returncode < 0 or proc.returncode in (134, 139):
            result["exit_note"] += " (crashed at exit)"
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=None, help="rounds per scenario (default 5, 2 with --quick)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--scenarios", default=",".join(SCENARIO_ORDER))
    ap.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    ap.add_argument(
        "--timeout", type=float, default=30.0, help="seconds a first run may take before it counts as a hang"
    )
    args = ap.parse_args()
    rounds = args.rounds or (2 if args.quick else 5)
    scenarios = [s for s in args.scenarios.split(",") if s]
    frameworks = [f for f in args.frameworks.split(",") if f]

    print(f"# {environment_line()}")
    pythons: dict[str, tuple[str | None, str, dict[str, str]]] = {}
    for fw in frameworks:
        info = FRAMEWORKS[fw]
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        if info["venv"] is None:
            if measure_source_tree():
                env["PYTHONPATH"] = str(SOURCE_DIR)
            pythons[fw] = (sys.executable, "", env)
        else:
            py, note = ensure_venv(fw, info["venv"], info["spec"])
            pythons[fw] = (py, note, env)

    results: list[tuple[str, str, dict]] = []
    hung_at: dict[str, int] = {}  # framework -> smallest k of an async scenario that hung
    t0 = time.perf_counter()
    # Parallel scenarios, which a hang with as many parallel calls skips;
    # the sync one and the turns (one call at a time) always run.
    parallel = {"a", "b", "a200", "a100", "a16", "a1"}
    for scenario in scenarios:
        k = SCENARIO_K[scenario]
        for fw in frameworks:
            py, note, env = pythons[fw]
            if py is None:
                results.append((scenario, fw, {"error": note}))
                continue
            if scenario in parallel and fw in hung_at and k >= hung_at[fw]:
                results.append(
                    (scenario, fw, {"error": f"not run: the same framework hung with {hung_at[fw]} parallel calls"})
                )
                continue
            log(f"{scenario} / {fw}")
            res = run_one(py, FRAMEWORKS[fw]["script"], scenario, rounds, args.timeout, env)
            results.append((scenario, fw, res))
            if str(res.get("error", "")).startswith("hang") and scenario in parallel:
                hung_at[fw] = min(k, hung_at.get(fw, k))
    elapsed = time.perf_counter() - t0

    versions = {}
    for _, fw, res in results:
        if res.get("version"):
            versions[fw] = res["version"]
    rows = []
    for scenario, fw, res in results:
        label = f"{fw} {versions.get(fw, '')}".strip()
        base_label = BASELINES.get(scenario, "asyncio.gather")
        if "framework_s" in res:
            note = res.get("exit_note", "")
            rows.append(
                [
                    DESCRIPTIONS[scenario],
                    label,
                    fmt_summary([x * 1e3 for x in res["framework_s"]]),
                    f"{base_label}: " + fmt_summary([x * 1e3 for x in res["baseline_s"]]),
                    fmt_summary(res["ratio"], 2) + "x",
                    len(res["framework_s"]),
                    f"OS threads {res.get('threads_os')}" + (f"; {note}" if note else ""),
                ]
            )
        else:
            err = res.get("error", "?")
            if res.get("exit_note"):
                err += "; " + res["exit_note"]
            rows.append([DESCRIPTIONS[scenario], label, "n/a", "", "", 0, err.replace("|", "/")])
    print()
    print(
        f"## compare: {rounds} rounds per scenario, each (scenario, framework) in its own process; ms, median [p10–p90]"
    )
    print()
    print(
        markdown_table(
            ["scenario", "framework", "framework ms", "plain baseline, same process", "ratio", "n", "notes"], rows
        )
    )
    print()
    for fw in frameworks:
        py, note, _ = pythons[fw]
        print(f"- {fw}: {versions.get(fw, 'n/a')} — interpreter {py or 'n/a'}{' — ' + note if note else ''}")
    print()
    print(f"# total {elapsed:.0f} s; load average at the end: {loadavg()}")


if __name__ == "__main__":
    main()
