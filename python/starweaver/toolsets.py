"""Toolsets: named groups of tools sharing instructions and defaults."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Union, overload

from typing_extensions import ParamSpec, TypeVar

from starweaver import _capi
from starweaver._prepare import (
    InstructionsFunc,
    Preparer,
    ToolsetContext,
    ToolsetPrepareFunc,
    instructions_preparer,
    predicate_preparer,
    toolset_preparer,
)
from starweaver._schema import validate_parameters_schema
from starweaver.tools import BaseTool, Tool, _optional_int, ensure_tool

__all__ = [
    "ClientTool",
    "CombinedToolset",
    "FunctionToolset",
    "PrefixedToolset",
    "Toolset",
    "ToolInstruction",
    "ToolsetContext",
    "core_toolsets",
    "filesystem_toolset",
    "user_input_tools",
]

P = ParamSpec("P")
R = TypeVar("R")

DefinitionPredicate = Callable[[dict[str, Any]], Union[bool, Awaitable[bool]]]
"""``predicate(definition) -> bool`` (sync or async) for ``Toolset.filtered``."""


@dataclasses.dataclass(frozen=True)
class ToolInstruction:
    """An instruction with its own group, for a toolset's ``instructions``.

    Instructions are grouped: across the toolsets of a run, one instruction
    per group is sent, the first (toolset order), and the instructions are
    ordered by group. A toolset's plain strings form one instruction of its
    own group (its name); a ``ToolInstruction`` names another group, so that
    toolsets sharing guidance (``ToolInstruction("files", "Read before
    you edit.")`` in two toolsets) send it once. A blank group is the
    toolset's name.
    """

    group: str
    content: str

    def __post_init__(self) -> None:
        if not isinstance(self.group, str) or not isinstance(self.content, str):
            raise TypeError("ToolInstruction takes a group and a content, both str")

    def to_dict(self) -> dict[str, str]:
        return {"group": self.group, "content": self.content}


def _split_instructions(
    instructions: Iterable[Any] | str | ToolInstruction | None,
) -> tuple[list[str], list[ToolInstruction], list[Any]]:
    """A toolset's ``instructions`` as (plain strings, grouped ones, others)."""
    items = [instructions] if isinstance(instructions, (str, ToolInstruction)) else list(instructions or [])
    plain = [i for i in items if isinstance(i, str) and i.strip()]
    grouped = [i for i in items if isinstance(i, ToolInstruction) and i.content.strip()]
    others = [i for i in items if not isinstance(i, (str, ToolInstruction))]
    return plain, grouped, others


class ClientTool:
    """A tool the client executes: a name, description and schema with no
    Python body. Every call pauses the run as a deferred call; answer it with
    ``waiting.hitl.deferred[i].complete(value)`` and a resume."""

    def __init__(
        self, name: str, *, description: str | None = None, parameters_schema: dict[str, Any] | None = None
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError("client tool name must be a non-empty string")
        self.name = name
        self.description = description
        self.parameters_schema = validate_parameters_schema(
            parameters_schema if parameters_schema is not None else {"type": "object", "properties": {}}
        )

    def definition(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "parameters": self.parameters_schema}
        if self.description:
            out["description"] = self.description
        return out

    def __repr__(self) -> str:
        return f"ClientTool({self.name!r})"


class Toolset:
    """A named group of tools with shared instructions and defaults.

    ``instructions`` are sent once per request, as one block for the toolset
    (its group is the toolset's name); a ``ToolInstruction`` among them has
    a group of its own, sent once whichever toolsets give it.
    ``max_retries`` and ``timeout_ms`` apply to its tools that set none.
    Duplicate tool names are rejected when an agent is built.
    """

    def __init__(
        self,
        name: str,
        *,
        tools: Iterable[Tool[..., Any] | BaseTool | ClientTool | Any] | None = None,
        instructions: Iterable[str | ToolInstruction] | str | ToolInstruction | None = None,
        id: str | None = None,
        max_retries: int | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError("toolset name must be a non-empty string")
        self.name = name
        self.id = id
        self.tools: list[Tool[..., Any] | ClientTool] = [
            t if isinstance(t, ClientTool) else ensure_tool(t) for t in (tools or [])
        ]
        plain, grouped, others = _split_instructions(instructions)
        if others:
            raise TypeError(f"instructions must be strings or ToolInstruction, got {type(others[0]).__name__}")
        self.instructions: list[str] = plain
        #: Instructions of their own groups (``ToolInstruction``).
        self.instruction_groups: list[ToolInstruction] = grouped
        # Types are checked here; ranges by the runtime when an agent is built.
        self.max_retries = _optional_int(max_retries, "max_retries")
        self.timeout_ms = _optional_int(timeout_ms, "timeout_ms")
        self.approval_selectors: list[str] = []
        self.deferred_selectors: list[str] = []
        # Combinators wrapped around the toolset, innermost first; each is
        # a layer of the spec (capi/internal/bridge/toolsettree.go), with its preparer when
        # a Python callback decides.
        self._layers: list[tuple[dict[str, Any], Preparer | None]] = []

    def _with(self, **changes: list[str]) -> Toolset:
        clone: Toolset = copy.copy(self)
        clone.tools = list(self.tools)
        clone._layers = list(self._layers)
        clone.instruction_groups = list(self.instruction_groups)
        for key, value in changes.items():
            setattr(clone, key, value)
        return clone

    def _layered(self, layer: dict[str, Any], preparer: Preparer | None = None) -> Toolset:
        clone: Toolset = self._with()
        clone._layers.append((layer, preparer))
        return clone

    def _give_layers(self, other: Toolset) -> None:
        """Give ``other`` (this toolset as prepared for a step) this
        toolset's combinators."""
        other._layers = list(self._layers)

    def _extra_spec(self, keep: Callable[[Preparer], None]) -> dict[str, Any]:
        """The spec's combinator layers (and, in subclasses, other keys);
        keep() receives each preparer, which must stay alive while the
        runtime may ask for it."""
        layers = []
        for layer, preparer in self._layers:
            if preparer is not None:
                keep(preparer)
                layer = {**layer, "callback": preparer.id}
            layers.append(layer)
        return {"layers": layers} if layers else {}

    # -------------------------------------------------------------- combinators
    # Each returns a new toolset wrapping this one; the runtime's combinators
    # (core/toolset) do the work. approval_required() and deferred() apply
    # after all of them, so their names are the final tool names.

    def prefixed(self, prefix: str) -> Toolset:
        """A copy whose tools are named ``{prefix}_{name}``; the toolset's
        name and id and its instruction group get the same prefix."""
        if not isinstance(prefix, str) or not prefix:
            raise ValueError("prefix must be a non-empty string")
        return self._layered({"kind": "prefixed", "prefix": prefix})

    def filtered(
        self,
        *,
        include: Iterable[str] | str | None = None,
        exclude: Iterable[str] | str | None = None,
        predicate: DefinitionPredicate | None = None,
    ) -> Toolset:
        """A copy with only some tools: those named in ``include``, without
        those named in ``exclude`` (names matching no tool are ignored), and
        those whose definition dict satisfies ``predicate`` (sync or async,
        evaluated when a run starts)."""
        if include is not None and exclude is not None:
            raise ValueError("filtered() takes include or exclude, not both")
        layers: list[tuple[dict[str, Any], Preparer | None]] = []
        if include is not None:
            layers.append(({"kind": "include", "names": _names(include)}, None))
        if exclude is not None:
            layers.append(({"kind": "exclude", "names": _names(exclude)}, None))
        if predicate is not None:
            if not callable(predicate):
                raise TypeError("predicate must be callable")
            layers.append(({"kind": "prepared"}, predicate_preparer(self.name, predicate)))
        out: Toolset = self._with()
        out._layers.extend(layers)
        return out

    def renamed(self, names: Mapping[str, str]) -> Toolset:
        """A copy whose tools named in ``names`` (old -> new) take the new
        name; the definition records the old one under metadata
        ``original_tool_name`` and calls run the original tool."""
        if not isinstance(names, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in names.items()
        ):
            raise TypeError("renamed() takes a mapping of old names to new non-empty names")
        return self._layered({"kind": "renamed", "renames": dict(names)})

    def with_metadata(self, metadata: Mapping[str, Any] | None = None, /, **extra: Any) -> Toolset:
        """A copy whose tool definitions carry ``metadata`` (and ``extra``)
        merged into theirs; on a shared key these values win."""
        md = {**(metadata or {}), **extra}
        if not md:
            raise ValueError("with_metadata() needs at least one key")
        return self._layered({"kind": "metadata", "metadata": _json_copy(md)})

    def prepared(self, prepare: ToolsetPrepareFunc) -> Toolset:
        """A copy whose definitions ``prepare(ctx, definitions)`` (sync or
        async) decides when a run starts: it returns the definitions to send
        (leave one out to hide its tool, change description, metadata or
        parameters to rewrite it; names stay) or None for no change."""
        if not callable(prepare):
            raise TypeError("prepare must be callable")
        return self._layered({"kind": "prepared"}, toolset_preparer(self.name, prepare))

    def approval_required(self, names: Iterable[str] | str = "*") -> Toolset:
        """A copy whose matching tools wait for a person's approval before
        they run. A name matches a tool name, the toolset's name or id, a
        metadata ``bundle``, or ``*``."""
        selectors = [names] if isinstance(names, str) else list(names)
        return self._with(approval_selectors=self.approval_selectors + selectors)

    def deferred(self, names: Iterable[str] | str = "*") -> Toolset:
        """A copy whose matching tools never run here: each call pauses the
        run as a deferred call, answered by an external worker."""
        selectors = [names] if isinstance(names, str) else list(names)
        return self._with(deferred_selectors=self.deferred_selectors + selectors)

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The definitions of the toolset's own tools, before its
        combinators (the runtime applies those: ``captured_params()`` of a
        ``TestModel`` shows what the model got)."""
        return [t.definition() for t in self.tools]

    def __repr__(self) -> str:
        return f"Toolset({self.name!r}, tools={[t.name for t in self.tools]!r})"


def PrefixedToolset(prefix: str, toolset: Toolset) -> Toolset:  # noqa: N802 - the public SDK's name
    """``toolset.prefixed(prefix)``: tools named ``{prefix}_{name}``, the
    toolset's name, id and instruction group prefixed likewise. Around a
    ``ToolProxyToolset`` it gives the proxy a distinct surface
    (``{prefix}_search_tools``, ``{prefix}_call_tool``) whose call tool
    still reaches its own tools, so several proxies coexist in one agent.

    Raises:
        TypeError: ``toolset`` is not a ``Toolset``.
        ValueError: ``prefix`` is empty.
    """
    if not isinstance(toolset, Toolset):
        raise TypeError(f"PrefixedToolset wraps a Toolset, got {type(toolset).__name__}")
    return toolset.prefixed(prefix)


class CombinedToolset(Toolset):
    """Several toolsets as one, under one name: their tools member by
    member, their instructions in the same order. A tool name two members
    both give fails the run's preparation with an error naming the tool and
    both toolsets. Members keep their own defaults."""

    def __init__(self, name: str, toolsets: Iterable[Toolset]) -> None:
        super().__init__(name)
        self.members: list[Toolset] = list(toolsets)
        for ts in self.members:
            if not isinstance(ts, Toolset):
                raise TypeError(f"CombinedToolset members must be Toolset instances, got {type(ts).__name__}")

    def tool_definitions(self) -> list[dict[str, Any]]:
        return [d for ts in self.members for d in ts.tool_definitions()]

    def __repr__(self) -> str:
        return f"CombinedToolset({self.name!r}, {[ts.name for ts in self.members]!r})"


class _Instructions(list[str]):
    """A FunctionToolset's static instructions, which is also the decorator
    ``@toolset.instructions`` registering per-context ones."""

    def __init__(self, static: Iterable[str], dynamic: list[InstructionsFunc]) -> None:
        super().__init__(static)
        self._dynamic = dynamic

    def __call__(self, func: InstructionsFunc) -> InstructionsFunc:
        """Register ``func(ctx) -> str | list[str] | None`` (sync or async),
        asked when a run starts; returns func unchanged."""
        if not callable(func):
            raise TypeError("instructions callback must be callable")
        self._dynamic.append(func)
        return func


class FunctionToolset(Toolset):
    """A toolset built from Python functions, with defaults its tools inherit.

    ``metadata`` is merged under each tool's own (the tool wins on a shared
    key); ``strict`` applies to tools that leave it None; ``sequential=True``
    makes every tool sequential; ``max_retries`` and ``timeout_ms`` apply to
    tools that set none (the runtime's rule: tool > toolset > agent);
    ``max_concurrency`` caps each tool that sets none on its own, across
    batches and the agent's concurrent runs.
    ``instructions`` takes strings and per-context callables
    ``f(ctx: ToolsetContext) -> str | list[str] | None`` (sync or async),
    asked when a run starts; ``@toolset.instructions`` adds more callables.

    Raises:
        ValueError: a tool name is already in the toolset (the error names
            both definitions), or ``strict`` without a description.
    """

    def __init__(
        self,
        name: str,
        *,
        id: str | None = None,  # noqa: A002 - the public SDK's name
        tools: Iterable[Tool[..., Any] | BaseTool | Callable[..., Any]] | None = None,
        instructions: str | ToolInstruction | Iterable[str | ToolInstruction | InstructionsFunc] | None = None,
        max_retries: int | None = None,
        timeout_ms: int | None = None,
        strict: bool | None = None,
        sequential: bool = False,
        metadata: Mapping[str, Any] | None = None,
        max_concurrency: int | None = None,
    ) -> None:
        super().__init__(name, id=id, max_retries=max_retries, timeout_ms=timeout_ms)
        if max_concurrency is not None and (not isinstance(max_concurrency, int) or isinstance(max_concurrency, bool)):
            raise TypeError(f"max_concurrency must be an int or None, got {type(max_concurrency).__name__}")
        self.max_concurrency = max_concurrency  # the runtime checks the range
        if strict is not None and not isinstance(strict, bool):
            raise TypeError("strict must be a bool or None")
        if not isinstance(sequential, bool):
            raise TypeError("sequential must be a bool")
        self.strict = strict
        self.sequential = sequential
        self.metadata: dict[str, Any] = _json_copy(dict(metadata or {}))
        static, grouped, others = _split_instructions(instructions)
        self._dynamic: list[InstructionsFunc] = []
        for item in others:
            if not callable(item):
                kind = type(item).__name__
                raise TypeError(f"instructions must be strings, ToolInstruction or callables, got {kind}")
            self._dynamic.append(item)
        self.instructions: _Instructions = _Instructions(static, self._dynamic)
        self.instruction_groups = grouped
        self._origins: dict[str, str] = {}
        for t in tools or []:
            self.add_tool(t)

    def _with(self, **changes: list[str]) -> Toolset:
        clone = super()._with(**changes)
        assert isinstance(clone, FunctionToolset)
        self._copy_own(clone)
        return clone

    def _copy_own(self, clone: FunctionToolset) -> None:
        """Give ``clone`` (a shallow copy) its own instructions and tool origins."""
        clone._dynamic = list(self._dynamic)
        clone.instructions = _Instructions(self.instructions, clone._dynamic)
        clone._origins = dict(self._origins)

    def _extra_spec(self, keep: Callable[[Preparer], None]) -> dict[str, Any]:
        spec = super()._extra_spec(keep)
        if self._dynamic:
            preparer = instructions_preparer(self.name, list(self._dynamic))
            keep(preparer)
            spec["instructions_callback"] = preparer.id
        return spec

    def add_tool(self, t: Tool[..., Any] | BaseTool | Callable[..., Any]) -> Tool[..., Any]:
        """Add a tool (a Tool, a BaseTool or a function) with the toolset's
        defaults applied where it sets none; returns the added Tool."""
        added = self._inherit(ensure_tool(t))
        first = self._origins.get(added.name)
        if first is not None:
            raise ValueError(
                f"duplicate tool name {added.name!r} in toolset {self.name!r}: "
                f"defined by {first} and by {_origin(added)}"
            )
        self._origins[added.name] = _origin(added)
        self.tools.append(added)
        return added

    def _inherit(self, t: Tool[..., Any]) -> Tool[..., Any]:
        changes: dict[str, Any] = {}
        if self.metadata:
            changes["metadata"] = {**self.metadata, **t.metadata}
        if t.strict is None and self.strict is not None:
            changes["strict"] = self.strict
        if self.sequential and not t.sequential:
            changes["sequential"] = True
        return t.replace(**changes) if changes else t

    def add_function(self, func: Callable[..., Any], /, **tool_kwargs: Any) -> Tool[..., Any]:
        """Add ``func`` as a tool; ``tool_kwargs`` are ``Tool``'s options
        (an unknown one is a TypeError)."""
        return self.add_tool(Tool(func, **tool_kwargs))

    @overload
    def tool(self, func: Callable[P, R], /) -> Tool[P, R]: ...

    @overload
    def tool(self, func: None = None, /, **tool_kwargs: Any) -> Callable[[Callable[P, R]], Tool[P, R]]: ...

    def tool(self, func: Callable[..., Any] | None = None, /, **tool_kwargs: Any) -> Any:
        """Decorator adding a function (which may take a ``ToolContext``)
        as a tool, bare or with ``Tool``'s options; returns the Tool, which
        stays callable like the function."""

        def decorate(f: Callable[..., Any]) -> Tool[..., Any]:
            return self.add_function(f, **tool_kwargs)

        return decorate if func is None else decorate(func)

    @overload
    def tool_plain(self, func: Callable[P, R], /) -> Tool[P, R]: ...

    @overload
    def tool_plain(self, func: None = None, /, **tool_kwargs: Any) -> Callable[[Callable[P, R]], Tool[P, R]]: ...

    def tool_plain(self, func: Callable[..., Any] | None = None, /, **tool_kwargs: Any) -> Any:
        """As ``tool``, for functions that take no ``ToolContext``.

        Raises:
            ValueError: the function takes a ToolContext.
        """

        def decorate(f: Callable[..., Any]) -> Tool[..., Any]:
            t = Tool(f, **tool_kwargs)
            if t.takes_ctx:
                raise ValueError("tool_plain functions cannot accept ToolContext")
            return self.add_tool(t)

        return decorate if func is None else decorate(func)

    def __repr__(self) -> str:
        return f"FunctionToolset({self.name!r}, tools={[t.name for t in self.tools]!r})"


def _origin(t: Tool[..., Any]) -> str:
    """Where a tool's function is defined, for error messages."""
    func = inspect.unwrap(t.func)
    code = getattr(func, "__code__", None)
    where = f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', repr(func))}"
    if code is not None:
        where += f" ({code.co_filename}:{code.co_firstlineno})"
    return where


def _names(value: Iterable[str] | str) -> list[str]:
    names = [value] if isinstance(value, str) else list(value)
    if not all(isinstance(n, str) for n in names):
        raise TypeError("tool names must be strings")
    return names


def _json_copy(value: dict[str, Any]) -> dict[str, Any]:
    try:
        out: dict[str, Any] = json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"metadata must be JSON serializable: {exc}") from None
    return out


class _NativeToolset(Toolset):
    """A toolset implemented inside the runtime (a first-party bundle)."""

    def __init__(self, name: str, bundle: str, *, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(name, id=name)
        self.bundle = bundle
        # The bundle's own spec keys (the shell bundle's "policy").
        self.bundle_options: dict[str, Any] = dict(options or {})

    def __repr__(self) -> str:
        # Its tools live in the runtime: the bundle names them.
        return f"Toolset({self.name!r}, runtime bundle {self.bundle!r})"


def user_input_tools() -> Toolset:
    """The opt-in ``ask_user_question`` toolset: the model asks one to four
    structured clarifying questions and the run waits for the answers, given
    with ``approvals[i].approve().with_user_input(...)``."""
    return _NativeToolset("user_input", "user_input")


def filesystem_toolset() -> Toolset:
    """The filesystem toolset (``ls``, ``glob``, ``grep``, ``view``, ``write``,
    ``edit``, ``multi_edit``, ``mkdir``, ``move``, ``copy``, ``delete``),
    implemented in Go. Its tools work on the agent's environment (the named
    dependency ``starweaver.environment``); without one, a call fails with a
    user error."""
    return _NativeToolset("filesystem", "filesystem")


def core_toolsets() -> list[Toolset]:
    """The standard first-party toolsets, new ones each call, in the
    runtime's order: ``filesystem`` (as ``filesystem_toolset()``) and
    ``shell`` (as ``shell_toolset()``, the shell's own policy only). Their
    tools work on the run's environment and shell.

    ``ask_user_question`` is not among them: add ``user_input_tools()`` only
    when the host can answer the approvals its questions wait on.
    """
    return [_NativeToolset(name, name) for name in _capi.error_kinds()["core_bundles"]]
