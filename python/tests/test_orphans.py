"""Children die with the host: a host process killed with SIGKILL leaves no
shell command (sandboxed: not even a grandchild) and no stdio MCP server
running. Each test starts a host (orphan_worker.py), waits until its
processes run, kills it and counts what is left in /proc, with a bound.

The sandboxed case needs bubblewrap: without it the test skips, unless
STARWEAVER_REQUIRE_SANDBOX is set (CI sets it): then it fails. The MCP
server joins when mcp-server-time is importable (required under
STARWEAVER_REQUIRE_MCP).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import starweaver
from helpers import live_process_stats

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signals are Linux only")

WORKER = str(Path(__file__).with_name("orphan_worker.py"))
# The directory holding the starweaver under test (the installed one under
# `make test`, the source tree's after `make build`).
PACKAGE = str(Path(starweaver.__file__).resolve().parents[1])


def processes() -> dict[int, tuple[int, str, list[str]]]:
    """pid → (parent pid, start time, argv) of every live (not zombie) process."""
    return {pid: (int(fields[1]), fields[19], argv) for pid, fields, argv in live_process_stats()}


def descendants(pid: int) -> dict[int, tuple[str, list[str]]]:
    """The live descendants of pid: pid → (start time, argv)."""
    procs = processes()
    found: dict[int, tuple[str, list[str]]] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, start, argv) in procs.items():
            if ppid == parent and child not in found:
                found[child] = (start, argv)
                frontier.append(child)
    return found


def with_marker(mark: str) -> list[int]:
    return [pid for pid, (_, _, argv) in processes().items() if mark in argv and not argv[0].endswith("bwrap")]


def mcp_python() -> str:
    # The interpreter that has mcp-server-time (CI names it; a test venv of
    # other dependency versions may lack it).
    py = os.environ.get("STARWEAVER_MCP_PYTHON") or sys.executable
    probe = subprocess.run([py, "-c", "import mcp_server_time"], capture_output=True, timeout=60)
    if probe.returncode == 0:
        return py
    if os.environ.get("STARWEAVER_REQUIRE_MCP"):
        pytest.fail("the orphan test needs mcp-server-time importable by STARWEAVER_MCP_PYTHON or this interpreter")
    return ""


def kill_host_and_count(tmp_path: Path, mode: str, want_marked: int) -> None:
    mark = f"6{os.getpid()}{len(mode)}"
    server = mcp_python()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([PACKAGE, str(Path(WORKER).parent)])}
    host = subprocess.Popen(
        [sys.executable, WORKER, str(tmp_path), mark, mode, *([server] if server else [])],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        # Wait (bounded) for the commands and the server to run.
        deadline = time.monotonic() + 60
        while True:
            marked = [p for p in with_marker(mark) if p != host.pid]  # the host has mark as an argument
            tree = descendants(host.pid)
            servers = [p for p, (_, argv) in tree.items() if "mcp_server_time" in argv]
            if len(marked) >= want_marked and (servers or not server):
                break
            if host.poll() is not None or time.monotonic() > deadline:
                _, err = host.communicate(timeout=10) if host.poll() is not None else (None, b"")
                pytest.fail(f"the host did not start its processes: {marked}, {tree}, {err!r}")
            time.sleep(0.05)
        assert set(marked) <= set(tree), "the marked processes descend from the host"
    finally:
        host.send_signal(signal.SIGKILL)
        host.wait(timeout=30)
    # No descendant of the host survives it (a pid reused meanwhile has
    # another start time).
    deadline = time.monotonic() + 10
    while True:
        procs = processes()
        left = {p: argv for p, (start, argv) in tree.items() if p in procs and procs[p][1] == start}
        if not left and not with_marker(mark):
            break
        if time.monotonic() > deadline:
            for p in left:
                os.kill(p, signal.SIGKILL)
            pytest.fail(f"processes outlived their host: {left}")
        time.sleep(0.05)


def test_a_killed_host_leaves_no_sandboxed_process(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        msg = "needs bubblewrap (apt-get install bubblewrap)"
        if os.environ.get("STARWEAVER_REQUIRE_SANDBOX"):
            pytest.fail(msg)
        pytest.skip(msg)
    kill_host_and_count(tmp_path, "sandbox", 4)


def test_a_killed_host_leaves_no_unsandboxed_child(tmp_path: Path) -> None:
    kill_host_and_count(tmp_path, "unsandboxed", 2)
