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
    assert "starweaver needs Go >= 1.26 on PATH" in proc.stdout + proc.stderr


FAKE_GO = """#!/bin/sh
# Stands in for go: `go version` and `go build ... -o OUT PKG` (writes OUT).
if [ "$1" = version ]; then echo "go version go1.26.0 linux/amd64"; exit 0; fi
echo "fake go build" >&2
while [ $# -gt 0 ]; do
    if [ "$1" = -o ]; then shift; : > "$1"; fi
    shift
done
"""


def _build_ext_with_fake_go(tmp_path: Path, **popen: object) -> subprocess.Popen[bytes]:
    go = tmp_path / "go"
    go.write_text(FAKE_GO)
    go.chmod(0o755)
    env = dict(os.environ, GO=str(go))
    cmd = [
        sys.executable,
        "setup.py",
        "build_ext",
        "--build-lib",
        str(tmp_path / "lib"),
        "--build-temp",
        str(tmp_path / "tmp"),
    ]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)  # type: ignore[call-overload]


def test_build_says_the_go_library_is_being_built_before_go_runs(tmp_path: Path) -> None:
    proc = _build_ext_with_fake_go(tmp_path)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    text = err.decode()
    assert "starweaver: building the Go runtime library" in text
    assert text.index("starweaver: building the Go runtime library") < text.index("fake go build")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_build_message_reaches_the_terminal_when_output_is_captured(tmp_path: Path) -> None:
    """pip captures the build's stdout and stderr (shown only with -v or on
    failure); the line must still reach the person's terminal."""
    import fcntl
    import termios

    master, slave = os.openpty()

    def take_terminal() -> None:  # runs in the child: the pty becomes its controlling terminal
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    try:
        proc = _build_ext_with_fake_go(tmp_path, stdin=slave, preexec_fn=take_terminal)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child side is closed and drained
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    assert b"starweaver: building the Go runtime library" in seen
