"""Tools: ``Tool``, the ``@tool`` decorator, ``BaseTool`` and ``ensure_tool``.

A ``Tool`` wraps a Python callable. Its signature and docstring are read once,
when the Tool is built (``_schema.function_schema``), into the definition Go
sends to the model. The Tool stays callable like the function it wraps.

The run driver asks ``tool._runner(ctx, args)`` how to run a call: a
coroutine to await on the loop (async functions; ``_run_async``, or
``_run_plain`` for plain keyword arguments and no context) or a function to
call from a worker thread (sync functions; ``_run_sync``). Each returns an
outcome dict and never raises, except what ``_outcome.escapes``: an outside
cancellation of its task, and ``KeyboardInterrupt``/``SystemExit``.

The options of a tool are declared once, in ``ToolOptions``.

Outcomes are ``result.result_to_outcome`` (success) or
``errors.exception_to_outcome`` (failure).
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import inspect
import json
import re
import types
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import Any, Generic, Literal, TypedDict, get_args, overload

from typing_extensions import ParamSpec, TypeVar, Unpack

from ._outcome import Runner, encode_outcome, outcome_of_failure, run_awaitable
from ._prepare import AvailableFunc, PrepareFunc
from ._schema import FunctionSchema, function_schema, validate_parameters_schema
from .context import ToolContext
from .dependencies import METADATA_KEY, ToolDependencies
from .errors import InvalidArguments, UserError
from .hooks import AfterCallHook, ArgumentValidator, BeforeCallHook, Hook

__all__ = (
    "TOOL_KIND_KEY",
    "BaseTool",
    "DefinitionOptions",
    "Tool",
    "ToolKind",
    "ToolOptions",
    "ensure_tool",
    "tool",
    "tool_metadata_hidden_by_tags",
    "tool_metadata_kind",
    "tool_metadata_tags",
)

# Defaults let a bare ``Tool`` annotation mean ``Tool[..., Any]``.
P = ParamSpec("P", default=...)
R = TypeVar("R", default=Any)

ArgsJSON = bytes | bytearray | memoryview | str

UserInputPreprocessor = Callable[[ToolContext, Any], Any]
"""``(ctx, user_input) -> {"override_arguments"?, "metadata"?}`` (or an awaitable of it)."""
"""The JSON-encoded arguments object of one call, as Go sends it."""


Effect = Literal["pure", "read_only", "idempotent_write", "non_idempotent_write", "destructive", "unknown"]
"""What a tool's calls do to the world (see ``Tool``'s ``effect``)."""

DestructivePolicy = Literal["approve", "allow", "deny"]
"""What an agent does with a call of a ``destructive`` tool (``create_agent``'s
``destructive_policy``): ask a person's approval first (``"approve"``, the
default), run it (``"allow"``) or refuse it (``"deny"``)."""

DestructiveDecider = Callable[[ToolContext, Any], DestructivePolicy]
"""``(ctx, arguments) -> "approve" | "allow" | "deny"``: decides one
destructive call (``ctx.tool_name`` names the tool); given as
``create_agent(destructive_policy=...)``."""

EFFECTS: tuple[str, ...] = get_args(Effect)
"""The effect classes, in the runtime's order (a test checks them against
the library's ``effect_classes``)."""


def check_effect(effect: object, where: str) -> None:
    """Refuse an effect class the runtime does not know, where the tool is
    declared rather than when an agent is built.

    Raises:
        TypeError: ``effect`` is not a str (or None).
        ValueError: ``effect`` is not one of :data:`EFFECTS`.
    """
    if effect is None:
        return
    if not isinstance(effect, str):
        raise TypeError(f"{where}: effect must be a str, got {type(effect).__name__}")
    if effect not in EFFECTS:
        known = ", ".join(EFFECTS)
        raise ValueError(f"{where}: unknown effect {effect!r} (want one of {known}, or None for undeclared)")


Access = Literal["read", "write"]
"""How a tool's calls use their resource key (see ``Tool``'s ``access``)."""

ResourceKey = str | Callable[[dict[str, Any]], Any]
"""An argument name or JSON Pointer (read in Go, no round trip), or a function
of the arguments (asked once per tool per batch); see ``Tool``'s ``resource_key``."""


class ToolKind(str, enum.Enum):
    """What sort of tool a definition describes, for hosts and UIs; stored
    in the definition metadata under ``starweaver_tool_kind`` (read it back
    with :func:`tool_metadata_kind`). The values are the runtime's (a test
    checks them against the library's ``tool_kinds``)."""

    FUNCTION = "function"
    OUTPUT = "output"
    EXTERNAL = "external"
    UNAPPROVED = "unapproved"
    DEFERRED = "deferred"


TOOL_KIND_KEY = "starweaver_tool_kind"
"""The reserved definition metadata key holding a tool's kind."""


