"""Environment specs, create_agent(environment=...), set_environment and a
virtual environment travelling with exported session state. The local
provider's confinement (symlinks, "..", read-only) is tested in Go
(core/env, capi/environment_test.go)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starweaver import (
    LocalEnvironment,
    ShellOutput,
    TestModel,
    VirtualEnvironment,
    create_agent,
)


class _Policy:
    def to_dict(self) -> dict[str, Any]:
        return {"allow_execute": True, "allowed_programs": ["git"]}


def test_specs_leave_defaults_out(tmp_path: Path) -> None:
    assert VirtualEnvironment().to_dict() == {"kind": "virtual"}
    assert VirtualEnvironment(
        "docs", files={"README.md": "hi"}, shell_outputs={"make": ShellOutput(exit_code=2, stdout="o")}, read_only=True
    ).to_dict() == {
        "kind": "virtual",
        "id": "docs",
        "files": {"README.md": "hi"},
        "shell_outputs": {"make": {"exit_code": 2, "stdout": "o", "stderr": ""}},
        "read_only": True,
    }
    assert LocalEnvironment(tmp_path).to_dict() == {"kind": "local", "root": str(tmp_path)}
    assert LocalEnvironment(str(tmp_path), read_only=True, shell_policy=_Policy()).to_dict() == {
        "kind": "local",
        "root": str(tmp_path),
        "read_only": True,
        "shell": {"allow_execute": True, "allowed_programs": ["git"]},
    }


def test_type_errors() -> None:
    with pytest.raises(TypeError):
        VirtualEnvironment(files={"a": 1})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        VirtualEnvironment(shell_outputs={"a": "x"})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        LocalEnvironment(1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        LocalEnvironment(".", shell_policy=object())
    with pytest.raises(TypeError):
        create_agent(model=TestModel.responses(["ok"]), environment="local")  # type: ignore[arg-type]


def test_create_agent_and_set_environment(tmp_path: Path) -> None:
    agent = create_agent(model=TestModel.responses(["ok"]), environment=VirtualEnvironment(files={"a.txt": "a"}))
    session = agent.session()
    session.set_environment(LocalEnvironment(tmp_path, read_only=True))
    session.set_environment(VirtualEnvironment("other"))
    session.set_environment(None)


def test_bad_specs_are_clear_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(ValueError, match="local root"):
        create_agent(model=TestModel.responses(["ok"]), environment=LocalEnvironment(missing))
    session = create_agent(model=TestModel.responses(["ok"])).session()
    with pytest.raises(ValueError, match="is not a directory"):
        (tmp_path / "f").write_text("x")
        session.set_environment(LocalEnvironment(tmp_path / "f"))
    with pytest.raises(ValueError, match=r"\.\."):
        session.set_environment(VirtualEnvironment(files={"../escape.txt": "x"}))


def _environment_of(state: dict[str, Any]) -> dict[str, Any]:
    inner = state["state"]
    decoded: dict[str, Any] = json.loads(inner) if isinstance(inner, str) else inner
    env: dict[str, Any] = decoded["environment"]
    return env


def test_virtual_files_travel_with_exported_state(tmp_path: Path) -> None:
    agent = create_agent(
        model=TestModel.responses(["ok"]), environment=VirtualEnvironment("docs", files={"README.md": "hello"})
    )
    session = agent.session()
    state = session.export_state()
    env = _environment_of(state)
    assert env["provider_id"] == "docs" and env["files"] == {"README.md": "hello"}
    restored = agent.session_from_state(state, allow_unsigned=True)
    assert _environment_of(restored.export_state())["files"] == {"README.md": "hello"}

    session.set_environment(VirtualEnvironment("mine", files={"n.txt": "note"}, read_only=True))
    env = _environment_of(session.export_state())
    assert env["provider_id"] == "mine" and env["files"] == {"n.txt": "note"} and env["metadata"] == {"read_only": True}

    # A local environment is the host's configuration, not exported.
    session.set_environment(LocalEnvironment(tmp_path))
    inner = session.export_state()["state"]
    decoded = json.loads(inner) if isinstance(inner, str) else inner
    assert "environment" not in decoded
