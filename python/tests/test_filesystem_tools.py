"""The filesystem bundle (Go) through the Python package: the toolset spec,
the definitions the model receives, and a call without an environment."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest
from helpers import tool_returns
from starweaver import create_agent, filesystem_toolset
from starweaver.testing import TestModel

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
    model = TestModel.responses(
        [TestModel.tool_call_response([{"id": "c1", "name": "ls", "arguments": {}}]), "done"]
    )
    try:
        run_with(model)
    except Exception as exc:  # a user error may end the run
        assert "starweaver.environment" in str(exc)
        return
    (ret,) = tool_returns(model.captured_messages(), "ls")
    assert ret["is_error"] and "starweaver.environment" in str(ret["content"])


@pytest.mark.skipif(
    "environment" not in inspect.signature(create_agent).parameters,
    reason="create_agent(environment=...) is not available yet: environments are wired into agents separately",
)
def test_view_and_edit_through_an_environment() -> None:  # pragma: no cover - runs once environments are wired
    import starweaver

    env = starweaver.VirtualEnvironment(files={"README.md": "hello\n"})  # type: ignore[attr-defined]
    model = TestModel.responses(
        [
            TestModel.tool_call_response(
                [{"id": "e", "name": "edit", "arguments": {"file_path": "README.md", "old_string": "hello", "new_string": "bye"}}]
            ),
            TestModel.tool_call_response([{"id": "v", "name": "view", "arguments": {"file_path": "README.md"}}]),
            "done",
        ]
    )
    assert run_with(model, environment=env).output == "done"
    (ret,) = tool_returns(model.captured_messages(), "view")
    assert ret["content"] == "     1\tbye\n"
