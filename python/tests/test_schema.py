"""Signature -> JSON Schema inference, docstrings, explicit-schema checks and
argument conversion (the private _schema and _docstrings modules, driven
mostly through the public Tool)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import Enum
from typing import Annotated, Any, Literal, Optional

import pytest
from conftest import run_tool
from pydantic import BaseModel, Field
from starweaver import InvalidArguments, Tool, ToolContext, tool
from starweaver._docstrings import parse_docstring
from starweaver._schema import _unwrap_ref, function_schema, validate_parameters_schema
from typing_extensions import TypedDict

# ------------------------------------------------------------------ types used below


class Priority(Enum):
    LOW = "low"
    HIGH = "high"


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str = "Paris"


@dataclasses.dataclass
class Window:
    start: int
    end: int


class Tag(TypedDict):
    key: str
    value: str


def create_order(
    ctx: ToolContext,
    customer: Annotated[str, Field(min_length=1, description="Customer id.")],
    address: Address,
    priority: Priority = Priority.LOW,
    mode: Literal["fast", "cheap"] = "fast",
    quantity: Annotated[int, Field(ge=1, le=100)] = 1,
    note: Optional[str] = None,  # noqa: UP045 - Optional is part of what is tested
    ref: int | str = 0,
    window: Window | None = None,
    tags: list[Tag] = [],  # noqa: B006 - never mutated; the default is passed through
    weights: dict[str, float] = {},  # noqa: B006
) -> dict[str, Any]:
    """Create an order.

    Args:
        customer: Ignored, the Field description wins.
        address: Where to ship.
        priority: How urgent.
    """
    return {
        "ctx": type(ctx).__name__,
        "customer": customer,
        "address": repr(address),
        "priority": repr(priority),
        "mode": mode,
        "quantity": quantity,
        "note": note,
        "ref": ref,
        "window": repr(window),
        "tags": tags,
        "weights": weights,
    }


# ------------------------------------------------------------------ whole-definition snapshots


def test_rich_signature_snapshot() -> None:
    # One schema for every supported pydantic version (2.6 to the newest):
    # _schema normalises what differs between them (a $ref with siblings
    # wrapped in allOf before 2.9, "additionalProperties" of nested
    # dataclasses and TypedDicts missing before 2.14 and 2.13, required
    # parameters with an Annotated Field turning optional in 2.6).
    assert Tool(create_order).definition() == {
        "name": "create_order",
        "description": "Create an order.",
        "parameters": {
            "$defs": {
                "Address": {
                    "description": "A postal address.",
                    "properties": {"street": {"type": "string"}, "city": {"default": "Paris", "type": "string"}},
                    "required": ["street"],
                    "title": "Address",
                    "type": "object",
                },
                "Priority": {"enum": ["low", "high"], "title": "Priority", "type": "string"},
                "Tag": {
                    "additionalProperties": False,
                    "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
                    "required": ["key", "value"],
                    "title": "Tag",
                    "type": "object",
                },
                "Window": {
                    "additionalProperties": False,
                    "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}},
                    "required": ["start", "end"],
                    "title": "Window",
                    "type": "object",
                },
            },
            "additionalProperties": False,
            "properties": {
                "customer": {"description": "Customer id.", "minLength": 1, "type": "string"},
                "address": {"$ref": "#/$defs/Address", "description": "Where to ship."},
                "priority": {"$ref": "#/$defs/Priority", "default": "low", "description": "How urgent."},
                "mode": {"default": "fast", "enum": ["fast", "cheap"], "type": "string"},
                "quantity": {"default": 1, "maximum": 100, "minimum": 1, "type": "integer"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                "ref": {"anyOf": [{"type": "integer"}, {"type": "string"}], "default": 0},
                "window": {"anyOf": [{"$ref": "#/$defs/Window"}, {"type": "null"}], "default": None},
                "tags": {"default": [], "items": {"$ref": "#/$defs/Tag"}, "type": "array"},
                "weights": {"additionalProperties": {"type": "number"}, "default": {}, "type": "object"},
            },
            "required": ["customer", "address"],
            "type": "object",
        },
    }


def test_ref_with_siblings_is_written_without_allof() -> None:
    """pydantic before 2.9 wraps a $ref that has siblings in an allOf; the
    schema is the same in every version."""
    old_style = {
        "properties": {
            "a": {"allOf": [{"$ref": "#/$defs/A"}], "description": "d", "default": "x"},
            "b": {"items": {"allOf": [{"$ref": "#/$defs/A"}], "description": "e"}, "type": "array"},
            "c": {"allOf": [{"$ref": "#/$defs/A"}, {"minProperties": 1}]},
        }
    }
    assert _unwrap_ref(old_style) == {
        "properties": {
            "a": {"$ref": "#/$defs/A", "description": "d", "default": "x"},
            "b": {"items": {"$ref": "#/$defs/A", "description": "e"}, "type": "array"},
            "c": {"allOf": [{"$ref": "#/$defs/A"}, {"minProperties": 1}]},
        }
    }


def test_required_parameters_with_docstring_descriptions_stay_required() -> None:
    def f(a: Address, b: int, c: Annotated[int, Field(ge=0)]) -> None:
        """Args:
        a: Where.
        b: How many.
        """

    assert Tool(f).parameters_schema["required"] == ["a", "b", "c"]
    assert run_tool(Tool(f), {"c": 1})["kind"] == "invalid_arguments"


def test_nested_dataclasses_and_typeddicts_refuse_unknown_keys_in_the_schema() -> None:
    """They validate with the arguments model's extra="forbid" in every
    pydantic version, so the schema says additionalProperties: false."""

    def f(window: Window, tag: Tag) -> None: ...

    defs = Tool(f).parameters_schema["$defs"]
    assert defs["Window"]["additionalProperties"] is False
    assert defs["Tag"]["additionalProperties"] is False
    assert run_tool(Tool(f), {"window": {"start": 1, "end": 2, "x": 0}, "tag": {"key": "k", "value": "v"}})["kind"] == (
        "invalid_arguments"
    )


def test_no_parameters_snapshot() -> None:
    def ping() -> str:
        return "pong"

    assert Tool(ping).definition() == {
        "name": "ping",
        "parameters": {"additionalProperties": False, "properties": {}, "type": "object"},
    }


def test_business_parameter_named_context_is_ordinary() -> None:
    @tool
    def summarize(context: str) -> str:
        return context

    assert not summarize.takes_ctx
    assert summarize.parameters_schema["properties"] == {"context": {"type": "string"}}
    assert run_tool(summarize, {"context": "abc"}) == {"ok": True, "content": "abc"}


def test_awkward_parameter_names_work() -> None:
    """Names that clash with pydantic's model namespace still become properties."""

    @tool
    def odd(model_config: str, json: int, _hidden: bool = False) -> list[Any]:
        return [model_config, json, _hidden]

    assert list(odd.parameters_schema["properties"]) == ["model_config", "json", "_hidden"]
    assert run_tool(odd, {"model_config": "m", "json": 2, "_hidden": True})["content"] == ["m", 2, True]


