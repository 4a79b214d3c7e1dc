"""Run `go build` with a line of progress at least every 30 seconds.

The Go compiler says nothing until it is done, and a cold build of the
runtime library compiles ~400 packages in several minutes: `go build -v`
names each package as it starts, and this module turns those names into a
line every `every` seconds saying how long the build has run and what it is
compiling. Used by setup.py (`pip install .`) and build_wheels.py.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence


def library_command(go: str, out: str, package: str, *, ldflags: str = "-s -w") -> list[str]:
    """The `go build` command line of the runtime library (out), shared by
    source builds and wheels so that both build it alike: stripped, no paths
    of this machine, no VCS stamp."""
    return [
        go,
        "build",
        "-buildmode=c-shared",
        "-trimpath",
        "-buildvcs=false",
        f"-ldflags={ldflags}",
        "-o",
        out,
        package,
    ]


def go_build(
    cmd: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    report: Callable[[str], None],
    echo: Callable[[str], None],
    every: float = 30.0,
) -> int:
    """Runs cmd (a `go build` command line, to which -v is added) and returns
    its exit status. report gets the progress lines; echo gets every line Go
    writes (the package names and any error), for a verbose log."""
    argv = [cmd[0], cmd[1], "-v", *cmd[2:]]
    proc = subprocess.Popen(
        argv, cwd=cwd, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    )
    assert proc.stdout is not None
    stdout = proc.stdout
    lock = threading.Lock()
    compiled, last = 0, ""

    def read() -> None:
        nonlocal compiled, last
        for line in stdout:
            line = line.rstrip("\n")
            echo(line)
            with lock:
                compiled, last = compiled + 1, line

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    start = time.monotonic()
    while True:
        try:
            proc.wait(timeout=every)
            break
        except subprocess.TimeoutExpired:
            with lock:
                count, latest = compiled, last
            now = f", latest {latest}" if latest else ""
            report(f"still compiling ({time.monotonic() - start:.0f} s, {count} packages{now})")
    reader.join(timeout=5)
    return proc.returncode
