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
import opcode
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from json.encoder import encode_basestring as _encode_str
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

from ._docstrings import parse_docstring
from .context import ToolContext
from .errors import InvalidArguments, describe_validation_error

if TYPE_CHECKING:
    from pydantic import BaseModel

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


# pydantic is imported only by the paths that need it (a model, a rich
# annotation, the arguments model on a call that converts values): building a
# tool of primitive parameters, the common case, never does. Nothing can be a
# pydantic model or FieldInfo before pydantic is imported, which the checks
# below use.


def _pydantic_loaded() -> bool:
    return "pydantic" in sys.modules


def _is_field_info(value: object) -> bool:
    if not _pydantic_loaded():
        return False
    from pydantic.fields import FieldInfo

    return isinstance(value, FieldInfo)


def _generator() -> Any:
    from ._jsonschema import ToolJSONSchema

    return ToolJSONSchema


def _type_adapter(tp: Any) -> Any:
    from pydantic import ConfigDict, TypeAdapter

    return TypeAdapter(tp, config=ConfigDict(regex_engine=_REGEX_ENGINE))


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
    schema: dict[str, Any] = _unwrap_ref(model.model_json_schema(by_alias=True, schema_generator=_generator()))
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


class _Field(NamedTuple):
    """One parameter of the arguments model (a tuple: one is built per
    parameter of every tool)."""

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
            from pydantic import ValidationError

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
    if type(tp) is type and tp.__name__ != "ToolContext":  # a plain class: the usual first parameter
        return issubclass(tp, ToolContext)
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
    if not isinstance(tp, type) or not _pydantic_loaded():
        return False
    from pydantic import BaseModel, RootModel

    return issubclass(tp, BaseModel) and not issubclass(tp, RootModel)


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


# Opcodes of a call: an annotation that calls something may evaluate
# differently each time, so its value is never reused.
_CALL_OPS = frozenset(op for name, op in opcode.opmap.items() if "CALL" in name)


@functools.lru_cache(maxsize=4096)
def _reusable_names(text: str) -> tuple[str, ...] | None:
    """The names an annotation text reads, or None when it calls something
    (then its value may differ from one evaluation to the next)."""
    code = _compiled_annotation(text)
    raw = code.co_code
    if any(raw[i] in _CALL_OPS for i in range(0, len(raw), 2)):
        return None
    return tuple(code.co_names)


_MISSING = object()
# Evaluated string annotations by (text, globals): the globals, the names the
# text reads, what they were bound to then, and the value. Reused while every name
# is still bound to the same object, so a module rebinding a name is seen
# (builtins are taken as never rebound); string annotations (``from
# __future__ import annotations``) otherwise evaluate to new objects for
# every tool, which the fragment cache cannot find by identity.
_EVALUATED: dict[tuple[str, int], tuple[dict[str, Any], tuple[str, ...], list[Any], Any]] = {}


def _evaluate(text: str, globalns: dict[str, Any]) -> Any:
    """eval of an annotation text in a function's globals (raising what eval
    raises), reusing an earlier value when its names are bound as then."""
    key = (text, id(globalns))
    hit = _EVALUATED.get(key)
    if hit is not None and hit[0] is globalns:
        for name, was in zip(hit[1], hit[2], strict=True):
            if globalns.get(name, _MISSING) is not was:
                break
        else:
            return hit[3]
    names = _reusable_names(text)
    if names is None:
        return eval(_compiled_annotation(text), globalns, None)  # noqa: S307 - the function's own annotation
    bound = [globalns.get(n, _MISSING) for n in names]
    value = eval(_compiled_annotation(text), globalns, None)  # noqa: S307 - the function's own annotation
    if len(_EVALUATED) >= 4096:
        _EVALUATED.clear()
    _EVALUATED[key] = (globalns, names, bound, value)
    return value


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
    from pydantic import Field

    extra = Field(alias=alias, description=description) if description else Field(alias=alias)
    if typing.get_origin(tp) is Annotated:
        inner, *meta = typing.get_args(tp)
        params = (inner, extra, *meta)
        return typing.cast(Any, Annotated)[params]
    return Annotated[tp, extra]


def _unsupported(tp: Any) -> str | None:
    """Why pydantic cannot validate tp or describe it in JSON Schema, if it cannot."""
    try:
        _type_adapter(tp).json_schema(schema_generator=_generator())
    except Exception as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return f"unsupported type hint {tp!r}: {first}"
    return None