# ------------------------------------------------------------------ docstrings


GOOGLE = """Look up a ticket.

    Searches every queue.

    Args:
        ticket_id (str): The ticket
            identifier.
        include_history: Whether to include
            the history.

    Returns:
        The ticket.
    """

NUMPY = """Look up a ticket.

    Searches every queue.

    Parameters
    ----------
    ticket_id : str
        The ticket
        identifier.
    include_history : bool, optional
        Whether to include
        the history.

    Returns
    -------
    dict
        The ticket.
    """

SPHINX = """Look up a ticket.

    Searches every queue.

    :param str ticket_id: The ticket
        identifier.
    :param include_history: Whether to include
        the history.
    :type include_history: bool
    :returns: The ticket.
    """


@pytest.mark.parametrize(
    ("doc", "description"),
    [
        (GOOGLE, "Look up a ticket.\n\nSearches every queue.\n\nReturns:\n    The ticket."),
        (NUMPY, "Look up a ticket.\n\nSearches every queue.\n\nReturns\n-------\ndict\n    The ticket."),
        (SPHINX, "Look up a ticket.\n\nSearches every queue.\n\n:returns: The ticket."),
    ],
    ids=["google", "numpy", "sphinx"],
)
def test_docstring_styles(doc: str, description: str) -> None:
    def lookup(ticket_id: str, include_history: bool = False) -> dict[str, object]:
        return {}

    lookup.__doc__ = doc
    assert Tool(lookup).definition() == {
        "name": "lookup",
        "description": description,
        "parameters": {
            "additionalProperties": False,
            "properties": {
                "ticket_id": {"description": "The ticket identifier.", "type": "string"},
                "include_history": {
                    "default": False,
                    "description": "Whether to include the history.",
                    "type": "boolean",
                },
            },
            "required": ["ticket_id"],
            "type": "object",
        },
    }


