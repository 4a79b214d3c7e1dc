"""Helpers shared by the bench scripts (standard library only).

The compare/ scenario scripts import this module too, from interpreters that
have a different ``starweaver`` (or none) installed, so nothing here imports
the package.
"""

from __future__ import annotations

import importlib
import os
import platform
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
SOURCE_DIR = REPO_DIR / "python"


# -- statistics -------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) with linear interpolation (numpy's default)."""
    if not values:
        return float("nan")
    data = sorted(values)
    if len(data) == 1:
        return data[0]
    pos = (len(data) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def summary(values: Sequence[float]) -> tuple[float, float, float]:
    """(median, p10, p90)."""
    if not values:
        return (float("nan"),) * 3  # type: ignore[return-value]
    return statistics.median(values), percentile(values, 10), percentile(values, 90)


def fmt_num(x: float, digits: int | None = None) -> str:
    if x != x:  # NaN
        return "n/a"
    if digits is None:
        ax = abs(x)
        digits = 0 if ax >= 1000 else 1 if ax >= 100 else 2 if ax >= 1 else 3
    return f"{x:.{digits}f}"


def fmt_summary(values: Sequence[float], digits: int | None = None, unit: str = "") -> str:
    """``median [p10–p90]``."""
    if not values:
        return "n/a"
    med, p10, p90 = summary(values)
    return f"{fmt_num(med, digits)}{unit} [{fmt_num(p10, digits)}–{fmt_num(p90, digits)}]"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines)


# -- process facts ------------------------------------------------------------


def proc_status(field: str) -> str:
    """A field of /proc/self/status (e.g. 'Threads', 'VmRSS'), '' if unavailable."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def os_threads() -> int:
    value = proc_status("Threads")
    return int(value) if value else -1


def rss_kib() -> int:
    value = proc_status("VmRSS")  # "12345 kB"
    return int(value.split()[0]) if value else -1


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def environment_line() -> str:
    return (
        f"python {platform.python_version()} ({sys.executable}), {os.cpu_count()} CPUs, "
        f"load average {loadavg()}, {time.strftime('%Y-%m-%d %H:%M:%S')}"
    )


# -- importing the package under test ----------------------------------------


def source_tree_built(src: Path) -> bool:
    """Whether the repository's python/starweaver holds a built library and
    cffi module (`make build`); a checkout that was only `pip install`ed does not."""
    pkg = src / "starweaver"
    return (pkg / "_cffi.py").is_file() and any(pkg.glob("libstarweaver.*"))


_noted = False


def measure_source_tree() -> bool:
    """Whether to measure the repository's python/ directory rather than the
    installed package: yes unless STARWEAVER_BENCH_INSTALLED=1, or the source
    tree has no built library (then the installed package is measured, with
    a note on stderr)."""
    global _noted
    if os.environ.get("STARWEAVER_BENCH_INSTALLED") == "1":
        return False
    if source_tree_built(SOURCE_DIR):
        return True
    if not _noted:
        _noted = True
        print(
            f"# {SOURCE_DIR}/starweaver has no built library (run `make build` to measure the source tree);"
            " measuring the installed starweaver package",
            file=sys.stderr,
            flush=True,
        )
    return False


def use_source_tree() -> str:
    """Put the repository's python/ directory first on sys.path, unless the
    installed package is measured (see measure_source_tree). Returns the
    directory used ('' for the installed package)."""
    if not measure_source_tree():
        return ""
    src = str(SOURCE_DIR)
    if src not in sys.path:
        sys.path.insert(0, src)
    return src


def import_with_retry(name: str, attempts: int = 4, delay: float = 20.0):  # noqa: ANN201
    """Import a module, retrying: the package is edited while we measure, so
    a failing import may be transient."""
    last: BaseException | None = None
    for i in range(attempts):
        try:
            return importlib.import_module(name)
        except Exception as exc:  # ImportError, SyntaxError, ... from a half-written file
            last = exc
            for mod in [m for m in sys.modules if m == "starweaver" or m.startswith("starweaver.")]:
                del sys.modules[mod]
            if i + 1 < attempts:
                print(
                    f"# import {name} failed ({type(exc).__name__}: {exc}); retrying in {delay:.0f}s", file=sys.stderr
                )
                time.sleep(delay)
    assert last is not None
    raise last


def subprocess_env(extra_pythonpath: str | None = None) -> dict[str, str]:
    """os.environ with the source tree on PYTHONPATH (unless the installed
    package was asked for)."""
    env = dict(os.environ)
    if measure_source_tree():
        parts = [str(SOURCE_DIR)]
        if extra_pythonpath:
            parts.append(extra_pythonpath)
        if env.get("PYTHONPATH"):
            parts.append(env["PYTHONPATH"])
        env["PYTHONPATH"] = os.pathsep.join(parts)
    return env
