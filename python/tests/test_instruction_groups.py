"""Instruction groups: ``ToolInstruction(group, content)`` in a toolset's
``instructions``; across a run's toolsets one instruction per group is
sent (the first), ordered by group."""

from __future__ import annotations

import asyncio

import pytest
from starweaver import Toolset, ToolsetContext, tool
from starweaver.agent import create_agent
from starweaver.testing import TestModel
from starweaver.toolsets import FunctionToolset, ToolInstruction


@tool
def read(path: str) -> str:
    """Read a file."""
    return path


@tool
def edit(path: str) -> str:
    """Edit a file."""
    return path


def sent_instructions(*toolsets: Toolset) -> str:
    model = TestModel("done")
    asyncio.run(create_agent(model=model, toolsets=list(toolsets)).run("go"))
    instructions: str = model.captured_messages()[0][0]["instructions"]
    return instructions


def test_one_instruction_per_group_across_toolsets() -> None:
    shared = ToolInstruction("files", "Read a file before you edit it.")
    reader = Toolset("reader", tools=[read], instructions=["Reads files.", shared])
    editor = FunctionToolset(
        "editor",
        tools=[edit],
        instructions=[ToolInstruction("files", "Ignored: the group is taken."), shared, "Edits files."],
    )
    text = sent_instructions(reader, editor)
    assert text.count('<tool-instruction name="files">') == 1
    assert '<tool-instruction name="files">Read a file before you edit it.</tool-instruction>' in text
    groups = [part.split('"')[1] for part in text.split("<tool-instruction name=")[1:]]
    assert groups == ["editor", "files", "reader"]  # ordered by group
    assert reader.instruction_groups == [shared] and reader.instructions == ["Reads files."]


def test_groups_follow_combinators_and_dynamic_instructions() -> None:
    def more(ctx: ToolsetContext) -> str:
        return "Per run."

    ts = FunctionToolset("fs", tools=[read], instructions=[ToolInstruction("files", "Shared."), more])
    text = sent_instructions(ts.prefixed("ws"))
    assert '<tool-instruction name="ws_files">Shared.</tool-instruction>' in text
    assert '<tool-instruction name="ws_fs">Per run.</tool-instruction>' in text
    assert ToolInstruction("", "x").to_dict() == {"group": "", "content": "x"}


def test_bad_instructions_are_type_errors() -> None:
    with pytest.raises(TypeError, match="strings or ToolInstruction"):
        Toolset("x", instructions=[3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="group and a content"):
        ToolInstruction("g", None)  # type: ignore[arg-type]
