"""Structured output: output_type, output validators, TestModel.output_response."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any, Union

import pytest
from pydantic import BaseModel, field_validator
from starweaver import (
    AgentError,
    ModelError,
    ModelRetry,
    OutputRetryLimitExceeded,
    ToolContext,
    ToolRetryLimitExceeded,
    tool,
)
from starweaver.agent import create_agent
from starweaver.testing import FunctionModel, TestModel
from typing_extensions import TypedDict


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class City(BaseModel):
    """A city and its population."""

    name: str
    population: int


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Movie(TypedDict):
    title: str
    year: int


def last_request(model: TestModel) -> list[dict[str, Any]]:
    return model.captured_messages()[-1]


def test_pydantic_model_output() -> None:
    model = TestModel.responses([TestModel.output_response(City(name="Paris", population=2))])
    agent = create_agent(model=model, output_type=City)
    result = run(agent.run("biggest city?"))
    assert result.output == City(name="Paris", population=2)
    params = model.captured_params()[0]
    assert params["output"]["mode"] == "tool" and params["output"]["name"] == "final_result"
    (definition,) = params["tools"]
    assert definition["name"] == "final_result"
    assert definition["description"] == "A city and its population."
    assert definition["metadata"]["starweaver_tool_kind"] == "output"
    assert definition["parameters"]["required"] == ["name", "population"]


def test_dataclass_output() -> None:
    model = TestModel.responses([TestModel.output_call(Point(1, 2))])
    result = run(create_agent(model=model, output_type=Point).run("where?"))
    assert result.output == Point(1, 2)


def test_typeddict_output() -> None:
    model = TestModel.responses([TestModel.output_response({"title": "Alien", "year": 1979})])
    result = run(create_agent(model=model, output_type=Movie).run("a film"))
    assert result.output == {"title": "Alien", "year": 1979}
    schema = model.captured_params()[0]["tools"][0]["parameters"]
    assert sorted(schema["required"]) == ["title", "year"]


def test_scalar_output_is_wrapped() -> None:
    model = TestModel.responses([TestModel.output_response(42)])
    result = run(create_agent(model=model, output_type=int).run("the answer?"))
    assert result.output == 42
    schema = model.captured_params()[0]["tools"][0]["parameters"]
    assert schema["properties"] == {"response": {"type": "integer"}}
    assert schema["required"] == ["response"]


def test_union_output() -> None:
    model = TestModel.responses([TestModel.output_response({"response": {"x": 1, "y": 2}})])
    result = run(create_agent(model=model, output_type=Union[City, Point]).run("?"))
    assert result.output == Point(1, 2)
    schema = model.captured_params()[0]["tools"][0]["parameters"]
    assert "anyOf" in schema["properties"]["response"] and "$defs" in schema


def test_str_output_is_plain_text() -> None:
    model = TestModel("hello")
    result = run(create_agent(model=model, output_type=str).run("hi"))
    assert result.output == "hello"
    assert "output" not in model.captured_params()[0]


def test_invalid_output_then_corrected() -> None:
    model = TestModel.responses(
        [
            TestModel.output_response({"name": "Paris"}, id="o1"),
            TestModel.output_response({"name": "Paris", "population": 2}, id="o2"),
        ]
    )
    result = run(create_agent(model=model, output_type=City).run("?"))
    assert result.output.population == 2
    retry = last_request(model)[-1]["parts"][0]
    assert retry["kind"] == "retry_prompt" and retry["tool_call_id"] == "o1"
    assert "population" in retry["text"]


def test_pydantic_validators_run_in_python() -> None:
    class Even(BaseModel):
        n: int

        @field_validator("n")
        @classmethod
        def even(cls, v: int) -> int:
            if v % 2:
                raise ValueError("n must be even")
            return v

    model = TestModel.responses([TestModel.output_response({"n": 3}), TestModel.output_response({"n": 4})])
    result = run(create_agent(model=model, output_type=Even).run("?"))
    assert result.output == Even(n=4)
    assert "n must be even" in last_request(model)[-1]["parts"][0]["text"]


def test_output_validator_model_retry_sync_with_ctx() -> None:
    model = TestModel.responses(
        [
            TestModel.output_response(City(name="Lyon", population=1)),
            TestModel.output_response(City(name="Paris", population=1)),
        ]
    )
    agent = create_agent(model=model, output_type=City)
    seen: list[tuple[str, int, int]] = []

    @agent.output_validator
    def only_paris(ctx: ToolContext, city: City) -> City:
        seen.append((ctx.tool_name, ctx.retry, ctx.max_retries))
        if city.name != "Paris":
            raise ModelRetry("the city must be Paris")
        return City(name=city.name.upper(), population=city.population)

    result = run(agent.run("?"))
    assert result.output == City(name="PARIS", population=1)
    assert seen == [("final_result", 0, 3), ("final_result", 1, 3)]
    assert last_request(model)[-1]["parts"][0]["text"] == "the city must be Paris"


def test_async_output_validator_without_ctx() -> None:
    model = TestModel.responses([TestModel.output_response(5), TestModel.output_response(6)])
    agent = create_agent(model=model, output_type=int)

    @agent.output_validator
    async def even(value: int) -> int:
        await asyncio.sleep(0)
        if value % 2:
            raise ModelRetry("give an even number")
        return value * 10

    assert run(agent.run("?")).output == 60


def test_output_validator_exception_fails_the_run() -> None:
    model = TestModel.responses([TestModel.output_response(1)])
    agent = create_agent(model=model, output_type=int)

    @agent.output_validator
    def broken(value: int) -> int:
        raise RuntimeError("database down")

    with pytest.raises(AgentError, match="database down"):
        run(agent.run("?"))


def test_output_retry_budget_exhausted() -> None:
    bad = TestModel.output_response({"name": 1})
    model = TestModel.responses([bad, bad, bad])
    agent = create_agent(model=model, output_type=City, output_retries=1)
    with pytest.raises(OutputRetryLimitExceeded, match="max retries count of 1") as info:
        run(agent.run("?"))
    assert isinstance(info.value, ToolRetryLimitExceeded) and info.value.tool == "final_result"
    assert len(model.captured_messages()) == 2


def test_text_answer_when_output_required() -> None:
    model = TestModel.responses(["It is Paris.", TestModel.output_response(City(name="Paris", population=2))])
    result = run(create_agent(model=model, output_type=City).run("?"))
    assert result.output.name == "Paris"
    retry = last_request(model)[-1]["parts"][0]
    assert retry == {"kind": "retry_prompt", "text": "Please include your response in a tool call."}


def test_output_call_mixed_with_other_calls() -> None:
    ran: list[str] = []

    @tool
    def side_effect() -> str:
        ran.append("x")
        return "done"

    model = TestModel.responses(
        [
            {
                "tool_calls": [
                    {"id": "s1", "name": "side_effect", "arguments": {}},
                    {"id": "o1", "name": "final_result", "arguments": {"response": 7}},
                ]
            }
        ]
    )
    result = run(create_agent(model=model, tools=[side_effect], output_type=int).run("?"))
    assert result.output == 7 and ran == []
    contents = [r["content"] for r in result.tool_returns()]
    assert contents == ["Tool not executed - a final result was already processed.", "Final result processed."]


def test_native_mode_with_function_model() -> None:
    answers = iter(["not json", json.dumps({"name": "Bern", "population": 1})])

    def respond(messages: list[dict[str, Any]], info: dict[str, Any]) -> str:
        assert info["params"]["output"]["mode"] == "native" and info["params"]["tools"] == []
        return next(answers)

    model = FunctionModel(respond)
    result = run(create_agent(model=model, output_type=City, output_mode="native").run("?"))
    assert result.output == City(name="Bern", population=1)
    assert "not valid JSON" in model.captured_messages()[1][-1]["parts"][0]["text"]


def test_refusal_with_output_type_is_a_model_error() -> None:
    model = TestModel.responses([{"refusal": "I cannot help with that."}])
    with pytest.raises(ModelError, match="refused.*I cannot help with that"):
        run(create_agent(model=model, output_type=City).run("?"))


def test_refusal_is_the_text_of_a_text_run() -> None:
    model = TestModel.responses([{"refusal": "No."}])
    assert run(create_agent(model=model).run("?")).output == "No."


def test_output_in_sessions() -> None:
    model = TestModel.responses([TestModel.output_response(1), TestModel.output_response(2)])
    agent = create_agent(model=model, output_type=int)
    session = agent.session()
    assert run(session.run("one")).output == 1
    assert run(session.run("two")).output == 2


def test_output_validator_needs_an_output_type() -> None:
    agent = create_agent(model=TestModel("ok"))
    with pytest.raises(TypeError, match="output_type"):
        agent.output_validator(lambda v: v)
    with pytest.raises(ValueError, match="output_mode"):
        create_agent(model=TestModel("ok"), output_mode="native")
    with pytest.raises(ValueError, match="output_mode"):
        create_agent(model=TestModel("ok"), output_type=int, output_mode="xml")  # type: ignore[arg-type]


def test_output_validator_must_return_the_value() -> None:
    model = TestModel.responses([TestModel.output_response(City(name="Oslo", population=1))])
    agent = create_agent(model=model, output_type=City)

    @agent.output_validator
    def forgets_to_return(city: City) -> None:
        pass

    with pytest.raises(AgentError, match="does not fit the output type"):
        run(agent.run("?"))


def test_output_response_forms() -> None:
    assert TestModel.output_response(City(name="a", population=1))["tool_calls"][0]["arguments"] == {
        "name": "a",
        "population": 1,
    }
    assert TestModel.output_call([1, 2], id="x")["tool_calls"][0] == {
        "id": "x",
        "name": "final_result",
        "arguments": {"response": [1, 2]},
    }
