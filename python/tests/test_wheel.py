"""The wheel `make wheel` builds installs where Go is not, and runs the
quickstart: a user of a supported platform never compiles anything.

STARWEAVER_TEST_WHEEL_DIR names the directory holding the wheels; without it
these tests skip, unless STARWEAVER_REQUIRE_WHEEL is set (as in CI), when they
fail instead."""

from __future__ import annotations

import glob
import os
import platform
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MACHINES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


def wheel_dir() -> Path:
    d = os.environ.get("STARWEAVER_TEST_WHEEL_DIR", "")
    if not d:
        if os.environ.get("STARWEAVER_REQUIRE_WHEEL"):
            pytest.fail("STARWEAVER_REQUIRE_WHEEL is set but STARWEAVER_TEST_WHEEL_DIR is not (run `make wheel`)")
        pytest.skip("wheel: set STARWEAVER_TEST_WHEEL_DIR to the output of `make wheel`")
    return Path(d)


def wheels() -> list[Path]:
    return sorted(Path(p) for p in glob.glob(str(wheel_dir() / "starweaver-*.whl")))


def test_every_platform_has_a_wheel_with_its_library() -> None:
    # A wheel's platform tags, in whatever order the tagging tool wrote them.
    found = {".".join(sorted(w.name.removesuffix(".whl").split("-")[-1].split("."))): w for w in wheels()}
    expected = {
        "manylinux2014_x86_64.manylinux_2_17_x86_64": "libstarweaver.so",
        "manylinux2014_aarch64.manylinux_2_17_aarch64": "libstarweaver.so",
    }
    assert sorted(found) == sorted(expected)
    for tag, libname in expected.items():
        with zipfile.ZipFile(found[tag]) as z:
            names = set(z.namelist())
        assert f"starweaver/{libname}" in names, tag
        assert {"starweaver/_cffi.py", "starweaver/py.typed", "starweaver/__init__.py"} <= names, tag
        # One library per wheel: nothing of another platform rides along.
        assert not [n for n in names if "libstarweaver" in n and n != f"starweaver/{libname}"], tag


def test_the_wheel_installs_without_go_and_runs_the_quickstart(tmp_path: Path) -> None:
    if sys.platform != "linux":
        pytest.skip("the wheels tested here run on Linux")
    arch = MACHINES.get(platform.machine(), platform.machine())
    (wheel,) = [w for w in wheels() if w.name.endswith(f"_{arch}.whl") and "manylinux" in w.name]
    env_dir = tmp_path / "venv"
    # pydantic and cffi come from this interpreter's site-packages, so the
    # test needs no network; the wheel's starweaver shadows any installed one.
    venv.create(env_dir, with_pip=True, system_site_packages=True)
    python = env_dir / "bin" / "python"
    no_go = {"PATH": f"{env_dir / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONNOUSERSITE": "1"}
    subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--no-index", "--force-reinstall", "--quiet", str(wheel)],
        check=True,
        env=no_go,
        timeout=300,
    )
    quickstart = tmp_path / "quickstart.py"
    shutil.copy(REPO / "examples" / "quickstart.py", quickstart)
    probe = (
        "import shutil, starweaver; assert shutil.which('go') is None, shutil.which('go'); print(starweaver.__file__)"
    )
    where = subprocess.run(
        [python, "-c", probe], check=True, env=no_go, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert where.stdout.strip().startswith(str(env_dir)), where.stdout
    done = subprocess.run(
        [python, str(quickstart)], env=no_go, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