def test_docstring_parser_details() -> None:
    assert parse_docstring(None).description is None
    assert parse_docstring("   ").params == {}
    numpy = parse_docstring("Sum.\n\nParameters\n----------\nx, y : int\n    Operands.\n**kwargs\n    Extras.\n")
    assert numpy.params == {"x": "Operands.", "y": "Operands.", "kwargs": "Extras."}
    assert numpy.description == "Sum."
    google = parse_docstring("Sum.\n\nArgs:\n    x:\n        On the next line.\n    *args: Stars.\nNote:\n    Kept.")
    assert google.params == {"x": "On the next line.", "args": "Stars."}
    assert google.description == "Sum.\n\nNote:\n    Kept."
    assert parse_docstring("Only params.\n\nArgs:\n    x: X.").description == "Only params."


def test_explicit_description_wins_over_docstring() -> None:
    def f(x: int) -> int:
        """Docstring."""
        return x

    assert Tool(f, description="Explicit.").description == "Explicit."
    assert Tool(f).description == "Docstring."


# ------------------------------------------------------------------ argument styles


def test_single_model_argument() -> None:
    class TicketArgs(BaseModel):
        ticket_id: str
        include_history: bool = False

    seen: list[Any] = []

    @tool
    async def fetch_ticket(args: TicketArgs) -> dict[str, object]:
        seen.append(args)
        return {"ticket_id": args.ticket_id}

    assert fetch_ticket.parameters_schema == {
        "properties": {"ticket_id": {"type": "string"}, "include_history": {"default": False, "type": "boolean"}},
        "required": ["ticket_id"],
        "type": "object",
    }
    assert run_tool(fetch_ticket, {"ticket_id": "T-1"}) == {"ok": True, "content": {"ticket_id": "T-1"}}
    assert seen == [TicketArgs(ticket_id="T-1")]


def test_raw_args_dict() -> None:
    @tool
    def echo(ctx: ToolContext, args: dict[str, object]) -> list[str]:
        return sorted(args)

    assert echo.takes_ctx
    assert echo.parameters_schema == {"type": "object", "additionalProperties": True}
    assert run_tool(echo, {"b": 1, "a": {"x": [1]}})["content"] == ["a", "b"]


def test_raw_args_with_explicit_schema_and_mapping_annotation() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}

    @tool(parameters_schema=schema)
    def raw(args: Mapping[str, Any]) -> Any:
        return dict(args)

    assert raw.parameters_schema == schema
    assert run_tool(raw, {"n": 1})["content"] == {"n": 1}


def test_parameter_named_args_with_a_scalar_type_is_ordinary() -> None:
    @tool
    def shout(args: str) -> str:
        return args.upper()

    assert shout.parameters_schema["properties"] == {"args": {"type": "string"}}
    assert run_tool(shout, {"args": "hi"})["content"] == "HI"


def test_var_kwargs_with_explicit_schema() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}

    @tool(parameters_schema=schema)
    def search(**kwargs: Any) -> Any:
        return kwargs

    assert search.definition()["parameters"] == schema
    assert run_tool(search, {"q": "x", "extra": 1})["content"] == {"q": "x", "extra": 1}


def test_var_kwargs_beside_named_parameters() -> None:
    @tool
    def tag(name: str, **kwargs: Any) -> Any:
        return {"name": name, "rest": kwargs}

    assert tag.parameters_schema == {
        "additionalProperties": True,
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "type": "object",
    }
    assert run_tool(tag, {"name": "n", "color": "red"})["content"] == {"name": "n", "rest": {"color": "red"}}


def test_unannotated_parameters_allowed_with_explicit_schema() -> None:
    schema = {"type": "object", "properties": {"a": {}, "b": {}}}

    @tool(parameters_schema=schema)
    def loose(a, b=2):  # type: ignore[no-untyped-def]
        return [a, b]

    assert run_tool(loose, {"a": {"k": 1}})["content"] == [{"k": 1}, 2]


