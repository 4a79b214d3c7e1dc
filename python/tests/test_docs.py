"""The README's quickstart and examples/quickstart.py run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def run_script(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd="/")


def test_readme_quickstart_runs() -> None:
    (block,) = python_blocks(ROOT / "README.md")
    proc = run_script(block)
    assert proc.returncode == 0, proc.stderr


def test_examples_quickstart_runs() -> None:
    proc = run_script((ROOT / "examples" / "quickstart.py").read_text())
    assert proc.returncode == 0, proc.stderr
    assert "output: 2 + 3 = 5" in proc.stdout
    assert "add: {'total': 5}" in proc.stdout


def test_python_docs_examples_run() -> None:
    for doc in ("python.md", "hitl.md"):
        path = ROOT / "docs" / doc
        blocks = python_blocks(path)
        assert blocks, f"{doc} has no examples"
        for block in blocks:
            if block.lstrip().startswith("# fragment"):
                continue
            proc = run_script(block)
            assert proc.returncode == 0, f"{doc} example failed:\n{block}\n{proc.stderr}"
