"""Every code block of the README and docs/ runs as written.

Python blocks run as scripts, each in a fresh interpreter. A block that is
only a fragment is marked with ``<!-- fragment -->`` on the line before its
fence and is compiled, not run (keep those rare). A block that talks to a
real model is marked with ``<!-- fixtures: name.json ... -->`` on the line
before its fence: it runs against a local server replaying those provider
replies (fixture_server.py), whose address and a key are in the usual
environment variables. A block that needs something outside the package
(an MCP server) is marked with ``<!-- requires: name ... -->``, a name of
REQUIREMENTS: without it the block is skipped, saying what is missing,
unless that requirement's STARWEAVER_REQUIRE_* variable is set (CI sets
them): then it fails. Go blocks (docs/go.md) are run by the Go test
docs/go_test.go; sh and text blocks are not code.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from fixture_server import serving

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FRAGMENT = "<!-- fragment -->"
FIXTURES = re.compile(r"^<!-- fixtures: (.+) -->$")
REQUIRES = re.compile(r"^<!-- requires: (.+) -->$")
#: What a block may require: a command that succeeds when it is there, the
#: variable under which a missing one fails the block, and how to get it.
REQUIREMENTS: dict[str, tuple[list[str], str, str]] = {
    "mcp-server-time": (
        ["python3", "-c", "import mcp_server_time"],
        "STARWEAVER_REQUIRE_MCP",
        "pip install mcp-server-time (the block runs `python3 -m mcp_server_time`)",
    ),
}
LANGUAGES = {"python", "go", "sh", "text"}
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", flags=re.S | re.M)


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    language: str
    code: str
    fragment: bool
    fixtures: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path, text: str | None = None) -> list[Block]:
    text = path.read_text() if text is None else text
    out = []
    for m in FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        line = text.count("\n", 0, m.start()) + 1
        fixtures = FIXTURES.match(before)
        names = tuple(fixtures.group(1).split()) if fixtures else ()
        requires = REQUIRES.match(before)
        needs = tuple(requires.group(1).split()) if requires else ()
        out.append(Block(path, line, m.group(1).strip(), m.group(2), before == FRAGMENT, names, needs))
    return out


ALL = [b for path in DOCS for b in blocks(path)]
PYTHON = [b for b in ALL if b.language == "python"]


def run_script(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd="/", env=env)


def test_blocks_are_found() -> None:
    assert {b.path.name for b in PYTHON} >= {"README.md", "python.md", "hitl.md"}
    assert any(b.language == "go" for b in ALL)


@pytest.mark.parametrize("block", ALL, ids=str)
def test_every_block_names_a_known_language(block: Block) -> None:
    assert block.language in LANGUAGES, f"{block}: a ```{block.language or '(none)'} block is neither run nor known"


@pytest.mark.parametrize("block", [b for b in ALL if b.requires], ids=str)
def test_every_requirement_is_known(block: Block) -> None:
    assert set(block.requires) <= set(REQUIREMENTS), f"{block}: unknown requirement in {block.requires}"


def missing_requirement(block: Block) -> str:
    """Why a requirement of block is missing, or empty when none is."""
    for name in block.requires:
        check, _, how = REQUIREMENTS[name]
        try:
            ok = subprocess.run(check, capture_output=True, timeout=60, check=False).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if not ok:
            return f"{block} needs {name}: {how}"
    return ""


@pytest.mark.parametrize("block", PYTHON, ids=str)
def test_python_block_runs(block: Block) -> None:
    if missing := missing_requirement(block):
        switches = sorted({REQUIREMENTS[name][1] for name in block.requires})
        if any(os.environ.get(s) for s in switches):
            pytest.fail(f"{missing} ({' or '.join(switches)} is set)")
        pytest.skip(missing)
    if block.fragment:
        compile(block.code, str(block), "exec")
        return
    if not block.fixtures:
        proc = run_script(block.code)
        assert proc.returncode == 0, f"{block} failed:\n{block.code}\n{proc.stderr}"
        return
    with serving(*block.fixtures) as srv:
        env = {
            **os.environ,
            "OPENAI_BASE_URL": srv.url + "/v1",
            "OPENAI_API_KEY": "sk-docs",
            "ANTHROPIC_BASE_URL": srv.url,
            "ANTHROPIC_API_KEY": "sk-ant-docs",
            "GOOGLE_GEMINI_BASE_URL": srv.url,
            "GOOGLE_API_KEY": "AIza-docs",
            "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": srv.url,
            "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
            "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        }
        proc = run_script(block.code, env)
        assert proc.returncode == 0, f"{block} failed:\n{block.code}\n{proc.stderr}"
        assert not srv.replies, f"{block} left fixture replies unused: {list(srv.replies)}"


def test_python_blocks_pass_mypy_strict(tmp_path: Path) -> None:
    """The examples are what users copy: they type-check under mypy --strict
    (skipped where mypy is not installed; the test extra installs it)."""
    pytest.importorskip("mypy")
    for i, block in enumerate(PYTHON):
        (tmp_path / f"{block.path.stem}_{i}.py").write_text(block.code)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / ".mypy_cache"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_fragment_marker_compiles_only() -> None:
    doc = f"text\n\n{FRAGMENT}\n```python\nundefined_name()\n```\n\n```python\nprint('runs')\n```\n"
    first, second = blocks(ROOT / "docs" / "probe.md", doc)
    assert first.fragment and not second.fragment
    compile(first.code, str(first), "exec")  # what test_python_block_runs does with it


def test_readme_quickstart_runs() -> None:
    (block,) = [b for b in PYTHON if b.path.name == "README.md"]
    assert not block.fragment
    proc = run_script(block.code)
    assert proc.returncode == 0, proc.stderr


def test_examples_quickstart_runs() -> None:
    proc = run_script((ROOT / "examples" / "quickstart.py").read_text())
    assert proc.returncode == 0, proc.stderr
    assert "output: 2 + 3 = 5" in proc.stdout
    assert "add: {'total': 5}" in proc.stdout
