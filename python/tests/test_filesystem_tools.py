"""The filesystem bundle (Go) through the Python package: the toolset spec,
the definitions the model receives, a call without an environment, a coding
session over virtual and local environments, and the security rules (path
traversal in every path argument, symbolic links out of the root, read-only
mode) as the model meets them: feedback naming the path, nothing touched."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import tool_returns
from starweaver import create_agent
from starweaver.environment import LocalEnvironment, VirtualEnvironment
from starweaver.testing import TestModel
from starweaver.toolsets import filesystem_toolset

TOOLS = ["ls", "glob", "grep", "view", "write", "edit", "multi_edit", "mkdir", "move", "copy", "delete"]
WRITERS = {"write", "edit", "multi_edit", "mkdir", "move", "copy", "delete"}


def run_with(model: TestModel, **options: Any) -> Any:
    async def main() -> Any:
        return await create_agent(model=model, toolsets=[filesystem_toolset()], **options).run("look around")

    return asyncio.run(main())


def definitions() -> dict[str, dict[str, Any]]:
    model = TestModel.text("done")
    assert run_with(model).output == "done"
    return {d["name"]: d for d in model.captured_params()[0]["tools"]}


def test_filesystem_toolset_definitions() -> None:
    defs = definitions()
    assert sorted(defs) == sorted(TOOLS)
    for name, d in defs.items():
        assert bool(d.get("sequential")) == (name in WRITERS), name
        deps = d["metadata"]["starweaver_tool_dependencies"]
        assert deps["profile"] == "filtered" and deps["host_capabilities"] == ["starweaver.environment"], name
        assert d["metadata"]["bundle"] == "first_party"
    grep = defs["grep"]["parameters"]
    assert grep["required"] == ["pattern"]
    assert {k: grep["properties"][k]["default"] for k in ("include", "context_lines", "max_results", "max_files")} == {
        "include": "**/*",
        "context_lines": 2,
        "max_results": 100,
        "max_files": 50,
    }
    assert {"file_path", "path", "line_offset", "line_limit"} <= set(defs["view"]["parameters"]["properties"])
    assert {"pairs", "operations", "overwrite"} <= set(defs["move"]["parameters"]["properties"])


def test_call_without_environment_is_a_user_error() -> None:
    model = TestModel.responses([TestModel.tool_call_response([{"id": "c1", "name": "ls", "arguments": {}}]), "done"])
    try:
        run_with(model)
    except Exception as exc:  # a user error may end the run
        assert "starweaver.environment" in str(exc)
        return
    (ret,) = tool_returns(model.captured_messages(), "ls")
    assert ret["is_error"] and "starweaver.environment" in str(ret["content"])


def calls_then_done(*batches: list[dict[str, Any]]) -> TestModel:
    """A model that sends each batch of calls in turn, then says done."""
    return TestModel.responses([*(TestModel.tool_call_response(b) for b in batches), "done"])


def returns_by_id(model: TestModel) -> dict[str, dict[str, Any]]:
    """Every tool return the model was sent, by call id."""
    out: dict[str, dict[str, Any]] = {}
    for message in model.captured_messages()[-1]:
        for part in message.get("parts", []) if message.get("kind") == "request" else []:
            if part.get("kind") == "tool_return":
                out[part["tool_call_id"]] = part
    return out


def feedback_text(ret: dict[str, Any]) -> str:
    content = ret["content"]
    assert isinstance(content, dict) and content.get("kind") == "feedback", ret
    assert ret["is_error"] is False
    return json.dumps(content)


def c(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def test_coding_session_on_a_virtual_environment() -> None:
    env = VirtualEnvironment(files={"README.md": "hello\n", "src/app.py": "def main():\n    return 1\n"})
    model = calls_then_done(
        [c("e", "edit", file_path="README.md", old_string="hello", new_string="bye")],
        [
            c("v", "view", file_path="README.md"),
            c("g", "grep", pattern="return 1"),
            c("gl", "glob", pattern="*.py"),
            c("w", "write", file_path="src/new.py", content="x = 2\n"),
        ],
    )
    agent = create_agent(model=model, toolsets=[filesystem_toolset()], environment=env)

    async def main() -> Any:
        session = agent.session()
        result = await session.run("tidy up")
        return result, session.export_state()

    result, state = asyncio.run(main())
    assert result.output == "done"
    rets = returns_by_id(model)
    assert rets["v"]["content"] == "     1\tbye\n"
    assert [m["path"] for m in rets["g"]["content"]["matches"]] == ["src/app.py"]
    assert [m["path"] for m in rets["gl"]["content"]["matches"]] == ["src/app.py"]
    inner = state["state"]
    files = (json.loads(inner) if isinstance(inner, str) else inner)["environment"]["files"]
    assert files["README.md"] == "bye\n" and files["src/new.py"] == "x = 2\n"
    # Each session has its own copy: the agent's environment is unchanged.
    assert env.files["README.md"] == "hello\n"


def test_coding_session_on_a_local_root(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def main():\n    return 1\n")
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.py").write_text("return 1\n")
    model = calls_then_done(
        [c("e", "edit", file_path="src/app.py", old_string="return 1", new_string="return 2")],
        [c("g", "grep", pattern=r"return \d"), c("m", "mkdir", paths=["docs"])],
        [c("w", "write", file_path="docs/notes.md", content="# Notes\n"), c("l", "ls", path="docs")],
    )
    out = run_with(model, environment=LocalEnvironment(tmp_path))
    assert out.output == "done"
    assert (tmp_path / "src" / "app.py").read_text() == "def main():\n    return 2\n"
    assert (tmp_path / "docs" / "notes.md").read_text() == "# Notes\n"
    rets = returns_by_id(model)
    # .gitignore is honoured: build/ is not searched.
    assert [m["path"] for m in rets["g"]["content"]["matches"]] == ["src/app.py"]
    assert "notes.md" in json.dumps(rets["l"]["content"])


# Every path argument of every tool, with paths that leave the root.
TRAVERSALS = ["../outside.txt", "/etc/passwd", "sub/../../outside.txt"]


def traversal_calls(bad: str) -> list[dict[str, Any]]:
    return [
        c("ls_path", "ls", path=bad),
        c("glob_root", "glob", pattern="*", root=bad),
        c("glob_pattern", "glob", pattern=bad),
        c("grep_root", "grep", pattern="x", root=bad),
        c("grep_include", "grep", pattern="x", include=bad),
        c("view", "view", file_path=bad),
        c("write", "write", file_path=bad, content="pwned"),
        c("edit", "edit", file_path=bad, old_string="a", new_string="b"),
        c("multi_edit", "multi_edit", file_path=bad, edits=[{"old_string": "a", "new_string": "b"}]),
        c("mkdir", "mkdir", paths=[bad]),
        c("delete", "delete", paths=[bad]),
        c("move_src", "move", pairs=[{"src": bad, "dst": "b.txt"}]),
        c("move_dst", "move", pairs=[{"src": "a.txt", "dst": bad}]),
        c("copy_src", "copy", pairs=[{"src": bad, "dst": "b.txt"}]),
        c("copy_dst", "copy", pairs=[{"src": "a.txt", "dst": bad}]),
    ]


@pytest.mark.parametrize("bad", TRAVERSALS)
def test_path_traversal_in_every_path_argument(tmp_path: Path, bad: str) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside.txt"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    outside.write_text("outside\n")
    calls = traversal_calls(bad)
    model = calls_then_done(*([call] for call in calls))
    assert run_with(model, environment=LocalEnvironment(root)).output == "done"
    rets = returns_by_id(model)
    assert sorted(rets) == sorted(call["id"] for call in calls)
    for call_id, ret in rets.items():
        assert bad in feedback_text(ret), call_id
    assert outside.read_text() == "outside\n"
    assert sorted(p.name for p in root.iterdir()) == ["a.txt"] and (root / "a.txt").read_text() == "a\n"


def test_symlinks_out_of_the_root_are_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("zebra-quokka\n")
    (root / "a.txt").write_text("a\n")
    os.symlink(outside / "secret.txt", root / "file-link")
    os.symlink(outside, root / "dir-link")
    model = calls_then_done(
        [c("vf", "view", file_path="file-link")],
        [c("vd", "view", file_path="dir-link/secret.txt")],
        [c("wf", "write", file_path="file-link", content="pwned")],
        [c("wd", "write", file_path="dir-link/new.txt", content="pwned")],
        [c("ed", "edit", file_path="dir-link/secret.txt", old_string="zebra", new_string="pwned")],
        [c("cp", "copy", pairs=[{"src": "file-link", "dst": "stolen.txt"}])],
        [c("ls", "ls", path="dir-link")],
        [c("gr", "grep", pattern="zebra")],
        [c("gl", "glob", pattern="**/*.txt")],
    )
    assert run_with(model, environment=LocalEnvironment(root)).output == "done"
    rets = returns_by_id(model)
    for call_id, path in [
        ("vf", "file-link"),
        ("vd", "dir-link/secret.txt"),
        ("wf", "file-link"),
        ("wd", "dir-link/new.txt"),
        ("ed", "dir-link/secret.txt"),
        ("cp", "file-link"),
        ("ls", "dir-link"),
    ]:
        text = feedback_text(rets[call_id])
        assert path in text and "quokka" not in text, call_id
    # Searches never follow a directory link out of the root.
    assert rets["gr"]["content"]["matches"] == []
    assert [m["path"] for m in rets["gl"]["content"]["matches"]] == ["a.txt"]
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "zebra-quokka\n"
    assert not (root / "stolen.txt").exists()


def test_read_only_environment_refuses_every_write(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    writes = [
        c("write", "write", file_path="new.txt", content="x"),
        c("edit", "edit", file_path="a.txt", old_string="a", new_string="b"),
        c("multi_edit", "multi_edit", file_path="a.txt", edits=[{"old_string": "a", "new_string": "b"}]),
        c("mkdir", "mkdir", paths=["made"]),
        c("move", "move", pairs=[{"src": "a.txt", "dst": "b.txt"}]),
        c("copy", "copy", pairs=[{"src": "a.txt", "dst": "b.txt"}]),
        c("delete", "delete", paths=["a.txt"]),
    ]
    for environment in (
        LocalEnvironment(tmp_path, read_only=True),
        VirtualEnvironment(files={"a.txt": "a\n"}, read_only=True),
    ):
        model = calls_then_done(*([w] for w in writes), [c("view", "view", file_path="a.txt")])
        assert run_with(model, environment=environment).output == "done"
        rets = returns_by_id(model)
        for w in writes:
            assert "read-only" in feedback_text(rets[w["id"]]), w["id"]
        assert rets["view"]["content"] == "     1\ta\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"] and (tmp_path / "a.txt").read_text() == "a\n"
