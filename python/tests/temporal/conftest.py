"""The Temporal tests' fixtures: a check that the server answers (the tests
skip without it, and fail when STARWEAVER_REQUIRE_TEMPORAL=1), and worker
processes stopped at the end of each test."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# The tests' helper modules (temporal_support, temporal_shop, temporal_flows)
# import by name, here, in the workflow sandboxes and in the worker
# processes; appended, so that `import conftest` one directory up still
# finds its own.
HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.append(HERE)

from temporal_support import ADDRESS, WorkerProcess, answers, unavailable  # noqa: E402


@pytest.fixture
def temporal_server() -> None:
    """The tests that talk to the server use this: skip (or fail) without it."""
    try:
        import temporalio  # noqa: F401
    except ImportError:
        unavailable("temporalio is not installed (pip install 'starweaver[temporal]')")
    if not answers(ADDRESS):
        unavailable(f"no Temporal server at {ADDRESS} (make temporal-up)")


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Callable[[str], WorkerProcess]]:
    """Starts worker processes; stops every one at the end of the test."""
    started: list[WorkerProcess] = []

    def start(task_queue: str) -> WorkerProcess:
        w = WorkerProcess(task_queue, tmp_path)
        started.append(w)
        return w

    yield start
    for w in started:
        w.stop()