def test_empty_explicit_schema_means_inference() -> None:
    def f(x: int) -> int:
        return x

    assert Tool(f, parameters_schema={}).parameters_schema["properties"] == {"x": {"type": "integer"}}


# ------------------------------------------------------------------ context detection


def test_context_by_annotation_by_name_and_keyword_only() -> None:
    def annotated(c: ToolContext, x: int) -> int:
        return x

    def by_name(ctx, x: int) -> int:  # type: ignore[no-untyped-def]
        return x

    def kw_only(*, ctx: ToolContext, x: int) -> str:
        return ctx.tool_call_id

    for f in (annotated, by_name, kw_only):
        t = Tool(f)
        assert t.takes_ctx, f
        assert list(t.parameters_schema["properties"]) == ["x"]
    assert run_tool(Tool(kw_only), {"x": 1})["content"] == "call_1"
    assert not Tool(lambda x: x, parameters_schema={"type": "object"}).takes_ctx


def test_context_received_is_the_call_context() -> None:
    @tool
    async def who(ctx: ToolContext) -> list[Any]:
        return [ctx.run_id, ctx.tool_call_id, ctx.retry]

    assert run_tool(who)["content"] == ["run_1", "call_1", 0]


def test_unresolvable_string_annotation_of_tool_context() -> None:
    namespace: dict[str, Any] = {}
    exec(  # a module with `from __future__ import annotations` and ToolContext under TYPE_CHECKING
        "from __future__ import annotations\ndef deploy(ctx: ToolContext, target: str) -> str:\n    return target\n",
        namespace,
    )
    t = Tool(namespace["deploy"])
    assert t.takes_ctx
    assert t.parameters_schema["required"] == ["target"]


# ------------------------------------------------------------------ signature problems


def test_every_signature_problem_is_reported_at_once() -> None:
    def bad(x: int, ctx: ToolContext, *rest: int, y) -> None:  # type: ignore[no-untyped-def]
        pass

    with pytest.raises(ValueError) as info:
        Tool(bad)
    message = str(info.value)
    assert message.splitlines()[0].endswith("bad:")
    assert "ToolContext parameter must precede tool argument parameters" in message
    assert "tool functions cannot use *args" in message
    assert "parameter 'y': tool parameter type hints are required unless parameters_schema is set" in message


@pytest.mark.parametrize(
    ("func", "expected"),
    [
        (lambda **kwargs: None, "**kwargs tools require an explicit parameters_schema"),
        (lambda args, n: None, "args parameter cannot be mixed with other tool arguments"),
    ],
)
def test_signature_rejections(func: Any, expected: str) -> None:
    with pytest.raises(ValueError, match=expected.replace("*", r"\*")):
        Tool(func, name="f")


def test_model_with_var_kwargs_is_rejected() -> None:
    def f(args: Address, **kwargs: Any) -> None:
        pass

    with pytest.raises(ValueError, match="cannot be mixed with args or pydantic parameters"):
        Tool(f)


def test_two_contexts_rejected() -> None:
    def f(a: ToolContext, b: ToolContext) -> None:
        pass

    with pytest.raises(ValueError, match="only one ToolContext parameter"):
        Tool(f)


def test_unsupported_types_are_named() -> None:
    import threading

    def f(lock: threading.Lock, ok: int, fn: Any) -> None:
        pass

    with pytest.raises(ValueError, match=r"cannot build a tool from .*f:\n  parameter 'lock': unsupported type hint"):
        Tool(f)


def test_unresolvable_forward_reference() -> None:
    namespace: dict[str, Any] = {}
    exec("def f(x: 'Missing') -> None: pass\n", namespace)
    with pytest.raises(ValueError, match=r"parameter 'x': cannot resolve type hint 'Missing'"):
        Tool(namespace["f"])


# ------------------------------------------------------------------ explicit schemas


