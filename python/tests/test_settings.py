"""Model settings, and usage (per run, per session, per response event, token limits)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starweaver import ModelSettings, UsageLimitExceeded, UsageLimits, tool
from starweaver.agent import create_agent
from starweaver.testing import FunctionModel, TestModel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@tool
def add(left: int, right: int) -> int:
    return left + right


def test_agent_settings_reach_every_request() -> None:
    model = TestModel.responses(
        [TestModel.tool_call_response([{"name": "add", "arguments": {"left": 1, "right": 2}}]), "3"]
    )
    settings: ModelSettings = {
        "temperature": 0.2,
        "top_p": 0.9,
        "max_tokens": 100,
        "stop": ["END"],
        "seed": 7,
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "timeout": 1.5,
        "extra_headers": {"X-Trace": "1"},
        "extra_body": {"service_tier": "flex"},
    }
    run(create_agent(model=model, tools=[add], model_settings=settings).run("add"))
    want = {
        "temperature": 0.2,
        "top_p": 0.9,
        "max_tokens": 100,
        "stop": ["END"],
        "seed": 7,
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "timeout_ms": 1500,
        "extra_headers": {"X-Trace": "1"},
        "extra_body": {"service_tier": "flex"},
    }
    assert [p["settings"] for p in model.captured_params()] == [want, want]


def test_run_settings_are_merged_over_the_agents() -> None:
    model = TestModel.responses(["a", "b"])
    agent = create_agent(
        model=model, model_settings={"temperature": 0.5, "max_tokens": 10, "extra_headers": {"A": "1"}}
    )
    session = agent.session()
    run(session.run("one", model_settings={"max_tokens": 20, "extra_headers": {"B": "2"}}))
    run(session.run("two"))
    first, second = (p["settings"] for p in model.captured_params())
    assert first == {"temperature": 0.5, "max_tokens": 20, "extra_headers": {"A": "1", "B": "2"}}
    assert second == {"temperature": 0.5, "max_tokens": 10, "extra_headers": {"A": "1"}}


def test_no_settings_sends_none() -> None:
    model = TestModel("ok")
    run(create_agent(model=model).run("hi"))
    assert "settings" not in model.captured_params()[0]


def test_function_model_sees_settings() -> None:
    seen: list[dict[str, Any]] = []

    def respond(messages: list[dict[str, Any]], info: dict[str, Any]) -> str:
        seen.append(info["params"]["settings"])
        return "ok"

    run(create_agent(model=FunctionModel(respond)).run("hi", model_settings={"seed": 1}))
    assert seen == [{"seed": 1}]


def test_out_of_range_settings_are_one_value_error() -> None:
    with pytest.raises(
        ValueError, match=r"temperature must be between 0 and 2, got 3; max_tokens must be positive, got 0"
    ):
        create_agent(model=TestModel("ok"), model_settings={"temperature": 3, "max_tokens": 0})
    agent = create_agent(model=TestModel("ok"))
    with pytest.raises(ValueError, match="top_p must be between 0 and 1"):
        run(agent.run("hi", model_settings={"top_p": 1.5}))
    with pytest.raises(ValueError, match="timeout must be positive"):
        run(agent.run("hi", model_settings={"timeout": 0}))


def test_settings_type_errors() -> None:
    with pytest.raises(TypeError, match="unknown key 'temprature'"):
        create_agent(model=TestModel("ok"), model_settings={"temprature": 1})  # type: ignore[typeddict-unknown-key]
    with pytest.raises(TypeError, match="stop must be a list of strings"):
        create_agent(model=TestModel("ok"), model_settings={"stop": "END"})  # type: ignore[typeddict-item]
    with pytest.raises(TypeError, match="model_settings must be a dict"):
        create_agent(model=TestModel("ok"), model_settings=[("temperature", 1)])  # type: ignore[arg-type]


def usage_of(**tokens: int) -> dict[str, int]:
    return tokens


def test_run_usage_sums_responses() -> None:
    model = TestModel.responses(
        [
            {
                "tool_calls": [{"name": "add", "arguments": {"left": 1, "right": 2}}],
                "usage": usage_of(input_tokens=100, output_tokens=20, cache_read_tokens=50, reasoning_tokens=4),
            },
            {"text": "3", "usage": usage_of(input_tokens=130, output_tokens=5, cache_write_tokens=10)},
        ]
    )
    events: list[dict[str, Any]] = []
    result = run(create_agent(model=model, tools=[add]).run("add", on_event=events.append))
    assert result.usage == {
        "requests": 2,
        "input_tokens": 230,
        "output_tokens": 25,
        "tool_calls": 1,
        "cache_read_tokens": 50,
        "cache_write_tokens": 10,
        "reasoning_tokens": 4,
    }
    per_response = [e["usage"] for e in events if e["kind"] == "model_response"]
    assert per_response[0]["input_tokens"] == 100 and per_response[1]["cache_write_tokens"] == 10


def test_usage_keys_present_without_tokens() -> None:
    result = run(create_agent(model=TestModel("ok")).run("hi"))
    assert result.usage == {
        "requests": 1,
        "input_tokens": 0,
        "output_tokens": 0,
        "tool_calls": 0,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "reasoning_tokens": 0,
    }


def test_session_usage_sums_runs() -> None:
    def respond(messages: list[dict[str, Any]], info: dict[str, Any]) -> dict[str, Any]:
        return {"text": "ok", "usage": {"input_tokens": 10 * len(messages), "output_tokens": 1}}

    session = create_agent(model=FunctionModel(respond)).session()
    run(session.run("one"))
    run(session.run("two"))
    usage = session.usage
    assert usage["requests"] == 2 and usage["input_tokens"] == 10 + 30 and usage["output_tokens"] == 2


def test_token_limits_from_function_model_usage() -> None:
    def respond(messages: list[dict[str, Any]], info: dict[str, Any]) -> dict[str, Any]:
        if len(messages) == 1:
            return {
                "tool_calls": [{"name": "add", "arguments": {"left": 1, "right": 1}}],
                "usage": {"input_tokens": 60, "output_tokens": 5},
            }
        return {"text": "2", "usage": {"input_tokens": 70, "output_tokens": 5}}

    agent = create_agent(model=FunctionModel(respond), tools=[add])
    assert run(agent.run("add", usage_limits=UsageLimits(input_tokens_limit=200))).output == "2"
    with pytest.raises(UsageLimitExceeded, match="input_tokens_limit of 100") as info:
        run(agent.run("add", usage_limits=UsageLimits(input_tokens_limit=100)))
    assert info.value.limit == "input_tokens_limit" and info.value.value == 100
    with pytest.raises(UsageLimitExceeded) as total:
        run(agent.run("add", usage_limits=UsageLimits(total_tokens_limit=64)))
    assert total.value.limit == "total_tokens_limit"


def test_malformed_usage_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown usage key"):
        TestModel.responses([{"text": "x", "usage": {"tokens": 1}}])
    with pytest.raises(ValueError, match="non-negative int"):
        TestModel.responses([{"text": "x", "usage": {"input_tokens": -1}}])
