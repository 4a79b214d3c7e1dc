"""Toolsets: named groups of tools sharing instructions and defaults."""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Union

from starweaver._prepare import Preparer, ToolsetContext, ToolsetPrepareFunc, predicate_preparer, toolset_preparer
from starweaver._schema import validate_parameters_schema
from starweaver.tools import BaseTool, Tool, ensure_tool

__all__ = ["ClientTool", "CombinedToolset", "Toolset", "ToolsetContext"]

DefinitionPredicate = Callable[[dict[str, Any]], Union[bool, Awaitable[bool]]]
"""``predicate(definition) -> bool`` (sync or async) for ``Toolset.filtered``."""


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

    ``instructions`` are sent once per request, as one block for the toolset.
    ``max_retries`` and ``timeout_ms`` apply to its tools that set none.
    Duplicate tool names are rejected when an agent is built.
    """

    def __init__(
        self,
        name: str,
        *,
        tools: Iterable[Tool[..., Any] | BaseTool | ClientTool | Any] | None = None,
        instructions: Iterable[str] | str | None = None,
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
        if isinstance(instructions, str):
            instructions = [instructions]
        self.instructions: list[str] = [i for i in (instructions or []) if i.strip()]
        if max_retries is not None and max_retries < 0:
            raise ValueError("max_retries must not be negative")
        if timeout_ms is not None and timeout_ms <= 0:
            raise ValueError("timeout_ms must be positive")
        self.max_retries = max_retries
        self.timeout_ms = timeout_ms
        self.approval_selectors: list[str] = []
        self.deferred_selectors: list[str] = []
        # Combinators wrapped around the toolset, innermost first; each is
        # a layer of the spec (capi/toolsettree.go), with its preparer when
        # a Python callback decides.
        self._layers: list[tuple[dict[str, Any], Preparer | None]] = []

    def _with(self, **changes: list[str]) -> Toolset:
        clone = copy.copy(self)
        clone.tools = list(self.tools)
        clone._layers = list(self._layers)
        for key, value in changes.items():
            setattr(clone, key, value)
        return clone

    def _layered(self, layer: dict[str, Any], preparer: Preparer | None = None) -> Toolset:
        clone = self._with()
        clone._layers.append((layer, preparer))
        return clone

    def _layer_specs(self, keep: Callable[[Preparer], None]) -> list[dict[str, Any]]:
        """The spec's layers; keep() receives each preparer, which must stay
        alive while the runtime may ask for it."""
        out = []
        for layer, preparer in self._layers:
            if preparer is not None:
                keep(preparer)
                layer = {**layer, "callback": preparer.id}
            out.append(layer)
        return out

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
        out: Toolset = self
        if include is not None:
            out = out._layered({"kind": "include", "names": _names(include)})
        if exclude is not None:
            out = out._layered({"kind": "exclude", "names": _names(exclude)})
        if predicate is not None:
            if not callable(predicate):
                raise TypeError("predicate must be callable")
            out = out._layered({"kind": "prepared"}, predicate_preparer(self.name, predicate))
        return out if out is not self else self._with()

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
        """The definitions of the toolset's tools."""
        return [t.definition() for t in self.tools]

    def __repr__(self) -> str:
        return f"Toolset({self.name!r}, tools={[t.name for t in self.tools]!r})"


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

    def __init__(self, name: str, bundle: str) -> None:
        super().__init__(name, id=name)
        self.bundle = bundle


def user_input_tools() -> Toolset:
    """The opt-in ``ask_user_question`` toolset: the model asks one to four
    structured clarifying questions and the run waits for the answers, given
    with ``approvals[i].approve().with_user_input(...)``."""
    return _NativeToolset("user_input", "user_input")
