"""A hard link inside a LocalEnvironment root to a file outside it: the
filesystem tools neither read nor write it (view, write, edit, copy, grep)
unless the environment allows hard links explicitly."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from starweaver import create_agent
from starweaver.environment import LocalEnvironment
from starweaver.testing import TestModel
from starweaver.toolsets import filesystem_toolset


def c(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def run_calls(environment: LocalEnvironment, *calls: dict[str, Any]) -> dict[str, dict[str, Any]]:
    model = TestModel.responses([*(TestModel.tool_call_response([x]) for x in calls), "done"])
    agent = create_agent(model=model, toolsets=[filesystem_toolset()], environment=environment)

    async def main() -> None:
        assert (await agent.session().run("go")).output == "done"

    asyncio.run(main())
    out: dict[str, dict[str, Any]] = {}
    for message in model.captured_messages()[-1]:
        for part in message.get("parts", []) if message.get("kind") == "request" else []:
            if part.get("kind") == "tool_return":
                out[part["tool_call_id"]] = part
    return out


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("zebra-quokka\n")
    try:
        os.link(secret, root / "link.txt")
    except OSError as exc:
        pytest.skip(f"no hard links here: {exc}")
    return root, secret


def test_a_hard_link_out_of_the_root_is_refused(linked: tuple[Path, Path]) -> None:
    root, secret = linked
    rets = run_calls(
        LocalEnvironment(root),
        c("view", "view", file_path="link.txt"),
        c("write", "write", file_path="link.txt", content="pwned"),
        c("edit", "edit", file_path="link.txt", old_string="zebra", new_string="pwned"),
        c("copy", "copy", pairs=[{"src": "link.txt", "dst": "stolen.txt"}]),
        c("grep", "grep", pattern="zebra"),
    )
    for call_id in ("view", "write", "edit", "copy"):
        text = json.dumps(rets[call_id]["content"])
        assert "hard link" in text and "quokka" not in text, (call_id, text)
    assert "quokka" not in json.dumps(rets["grep"]["content"])
    assert secret.read_text() == "zebra-quokka\n"
    assert not (root / "stolen.txt").exists()


def test_allow_hard_links_opts_in(linked: tuple[Path, Path]) -> None:
    root, secret = linked
    assert LocalEnvironment(root, allow_hard_links=True).to_dict()["allow_hard_links"] is True
    assert "allow_hard_links" not in LocalEnvironment(root).to_dict()
    rets = run_calls(
        LocalEnvironment(root, allow_hard_links=True),
        c("view", "view", file_path="link.txt"),
        c("edit", "edit", file_path="link.txt", old_string="zebra", new_string="horse"),
    )
    assert "quokka" in json.dumps(rets["view"]["content"])
    assert secret.read_text() == "horse-quokka\n"