def _tool_kind(value: object, where: str) -> ToolKind | None:
    """value as a ToolKind (a ToolKind or its string value), or None.

    Raises:
        TypeError: value is neither a str nor None.
        ValueError: value is no tool kind.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{where}: kind must be a ToolKind, got {type(value).__name__}")
    try:
        return ToolKind(value)
    except ValueError:
        known = ", ".join(k.value for k in ToolKind)
        raise ValueError(f"{where}: unknown tool kind {value!r} (want one of {known})") from None


def tool_metadata_kind(metadata: Mapping[str, Any] | None) -> ToolKind | None:
    """The tool kind a definition's metadata holds (``definition()["metadata"]``),
    or None when it holds none or an unknown value (as the runtime reads it)."""
    value = (metadata or {}).get(TOOL_KIND_KEY)
    if not isinstance(value, str):
        return None
    try:
        return ToolKind(value)
    except ValueError:
        return None


def _metadata_tags(metadata: Mapping[str, Any] | None, key: str) -> list[str]:
    value = (metadata or {}).get(key)
    if not isinstance(value, (list, tuple)):
        return []
    out: list[str] = []
    for t in value:
        if isinstance(t, str) and (t := t.strip()) and t not in out:
            out.append(t)
    return out


def tool_metadata_tags(metadata: Mapping[str, Any] | None) -> list[str]:
    """The capability tags of a definition's metadata (``tags``), normalised
    as the runtime reads them: trimmed, no blanks or non-strings, no repeats."""
    return _metadata_tags(metadata, "tags")


def tool_metadata_hidden_by_tags(metadata: Mapping[str, Any] | None) -> list[str]:
    """The tags that hide a definition's tool when active (``hidden_by_tags``),
    normalised as :func:`tool_metadata_tags` does."""
    return _metadata_tags(metadata, "hidden_by_tags")


class DefinitionOptions(TypedDict, total=False):
    """The options that shape a tool's definition and execution budget: the
    keywords of ``BaseTool`` and the first part of ``ToolOptions``."""

    name: str | None
    description: str | None
    parameters_schema: Mapping[str, Any] | None
    return_schema: Mapping[str, Any] | None
    metadata: Mapping[str, Any] | None
    strict: bool | None
    sequential: bool
    timeout_ms: int | None
    max_retries: int | None
    effect: Effect | None
    max_concurrency: int | None
    resource_key: ResourceKey | None
    access: Access | None
    kind: ToolKind | str | None


class ToolOptions(DefinitionOptions, total=False):
    """The options of a tool, declared once: the keywords of ``Tool``,
    ``@tool`` and ``Tool.replace`` (see ``Tool`` for what each means).
    Omitted options take their defaults (None; ``sequential`` False;
    ``hooks`` none)."""

    hooks: Iterable[Hook]
    dependencies: ToolDependencies | None
    tags: Iterable[str] | None
    hidden_by_tags: Iterable[str] | None
    available: AvailableFunc | None
    prepare: PrepareFunc | None
    attempt_may_defer: bool
    preserve_projected_refs_in_field: str | None


_OPTIONS = frozenset(ToolOptions.__annotations__)
# The options Tool._configure validates and sets (all but the schema and hooks).
_CONFIGURED = _OPTIONS - {"parameters_schema", "hooks"}


def _json_object(value: object, label: str) -> dict[str, Any]:
    """A plain-JSON copy of a str-keyed mapping, or TypeError/ValueError naming label."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{label} must be a mapping, got {type(value).__name__}")
    if any(not isinstance(k, str) for k in value):
        raise TypeError(f"{label} keys must be strings")
    try:
        out: dict[str, Any] = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as e:
        raise ValueError(f"{label} must contain only JSON values: {e}") from None
    return out


