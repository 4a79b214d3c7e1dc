"""Tests that need something outside the package (opentelemetry-sdk, an MCP
server for a docs example) skip without it, saying why in one summary line,
and fail instead under their STARWEAVER_REQUIRE_* switch, as CI runs them.

Each case runs pytest in a fresh interpreter whose PYTHONPATH starts with a
directory that makes ``opentelemetry`` and ``mcp_server_time`` fail to
import, so the machine these tests run on needs neither to be missing."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import starweaver

TESTS = Path(__file__).resolve().parent
PACKAGE_PARENT = str(Path(starweaver.__file__).resolve().parent.parent)
SWITCHES = ("STARWEAVER_REQUIRE_OTEL", "STARWEAVER_REQUIRE_MCP")


@pytest.fixture(scope="module")
def blocked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("blocked")
    (root / "opentelemetry").mkdir()
    (root / "opentelemetry" / "__init__.py").write_text("raise ImportError('opentelemetry is blocked for this test')\n")
    (root / "mcp_server_time.py").write_text("raise ImportError('mcp_server_time is blocked for this test')\n")
    return root


def pytest_in_child(blocked: Path, *args: str, **switches: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    env.update(switches)
    env["PYTHONPATH"] = os.pathsep.join([str(blocked), PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib", *args],
        cwd=TESTS,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def summary_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("starweaver: skipped")]


def test_tracing_tests_skip_saying_why_without_the_sdk(blocked: Path) -> None:
    proc = pytest_in_child(blocked, "test_tracing.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (line,) = summary_lines(proc.stdout)
    assert "the tracing tests need opentelemetry-sdk" in line, line
    n = int(line.split("skipped ", 1)[1].split(":", 1)[0])
    assert n >= 16, line  # every test that reads spans
    assert "2 passed" in proc.stdout  # those that need no SDK still run


def test_tracing_tests_fail_without_the_sdk_under_the_switch(blocked: Path) -> None:
    proc = pytest_in_child(blocked, "test_tracing.py", STARWEAVER_REQUIRE_OTEL="1")
    assert proc.returncode != 0
    assert "STARWEAVER_REQUIRE_OTEL is set" in proc.stdout
    assert not summary_lines(proc.stdout)
    assert " skipped" not in proc.stdout.splitlines()[-1]


def _mcp_docs_block() -> str:
    spec = importlib.util.spec_from_file_location("docs_runner", TESTS / "test_docs.py")
    assert spec is not None and spec.loader is not None
    docs: Any = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = docs  # its dataclasses look their module up
    try:
        spec.loader.exec_module(docs)
    finally:
        del sys.modules[spec.name]
    (block,) = [b for b in docs.PYTHON if "mcp-server-time" in b.requires]
    return f"test_docs.py::test_python_block_runs[{block}]"


def test_the_mcp_docs_example_skips_or_fails_without_its_server(blocked: Path) -> None:
    node = _mcp_docs_block()
    proc = pytest_in_child(blocked, node)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (line,) = summary_lines(proc.stdout)
    assert "needs mcp-server-time: pip install mcp-server-time" in line, line
    proc = pytest_in_child(blocked, node, STARWEAVER_REQUIRE_MCP="1")
    assert proc.returncode != 0
    assert "STARWEAVER_REQUIRE_MCP is set" in proc.stdout


def test_the_summary_groups_skip_reasons() -> None:
    from conftest import skip_summary  # noqa: PLC0415 - the hook's formatting

    def skipped(reason: str) -> Any:
        return SimpleNamespace(longrepr=("x.py", 1, f"Skipped: {reason}"))

    reports = [skipped("no sdk")] * 3 + [skipped("no postgres"), skipped("a docs block needs x")]
    assert skip_summary([]) == ""
    assert skip_summary(reports) == "starweaver: skipped 5: 3 × no sdk; 1 × a docs block needs x; 1 × no postgres"
