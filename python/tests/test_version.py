"""The version is written once (core/version/VERSION) and read everywhere."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
import starweaver
from starweaver import _capi

VERSION_FILE = Path(__file__).resolve().parents[2] / "core" / "version" / "VERSION"


def test_the_package_reports_the_library_version() -> None:
    assert starweaver.__version__ == _capi.version()
    assert "__version__" in starweaver.__all__


def test_the_version_is_the_one_in_core_version() -> None:
    if not VERSION_FILE.exists():  # an installed copy of the tests, away from the source tree
        return
    assert starweaver.__version__ == VERSION_FILE.read_text().strip()


def test_installed_metadata_agrees_with_the_library() -> None:
    try:
        installed = importlib.metadata.version("starweaver")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("version: starweaver is not installed")
    if (
        not Path(starweaver.__file__)
        .resolve()
        .is_relative_to(Path(importlib.metadata.distribution("starweaver").locate_file("")).resolve())
    ):
        pytest.skip("version: the installed starweaver is not the one under test")
    assert installed == starweaver.__version__