def _optional_int(value: object, label: str) -> int | None:
    """value when it is an int or None (its range is checked by the runtime,
    which reports one invalid_spec message for every language)."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{label} must be an int or None, got {type(value).__name__}")
    return value


def _callable_name(func: Callable[..., Any]) -> str:
    while isinstance(func, partial):
        func = func.func
    name = getattr(func, "__name__", None)
    return name if isinstance(name, str) else type(func).__name__


def _decode_arguments(args_json: ArgsJSON | Mapping[str, Any]) -> dict[str, Any]:
    """The decoded arguments object; empty input and ``null`` mean ``{}``.
    An already-decoded mapping (the bridge decodes a whole batch at once) is
    used as is."""
    if isinstance(args_json, dict):
        return args_json
    if isinstance(args_json, Mapping):
        return dict(args_json)
    raw = bytes(args_json) if isinstance(args_json, (bytearray, memoryview)) else args_json
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError as e:
        raise InvalidArguments(f"tool arguments are not valid JSON: {getattr(e, 'msg', e)}") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidArguments(f"tool arguments must be a JSON object, got {type(value).__name__}")
    return value


class _CallerLocals(Mapping[str, Any]):
    """The local namespace of the code that built a tool, copied only when an
    annotation needs it (most never do: copying a module's namespace for
    every tool cost more than the rest of building it)."""

    def __init__(self, frame: types.FrameType | None) -> None:
        self._frame = frame
        self._locals: dict[str, Any] | None = None

    def _get(self) -> dict[str, Any]:
        if self._locals is None:
            self._locals = dict(self._frame.f_locals) if self._frame is not None else {}
            self._frame = None
        return self._locals

    def __getitem__(self, key: str) -> Any:
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


def _caller_namespace() -> Mapping[str, Any]:
    """The local namespace of the nearest caller outside this package (where
    ``@tool`` or ``Tool(...)`` was written), for resolving string annotations."""
    package = __package__ or "starweaver"
    frame = inspect.currentframe()  # this function's, left at once: no cycle through its locals
    frame = frame.f_back if frame is not None else None
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        if module != package and not module.startswith(package + "."):
            return _CallerLocals(frame)
        frame = frame.f_back
    return {}


class Tool(Generic[P, R]):
    """A Python callable the model can call.

    Arguments:
        func: The function (sync or async). A first parameter annotated
            ``ToolContext`` (or an unannotated ``ctx``) receives the call context.
        name: The tool name; defaults to the function's name.
        description: Defaults to the docstring without its parameter section.
        parameters_schema: An explicit object JSON Schema instead of inference.
        return_schema: A JSON Schema of the result, sent with the definition.
        metadata: Model-facing definition metadata (also used by policies).
        strict: Ask providers for a strict schema; requires a description.
        sequential: Run every batch containing this tool in model order.
        timeout_ms: Per-call timeout, enforced by the runtime.
        max_retries: Retry budget of the tool (runtime default when None).
        effect: What the tool's calls do to the world: ``"pure"``,
            ``"read_only"``, ``"idempotent_write"`` (the service
            deduplicates by ``ctx.idempotency_key``),
            ``"non_idempotent_write"``, ``"destructive"`` or ``"unknown"``.
            Only pure, read-only and idempotent-write calls are re-run after
            an unexpected failure; the others run once and such a failure is
            reported as ambiguous (it may have taken effect). Calls of one
            pure or read-only tool run in parallel. None (undeclared) takes
            ``create_agent(default_effect=)``, else the old rule: unexpected
            failures are re-run within ``max_retries``.
        max_concurrency: How many calls of this tool may run at once, in
            every batch and across the concurrent runs of the agent; the
            other tools' calls are not held back. None: no cap.
        resource_key: What a call touches, so that calls are ordered by
            resource instead of by name: an argument name (``"path"``) or a
            JSON Pointer (``"/file/path"``), read by the runtime with no
            round trip, or a function of the arguments dict
            (``lambda args: args["path"]``), which the runtime asks once per
            tool per batch, on the event loop (it must not block). Calls on
            different keys run in parallel, even when the name repeats;
            reads of one key run together; a write waits for the earlier
            calls on its key and the later ones wait for it, in model order.
            A key that cannot be computed orders its call as a write on every
            key. Keys order the calls of one batch.
        access: ``"read"`` or ``"write"`` (the default): how the tool's calls
            use their key.
        kind: What sort of tool this is for hosts and UIs (``ToolKind`` or
            its value), stored as the ``starweaver_tool_kind`` metadata.
        hooks: Execution hooks of this tool only (``starweaver.Hook``).
        dependencies: The tool's dependency profile
            (``ToolDependencies.filtered("db")``), stored as the reserved
            ``starweaver_tool_dependencies`` metadata.
        tags: Capability tags of the tool (definition metadata ``tags``).
        hidden_by_tags: Tags that hide the tool from runs where one of them
            is active (``create_agent(active_tags=)``, ``run(active_tags=)``).
        available: ``available(ctx) -> bool`` (sync or async), asked before
            each model request; False hides the tool for that step.
        prepare: ``prepare(ctx, definition) -> definition | None`` (sync or
            async), asked before each model request: the definition to send
            (the name stays), or None to hide the tool for that step.
        attempt_may_defer: The tool may return
            ``starweaver.intents.Pending`` (its result arrives later): only
            such a tool gets ``ctx.completion_key``, and a ``Pending`` from
            any other fails the call. Declare it only when the tool can
            actually return ``Pending``.
        preserve_projected_refs_in_field: The one argument whose projected
            values (``{"__projection_ref__": ...}``, see
            ``create_agent(projection_resolver=)``) keep their wrappers; the
            others are materialised before validation.

    Raises:
        ValueError: the signature cannot be used (every problem listed), the
            name is empty, strict without a description, or an invalid option.
        TypeError: an option or schema has the wrong type.
    """

    def __init__(self, func: Callable[P, R], /, **options: Unpack[ToolOptions]) -> None:
        if not callable(func):
            raise TypeError(f"tool function must be callable, got {type(func).__name__}")
        if unknown := set(options) - _OPTIONS:
            raise TypeError(f"unknown Tool option(s): {', '.join(sorted(unknown))}")
        parameters_schema = options.get("parameters_schema")
        # An empty explicit schema means "infer", as in the public SDK.
        explicit = validate_parameters_schema(parameters_schema) if parameters_schema else None
        self._func: Callable[P, R] = func
        self._schema: FunctionSchema = function_schema(func, parameters_schema=explicit, localns=_caller_namespace())
        self._explicit_schema = explicit
        name = options.get("name")
        self._configure(
            **{k: v for k, v in options.items() if k in _CONFIGURED and k != "name"},  # type: ignore[arg-type]
            name=_callable_name(func) if name is None else name,
        )
        hooks = options.get("hooks", ())
        self._hooks: tuple[Hook, ...] = _hooks(hooks)
        self._validators: tuple[ArgumentValidator, ...] = ()
        self.__wrapped__ = func
        self.__doc__ = getattr(func, "__doc__", None)

    def _configure(
        self,
        *,
        name: str,
        description: str | None = None,
        return_schema: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        strict: bool | None = None,
        sequential: bool = False,
        timeout_ms: int | None = None,
        max_retries: int | None = None,
        effect: Effect | None = None,
        max_concurrency: int | None = None,
        resource_key: ResourceKey | None = None,
        access: Access | None = None,
        kind: ToolKind | str | None = None,
        dependencies: ToolDependencies | None = None,
        tags: Iterable[str] | None = None,
        hidden_by_tags: Iterable[str] | None = None,
        available: AvailableFunc | None = None,
        prepare: PrepareFunc | None = None,
        attempt_may_defer: bool = False,
        preserve_projected_refs_in_field: str | None = None,
    ) -> None:
        """Validates and sets every option except the function and its schema."""
        if not isinstance(name, str):
            raise TypeError(f"tool name must be a str, got {type(name).__name__}")
        if not name.strip():
            raise ValueError("tool name must not be empty")
        if description is not None and not isinstance(description, str):
            raise TypeError(f"tool description must be a str, got {type(description).__name__}")
        if strict is not None and not isinstance(strict, bool):
            raise TypeError(f"strict must be a bool or None, got {type(strict).__name__}")
        if not isinstance(sequential, bool):
            raise TypeError(f"sequential must be a bool, got {type(sequential).__name__}")
        description = description if description is not None else self._schema.description
        if strict and not (description and description.strip()):
            raise ValueError(f"strict tool '{name}' requires a description")
        self._name = name
        self._description = description or None
        self._return_schema = None if return_schema is None else _json_object(return_schema, "return_schema")
        self._metadata = {} if metadata is None else _json_object(metadata, "metadata")
        if dependencies is not None:
            if not isinstance(dependencies, ToolDependencies):
                raise TypeError(f"dependencies must be a ToolDependencies, got {type(dependencies).__name__}")
            self._metadata[METADATA_KEY] = dependencies.to_metadata_value()
        self._dependencies = ToolDependencies.from_metadata(self._metadata)
        self._strict = strict
        self._sequential = sequential
        self._timeout_ms = _optional_int(timeout_ms, "timeout_ms")
        self._max_retries = _optional_int(max_retries, "max_retries")
        check_effect(effect, f"tool {name!r}")
        self._effect = effect
        # The runtime checks the range (max_concurrency >= 1) and the access.
        self._max_concurrency = _optional_int(max_concurrency, "max_concurrency")
        if resource_key is not None and not (isinstance(resource_key, str) or callable(resource_key)):
            raise TypeError(f"resource_key must be a str or callable, got {type(resource_key).__name__}")
        if isinstance(resource_key, str) and not resource_key:
            raise ValueError("resource_key must not be empty")
        if access is not None and not isinstance(access, str):
            raise TypeError(f"access must be a str, got {type(access).__name__}")
        if access is not None and resource_key is None:
            raise ValueError("access needs a resource_key")
        self._resource_key = resource_key
        self._access = access
        self._tags = _tag_list(tags, "tags")
        self._hidden_by_tags = _tag_list(hidden_by_tags, "hidden_by_tags")
        self._kind = _tool_kind(kind, f"tool {name!r}")
        for option, cb in (("available", available), ("prepare", prepare)):
            if cb is not None and not callable(cb):
                raise TypeError(f"{option} must be callable, got {type(cb).__name__}")
        self._available = available
        self._prepare = prepare
        if not isinstance(attempt_may_defer, bool):
            raise TypeError(f"attempt_may_defer must be a bool, got {type(attempt_may_defer).__name__}")
        self._attempt_may_defer = attempt_may_defer
        if preserve_projected_refs_in_field is not None and not isinstance(preserve_projected_refs_in_field, str):
            raise TypeError(
                f"preserve_projected_refs_in_field must be a str, got {type(preserve_projected_refs_in_field).__name__}"
            )
        self._preserve_projected = preserve_projected_refs_in_field or None
        self._user_input_preprocessor: UserInputPreprocessor | None = None
        # Async functions of plain keyword arguments and no context can be
        # called straight from the bridge (see _bridge.RunDriver._await_plain).
        self._plain_func: Callable[..., Awaitable[Any]] | None = (
            self._func  # type: ignore[assignment]
            if self._schema.is_async and not self._schema.takes_ctx and self._schema.plain_types is not None
            else None
        )

    # -------------------------------------------------------------- attributes

    @property
    def func(self) -> Callable[P, R]:
        return self._func

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str | None:
        return self._description

    @property
    def parameters_schema(self) -> dict[str, Any]:
        """The parameters JSON Schema sent to the model (explicit or inferred)."""
        return self._schema.json_schema

    @property
    def return_schema(self) -> dict[str, Any] | None:
        return self._return_schema

    @property
    def metadata(self) -> dict[str, Any]:
        return self._metadata

    @property
    def strict(self) -> bool | None:
        return self._strict

    @property
    def sequential(self) -> bool:
        return self._sequential

    @property
    def timeout_ms(self) -> int | None:
        return self._timeout_ms

    @property
    def max_retries(self) -> int | None:
        return self._max_retries

    @property
    def effect(self) -> Effect | None:
        return self._effect

    @property
    def max_concurrency(self) -> int | None:
        return self._max_concurrency

    @property
    def resource_key(self) -> ResourceKey | None:
        return self._resource_key

    @property
    def access(self) -> Access | None:
        return self._access

    @property
    def attempt_may_defer(self) -> bool:
        """Whether the tool may return ``starweaver.intents.Pending``."""
        return self._attempt_may_defer

    @property
    def preserve_projected_refs_in_field(self) -> str | None:
        """The one argument whose projected values keep their wrappers."""
        return self._preserve_projected

    def _scheduling_spec(self) -> dict[str, Any]:
        """The spec keys of max_concurrency, resource_key, attempt_may_defer
        and preserve_projected_refs_in_field (none when unset)."""
        spec: dict[str, Any] = {}
        if self._attempt_may_defer:
            spec["attempt_may_defer"] = True
        if self._preserve_projected is not None:
            spec["preserve_projected_refs_in_field"] = self._preserve_projected
        if self._max_concurrency is not None:
            spec["max_concurrency"] = self._max_concurrency
        if self._resource_key is not None:
            resource: dict[str, Any] = (
                {"key": self._resource_key} if isinstance(self._resource_key, str) else {"host": True}
            )
            if self._access is not None:
                resource["access"] = self._access
            spec["resource"] = resource
        return spec

    def _resource_key_of(self, args: Any) -> str | None:
        """The key of one call as Go reads keys: a str as is, another value
        as its compact JSON; None when the key function raises."""
        func = self._resource_key
        if not callable(func):
            return None
        try:
            key = func(args)
            return key if isinstance(key, str) else json.dumps(key, separators=(",", ":"))
        except Exception:
            return None

    @property
    def tags(self) -> tuple[str, ...]:
        return self._tags

    @property
    def kind(self) -> ToolKind | None:
        """The tool's kind (``kind=``, else the one its metadata holds)."""
        return self._kind if self._kind is not None else tool_metadata_kind(self._metadata)

    @property
    def hidden_by_tags(self) -> tuple[str, ...]:
        return self._hidden_by_tags

    @property
    def available(self) -> AvailableFunc | None:
        return self._available

    @property
    def prepare(self) -> PrepareFunc | None:
        return self._prepare

    @property
    def is_async(self) -> bool:
        """Whether the function is async (run on the loop) rather than sync (run in a thread)."""
        return self._schema.is_async

    @property
    def takes_ctx(self) -> bool:
        """Whether the function receives a ToolContext."""
        return self._schema.takes_ctx

    def definition(self) -> dict[str, Any]:
        """The tool definition sent to the model: name, description?,
        parameters, return_schema?, strict?, sequential?, metadata? (optional
        keys are omitted when unset, False or empty). A fresh copy each call."""
        return self._definition(copy=True)

    def _definition(self, *, copy: bool) -> dict[str, Any]:
        """``definition()``; without copy it shares the tool's own schema
        and metadata dicts, for a spec that is encoded at once and dropped
        (an agent of many tools copied each schema twice for nothing)."""

        def fresh(value: Any) -> Any:
            return json.loads(json.dumps(value)) if copy else value

        d: dict[str, Any] = {"name": self._name}
        if self._description:
            d["description"] = self._description
        d["parameters"] = fresh(self._schema.json_schema)
        if self._return_schema is not None:
            d["return_schema"] = fresh(self._return_schema)
        if self._strict is not None:
            d["strict"] = self._strict
        if self._sequential:
            d["sequential"] = True
        if self._tags or self._hidden_by_tags or self._kind is not None:
            metadata = json.loads(json.dumps(self._metadata)) if self._metadata else {}
            if self._kind is not None:
                metadata[TOOL_KIND_KEY] = self._kind.value
            if self._tags:
                metadata["tags"] = list(self._tags)
            if self._hidden_by_tags:
                metadata["hidden_by_tags"] = list(self._hidden_by_tags)
        else:
            metadata = fresh(self._metadata) if self._metadata else {}
        if metadata:
            d["metadata"] = metadata
        return d

    def user_input_preprocessor(self, func: UserInputPreprocessor) -> UserInputPreprocessor:
        """Register ``func(ctx, user_input)`` (sync or async) to turn input a
        person gives with an approval into ``{"override_arguments": {...},
        "metadata": {...}}`` (both optional) before the approved call runs.
        Returns ``func``, so it works as a decorator::

            @deploy.user_input_preprocessor
            def edited(ctx, user_input):
                return {"override_arguments": user_input, "metadata": {"edited": True}}

        Its exceptions map to tool returns as a tool's would.
        """
        if not callable(func):
            raise TypeError("a user-input preprocessor must be callable")
        self._user_input_preprocessor = func
        return func

    def before_call(self, func: BeforeCallHook) -> BeforeCallHook:
        """Register ``func(ctx, arguments)`` (sync or async) as a before-call
        hook of this tool; returns ``func``, so it works as a decorator. See
        ``starweaver.Hook``."""
        self._hooks = (*self._hooks, Hook(before_call=func))
        return func

    def after_call(self, func: AfterCallHook) -> AfterCallHook:
        """Register ``func(ctx, outcome)`` (sync or async) as an after-call
        hook of this tool; returns ``func``. See ``starweaver.Hook``."""
        self._hooks = (*self._hooks, Hook(after_call=func))
        return func

    def argument_validator(self, func: ArgumentValidator) -> ArgumentValidator:
        """Register ``func(ctx, arguments)`` (sync or async) to check or
        normalise the arguments before they are validated against the
        schema: change the dict in place or return a new one. Raising
        ``InvalidArguments`` (or a ``ValueError``) asks the model to correct
        the call; validators run in order, after every before-call hook.
        Returns ``func``."""
        if not callable(func):
            raise TypeError("an argument validator must be callable")
        self._validators = (*self._validators, func)
        return func

    @property
    def hooks(self) -> tuple[Hook, ...]:
        return self._hooks

    @property
    def dependencies(self) -> ToolDependencies:
        """The tool's dependency requirements (Legacy unless declared)."""
        return self._dependencies

    @property
    def has_user_input_preprocessor(self) -> bool:
        return self._user_input_preprocessor is not None

    def _preprocess_outcome(self, value: Any) -> dict[str, Any]:
        if value is None:
            value = {}
        if not isinstance(value, Mapping) or set(value) - {"override_arguments", "metadata"}:
            raise UserError("a user-input preprocessor must return a mapping with override_arguments and/or metadata")
        out: dict[str, Any] = {"ok": True}
        if value.get("override_arguments") is not None:
            if not isinstance(value["override_arguments"], Mapping):
                raise UserError("override_arguments must be a mapping")
            out["override_arguments"] = dict(value["override_arguments"])
        if value.get("metadata"):
            out["metadata"] = dict(value["metadata"])
        try:
            json.dumps(out, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise UserError(f"the user-input preprocessor returned a value that is not JSON: {exc}") from None
        return out

    async def _run_preprocessor(self, ctx: ToolContext, user_input: Any) -> dict[str, Any]:
        """The preprocessor's outcome, on the loop; never raises (as ``_run_async``)."""
        try:
            value = self._call_preprocessor(ctx, user_input)
            if inspect.isawaitable(value):
                value = await value
            return self._preprocess_outcome(value)
        except BaseException as exc:  # noqa: BLE001 - every outcome of user code is an outcome
            return self._failure_on_loop(exc)

    def _run_preprocessor_sync(self, ctx: ToolContext, user_input: Any) -> dict[str, Any]:
        """The preprocessor's outcome, from a worker thread; never raises
        except ``KeyboardInterrupt``/``SystemExit``."""
        try:
            value = self._call_preprocessor(ctx, user_input)
            if inspect.isawaitable(value):
                value = run_awaitable(value)
            return self._preprocess_outcome(value)
        except BaseException as exc:  # noqa: BLE001
            return outcome_of_failure(exc, on_loop=False, timeout_ms=self._timeout_ms)

    def _call_preprocessor(self, ctx: ToolContext, user_input: Any) -> Any:
        if self._user_input_preprocessor is None:
            raise UserError(f"tool {self._name!r} has no user-input preprocessor")
        return self._user_input_preprocessor(ctx, user_input)

    def replace(self, **changes: Unpack[ToolOptions]) -> Tool[P, R]:
        """A copy with some options (``ToolOptions``) changed, validated like
        the constructor; ``hooks`` replaces the tool's own hooks and
        ``dependencies`` its profile. The function is not read again (its
        argument binding is reused) unless parameters_schema is reset to
        None/{} to infer it anew."""
        if unknown := set(changes) - _OPTIONS:
            raise TypeError(f"unknown Tool option(s): {', '.join(sorted(unknown))}")
        options: dict[str, Any] = {
            "name": self._name,
            "description": self._description,
            "return_schema": self._return_schema,
            "metadata": self._metadata,
            "strict": self._strict,
            "sequential": self._sequential,
            "timeout_ms": self._timeout_ms,
            "max_retries": self._max_retries,
            "effect": self._effect,
            "max_concurrency": self._max_concurrency,
            "resource_key": self._resource_key,
            "access": self._access,
            "kind": self._kind,
            "tags": self._tags,
            "hidden_by_tags": self._hidden_by_tags,
            "available": self._available,
            "prepare": self._prepare,
            "attempt_may_defer": self._attempt_may_defer,
            "preserve_projected_refs_in_field": self._preserve_projected,
        }
        new: dict[str, Any] = dict(changes)
        if "dependencies" in new:
            deps = new.pop("dependencies")
            metadata = {k: v for k, v in (new.get("metadata", self._metadata) or {}).items() if k != METADATA_KEY}
            if deps is not None:
                if not isinstance(deps, ToolDependencies):
                    raise TypeError(f"dependencies must be a ToolDependencies, got {type(deps).__name__}")
                metadata[METADATA_KEY] = deps.to_metadata_value()
            new["metadata"] = metadata
        hooks = _hooks(new.pop("hooks")) if "hooks" in new else self._hooks
        explicit = self._explicit_schema
        if "parameters_schema" in new:
            new_schema = new.pop("parameters_schema")
            if not new_schema:  # back to inference: read the function again
                fresh = Tool(self._func, **{**options, **new})
                fresh._hooks, fresh._validators = hooks, self._validators
                return fresh
            explicit = validate_parameters_schema(new_schema)
        options.update(new)
        clone: Tool[P, R] = copy.copy(self)
        if explicit is not None and explicit is not self._explicit_schema:
            # The binding does not depend on the schema text, so only the schema changes.
            clone._schema = dataclasses.replace(self._schema, json_schema=explicit)
            clone._explicit_schema = explicit
        clone._configure(**options)
        clone._hooks = hooks
        return clone

    # -------------------------------------------------------------- calling

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Calls the wrapped function directly, bypassing the runtime."""
        return self._func(*args, **kwargs)

    def _bind(
        self, ctx: ToolContext | None, args_json: ArgsJSON | Mapping[str, Any]
    ) -> tuple[list[Any], dict[str, Any]]:
        return self._schema.bind(ctx, _decode_arguments(args_json))

    async def _run_async(self, ctx: ToolContext | None, args_json: ArgsJSON | Mapping[str, Any]) -> dict[str, Any]:
        """Runs one call on the current event loop and returns its outcome.

        Never raises, except that an ``asyncio.CancelledError`` is re-raised
        when this task is being cancelled from outside (``cancelling() > 0``);
        a CancelledError the tool raises by itself is a ``cancelled`` outcome;
        ``KeyboardInterrupt`` and ``SystemExit`` pass through (the bridge ends
        the run and re-raises them in its caller).
        """
        try:
            args, kwargs = self._bind(ctx, args_json)
            value: Any = self._func(*args, **kwargs)
            if inspect.isawaitable(value):
                value = await value
        except BaseException as exc:  # noqa: BLE001 - every outcome of user code is an outcome
            return self._failure_on_loop(exc)
        return encode_outcome(value)

    def _run_sync(self, ctx: ToolContext | None, args_json: ArgsJSON | Mapping[str, Any]) -> dict[str, Any]:
        """Runs one call in the calling (worker) thread and returns its outcome.
        Never raises except ``KeyboardInterrupt``/``SystemExit``. An awaitable
        result is run to completion on a new event loop in this thread."""
        try:
            args, kwargs = self._bind(ctx, args_json)
            value: Any = self._func(*args, **kwargs)
            if inspect.isawaitable(value):
                value = run_awaitable(value)
        except BaseException as exc:  # noqa: BLE001
            return outcome_of_failure(exc, on_loop=False, timeout_ms=self._timeout_ms)
        return encode_outcome(value)

    # The protocol the run driver (``_bridge``) uses, all of it: how to run
    # a call (``_runner``) or a preprocessing (``_preprocessor_runner``),
    # and whether it takes a context (``takes_ctx``); what a call sees of the
    # run's dependencies comes with the call (``dependencies.narrow``). It
    # never reads the function or its schema itself.

    def _runner(self, ctx: ToolContext | None, args: Mapping[str, Any]) -> Runner:
        """How to run one call with its decoded arguments (see ``Runner``).
        Async functions of plain keyword arguments (already validated by Go)
        and no context are called directly, without the binding layer."""
        if (coro := self._plain_coroutine(args)) is not None:
            return self._run_plain(coro)
        if self._schema.is_async:
            return self._run_async(ctx, args)
        return partial(self._run_sync, ctx, args)

    def _preprocessor_runner(self, ctx: ToolContext, user_input: Any) -> Runner:
        """How to run the user-input preprocessor on user_input (see ``Runner``)."""
        if inspect.iscoroutinefunction(self._user_input_preprocessor):
            return self._run_preprocessor(ctx, user_input)
        return partial(self._run_preprocessor_sync, ctx, user_input)

    def _plain_coroutine(self, args: Mapping[str, Any]) -> Awaitable[Any] | None:
        """The bare coroutine of a plain call (see ``_runner``), for a driver
        that awaits it in its own frame, or None when the call needs the
        binding layer (one whose arguments do not bind reports why there).
        Its value becomes an outcome through ``encode_outcome``, an exception
        through ``_failure_on_loop``."""
        if self._plain_func is None or not self._schema.plain_call(args):
            return None
        try:
            return self._plain_func(**args)
        except TypeError:
            return None

    def _failure_on_loop(self, exc: BaseException) -> dict[str, Any]:
        """The outcome of exc raised by a call on the loop, or exc again when
        it escapes (see ``_outcome.escapes``)."""
        return outcome_of_failure(exc, on_loop=True, timeout_ms=self._timeout_ms)

    async def _run_plain(self, coro: Awaitable[Any]) -> dict[str, Any]:
        """``_run_async`` for the common call (``_plain_coroutine``): no
        binding, no context."""
        try:
            value = await coro
        except BaseException as exc:  # noqa: BLE001 - every outcome of user code is an outcome
            return self._failure_on_loop(exc)
        return encode_outcome(value)

    def __repr__(self) -> str:
        kind = "async" if self.is_async else "sync"
        return f"Tool(name={self._name!r}, {kind})"


@overload
def tool(func: Callable[P, R], /, **options: Unpack[ToolOptions]) -> Tool[P, R]: ...


@overload
def tool(func: None = None, /, **options: Unpack[ToolOptions]) -> Callable[[Callable[P, R]], Tool[P, R]]: ...


def tool(func: Callable[..., Any] | None = None, /, **options: Unpack[ToolOptions]) -> Any:
    """Makes a function a ``Tool``; use bare (``@tool``) or with options
    (``@tool(sequential=True)``). The options are those of ``Tool``
    (``ToolOptions``). The returned Tool stays directly callable like the
    function."""

    def decorate(f: Callable[..., Any]) -> Tool[..., Any]:
        return Tool(f, **options)

    return decorate if func is None else decorate(func)


def _hooks(hooks: Iterable[Hook]) -> tuple[Hook, ...]:
    out = tuple(hooks)
    for h in out:
        if not isinstance(h, Hook):
            raise TypeError(f"hooks must be starweaver.Hook instances, got {type(h).__name__}")
    return out


def _tag_list(tags: Iterable[str] | None, option: str) -> tuple[str, ...]:
    """Tags as the runtime normalises them: trimmed, no blanks, no repeats."""
    if tags is None:
        return ()
    if isinstance(tags, str):
        raise TypeError(f"{option} must be a list of strings, not a str")
    out: list[str] = []
    for t in tags:
        if not isinstance(t, str):
            raise TypeError(f"{option} must hold strings, got {type(t).__name__}")
        t = t.strip()
        if t and t not in out:
            out.append(t)
    return tuple(out)


def default_tool_name(cls: type) -> str:
    """A class's default tool name: its name without a ``Tool`` suffix, in
    snake_case (``MultiplyTool`` -> ``multiply``, ``HTTPFetchTool`` -> ``http_fetch``)."""
    base = cls.__name__
    if base.endswith("Tool") and base != "Tool":
        base = base[: -len("Tool")]
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", base).lower()


class BaseTool:
    """A tool written as a class. Subclasses set class attributes and implement
    ``call``; each keyword given to ``__init__`` (and not None) overrides the
    class attribute on the instance.

    The default name is the class name without a ``Tool`` suffix in snake_case;
    the default description is the class docstring, then ``call``'s. Without a
    ``parameters_schema``, ``call(ctx, args)`` receives any JSON object.
    """

    name: str | None = None
    description: str | None = None
    parameters_schema: Mapping[str, Any] | None = None
    return_schema: Mapping[str, Any] | None = None
    metadata: Mapping[str, Any] | None = None
    strict: bool | None = None
    sequential: bool = False
    timeout_ms: int | None = None
    max_retries: int | None = None
    effect: Effect | None = None
    max_concurrency: int | None = None
    resource_key: ResourceKey | None = None
    access: Access | None = None
    #: What sort of tool this is (``ToolKind``); see ``Tool``'s ``kind``.
    kind: ToolKind | str | None = None
    #: Execution hooks of this tool only (``starweaver.Hook``).
    hooks: tuple[Hook, ...] = ()
    #: The tool's dependency profile (``ToolDependencies``); Legacy when None.
    dependencies: ToolDependencies | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse an unknown effect class when the subclass is defined.

        Raises:
            TypeError: ``effect`` is not a str.
            ValueError: ``effect`` is not an effect class.
        """
        super().__init_subclass__(**kwargs)
        if "effect" in cls.__dict__:
            check_effect(cls.__dict__["effect"], f"BaseTool subclass {cls.__qualname__}")

    def __init__(self, **overrides: Unpack[DefinitionOptions]) -> None:
        if unknown := set(overrides) - set(DefinitionOptions.__annotations__):
            raise TypeError(f"unknown BaseTool option(s): {', '.join(sorted(unknown))}")
        check_effect(overrides.get("effect"), f"{type(self).__qualname__}(effect=...)")
        for key, value in overrides.items():
            if value is not None:
                setattr(self, key, value)
        if not self.name:
            self.name = default_tool_name(type(self))

    def call(self, ctx: ToolContext, args: dict[str, Any]) -> Any:
        """Runs the tool with the call context and the decoded arguments.

        Override it as ``async def call`` (runs on the event loop) or ``def
        call`` (runs in a worker thread).
        """
        raise NotImplementedError

    def to_tool(self) -> Tool[..., Any]:
        """The ``Tool`` that runs ``self.call``.

        Raises:
            TypeError: the subclass does not implement ``call``.
        """
        if getattr(type(self), "call", None) is BaseTool.call:
            raise TypeError(f"{type(self).__name__} must implement call(ctx, args)")
        own_doc = type(self).__dict__.get("__doc__")
        description = self.description or (inspect.cleandoc(own_doc) if own_doc else None)
        return Tool(
            self.call,
            name=self.name or default_tool_name(type(self)),
            description=description,
            parameters_schema=self.parameters_schema,
            return_schema=self.return_schema,
            metadata=self.metadata,
            strict=self.strict,
            sequential=bool(self.sequential),
            timeout_ms=self.timeout_ms,
            max_retries=self.max_retries,
            effect=self.effect,
            max_concurrency=self.max_concurrency,
            # A function stored as a class attribute would be bound.
            resource_key=self.__dict__.get("resource_key", type(self).__dict__.get("resource_key")),
            access=self.access,
            kind=self.kind,
            hooks=self.hooks,
            dependencies=self.dependencies,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def ensure_tool(obj: Tool[..., Any] | BaseTool | Callable[..., Any]) -> Tool[..., Any]:
    """obj as a Tool: a Tool passes through, a BaseTool becomes ``to_tool()``,
    any other callable is wrapped with ``Tool(obj)`` (same inference as ``@tool``).

    Raises:
        TypeError: obj is a BaseTool class rather than an instance, or not callable.
    """
    if isinstance(obj, Tool):
        return obj
    if isinstance(obj, BaseTool):
        return obj.to_tool()
    if isinstance(obj, type) and issubclass(obj, BaseTool):
        raise TypeError(f"pass an instance of {obj.__name__}, not the class")
    if callable(obj):
        return Tool(obj)
    raise TypeError(f"expected a Tool, BaseTool or callable, got {type(obj).__name__}")
