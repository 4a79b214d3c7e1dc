"""Function signature -> JSON Schema, and JSON arguments -> Python call (private).

``function_schema`` reads a tool function once, when the ``Tool`` is built, and
returns a ``FunctionSchema``: the description, the parameters JSON Schema and a
binding that turns the model's JSON-decoded arguments into the positional and
keyword arguments of the call. Call-time code only reads it.

Argument styles (parameters after an optional ``ToolContext`` one):

- keywords: ordinary typed parameters. A pydantic model is generated with one
  field per parameter (internal field names, the parameter name as alias, so
  any name works), validated in pydantic's lax mode; the schema is that model's
  schema with ``additionalProperties: false`` (``true`` when ``**kwargs`` takes
  the extra arguments). Field titles are dropped; defaults and docstring
  descriptions are kept. Parameters left out by the model keep the function's
  own defaults.
- model: a single parameter typed with a pydantic model. The schema is the
  model's; the function receives the validated instance.
- raw: a single parameter named ``args`` typed as a dict (or unannotated). It
  receives the decoded dict; schema ``{"type": "object", "additionalProperties":
  true}`` unless an explicit one is given.
- ``**kwargs`` alone: needs an explicit schema; the dict is passed as keywords.

This module relies on pydantic's model generation and JSON Schema hooks
(``create_model``, ``GenerateJsonSchema.field_title_should_be_set``); a change
in either shows up here first.
"""

from __future__ import annotations

import collections.abc
import copy
import functools
import inspect
import json
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    TypeAdapter,
    ValidationError,
    create_model,
)
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import PydanticUndefined

from ._docstrings import parse_docstring
from .context import ToolContext
from .errors import InvalidArguments, describe_validation_error

__all__ = ("FunctionSchema", "function_schema", "validate_parameters_schema")

ArgumentStyle = Literal["keywords", "model", "raw", "var_kwargs"]
"""How the decoded arguments reach the function (see the module docstring)."""

RAW_ARGS_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": True}

_EMPTY = inspect.Parameter.empty
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_MAPPING_ORIGINS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)

# Patterns of parameters (``Field(pattern=...)``, ``constr``) compile with
# Python's re, as with ECMA-262 in Go (which checks every call first):
# pydantic's default Rust engine rejects look-around and back-references.
_REGEX_ENGINE: Literal["python-re"] = "python-re"


class _ToolJsonSchema(GenerateJsonSchema):
    """Pydantic's generator without the titles it derives from field names.
    Defaults that are not JSON (sentinels) are left out of the schema quietly.

    Stdlib dataclasses and TypedDicts validate with the configuration of the
    model that holds them, so inside the arguments model they refuse unknown
    keys in every supported pydantic version; pydantic only says so in the
    schema since 2.13 (TypedDict) and 2.14 (dataclass). The schema states it
    for all versions, so Go refuses those keys before Python sees them."""

    ignored_warning_kinds = {"skipped-choice", "non-serializable-default"}  # noqa: RUF012 - pydantic's API

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def dataclass_schema(self, schema: Any) -> Any:
        return _forbid_extra(schema, super().dataclass_schema(schema))

    def get_decimal_pattern(self, schema: Any) -> str | None:
        # pydantic >= 2.14 leaves the pattern of a Decimal sent as a string
        # out unless asked (2.12 and 2.13 always write one, a look-ahead);
        # with it the model sees the syntax and Go checks it before Python.
        return self.build_decimal_pattern(schema)

    def decimal_schema(self, schema: Any) -> Any:
        # Before 2.12 pydantic writes no pattern for a Decimal sent as a
        # string: the syntax pydantic >= 2.14 states for an unconstrained
        # Decimal keeps the schema the same in every supported version
        # (Python still checks digits and places).
        json_schema = super().decimal_schema(schema)
        for branch in json_schema.get("anyOf", [json_schema]):
            if branch.get("type") == "string" and "pattern" not in branch:
                branch["pattern"] = _DECIMAL_PATTERN
        return json_schema

    def typed_dict_schema(self, schema: Any) -> Any:
        return _forbid_extra(schema, super().typed_dict_schema(schema))


