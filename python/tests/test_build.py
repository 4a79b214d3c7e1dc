"""Building the package: a missing Go toolchain is a clear error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NO_GO_PATH = "/usr/bin:/bin"


@pytest.mark.skipif(shutil.which("go", path=NO_GO_PATH) is not None, reason="go is installed system-wide")
def test_build_without_go_fails_with_a_clear_message(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GO"}
    env["PATH"] = NO_GO_PATH
    proc = subprocess.run(
        [
            sys.executable,
            "setup.py",
            "build_ext",
            "--build-lib",
            str(tmp_path / "lib"),
            "--build-temp",
            str(tmp_path / "tmp"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode != 0
    assert "starweaver needs Go >= 1.24 on PATH" in proc.stdout + proc.stderr