@pytest.mark.parametrize(
    ("schema", "error"),
    [
        (["not", "a", "mapping"], TypeError),
        ({"type": "object", "properties": {"x": {"default": object()}}}, ValueError),
        ({"type": "object", 1: "x"}, TypeError),
        ({"type": "array"}, ValueError),
        ({"type": "object", "properties": ["x"]}, TypeError),
        ({"type": "object", "properties": {"x": "string"}}, TypeError),
        ({"type": "object", "properties": {"x": {}}, "required": "x"}, TypeError),
        ({"type": "object", "properties": {"x": {}}, "required": ["y"]}, ValueError),
        ({"type": "object", "additionalProperties": "yes"}, TypeError),
        ({"type": "object", "properties": {"x": {"maximum": float("nan")}}}, ValueError),
    ],
    ids=[
        "not-mapping",
        "non-json-value",
        "non-str-key",
        "not-object",
        "properties-not-mapping",
        "property-not-mapping",
        "required-not-list",
        "required-unknown",
        "additional-properties",
        "nan",
    ],
)
def test_malformed_explicit_schemas_are_rejected(schema: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="parameters_schema"):
        validate_parameters_schema(schema)

    def f(args: dict[str, Any]) -> None:
        pass

    with pytest.raises(error, match="parameters_schema"):
        Tool(f, parameters_schema=schema)


def test_explicit_schema_is_copied() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"x": {"type": "integer"}}}
    t = Tool(lambda args: None, name="f", parameters_schema=schema)
    schema["properties"]["x"]["type"] = "string"
    assert t.parameters_schema["properties"]["x"] == {"type": "integer"}


# ------------------------------------------------------------------ argument conversion


def test_arguments_convert_to_annotated_types() -> None:
    outcome = run_tool(
        Tool(create_order),
        {
            "customer": "c-1",
            "address": {"street": "Main"},
            "priority": "high",
            "quantity": 3,
            "ref": "R-7",
            "window": {"start": 1, "end": 2},
            "tags": [{"key": "k", "value": "v"}],
        },
    )
    assert outcome == {
        "ok": True,
        "content": {
            "ctx": "ToolContext",
            "customer": "c-1",
            "address": "Address(street='Main', city='Paris')",
            "priority": "<Priority.HIGH: 'high'>",
            "mode": "fast",
            "quantity": 3,
            "note": None,
            "ref": "R-7",
            "window": "Window(start=1, end=2)",
            "tags": [{"key": "k", "value": "v"}],
            "weights": {},
        },
    }


def test_function_defaults_are_the_functions_own() -> None:
    sentinel = object()
    seen: list[Any] = []

    def f(x: int, marker: Any = sentinel, items: list[int] = Field(default_factory=lambda: [7])) -> None:  # noqa: B008
        seen.append((marker, items))

    run_tool(Tool(f), {"x": 1})
    assert seen[0][0] is sentinel  # not a pydantic copy
    assert seen[0][1] == [7]  # Field defaults are resolved by pydantic


def test_positional_only_parameters() -> None:
    def f(a: int, b: int = 10, /, *, c: int = 100) -> list[int]:
        return [a, b, c]

    t = Tool(f)
    assert run_tool(t, {"a": 1})["content"] == [1, 10, 100]
    assert run_tool(t, {"a": 1, "b": 2, "c": 3})["content"] == [1, 2, 3]


def test_conversion_errors_become_invalid_arguments_without_values() -> None:
    arguments = {"customer": "", "address": {"city": "secret-city"}, "quantity": 500, "x": 1}
    outcome = run_tool(Tool(create_order), arguments)
    assert outcome["ok"] is False and outcome["kind"] == "invalid_arguments"
    assert outcome["message"] == (
        "customer: String should have at least 1 character; "
        "address.street: field required; "
        "quantity: Input should be less than or equal to 100; "
        "x: unexpected argument"
    )
    assert "secret-city" not in str(outcome)  # not even in the private traceback


def test_bind_raises_invalid_arguments_directly() -> None:
    def f(x: int) -> int:
        return x

    fs = function_schema(f)
    assert fs.bind(None, {"x": "3"}) == ([], {"x": 3})
    with pytest.raises(InvalidArguments, match="x: missing required argument"):
        fs.bind(None, {})


def test_model_argument_validation_error() -> None:
    @tool
    def f(args: Address) -> str:
        return args.street

    outcome = run_tool(f, {"city": "x"})
    assert (outcome["kind"], outcome["message"]) == ("invalid_arguments", "street: missing required argument")
