"""Structured output: ``create_agent(output_type=...)`` (pydantic-ai semantics).

How an answer is checked, and why it is done this way: Go owns the run, so
Go checks each answer against the output JSON Schema first (the same path as
every tool's arguments: limits, normalised schema, schema cache) and sends
the model a retry prompt naming the failing path. An answer that matches the
schema is then handed to Python as a call of a host "tool" (the existing
call item of the run's pipe: no new item kind, so nothing on the wire
changes), which validates it with pydantic (``TypeAdapter``, so model
validators apply) and runs the ``@agent.output_validator`` functions.
A ``ModelRetry`` (or a pydantic ``ValidationError``) goes back to the model
as a retry prompt within the output-retry budget; any other exception fails
the run. The validator is registered with the agent even before any
``@agent.output_validator`` is added, since the agent in the runtime is
immutable once built and validators may be added after ``create_agent``.

Object types (pydantic models, dataclasses, TypedDicts) are the output tool's
arguments as they are; any other type (a union, a list, a scalar) is wrapped
in an object ``{"response": ...}`` as pydantic-ai does.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, Union

from typing_extensions import is_typeddict

from starweaver._pool import in_pool
from starweaver._schema import _unwrap_ref
from starweaver.context import ToolContext
from starweaver.errors import ModelRetry, describe_validation_error
from starweaver.tools import Tool

# pydantic is imported where an output type first needs it: agents that
# answer in text never load it.
if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["OutputMode", "OutputValidatorFunc"]

OutputMode = Literal["tool", "native"]
"""``"tool"``: the answer is a call of the output tool (every model that
calls tools supports it); ``"native"``: the provider's JSON-schema response
format, the answer being the response text."""

OutputValidatorFunc = Union[
    Callable[[Any], Any],
    Callable[[ToolContext, Any], Any],
    Callable[[Any], Awaitable[Any]],
    Callable[[ToolContext, Any], Awaitable[Any]],
]
"""``f(value)`` or ``f(ctx, value)``, sync or async; returns the value to keep
(possibly changed) and may raise ``ModelRetry``."""

DEFAULT_NAME = "final_result"


def is_text_type(output_type: object) -> bool:
    """Whether output_type means a plain text answer (``str``, the default)."""
    return output_type is None or output_type is str


def _is_object_type(tp: Any) -> bool:
    from pydantic import BaseModel  # noqa: PLC0415 - pydantic loads with the first output type

    return isinstance(tp, type) and (issubclass(tp, BaseModel) or dataclasses.is_dataclass(tp) or is_typeddict(tp))


def _takes_ctx(func: Callable[..., Any]) -> bool:
    try:
        params = [
            p
            for p in inspect.signature(func).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        return False
    return len(params) >= 2


class Output:
    """An agent's output type compiled once: its schema and how to read and
    check an answer."""

    def __init__(
        self,
        output_type: Any,
        *,
        mode: OutputMode = "tool",
        name: str | None = None,
        description: str | None = None,
        strict: bool = False,
    ) -> None:
        if mode not in ("tool", "native"):
            raise ValueError(f'output_mode must be "tool" or "native", got {mode!r}')
        self.type = output_type
        self.mode = mode
        self.name = name or DEFAULT_NAME
        self.wrapped = not _is_object_type(output_type)
        from pydantic import TypeAdapter  # noqa: PLC0415 - pydantic loads with the first output type

        from starweaver._jsonschema import ToolJSONSchema  # noqa: PLC0415 - it imports pydantic

        try:
            self.adapter: TypeAdapter[Any] = TypeAdapter(output_type)
            inner: dict[str, Any] = _unwrap_ref(
                self.adapter.json_schema(by_alias=True, schema_generator=ToolJSONSchema)
            )
        except Exception as exc:  # pydantic raises several kinds for unusable types
            raise TypeError(f"output_type {output_type!r} has no JSON schema: {exc}") from None
        inner.pop("title", None)
        doc = inner.pop("description", None) if not self.wrapped else None
        if self.wrapped:
            defs = inner.pop("$defs", None)
            schema: dict[str, Any] = {
                "type": "object",
                "properties": {"response": inner},
                "required": ["response"],
                "additionalProperties": False,
            }
            if defs:
                schema["$defs"] = defs
        else:
            schema = inner
        self.schema = schema
        self.description = description or doc
        self.strict = strict
        self.validators: list[Callable[..., Any]] = []
        self.tool: Tool[..., Any] = Tool(self._validate, name=self.name)

    def spec(self, validator_id: int) -> dict[str, Any]:
        """The agent spec's ``output`` entry (defaults left to the runtime)."""
        spec: dict[str, Any] = {"name": self.name, "schema": self.schema, "mode": self.mode, "validator": validator_id}
        if self.description:
            spec["description"] = self.description
        if self.strict:
            spec["strict"] = True
        return spec

    def add_validator(self, func: Callable[..., Any]) -> None:
        if not callable(func):
            raise TypeError(f"an output validator must be callable, got {type(func).__name__}")
        self.validators.append(func)

    def _unwrap(self, args: dict[str, Any]) -> Any:
        return args.get("response") if self.wrapped else args

    def value(self, answer: Any) -> Any:
        """The Python value of a validated answer (the run's ``output_value``)."""
        return self.adapter.validate_python(self._unwrap(answer))

    def _answer(self, value: Any) -> Any:
        dumped = self.adapter.dump_python(value, mode="json")
        return {"response": dumped} if self.wrapped else dumped

    async def _validate(self, ctx: ToolContext, args: dict[str, Any]) -> Any:
        """The host side of an answer's check (see the module docstring)."""
        from pydantic import ValidationError  # noqa: PLC0415 - pydantic loads with the first output type

        try:
            value = self.adapter.validate_python(self._unwrap(args))
        except ValidationError as exc:
            raise ModelRetry(describe_validation_error(exc)) from None
        for func in list(self.validators):
            call_args = (ctx, value) if _takes_ctx(func) else (value,)
            if inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(getattr(func, "__call__", None)):  # noqa: B004
                result = await func(*call_args)
            else:
                result = await in_pool(functools.partial(func, *call_args))
                if inspect.isawaitable(result):
                    result = await result
            value = result
        if self.validators:
            # A validator must return the value to keep (as in pydantic-ai);
            # one that returns None or another type fails the run clearly.
            try:
                value = self.adapter.validate_python(value)
            except ValidationError as exc:
                raise TypeError(
                    "an output validator returned a value that does not fit the output type: "
                    + describe_validation_error(exc)
                ) from None
        return self._answer(value)


def test_arguments(value: Any) -> dict[str, Any]:
    """The output tool's arguments for value, for scripted models: a pydantic
    model or a dataclass as its JSON form, a dict as it is (the arguments
    themselves), anything else wrapped as ``{"response": value}``."""
    from pydantic import BaseModel, TypeAdapter  # noqa: PLC0415 - pydantic loads with the first output type

    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        dumped: dict[str, Any] = TypeAdapter(type(value)).dump_python(value, mode="json")
        return dumped
    if isinstance(value, dict):
        return value
    return {"response": TypeAdapter(Any).dump_python(value, mode="json")}