# ---------------------------------------------------------------- the primitive fast path
#
# Most tools take ints, strs, floats, bools, lists and dicts of them,
# Optional and Literal. For those, building a pydantic model per tool
# (create_model, then its JSON Schema) costs far more than the tool itself:
# the object schema is assembled here instead, from one cached JSON text per
# distinct annotation, and the model that converts arguments is built on the
# first call that needs it. The fragments of the grammar whose JSON Schema
# pydantic has written the same way in every supported version (scalars,
# lists, str-keyed dicts, unions and Optional, Literal of two or more strs,
# ints or bools) are written here without importing pydantic; the rest of the
# grammar (a one-value Literal, whose schema changed across versions) asks
# pydantic once per annotation. A parity test holds the two paths to the same
# schema and the same validation (python/tests/test_schema_fast_path.py).

_PRIMITIVE_SCALARS = (int, str, float, bool, type(None))
_UnionType = type(int | str)
_NONE_TYPE = type(None)
_SCALAR_SCHEMAS: dict[Any, str] = {
    int: "integer",
    str: "string",
    float: "number",
    bool: "boolean",
    _NONE_TYPE: "null",
}


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


def _flattened_any_of(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    """pydantic's union of JSON Schemas: nested anyOf lists flattened,
    duplicates dropped (first place kept), a single member unwrapped."""
    members: list[dict[str, Any]] = []
    for s in schemas:
        members.extend(s["anyOf"] if len(s) == 1 and "anyOf" in s else [s])
    unique: dict[str, dict[str, Any]] = {}
    for m in members:
        unique.setdefault(json.dumps(m, sort_keys=True), m)
    out = list(unique.values())
    return out[0] if len(out) == 1 else {"anyOf": out}


def _native_schema(tp: Any, depth: int = 0) -> dict[str, Any] | None:
    """The JSON Schema pydantic writes for tp, for the part of the grammar
    whose schema is the same in every supported pydantic version; None for
    anything else."""
    if depth > 8:
        return None
    try:
        scalar = _SCALAR_SCHEMAS.get(tp)
    except TypeError:  # unhashable
        return None
    if scalar is not None:
        return {"type": scalar}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is list and len(args) == 1:
        items = _native_schema(args[0], depth + 1)
        return None if items is None else {"type": "array", "items": items}
    if origin is dict and len(args) == 2 and args[0] is str:
        values = _native_schema(args[1], depth + 1)
        return None if values is None else {"type": "object", "additionalProperties": values}
    if origin is typing.Union or origin is _UnionType:
        # pydantic makes a union with None a nullable schema of the rest.
        rest = [a for a in args if a is not _NONE_TYPE]
        parts = [_native_schema(a, depth + 1) for a in rest]
        if not rest or any(p is None for p in parts):
            return None
        members = typing.cast(list[dict[str, Any]], parts)
        inner = members[0] if len(members) == 1 else _flattened_any_of(members)
        if len(rest) == len(args) or inner == {"type": "null"}:
            return inner
        return _flattened_any_of([inner, {"type": "null"}])
    if origin is Literal and len(args) >= 2 and all(type(a) in (str, int, bool) for a in args):
        schema: dict[str, Any] = {"enum": list(args)}
        kinds = {type(a) for a in args}
        if len(kinds) == 1:
            schema["type"] = _SCALAR_SCHEMAS[kinds.pop()]
        return schema
    return None


def _structure_key(tp: Any, depth: int = 0) -> Any:
    """A cache key of tp that tells apart what typing's equality does not:
    unions and Literals compare as sets (``int | str == str | int``,
    ``Literal[1, True] == Literal[True, 1]``) while their schemas keep the
    order, and ``Literal[1]`` args equal ``Literal[True]``'s."""
    if type(tp) is type:  # a class: the common case
        return tp
    args = getattr(tp, "__args__", None)
    if not args or depth > 8:
        return tp
    if typing.get_origin(tp) is Literal:
        return (tp, tuple((type(a), a) for a in args))
    return (tp, tuple(_structure_key(a, depth + 1) for a in args))


_FRAGMENTS: dict[Any, str | None] = {}
_MAX_FRAGMENTS = 4096


# The same annotation objects recur (typing caches Optional[int] and the
# like): found by identity first, without building and hashing a structure
# key. Each entry holds its annotation, so its id is not reused meanwhile.
_FRAGMENTS_BY_ID: dict[int, tuple[Any, str | None]] = {}


def _fragment(tp: Any) -> str | None:
    """The JSON text of pydantic's schema of one annotation in the primitive
    grammar (no titles), or None outside it; cached by the annotation's
    structure, as tools share a handful of annotations."""
    hit = _FRAGMENTS_BY_ID.get(id(tp))
    if hit is not None and hit[0] is tp:
        return hit[1]
    text = _fragment_by_structure(tp)
    if len(_FRAGMENTS_BY_ID) >= _MAX_FRAGMENTS:
        _FRAGMENTS_BY_ID.clear()
    _FRAGMENTS_BY_ID[id(tp)] = (tp, text)
    return text


def _fragment_by_structure(tp: Any) -> str | None:
    try:
        key = _structure_key(tp)
        return _FRAGMENTS[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable annotation: not a primitive one
        return None
    schema = _native_schema(tp)
    if schema is None and _is_primitive(tp):
        schema = _type_adapter(tp).json_schema(schema_generator=_generator())
    text = None if schema is None else json.dumps(schema, separators=(",", ":"))
    if len(_FRAGMENTS) >= _MAX_FRAGMENTS:
        _FRAGMENTS.clear()
    _FRAGMENTS[key] = text
    return text


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


def _default_text(value: Any) -> str:
    """The JSON text of a default that passed _plain_json."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is str:
        return _encode_str(value)
    if type(value) is int:
        return int.__repr__(value)
    return json.dumps(value, separators=(",", ":"))


def _primitive_schema(
    names: list[str],
    types: list[Any],
    defaults: list[Any],
    descriptions: Mapping[str, str],
) -> dict[str, Any] | None:
    """The keywords-style schema of parameters in the primitive grammar (a
    default is ``_EMPTY`` for a required one), as pydantic would write it for
    the model; None when any parameter is outside it (then the model is
    built at once). The schema is assembled as JSON text from the cached
    fragments and decoded once, so no tool shares a dict with another."""
    props: list[str] = []
    required: list[str] = []
    for name, tp, default in zip(names, types, defaults, strict=True):
        frag = None if tp is _EMPTY else _fragment(tp)
        if frag is None:
            return None
        extra = ""
        if default is _EMPTY:
            required.append(name)
        elif _plain_json(default):
            extra = ',"default":' + _default_text(default)
        else:
            return None
        if description := descriptions.get(name):
            extra += ',"description":' + _encode_str(description)
        # A parameter name is an identifier: nothing in it needs escaping.
        props.append('"' + name + '":' + (frag[:-1] + extra + "}" if extra else frag))
    text = '{"additionalProperties":false,"properties":{' + ",".join(props) + "}"
    if required:
        text += ',"required":["' + '","'.join(required) + '"]'
    schema: dict[str, Any] = json.loads(text + ',"type":"object"}')
    return schema


def _qualname(func: Callable[..., Any]) -> str:
    src = _hint_source(func)
    return getattr(src, "__qualname__", None) or getattr(src, "__name__", None) or type(func).__name__


def _build_model(
    func: Callable[..., Any],
    fields: tuple[_Field, ...],
    types: tuple[Any, ...],
    defaults: tuple[Any, ...],
    descriptions: Mapping[str, str],
    var_kwargs: bool,
) -> type[BaseModel]:
    """The keywords-style arguments model: one field per parameter (internal
    name, the parameter name as alias, the docstring description)."""
    from pydantic import ConfigDict, create_model
    from pydantic_core import PydanticUndefined

    definitions: dict[str, Any] = {}
    for f, ann, default in zip(fields, types, defaults, strict=True):
        # PydanticUndefined, not ...: pydantic 2.6 takes an Ellipsis beside
        # an Annotated Field as the default, and the parameter turns optional.
        value = PydanticUndefined if default is _EMPTY else default
        definitions[f.internal] = (_described(Any if ann is _EMPTY else ann, f.param, descriptions.get(f.param)), value)
    config = ConfigDict(extra="allow" if var_kwargs else "forbid", regex_engine=_REGEX_ENGINE)
    model: type[BaseModel] = create_model(f"{_qualname(func)}_arguments", __config__=config, **definitions)
    return model


_FUNCTION_TYPE = type(_build_model)


def _quick_function_schema(func: Callable[..., Any]) -> FunctionSchema | None:
    """function_schema of a plain function whose parameters (after an
    optional first context one) are all in the primitive grammar, read from
    its code object, defaults and annotations rather than through
    inspect.signature and typing.get_type_hints; None for anything else (a
    wrapper, a custom signature, *args or **kwargs, positional-only or
    ``args`` parameters, an annotation outside the grammar or that does not
    resolve in the function's globals), which the general path reads."""
    if type(func) is not _FUNCTION_TYPE or sys.version_info < (3, 11):
        # Before 3.11 get_type_hints also made a None default's hint Optional.
        return None
    f: Any = func
    attrs = f.__dict__
    if attrs and ("__signature__" in attrs or "__wrapped__" in attrs):
        return None
    code = f.__code__
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or code.co_posonlyargcount:
        return None
    nargs = code.co_argcount
    names = code.co_varnames[: nargs + code.co_kwonlyargcount]
    annotations = f.__annotations__
    globalns = f.__globals__
    positional_defaults = f.__defaults__ or ()
    kw_defaults = f.__kwdefaults__ or {}
    first_default = nargs - len(positional_defaults)
    ctx_name: str | None = None
    ctx_positional = True
    business: list[str] = []
    types: list[Any] = []
    defaults: list[Any] = []
    for i, name in enumerate(names):
        ann = annotations.get(name, _EMPTY)
        if type(ann) is str:
            try:
                ann = _evaluate(ann, globalns)
            except Exception:
                return None
        if ann is None:
            ann = _NONE_TYPE
        if i == 0 and ((name == "ctx" and ann is _EMPTY) or _is_context_type(ann)):
            ctx_name, ctx_positional = name, nargs > 0
            continue
        if name == "args" or ann is _EMPTY:
            return None
        business.append(name)
        types.append(ann)
        if i < nargs:
            defaults.append(positional_defaults[i - first_default] if i >= first_default else _EMPTY)
        else:
            defaults.append(kw_defaults.get(name, _EMPTY))
    doc = parse_docstring(f.__doc__)
    schema = _primitive_schema(business, types, defaults, doc.params)
    if schema is None:
        return None
    pairs = list(zip(business, defaults, strict=True))
    fields = tuple(_Field(f"p{i}", name, False, always=d is _EMPTY) for i, (name, d) in enumerate(pairs))
    plain = all(tp in _PLAIN_TYPES for tp in types)
    return FunctionSchema(
        description=doc.description,
        json_schema=schema,
        # The code flag, as inspect reads it, unless attributes (3.12's
        # markcoroutinefunction) may say otherwise.
        is_async=bool(code.co_flags & inspect.CO_COROUTINE) or (bool(attrs) and inspect.iscoroutinefunction(func)),
        takes_ctx=ctx_name is not None,
        ctx_param=ctx_name,
        ctx_positional=ctx_positional,
        style="keywords",
        model_factory=partial(_build_model, func, fields, tuple(types), tuple(defaults), doc.params, False),
        fields=fields,
        plain_types=dict(zip(business, types, strict=True)) if plain else None,
        plain_required=frozenset(n for n, d in pairs if d is _EMPTY) if plain else frozenset(),
    )


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
    if explicit is None and (quick := _quick_function_schema(func)) is not None:
        return quick
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
        has_default = p.default is not _EMPTY and not _is_field_info(p.default)
        fields.append(_Field(f"p{i}", p.name, positional, always=positional or not has_default))

    model_factory = partial(
        _build_model,
        func,
        tuple(fields),
        tuple(annotation(p) for p in business),
        tuple(p.default for p in business),
        doc.params,
        var_kwargs,
    )

    # The primitive fast path defers the model to the first call needing it.
    fast = (
        None
        if explicit is not None or var_kwargs
        else _primitive_schema(
            [p.name for p in business], [annotation(p) for p in business], [p.default for p in business], doc.params
        )
    )
    arg_model: type[BaseModel] | None = None
    if fast is not None:
        schema = fast
    else:
        try:
            arg_model = model_factory()
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
            and not _is_field_info(p.default)
            for p in business
        )
    )
    return FunctionSchema(
        json_schema=schema,
        style="keywords",
        model=arg_model,
        model_factory=model_factory if arg_model is None else None,
        fields=tuple(fields),
        var_kwargs=var_kwargs,
        plain_types={p.name: annotation(p) for p in business} if plain else None,
        plain_required=frozenset(p.name for p in business if p.default is _EMPTY) if plain else frozenset(),
        **common,
    )


# Annotations whose JSON values need no conversion (float is not among them:
# JSON integers must still become floats).
_PLAIN_TYPES = (str, int, bool)