_DECIMAL_PATTERN = r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)$"


def _forbid_extra(core: Any, json_schema: Any) -> Any:
    config = core.get("config") or {}
    forbid = config.get("extra_fields_behavior") == "forbid" or core.get("extra_behavior") == "forbid"
    if forbid and json_schema.get("type") == "object":
        json_schema.setdefault("additionalProperties", False)
    return json_schema


def _unwrap_ref(value: Any) -> Any:
    """``{"allOf": [{"$ref": r}], ...}`` (pydantic < 2.9 puts a $ref with
    sibling keywords, such as a description or a default, in an allOf) as
    ``{"$ref": r, ...}``, the form newer versions write; both mean the same in
    JSON Schema 2020-12, so every version produces one schema."""
    if isinstance(value, list):
        return [_unwrap_ref(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _unwrap_ref(v) for k, v in value.items()}
    all_of = out.get("allOf")
    if (
        isinstance(all_of, list)
        and len(all_of) == 1
        and isinstance(all_of[0], dict)
        and set(all_of[0]) == {"$ref"}
        and "$ref" not in out
    ):
        del out["allOf"]
        out["$ref"] = all_of[0]["$ref"]
    return out


def _json_schema_of(model: type[BaseModel]) -> dict[str, Any]:
    schema: dict[str, Any] = _unwrap_ref(model.model_json_schema(by_alias=True, schema_generator=_ToolJsonSchema))
    schema.pop("title", None)
    return schema


# ---------------------------------------------------------------- explicit schemas


def _check_keys(value: Any, path: str) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"parameters_schema keys must be strings, got {k!r} at {path}")
            _check_keys(v, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_keys(v, f"{path}[{i}]")


def validate_parameters_schema(schema: object) -> dict[str, Any]:
    """Checks an object JSON Schema and returns a plain-JSON deep copy of it.

    Raises:
        TypeError: schema is not a Mapping, has non-str keys, or its
            properties / required / additionalProperties have the wrong types.
        ValueError: schema holds a non-JSON value, its type is not "object",
            or required names a missing property.
    Every message contains "parameters_schema".
    """
    if not isinstance(schema, Mapping):
        raise TypeError(f"parameters_schema must be a mapping, got {type(schema).__name__}")
    _check_keys(schema, "$")
    try:
        plain: dict[str, Any] = json.loads(json.dumps(schema, allow_nan=False))
    except (TypeError, ValueError) as e:
        raise ValueError(f"parameters_schema must contain only JSON values: {e}") from None
    if plain.get("type") != "object":
        raise ValueError(f'parameters_schema must have "type": "object", got {plain.get("type")!r}')
    props = schema.get("properties", {})
    if not isinstance(props, Mapping) or not all(isinstance(v, Mapping) for v in props.values()):
        raise TypeError("parameters_schema properties must be a mapping of names to schema objects")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise TypeError("parameters_schema required must be a list of strings")
    if missing := [r for r in required if r not in props]:
        raise ValueError(f"parameters_schema required names unknown properties: {', '.join(missing)}")
    extra = schema.get("additionalProperties", True)
    if not isinstance(extra, (bool, Mapping)):
        raise TypeError("parameters_schema additionalProperties must be a bool or a schema object")
    return plain


# ---------------------------------------------------------------- the result


@dataclass(frozen=True)
class _Field:
    internal: str  # field name in the generated model
    param: str  # the function's parameter name (the field's alias)
    positional: bool
    always: bool  # pass even when the model left it out (no usable Python default)


@dataclass(frozen=True, kw_only=True)
class FunctionSchema:
    """Everything call-time code needs to know about a tool function."""

    description: str | None
    json_schema: dict[str, Any]
    is_async: bool
    takes_ctx: bool
    style: ArgumentStyle
    ctx_param: str | None = None
    ctx_positional: bool = True
    param: str | None = None  # the single parameter of the model and raw styles
    param_positional: bool = True
    model: type[BaseModel] | None = None
    # Builds the keywords-style model on first use, for schemas that came
    # from the primitive fast path (model is None until then).
    model_factory: Callable[[], type[BaseModel]] | None = None
    fields: tuple[_Field, ...] = ()
    var_kwargs: bool = False
    # Set when every argument is a plain str, int or bool keyword parameter:
    # then arguments of exactly those types (which Go already checked against
    # the schema) are passed without a pydantic round trip.
    plain_types: Mapping[str, type] | None = None
    plain_required: frozenset[str] = frozenset()

    def plain_call(self, arguments: Mapping[str, Any]) -> bool:
        """Whether ``arguments`` can be passed as keywords as they are: every
        parameter is a plain str, int or bool, all required ones are there and
        every value has exactly its parameter's type (Go validated the rest)."""
        plain = self.plain_types
        if plain is None or not self.plain_required <= arguments.keys():
            return False
        for name, value in arguments.items():
            if type(value) is not plain.get(name):
                return False
        return True

    def arguments_model(self) -> type[BaseModel]:
        """The pydantic model that converts the arguments (model and keywords
        styles), built now if the fast path deferred it."""
        model = self.model
        if model is None:
            assert self.model_factory is not None
            model = self.model_factory()
            # A race builds two equal models; either serves.
            object.__setattr__(self, "model", model)
        return model

    def bind(self, ctx: ToolContext | None, arguments: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """The positional and keyword arguments of the call for the decoded JSON arguments.

        Raises:
            InvalidArguments: the arguments do not convert to the annotated
                types; the message names the failing fields, never their values.
        """
        args: list[Any] = []
        kwargs: dict[str, Any] = {}

        def put(name: str, positional: bool, value: Any) -> None:
            if positional:
                args.append(value)
            else:
                kwargs[name] = value

        if self.takes_ctx:
            put(self.ctx_param or "ctx", self.ctx_positional, ctx)
        if self.plain_call(arguments):
            kwargs.update(arguments)
            return args, kwargs
        if self.style == "raw":
            put(self.param or "args", self.param_positional, dict(arguments))
        elif self.style == "var_kwargs":
            kwargs.update(arguments)
        else:
            model = self.arguments_model()
            try:
                validated = model.model_validate(arguments)
            except ValidationError as e:
                # from None: pydantic's own text repeats the input values.
                raise InvalidArguments(describe_validation_error(e)) from None
            if self.style == "model":
                put(self.param or "args", self.param_positional, validated)
            else:
                given = validated.model_fields_set
                for f in self.fields:
                    if f.always or f.internal in given:
                        put(f.param, f.positional, getattr(validated, f.internal))
                if self.var_kwargs and validated.__pydantic_extra__:
                    kwargs.update(validated.__pydantic_extra__)
        return args, kwargs


# ---------------------------------------------------------------- inference


def _strip_annotated(tp: Any) -> Any:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _forward_text(tp: Any) -> str | None:
    """The text of an annotation that is still unresolved (a str or ForwardRef)."""
    if isinstance(tp, typing.ForwardRef):
        return tp.__forward_arg__
    return tp if isinstance(tp, str) else None


def _is_context_type(tp: Any) -> bool:
    tp = _strip_annotated(tp)
    if (text := _forward_text(tp)) is not None:
        return text.strip("'\" ").split("[", 1)[0].rsplit(".", 1)[-1] == "ToolContext"
    tp = typing.get_origin(tp) or tp  # ToolContext[MyDeps]
    if not isinstance(tp, type):
        return False
    return issubclass(tp, ToolContext) or (
        tp.__name__ == "ToolContext" and getattr(tp, "__module__", "").startswith("starweaver")
    )


def _is_model_type(tp: Any) -> bool:
    tp = _strip_annotated(tp)
    return isinstance(tp, type) and issubclass(tp, BaseModel) and not issubclass(tp, RootModel)


def _is_mapping_type(tp: Any) -> bool:
    tp = _strip_annotated(tp)
    return tp in _MAPPING_ORIGINS or typing.get_origin(tp) in _MAPPING_ORIGINS


def _hint_source(func: Callable[..., Any]) -> Any:
    """The object whose annotations and globals describe func's parameters."""
    while isinstance(func, partial):
        func = func.func
    func = inspect.unwrap(func)  # functools.wraps decorators, and a Tool wrapping a function
    if not (inspect.isfunction(func) or inspect.ismethod(func)) and callable(func):
        call = type(func).__call__
        if inspect.isfunction(call) or inspect.ismethod(call):
            func = inspect.unwrap(call)
    return func


def _type_hints(func: Callable[..., Any], localns: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, str]]:
    """Resolved parameter annotations, and the reason for each one that cannot be resolved.

    Names are looked up in the function's globals, then (for classes defined
    in a function body, under ``from __future__ import annotations``) in
    localns, the namespace of the code that built the tool.
    """
    src = _hint_source(func)
    if (quick := _quick_string_hints(src)) is not None:
        return quick, {}
    hints: dict[str, Any]
    # localns is read only if the function's globals do not resolve a hint.
    for ns in (None, localns) if localns is not None else (None,):
        try:
            hints = typing.get_type_hints(src, localns=dict(ns) if ns else None, include_extras=True)
        except Exception:
            continue
        # A quoted annotation under `from __future__ import annotations` resolves to a str.
        unresolved = {k: f"cannot resolve type hint {_forward_text(v)!r}" for k, v in hints.items() if _forward_text(v)}
        return hints, unresolved
    hints = {}
    failed: dict[str, str] = {}
    globalns = getattr(src, "__globals__", {})
    for name, ann in getattr(src, "__annotations__", {}).items():
        if not isinstance(ann, str):
            hints[name] = ann
            continue
        try:
            hints[name] = eval(ann, globalns, dict(localns or {}))  # noqa: S307 - the function's own annotation
        except Exception as e:
            hints[name] = ann
            failed[name] = f"cannot resolve type hint {ann!r} ({type(e).__name__}: {e})"
            continue
        if (text := _forward_text(hints[name])) is not None:
            failed[name] = f"cannot resolve type hint {text!r}"
    return hints, failed


@functools.lru_cache(maxsize=4096)
def _compiled_annotation(text: str) -> Any:
    return compile(text, "<annotation>", "eval")


def _resolved(tp: Any, depth: int = 0) -> bool:
    """Whether an evaluated annotation holds no forward reference (a str or a
    ForwardRef) that get_type_hints would still have to resolve."""
    if isinstance(tp, (str, typing.ForwardRef)) or depth > 8:
        return False
    origin = typing.get_origin(tp)
    if origin is Literal:
        return True
    args = typing.get_args(tp)
    if origin is Annotated:
        args = args[:1]
    return all(_resolved(a, depth + 1) for a in args)


def _quick_string_hints(src: Any) -> dict[str, Any] | None:
    """The annotations of a function written under ``from __future__ import
    annotations``, evaluated in its globals from cached compiled text: what
    typing.get_type_hints computes, without compiling every annotation of
    every tool again. None (use get_type_hints) for anything but a plain
    function whose every annotation is text that resolves, in its globals
    alone, to a type holding no further forward reference."""
    if not inspect.isfunction(src) or sys.version_info < (3, 11):
        # Before 3.11 get_type_hints also made a None default's hint Optional.
        return None
    annotations = getattr(src, "__annotations__", None)
    if not annotations or not all(isinstance(a, str) for a in annotations.values()):
        return None
    globalns = getattr(src, "__globals__", None)
    if not isinstance(globalns, dict):
        return None
    hints: dict[str, Any] = {}
    try:
        for name, text in annotations.items():
            value = eval(_compiled_annotation(text), globalns, None)  # noqa: S307 - the function's own annotation
            if value is None:
                value = type(None)
            if not _resolved(value):
                return None
            hints[name] = value
    except Exception:
        return None
    return hints


def is_async_callable(func: Callable[..., Any]) -> bool:
    """Whether calling func returns a coroutine (functions, partials, bound
    methods and objects with an async ``__call__``)."""
    while isinstance(func, partial):
        func = func.func
    if inspect.iscoroutinefunction(func):
        return True
    if not inspect.isfunction(func) and not inspect.ismethod(func):
        if inspect.iscoroutinefunction(type(func).__call__):
            return True
        wrapped = getattr(func, "__wrapped__", None)  # a Tool wrapping a function
        return wrapped is not None and is_async_callable(wrapped)
    return False


def _described(tp: Any, alias: str, description: str | None) -> Any:
    """tp with the alias and docstring description as the *first* Field, so the
    user's own Field metadata (in Annotated or as the default) wins."""
    extra = Field(alias=alias, description=description) if description else Field(alias=alias)
    if typing.get_origin(tp) is Annotated:
        inner, *meta = typing.get_args(tp)
        params = (inner, extra, *meta)
        return typing.cast(Any, Annotated)[params]
    return Annotated[tp, extra]


def _unsupported(tp: Any) -> str | None:
    """Why pydantic cannot validate tp or describe it in JSON Schema, if it cannot."""
    try:
        TypeAdapter(tp, config=ConfigDict(regex_engine=_REGEX_ENGINE)).json_schema(schema_generator=_ToolJsonSchema)
    except Exception as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return f"unsupported type hint {tp!r}: {first}"
    return None


# ---------------------------------------------------------------- the primitive fast path
#
# Most tools take ints, strs, floats, bools, lists and dicts of them,
# Optional and Literal. For those, building a pydantic model per tool
# (create_model, then its JSON Schema) costs far more than the tool itself:
# the object schema is assembled here instead, from one cached pydantic
# schema per distinct annotation (so every fragment is exactly what pydantic
# writes), and the model that converts arguments is built on the first call
# that needs it. A parity test holds the two paths to the same schema and the
# same validation (python/tests/test_schema_fast_path.py).

_PRIMITIVE_SCALARS = (int, str, float, bool, type(None))


def _is_primitive(tp: Any, depth: int = 0) -> bool:
    """Whether tp is in the fast path's grammar: a scalar, list[T], dict[str, T],
    a union (Optional) of those, or a Literal of strs, ints and bools."""
    if depth > 8:
        return False
    if tp in _PRIMITIVE_SCALARS:
        return True
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is list:
        return len(args) == 1 and _is_primitive(args[0], depth + 1)
    if origin is dict:
        return len(args) == 2 and args[0] is str and _is_primitive(args[1], depth + 1)
    if origin is typing.Union or origin is _UnionType:
        return all(_is_primitive(a, depth + 1) for a in args)
    if origin is Literal:
        return all(type(a) in (str, int, bool) for a in args)
    return False


_UnionType = type(int | str)


def _plain_json(value: Any, depth: int = 0) -> bool:
    """Whether a default is JSON as it is (pydantic would write it unchanged)."""
    if value is None or type(value) in (str, int, bool):
        return True
    if type(value) is float:
        return value == value and value not in (float("inf"), float("-inf"))
    if depth > 8:
        return False
    if type(value) is list:
        return all(_plain_json(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _plain_json(v, depth + 1) for k, v in value.items())
    return False


def _copy_json(value: Any) -> Any:
    """A copy of a plain JSON value (dicts, lists, scalars): deepcopy's
    generality costs more than the whole fast path otherwise."""
    if type(value) is dict:
        return {k: _copy_json(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy_json(v) for v in value]
    return value


@functools.lru_cache(maxsize=1024)
def _cached_type_schema(tp: Any) -> dict[str, Any] | None:
    if not _is_primitive(tp):
        return None
    adapter: TypeAdapter[Any] = TypeAdapter(tp, config=ConfigDict(regex_engine=_REGEX_ENGINE))
    schema: dict[str, Any] = adapter.json_schema(schema_generator=_ToolJsonSchema)
    return schema


def _type_schema(tp: Any) -> dict[str, Any] | None:
    """pydantic's JSON Schema of one annotation in the primitive grammar (no
    titles), or None outside it; cached, as tools share a handful of
    annotations. Never mutate the result."""
    try:
        return _cached_type_schema(tp)
    except TypeError:  # an unhashable annotation: not a primitive one
        return None


def _primitive_schema(
    business: list[inspect.Parameter],
    annotation: Callable[[inspect.Parameter], Any],
    descriptions: Mapping[str, str],
) -> dict[str, Any] | None:
    """The keywords-style schema of a signature in the primitive grammar, as
    pydantic would write it for the model; None when any parameter is outside
    it (then the model is built at once)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for p in business:
        tp = annotation(p)
        frag = None if tp is _EMPTY else _type_schema(tp)
        if frag is None:
            return None
        prop = _copy_json(frag)
        if p.default is _EMPTY:
            required.append(p.name)
        elif _plain_json(p.default):
            prop["default"] = _copy_json(p.default)
        else:
            return None
        if description := descriptions.get(p.name):
            prop["description"] = description
        properties[p.name] = prop
    schema: dict[str, Any] = {"additionalProperties": False, "properties": properties}
    if required:
        schema["required"] = required
    schema["type"] = "object"
    return schema


def _qualname(func: Callable[..., Any]) -> str:
    src = _hint_source(func)
    return getattr(src, "__qualname__", None) or getattr(src, "__name__", None) or type(func).__name__


def function_schema(
    func: Callable[..., Any],
    *,
    parameters_schema: Mapping[str, Any] | None = None,
    localns: Mapping[str, Any] | None = None,
) -> FunctionSchema:
    """Reads func's signature and docstring into a FunctionSchema.

    parameters_schema, when given, has already passed
    ``validate_parameters_schema`` and replaces the inferred schema; the
    annotations still drive argument conversion. localns resolves string
    annotations that name classes local to the caller.

    Raises:
        ValueError: the signature cannot be used as a tool; the message names
            the function and lists every problem found.
    """
    explicit = dict(parameters_schema) if parameters_schema else None
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError) as e:
        raise ValueError(f"cannot build a tool from {_qualname(func)}: no inspectable signature ({e})") from None
    hints, unresolved = _type_hints(func, localns)
    # The function's own docstring: inspect.getdoc would inherit BaseTool.call's.
    doc = parse_docstring(getattr(_hint_source(func), "__doc__", None))
    problems: list[str] = []

    ctx_param: inspect.Parameter | None = None
    business: list[inspect.Parameter] = []
    var_kwargs = False
    for p in sig.parameters.values():
        ann = hints.get(p.name, p.annotation)
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            problems.append(f"*{p.name}: tool functions cannot use *args")
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            var_kwargs = True
        elif _is_context_type(ann) or (p.name == "ctx" and ann is _EMPTY):
            if ctx_param is not None:
                problems.append(f"parameter {p.name!r}: only one ToolContext parameter is allowed")
            elif business:
                problems.append(f"parameter {p.name!r}: ToolContext parameter must precede tool argument parameters")
            ctx_param = p
        else:
            if p.name in unresolved:
                problems.append(f"parameter {p.name!r}: {unresolved[p.name]}")
            business.append(p)

    def annotation(p: inspect.Parameter) -> Any:
        return hints.get(p.name, p.annotation)

    common: dict[str, Any] = {
        "description": doc.description,
        "is_async": is_async_callable(func),
        "takes_ctx": ctx_param is not None,
        "ctx_param": ctx_param.name if ctx_param else None,
        "ctx_positional": ctx_param is None or ctx_param.kind in _POSITIONAL,
    }

    def fail() -> typing.NoReturn:
        raise ValueError(f"cannot build a tool from {_qualname(func)}:\n  " + "\n  ".join(problems)) from None

    # The single-parameter styles.
    if len(business) == 1 and not problems:
        (p,) = business
        ann = annotation(p)
        raw = p.name == "args" and (ann is _EMPTY or _is_mapping_type(ann))
        if raw or _is_model_type(ann):
            if var_kwargs:
                problems.append("**kwargs cannot be mixed with args or pydantic parameters")
                fail()
            single: dict[str, Any] = {"param": p.name, "param_positional": p.kind in _POSITIONAL}
            if raw:
                schema = explicit or dict(RAW_ARGS_SCHEMA)
                return FunctionSchema(json_schema=schema, style="raw", **single, **common)
            model: type[BaseModel] = _strip_annotated(ann)
            try:
                schema = explicit or _json_schema_of(model)
            except Exception as e:
                problems.append(f"parameter {p.name!r}: {_unsupported(model) or e}")
                fail()
            return FunctionSchema(json_schema=schema, style="model", model=model, **single, **common)
    for p in business:
        if p.name == "args" and (annotation(p) is _EMPTY or _is_mapping_type(annotation(p))) and len(business) > 1:
            problems.append("parameter 'args': args parameter cannot be mixed with other tool arguments")
        elif annotation(p) is _EMPTY and explicit is None:
            problems.append(
                f"parameter {p.name!r}: tool parameter type hints are required unless parameters_schema is set"
            )

    if var_kwargs and not business:
        if explicit is None:
            problems.append("**kwargs tools require an explicit parameters_schema")
        if problems:
            fail()
        return FunctionSchema(json_schema=dict(explicit or {}), style="var_kwargs", **common)
    if problems:
        fail()

    # The keywords style: one model field per parameter.
    fields: list[_Field] = []
    for i, p in enumerate(business):
        positional = p.kind is inspect.Parameter.POSITIONAL_ONLY
        has_default = p.default is not _EMPTY and not isinstance(p.default, FieldInfo)
        fields.append(_Field(f"p{i}", p.name, positional, always=positional or not has_default))

    def build_model() -> type[BaseModel]:
        definitions: dict[str, Any] = {}
        for f, p in zip(fields, business):
            ann = annotation(p)
            # PydanticUndefined, not ...: pydantic 2.6 takes an Ellipsis beside
            # an Annotated Field as the default, and the parameter turns optional.
            default = PydanticUndefined if p.default is _EMPTY else p.default
            definitions[f.internal] = (_described(Any if ann is _EMPTY else ann, p.name, doc.params.get(p.name)), default)
        config = ConfigDict(extra="allow" if var_kwargs else "forbid", regex_engine=_REGEX_ENGINE)
        model: type[BaseModel] = create_model(f"{_qualname(func)}_arguments", __config__=config, **definitions)
        return model

    # The primitive fast path defers the model to the first call needing it.
    fast = None if explicit is not None or var_kwargs else _primitive_schema(business, annotation, doc.params)
    arg_model: type[BaseModel] | None = None
    if fast is not None:
        schema = fast
    else:
        try:
            arg_model = build_model()
            schema = copy.deepcopy(explicit or _json_schema_of(arg_model))
        except Exception as e:
            problems.extend(f"parameter {p.name!r}: {why}" for p in business if (why := _unsupported(annotation(p))))
            problems = problems or [f"{type(e).__name__}: {e}"]
            fail()
    plain = (
        explicit is None
        and not var_kwargs
        and all(
            annotation(p) in _PLAIN_TYPES
            and p.kind is not inspect.Parameter.POSITIONAL_ONLY
            and not isinstance(p.default, FieldInfo)
            for p in business
        )
    )
    return FunctionSchema(
        json_schema=schema,
        style="keywords",
        model=arg_model,
        model_factory=build_model if arg_model is None else None,
        fields=tuple(fields),
        var_kwargs=var_kwargs,
        plain_types={p.name: annotation(p) for p in business} if plain else None,
        plain_required=frozenset(p.name for p in business if p.default is _EMPTY) if plain else frozenset(),
        **common,
    )


# Annotations whose JSON values need no conversion (float is not among them:
# JSON integers must still become floats).
_PLAIN_TYPES = (str, int, bool)
