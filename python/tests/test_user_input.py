"""ask_user_question from Python: questions, answers and their validation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers import tool_returns
from starweaver import create_agent
from starweaver.testing import TestModel
from starweaver.toolsets import user_input_tools

QUESTION = {
    "question": "Which region?",
    "header": "Region",
    "multiSelect": True,
    "options": [
        {"label": "EU", "description": "Frankfurt"},
        {"label": "US", "description": "Virginia"},
    ],
}


def ask(arguments: dict[str, Any]) -> TestModel:
    return TestModel.responses(
        [TestModel.tool_call_response([{"id": "q", "name": "ask_user_question", "arguments": arguments}]), "thanks"]
    )


def answer(user_input: Any, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        model = ask(arguments or {"questions": [QUESTION]})
        session = create_agent(model=model, toolsets=[user_input_tools()]).session()
        waiting = await session.run("deploy somewhere")
        assert waiting.is_waiting
        (pending,) = waiting.approvals
        assert pending.metadata["kind"] == "clarifying_questions"
        assert pending.metadata["questions"][0]["question"] == "Which region?"
        await session.hitl.resume(approvals=[pending.approve().with_user_input(user_input)])
        (ret,) = tool_returns(model.captured_messages(), "ask_user_question")
        return ret

    return asyncio.run(main())


def test_structured_multi_select_answers() -> None:
    ret = answer({"answers": {"Which region?": "EU, US"}})
    assert ret["is_error"] is False
    assert ret["content"]["answers"] == {"Which region?": "EU, US"}
    assert ret["content"]["questions"] == [QUESTION]


def test_free_string_answer() -> None:
    ret = answer("whichever is cheaper")
    assert ret["content"]["answers"] == {} and ret["content"]["response"] == "whichever is cheaper"


@pytest.mark.parametrize(
    "bad",
    [
        "   ",
        {"answers": {"Which region?": ""}},
        {"answers": {"Unasked?": "EU"}},
        {"answers": {"Which region?": "x" * 4001}},
        42,
    ],
)
def test_bad_answers_become_user_errors(bad: Any) -> None:
    ret = answer(bad)
    assert ret["is_error"] is True
    assert ret["content"]["kind"] == "user_error"
    assert "answers" not in ret["content"]


@pytest.mark.parametrize(
    "questions",
    [
        [],
        [{**QUESTION, "header": "A header too long"}],
        [{**QUESTION, "options": QUESTION["options"][:1]}],
        [{**QUESTION, "options": [QUESTION["options"][0], QUESTION["options"][0]]}],
        [QUESTION] * 5,
    ],
)
def test_invalid_questions_are_invalid_arguments(questions: list[dict[str, Any]]) -> None:
    model = TestModel.responses(
        [
            TestModel.tool_call_response(
                [{"id": "q", "name": "ask_user_question", "arguments": {"questions": questions}}]
            ),
            "ok",
        ]
    )
    result = asyncio.run(create_agent(model=model, toolsets=[user_input_tools()]).run("go"))
    assert result.status == "completed"
    (ret,) = tool_returns(model.captured_messages(), "ask_user_question")
    assert ret["content"]["kind"] == "invalid_arguments"
