"""Every pydantic type a tool parameter may have, through real runs: the
schema pydantic writes compiles in Go (patterns are ECMA-262, look-ahead
included), each valid call reaches the tool with the right Python type and
each invalid one comes back to the model as an invalid_arguments return."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import enum
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from helpers import tool_returns
from pydantic import BaseModel, Field, StringConstraints
from starweaver import AgentError, Tool, tool
from starweaver.agent import create_agent
from starweaver.testing import TestModel


class Color(str, enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Cat(BaseModel):
    pet_type: Literal["cat"]
    meows: int


class Dog(BaseModel):
    pet_type: Literal["dog"]
    barks: float


class Address(BaseModel):
    city: str
    zip_code: Annotated[str, Field(pattern=r"^\d{5}$")]


class Person(BaseModel):
    name: str
    address: Address


class Node(BaseModel):
    value: int
    children: list[Node] = []


# A look-ahead: at least one digit among lower-case letters and digits.
Code = Annotated[str, StringConstraints(min_length=3, max_length=8, pattern=r"^(?=.*\d)[a-z\d]+$")]
# The pattern pydantic 2.12 and 2.13 give a Decimal sent as a string.
DecimalText = Annotated[str, Field(pattern=r"^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$")]
# EmailStr needs email-validator; a pattern of the same spirit.
Email = Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")]
Pet = Annotated[Union[Cat, Dog], Field(discriminator="pet_type")]
# Catastrophic backtracking on "aaaa...!": Go bounds the match.
Evil = Annotated[str, Field(pattern=r"^(a+)+$")]

EVIL_VALUE = "a" * 64 + "!"


@dataclass
class Case:
    """A parameter type, arguments that are valid with the value the tool
    must receive, and arguments that are not."""

    name: str
    annotation: Any
    valid: list[tuple[Any, Any]]
    invalid: list[Any]
    check: Callable[[Any, Any], bool] = field(default=lambda got, want: got == want and type(got) is type(want))


def same_set(got: Any, want: Any) -> bool:
    return type(got) is type(want) and got == want


CASES = [
    Case(
        "decimal",
        decimal.Decimal,
        [("12.50", decimal.Decimal("12.50")), (3, decimal.Decimal(3)), ("-0.5", decimal.Decimal("-0.5"))],
        ["12.5.0", "abc", "-", True, None],
    ),
    Case("decimal_text", DecimalText, [("1.5", "1.5"), ("-7", "-7"), ("+.5", "+.5")], ["-.", "1.2.3", "+", 1.5]),
    Case("code", Code, [("abc1", "abc1"), ("123", "123")], ["a1", "abcdefgh1", "abcd", "ABC1", 5]),
    Case("email", Email, [("ada@example.org", "ada@example.org")], ["ada@example", "a b@example.org", "@x.io"]),
    Case(
        "date",
        datetime.date,
        [("2024-02-29", datetime.date(2024, 2, 29))],
        ["2023-02-29", "tomorrow", 3.5, None],
    ),
    Case(
        "datetime",
        datetime.datetime,
        [("2024-05-01T12:30:00Z", datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc))],
        ["2024-05-01T25:00:00", "now", [2024]],
    ),
    Case("time", datetime.time, [("08:15:30", datetime.time(8, 15, 30))], ["25:00", "noon", False]),
    Case(
        "timedelta",
        datetime.timedelta,
        [("PT1H30M", datetime.timedelta(hours=1, minutes=30)), ("P2D", datetime.timedelta(days=2))],
        ["an hour", [1], None],
    ),
    Case(
        "uuid",
        uuid.UUID,
        [("12345678-1234-5678-1234-567812345678", uuid.UUID("12345678-1234-5678-1234-567812345678"))],
        ["12345678", "not-a-uuid-at-all-not-a-uuid-at-all", 7],
    ),
    Case("str_enum", Color, [("red", Color.RED), ("green", Color.GREEN)], ["purple", "RED", 1]),
    Case("int_enum", Level, [(1, Level.LOW), (2, Level.HIGH)], [3, "high", 1.5]),
    Case("literal", Literal["x", 2], [("x", "x"), (2, 2)], ["y", 3, None]),
    Case("union", Union[int, str], [(4, 4), ("four", "four")], [4.5, None, [4]]),
    Case(
        "discriminated_union",
        Pet,
        [
            ({"pet_type": "cat", "meows": 3}, Cat(pet_type="cat", meows=3)),
            ({"pet_type": "dog", "barks": 1.5}, Dog(pet_type="dog", barks=1.5)),
        ],
        [{"pet_type": "fish"}, {"pet_type": "cat", "barks": 1.0}, {"meows": 3}, "cat"],
    ),
    Case("optional", Optional[int], [(None, None), (5, 5)], ["five", 5.5, [5]]),
    Case(
        "nested",
        Person,
        [
            (
                {"name": "Ada", "address": {"city": "London", "zip_code": "12345"}},
                Person(name="Ada", address=Address(city="London", zip_code="12345")),
            )
        ],
        [
            {"name": "Ada"},
            {"name": "Ada", "address": {"city": "London", "zip_code": "1234"}},
            {"name": 1, "address": {}},
        ],
    ),
    Case(
        "recursive",
        Node,
        [
            (
                {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]},
                Node(value=1, children=[Node(value=2, children=[Node(value=3)])]),
            )
        ],
        [
            {"value": 1, "children": [{"value": 2, "children": [{"value": "three"}]}]},
            {"children": []},
            {"value": 1, "children": {}},
        ],
    ),
    Case("dict", dict[str, int], [({"a": 1, "b": -2}, {"a": 1, "b": -2}), ({}, {})], [{"a": "x"}, {"a": 1.5}, ["a"]]),
    Case(
        "list_of_tuples",
        list[tuple[int, str]],
        [([[1, "a"], [2, "b"]], [(1, "a"), (2, "b")]), ([], [])],
        [[[1]], [[1, "a", 2]], [["a", 1]], [1, "a"]],
    ),
    Case("bytes", bytes, [("hello", b"hello")], [5, ["h"], None]),
    Case("frozenset", frozenset[int], [([1, 2], frozenset({1, 2}))], [[1, 1], ["x"], 1], check=same_set),
    Case("set", set[str], [(["a", "b"], {"a", "b"})], [["a", "a"], [1], "ab"], check=same_set),
    Case("evil_pattern", Evil, [("aaaa", "aaaa")], [EVIL_VALUE]),
]


def make_tool(case: Case, received: list[Any]) -> Tool[..., Any]:
    """A sync tool (it runs in the worker pool) recording what it receives.
    The second parameter keeps a lone model parameter a keyword argument."""

    def receive(value: Any, note: str = "") -> str:
        received.append(value)
        return "ok"

    receive.__annotations__ = {"value": case.annotation, "note": str, "return": str}
    receive.__name__ = receive.__qualname__ = case.name
    return tool(max_retries=len(case.invalid) + 1)(receive)


def run_case(case: Case, batches: list[list[Any]]) -> tuple[list[list[dict[str, Any]]], list[Any]]:
    received: list[Any] = []
    t = make_tool(case, received)
    model = TestModel.responses(
        [
            TestModel.tool_call_response(
                [{"id": f"call_{i}", "name": case.name, "arguments": {"value": v}} for i, v in enumerate(batch)]
            )
            for batch in batches
        ]
        + [{"text": "done"}]
    )
    result = asyncio.run(create_agent(model=model, tools=[t]).run("go"))
    assert result.status == "completed"
    return model.captured_messages(), received


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_valid_arguments_reach_the_tool_with_their_python_type(case: Case) -> None:
    messages, received = run_case(case, [[v for v, _ in case.valid]])
    returns = tool_returns(messages, case.name)
    assert [r["is_error"] for r in returns] == [False] * len(case.valid), returns
    assert len(received) == len(case.valid)
    for got, (_, want) in zip(received, case.valid, strict=True):
        assert case.check(got, want), (got, want)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_invalid_arguments_are_returned_to_the_model(case: Case) -> None:
    messages, received = run_case(case, [[v] for v in case.invalid])
    assert received == []
    # One call per request; the last request holds every return.
    returns = tool_returns(messages, case.name)
    assert len(returns) == len(case.invalid)
    for value, ret in zip(case.invalid, returns, strict=True):
        assert ret["is_error"] is True, (value, ret)
        assert ret["content"]["kind"] == "invalid_arguments", (value, ret)
        assert ret["metadata"]["error_kind"] == "invalid_arguments"


def test_catastrophic_pattern_is_bounded_and_names_no_value() -> None:
    (case,) = [c for c in CASES if c.name == "evil_pattern"]
    messages, received = run_case(case, [[EVIL_VALUE]])
    assert received == []
    (ret,) = tool_returns(messages, case.name)
    message = ret["content"]["message"]
    assert "took longer than" in message and "^(a+)+$" in message
    assert EVIL_VALUE not in message


def test_decimal_schema_states_the_string_syntax() -> None:
    # The model sees the pattern, and Go checks it (look-ahead or not).
    received: list[Any] = []
    params = make_tool(CASES[0], received).parameters_schema
    string_branch = [b for b in params["properties"]["value"]["anyOf"] if b.get("type") == "string"]
    assert string_branch and "pattern" in string_branch[0]


def test_a_lone_model_parameter_takes_the_arguments_themselves() -> None:
    received: list[Any] = []

    @tool(max_retries=3)
    async def move(person: Person) -> str:
        received.append(person)
        return "ok"

    good = {"name": "Ada", "address": {"city": "London", "zip_code": "12345"}}
    bad = {"name": "Ada", "address": {"city": "London", "zip_code": "1234"}}
    model = TestModel.responses(
        [
            TestModel.tool_call_response([{"id": "c1", "name": "move", "arguments": good}]),
            TestModel.tool_call_response([{"id": "c2", "name": "move", "arguments": bad}]),
            {"text": "done"},
        ]
    )
    assert asyncio.run(create_agent(model=model, tools=[move]).run("go")).status == "completed"
    assert received == [Person.model_validate(good)] and type(received[0]) is Person
    ok, failed = tool_returns(model.captured_messages(), "move")
    assert ok["is_error"] is False
    assert failed["content"]["kind"] == "invalid_arguments"
    assert "/address/zip_code" in failed["content"]["message"]


def test_a_pattern_outside_ecma_262_is_a_clear_error_at_create_agent() -> None:
    @tool
    def year(value: Annotated[str, Field(pattern=r"^(?P<year>\d{4})$")]) -> str:
        return value

    with pytest.raises(AgentError, match=r"not a valid ECMA-262 regular expression \(ECMA-262 writes a named group"):
        create_agent(model=TestModel.text("x"), tools=[year])
