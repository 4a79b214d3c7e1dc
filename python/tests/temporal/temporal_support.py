"""What the Temporal tests share: the server's address (a local dev server:
`make temporal-up`), whether it answers, task queues, bounded waits and
worker processes. (A module of its own, not conftest: the tests one
directory up import their conftest by name.)"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

ADDRESS = os.environ.get("STARWEAVER_TEMPORAL_ADDRESS", "127.0.0.1:7233")
REQUIRED = os.environ.get("STARWEAVER_REQUIRE_TEMPORAL") == "1"


def unavailable(reason: str) -> None:
    """Skip, or fail when the environment requires Temporal."""
    if REQUIRED:
        pytest.fail(f"{reason} (STARWEAVER_REQUIRE_TEMPORAL=1)")
    pytest.skip(reason)


def answers(address: str) -> bool:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=2):
            return True
    except OSError:
        return False


def queue() -> str:
    """A task queue of the test's own: the server is shared."""
    return f"starweaver-test-{uuid.uuid4().hex[:12]}"


def wait_for(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Poll check until it holds, failing after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)


class WorkerProcess:
    """A worker in a process of its own (temporal_worker.py)."""

    def __init__(self, task_queue: str, folder: Path) -> None:
        import starweaver

        self.ready = folder / f"ready-{uuid.uuid4().hex[:8]}"
        package_root = str(Path(starweaver.__file__).resolve().parents[1])
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([package_root, str(HERE)]),
            "STARWEAVER_TEMPORAL_ADDRESS": ADDRESS,
        }
        self.log = open(folder / f"{self.ready.name}.log", "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "temporal_worker.py"), task_queue, str(self.ready)],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        def ready() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError(f"worker exited with {self.proc.returncode}: {Path(self.log.name).read_text()}")
            return self.ready.exists()

        wait_for(ready, "the worker to start", timeout)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        self.log.close()
