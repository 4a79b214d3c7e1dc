"""Environment specs, create_agent(environment=...), set_environment and a
virtual environment travelling with exported session state. The local
provider's confinement (symlinks, "..", read-only) is tested in Go
(core/env, capi/internal/bridge/environment_test.go)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import tool_returns
from starweaver import FunctionModel, TestModel, create_agent
from starweaver.environment import LocalEnvironment, ShellOutput, VirtualEnvironment
from starweaver.toolsets import filesystem_toolset


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
    """The agent's environment is what its tools work on; set_environment
    replaces it for the session's next runs (None: no environment)."""
    (tmp_path / "b.txt").write_text("local b\n")
    script: list[Any] = []
    model = FunctionModel(lambda messages, info: script.pop(0))
    agent = create_agent(
        model=model, toolsets=[filesystem_toolset()], environment=VirtualEnvironment(files={"a.txt": "virtual a"})
    )
    session = agent.session()

    def run(*calls: dict[str, Any]) -> dict[str, Any]:
        script.extend([TestModel.tool_call_response(list(calls)), "done"])
        assert asyncio.run(session.run("go")).output == "done"
        return {r["tool_call_id"]: r for r in tool_returns(model.captured_messages())}

    def view(path: str) -> dict[str, Any]:
        return {"id": "v", "name": "view", "arguments": {"file_path": path}}

    got = run(view("a.txt"))
    assert "virtual a" in got["v"]["content"]

    session.set_environment(LocalEnvironment(tmp_path, read_only=True))
    got = run(view("b.txt"), {"id": "w", "name": "write", "arguments": {"file_path": "c.txt", "content": "x"}})
    assert "local b" in got["v"]["content"]
    assert "read-only" in json.dumps(got["w"]["content"]) and not (tmp_path / "c.txt").exists()

    session.set_environment(VirtualEnvironment("other"))
    got = run(view("a.txt"))
    assert "virtual a" not in json.dumps(got["v"]["content"]) and "not found" in json.dumps(got["v"]["content"])

    session.set_environment(None)
    try:
        got = run(view("a.txt"))
    except Exception as exc:  # a user error may end the run
        assert "starweaver.environment" in str(exc)
    else:
        assert got["v"]["is_error"] and "starweaver.environment" in json.dumps(got["v"]["content"])
    # A new session of the agent still has the agent's environment.
    session = agent.session()
    got = run(view("a.txt"))
    assert "virtual a" in got["v"]["content"]


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
