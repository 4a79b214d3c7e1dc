"""bench/ measures the installed package when the source tree has no built
library, so `make bench` works right after `pip install .`."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_common() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_common", ROOT / "bench" / "_common.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def source_tree(tmp_path: Path, *files: str) -> Path:
    pkg = tmp_path / "python" / "starweaver"
    pkg.mkdir(parents=True)
    for name in ("__init__.py", *files):
        (pkg / name).write_text("")
    return tmp_path / "python"


@pytest.fixture
def common(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.delenv("STARWEAVER_BENCH_INSTALLED", raising=False)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    return load_common()


def test_a_checkout_that_was_only_pip_installed_measures_the_installed_package(
    common: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common.SOURCE_DIR = source_tree(tmp_path)
    assert common.measure_source_tree() is False
    assert common.use_source_tree() == ""
    assert "PYTHONPATH" not in common.subprocess_env()
    err = capsys.readouterr().err
    assert err.count("has no built library") == 1 and "measuring the installed starweaver package" in err


def test_a_built_source_tree_is_measured(common: ModuleType, tmp_path: Path) -> None:
    common.SOURCE_DIR = source_tree(tmp_path, "_cffi.py", "libstarweaver.so")
    assert common.measure_source_tree() is True
    assert common.subprocess_env()["PYTHONPATH"].split(os.pathsep)[0] == str(common.SOURCE_DIR)


def test_the_installed_package_can_be_asked_for(
    common: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    common.SOURCE_DIR = source_tree(tmp_path, "_cffi.py", "libstarweaver.so")
    monkeypatch.setenv("STARWEAVER_BENCH_INSTALLED", "1")
    assert common.measure_source_tree() is False
