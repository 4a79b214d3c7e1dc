"""The examples of docs/durable-execution.md (examples/temporal/) run
against the local server: a worker, a client starting a run, an approval
from another process, a crash survived; and the page shows them as they
are."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

if os.environ.get("STARWEAVER_REQUIRE_TEMPORAL") != "1":
    pytest.importorskip("temporalio")

from temporal_support import ADDRESS

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "temporal"
DOC = ROOT / "docs" / "durable-execution.md"


def env(task_queue: str) -> dict[str, str]:
    import starweaver

    package_root = str(Path(starweaver.__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": package_root, "TEMPORAL_ADDRESS": ADDRESS, "SUPPORT_TASK_QUEUE": task_queue}


def run(name: str, *args: str, task_queue: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args], env=env(task_queue), capture_output=True, text=True, timeout=90
    )
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture
def task_queue(temporal_server: None) -> Iterator[str]:
    """A worker (worker.py) serving a queue of the test's own."""
    tq = f"support-{uuid.uuid4().hex[:8]}"
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "worker.py")], env=env(tq), stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "worker ready"
        yield tq
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_a_run_started_by_one_client_is_approved_by_another(task_queue: str) -> None:
    started = run("start_run.py", task_queue=task_queue)
    workflow_id = started.split("workflow: ", 1)[1].split()[0]
    assert "waiting for: approval" in started and "refund" in started
    approved = run("approve.py", workflow_id, task_queue=task_queue)
    assert "status: completed" in approved
    assert "output: {'order_id': 42, 'total': 42} / refunded 42 on order 42" in approved


@pytest.mark.usefixtures("temporal_server")
def test_a_crash_is_survived() -> None:
    out = run("crash.py", task_queue="unused")
    assert "first worker: looking up order 42" in out
    assert "status: completed" in out and "output: {'order_id': 42, 'total': 42}" in out


@pytest.mark.parametrize("name", ["worker.py", "start_run.py", "approve.py", "crash.py"])
def test_the_page_shows_the_example_as_it_is(name: str) -> None:
    assert (EXAMPLES / name).read_text().strip() in DOC.read_text(), (
        f"docs/durable-execution.md does not show {name} as it is"
    )
