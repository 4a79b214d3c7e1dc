"""A source build says what it is compiling at least every 30 seconds
(go_build.py, used by setup.py and build_wheels.py): a stand-in `go` names
two packages, then waits until the build has reported progress."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from go_build import go_build  # noqa: E402


def test_a_long_build_reports_what_it_compiles(tmp_path: Path) -> None:
    reported = tmp_path / "reported"
    fake_go = tmp_path / "go"
    fake_go.write_text(
        textwrap.dedent(
            f"""\
            #!{sys.executable}
            import os, sys, time
            assert sys.argv[1:3] == ["build", "-v"], sys.argv
            print("example.com/a", flush=True)
            print("example.com/b", flush=True)
            deadline = time.monotonic() + 60
            while not os.path.exists({str(reported)!r}) and time.monotonic() < deadline:
                time.sleep(0.01)
            sys.exit(0 if os.path.exists({str(reported)!r}) else 3)
            """
        )
    )
    fake_go.chmod(0o755)
    lines: list[str] = []
    echoed: list[str] = []

    def report(line: str) -> None:
        lines.append(line)
        # Done once a line names the latest package: earlier ones may come
        # before Go printed anything.
        if "latest example.com/b" in line:
            reported.touch()

    status = go_build(
        [str(fake_go), "build", "-o", "x.so", "./capi"],
        cwd=str(tmp_path),
        env=os.environ,
        report=report,
        echo=echoed.append,
        every=0.05,
    )
    assert status == 0
    assert echoed == ["example.com/a", "example.com/b"]
    assert lines[-1].startswith("still compiling (")
    assert "2 packages, latest example.com/b" in lines[-1]


def test_a_failed_build_returns_its_status(tmp_path: Path) -> None:
    fake_go = tmp_path / "go"
    fake_go.write_text(f"#!{sys.executable}\nimport sys\nprint('x.go:1: broken')\nsys.exit(2)\n")
    fake_go.chmod(0o755)
    echoed: list[str] = []
    status = go_build(
        [str(fake_go), "build", "./capi"], cwd=str(tmp_path), env=os.environ, report=lambda _: None, echo=echoed.append
    )
    assert status == 2
    assert echoed == ["x.go:1: broken"]
