"""Run limits: unknown tool names spend the retry budget, and usage limits
(a default of 50 model requests) end runs whose model repeats itself."""

from __future__ import annotations

import asyncio
import pickle
import re
from typing import Any

import pytest
from helpers import call
from starweaver import (
    AgentError,
    FunctionModel,
    TestModel,
    ToolRetryLimitExceeded,
    UsageLimitExceeded,
    UsageLimits,
    create_agent,
    tool,
)

BOUND = 10  # seconds: a run that never ends fails the test instead of hanging it


@tool
def echo(text: str = "x") -> str:
    return text


def repeating(*calls: dict[str, Any]) -> tuple[FunctionModel, list[int]]:
    """A model asking for the same calls forever, counting its requests."""
    requests: list[int] = []

    def respond(messages: list[dict[str, Any]], info: dict[str, Any]) -> Any:
        requests.append(len(messages))
        return {"tool_calls": [dict(c, id="") for c in calls]}

    return FunctionModel(respond), requests


def run(coro: Any) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(coro, BOUND)

    return asyncio.run(bounded())


def test_unknown_tool_spends_the_retry_budget() -> None:
    model, requests = repeating(call("nope"))
    with pytest.raises(ToolRetryLimitExceeded) as info:
        run(create_agent(model=model, tools=[echo]).run("go"))
    assert info.value.tool == "nope" and info.value.max_retries == 3
    assert 'unknown tool "nope"' in str(info.value)
    assert len(requests) == 4  # three not_found returns reach the model, then the run fails


def test_unknown_tool_budget_follows_the_agent() -> None:
    model, requests = repeating(call("nope"))
    with pytest.raises(ToolRetryLimitExceeded):
        run(create_agent(model=model, max_retries=1).run("go"))
    assert len(requests) == 2


def test_model_may_recover_from_an_unknown_name() -> None:
    model = TestModel.responses([TestModel.tool_call_response([call("nope")]), "sorry"])
    result = run(create_agent(model=model, tools=[echo]).run("go"))
    assert result.output == "sorry"
    assert result.tool_returns()[0]["metadata"]["error_kind"] == "not_found"


def test_default_request_limit_is_50() -> None:
    model, requests = repeating(call("echo"))
    with pytest.raises(UsageLimitExceeded) as info:
        run(create_agent(model=model, tools=[echo]).run("go"))
    assert len(requests) == 50
    assert (info.value.limit, info.value.value) == ("request_limit", 50)
    assert "the next request would exceed the request_limit of 50" in str(info.value)
    assert isinstance(info.value, AgentError)


@pytest.mark.parametrize(
    ("agent_options", "run_limits", "expected"),
    [
        ({"max_steps": 3}, None, 3),
        ({"usage_limits": UsageLimits(request_limit=4)}, None, 4),
        ({"max_steps": 3, "usage_limits": UsageLimits(request_limit=5)}, None, 5),
        ({"max_steps": 3, "usage_limits": UsageLimits(tool_calls_limit=99)}, None, 3),
        ({"max_steps": 3}, UsageLimits(request_limit=2), 2),
        ({"max_steps": 3}, UsageLimits(request_limit=6), 6),
    ],
)
def test_request_limit_precedence(agent_options: dict[str, Any], run_limits: UsageLimits | None, expected: int) -> None:
    model, requests = repeating(call("echo"))
    agent = create_agent(model=model, tools=[echo], **agent_options)
    with pytest.raises(UsageLimitExceeded) as info:
        run(agent.run("go", usage_limits=run_limits))
    assert len(requests) == expected
    assert info.value.value == expected


def test_tool_calls_limit() -> None:
    ran: list[str] = []

    @tool
    def work() -> str:
        ran.append("work")
        return "done"

    model, requests = repeating(call("work"), call("work"))
    agent = create_agent(model=model, tools=[work], usage_limits=UsageLimits(tool_calls_limit=3))

    async def main() -> None:
        session = agent.session()
        await session.run("go")

    with pytest.raises(UsageLimitExceeded) as info:
        run(main())
    assert (info.value.limit, info.value.value) == ("tool_calls_limit", 3)
    assert "tool_calls_limit of 3 (tool_calls=4)" in str(info.value)
    assert len(ran) == 2 and len(requests) == 2  # the second batch never ran


def test_except_agent_error_still_catches_limits() -> None:
    model, _ = repeating(call("echo"))
    try:
        run(create_agent(model=model, tools=[echo], max_steps=2).run("go"))
    except AgentError as e:
        assert isinstance(e, UsageLimitExceeded)
    else:
        pytest.fail("the run did not fail")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_steps": 0}, "request_limit (max steps) is 0"),
        ({"max_steps": -1}, "request_limit (max steps) is -1"),
        ({"usage_limits": UsageLimits(request_limit=0)}, "usage limits must be positive: request_limit is 0"),
        (
            {"usage_limits": UsageLimits(total_tokens_limit=-5)},
            "usage limits must be positive: total_tokens_limit is -5",
        ),
    ],
)
def test_invalid_agent_limits(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        create_agent(model=TestModel("ok"), **options)


def test_invalid_run_limits() -> None:
    agent = create_agent(model=TestModel("fine"))
    session = agent.session()
    with pytest.raises(ValueError, match="usage limits must be positive: tool_calls_limit is 0"):
        run(session.run("go", usage_limits=UsageLimits(tool_calls_limit=0)))
    assert run(session.run("go")).output == "fine"


def test_limit_types() -> None:
    with pytest.raises(TypeError, match="request_limit must be an int"):
        UsageLimits(request_limit="3")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="request_limit must be an int"):
        UsageLimits(request_limit=True)
    with pytest.raises(TypeError, match="usage_limits must be a UsageLimits"):
        create_agent(model=TestModel("ok"), usage_limits={"request_limit": 3})  # type: ignore[arg-type]


def test_usage_limit_exceeded_pickles() -> None:
    e = UsageLimitExceeded("agent: usage limit exceeded: x", limit="request_limit", value=50)
    back = pickle.loads(pickle.dumps(e))
    assert (type(back), str(back), back.limit, back.value) == (UsageLimitExceeded, str(e), "request_limit", 50)
