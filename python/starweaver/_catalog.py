"""The catalogue of one agent or run: the host tools, models and hooks the
native runtime refers to by id, and the spec dicts it reads for them."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, Protocol, Union

from starweaver import _prepare
from starweaver.errors import instance_of_loaded
from starweaver.hooks import Hook
from starweaver.tools import BaseTool, Tool, ensure_tool
from starweaver.toolsets import ClientTool, CombinedToolset, Toolset

__all__ = [
    "AgentTool",
    "Catalog",
    "ToolLike",
    "ToolsetSource",
    "as_tool",
    "instructions_list",
    "next_id",
    "tags_list",
    "toolsets_list",
]


class AgentTool:
    """An agent called as a tool of another (``Agent.as_tool``): a call runs
    the agent, named by its native handle (read when a spec is made: the
    agent's handle changes when it gains tools), in a fresh session with
    the call's ``prompt``. ``catalog`` is the agent's catalogue, joined to the
    catalogue of every agent or run that takes the tool, so that the
    agent's host tools, models and hooks are found during its runs."""

    def __init__(
        self,
        *,
        handle: Callable[[], int],
        catalog: Catalog,
        name: str,
        description: str,
        grants: list[str] | None,
        agent: Any = None,
        deps: list[str] | None = None,
    ) -> None:
        self.handle = handle
        #: The caller's named dependencies the agent's runs as a tool also
        #: receive (``as_tool(deps=[...])``); its own agent's are always its.
        self.deps = deps
        #: The agent the tool runs (a ``starweaver.Agent``), for engines that
        #: run it themselves (``starweaver.temporal``).
        self.agent = agent
        self.catalog = catalog
        self.name = name
        self.description = description
        self.grants = grants

    def __repr__(self) -> str:
        return f"AgentTool(name={self.name!r})"


#: What a run or an agent takes as a tool: a ``Tool``, a ``BaseTool``, a
#: ``ClientTool``, an ``AgentTool`` (``Agent.as_tool``) or a plain callable
#: (``as_tool`` makes a ``Tool`` of it).
ToolLike = Union[Tool[..., Any], BaseTool, ClientTool, AgentTool, Callable[..., Any]]


class ToolsetSource(Protocol):
    """What a run or an agent takes as a toolset besides a ``Toolset``: an
    object that makes one (``starweaver.dynamic.AbstractToolset``, which
    sits above this module and is typed here by what it offers)."""

    def with_lifecycle(self, policy: None = None) -> Toolset: ...


_ids = itertools.count(1)


def next_id() -> int:
    """A process-wide id for a host tool or hook, unique among catalogues."""
    return next(_ids)


class Catalog:
    """Host tools and models by the ids the native runtime refers to."""

    def __init__(self) -> None:
        self.tools: dict[int, Tool[..., Any]] = {}
        self.models: dict[int, Any] = {}
        self.hooks: dict[int, Hook] = {}
        # Preparations the runtime asks for by id (see _prepare.py).
        self.preparers: list[_prepare.Preparer] = []
        # The catalogues of the agents this one calls as tools, read when
        # the catalogue is merged for a run (they may gain tools later).
        self.children: list[Catalog] = []
        #: The agent tools and subagent routes given to the agent, in order.
        self.agent_tools: list[AgentTool] = []
        #: The dependencies of the agent whose catalogue this is (its
        #: ``create_agent(deps=...)``): what its tools receive when it runs
        #: as another's tool. None for a run's own catalogue.
        self.deps: Any = None
        # The catalogues a merged catalogue was made of (see tool_deps).
        self._sources: list[Catalog] = [self]

    def hook_spec(self, h: Hook) -> dict[str, Any]:
        if not isinstance(h, Hook):
            raise TypeError(f"hooks must be starweaver.Hook instances, got {type(h).__name__}")
        hid = next_id()
        self.hooks[hid] = h
        return h._spec(hid)  # noqa: SLF001 - the catalogue registers a hook's callables

    def tool_spec(self, t: Tool[..., Any] | ClientTool | AgentTool) -> dict[str, Any]:
        if isinstance(t, AgentTool):
            self.children.append(t.catalog)
            self.agent_tools.append(t)
            agent_tool: dict[str, Any] = {"agent": t.handle(), "name": t.name, "description": t.description}
            if t.grants is not None:
                agent_tool["grants"] = list(t.grants)
            if t.deps:
                agent_tool["deps"] = list(t.deps)
            return {"id": 0, "agent_tool": agent_tool}
        if isinstance(t, ClientTool):
            return {"id": 0, "definition": t.definition(), "client": True}
        tid = next_id()
        self.tools[tid] = t
        # The spec is encoded at once: the definition need not be a copy.
        spec: dict[str, Any] = {"id": tid, "definition": t._definition(copy=False), "context": t.takes_ctx}  # noqa: SLF001 - the catalogue reads a tool's spec
        if t.timeout_ms is not None:
            spec["timeout_ms"] = t.timeout_ms
        if t.max_retries is not None:
            spec["max_retries"] = t.max_retries
        if t.effect is not None:
            spec["effect"] = t.effect
        spec.update(t._scheduling_spec())  # noqa: SLF001 - the catalogue reads a tool's spec
        if t.has_user_input_preprocessor:
            spec["preprocess"] = True
        if t.hooks:
            spec["hooks"] = [self.hook_spec(h) for h in t.hooks]
        if t._validators:  # noqa: SLF001 - the catalogue reads a tool's spec
            spec["validators"] = [self.hook_spec(Hook(before_call=v))["id"] for v in t._validators]  # noqa: SLF001 - the catalogue reads a tool's spec
        if t.available is not None:
            checker = _prepare.available_preparer(t.name, t.available)
            self.preparers.append(checker)
            spec["available"] = checker.id
        if t.prepare is not None:
            preparer = _prepare.tool_preparer(t.name, t.prepare)
            self.preparers.append(preparer)
            spec["prepare"] = preparer.id
        return spec

    def toolset_spec(self, ts: Toolset) -> dict[str, Any]:
        bundle = getattr(ts, "bundle", None)
        spec: dict[str, Any] = {"name": ts.name, "tools": [self.tool_spec(t) for t in ts.tools]}
        if bundle is not None:
            spec = {"name": ts.name, "bundle": bundle, **getattr(ts, "bundle_options", {})}
        if ts.id is not None:
            spec["id"] = ts.id
        if ts.instructions:
            spec["instructions"] = list(ts.instructions)
        if getattr(ts, "instruction_groups", None):
            spec["instruction_groups"] = [i.to_dict() for i in ts.instruction_groups]
        if ts.max_retries is not None:
            spec["max_retries"] = ts.max_retries
        if ts.timeout_ms is not None:
            spec["timeout_ms"] = ts.timeout_ms
        if getattr(ts, "max_concurrency", None) is not None:
            spec["max_concurrency"] = ts.max_concurrency  # type: ignore[attr-defined]
        if ts.approval_selectors:
            spec["approval_required"] = list(ts.approval_selectors)
        if ts.deferred_selectors:
            spec["deferred"] = list(ts.deferred_selectors)
        if isinstance(ts, CombinedToolset):
            spec["combined"] = [self.toolset_spec(m) for m in ts.members]
        spec.update(ts._extra_spec(self.preparers.append))  # noqa: SLF001 - the catalogue reads a toolset's own spec fields
        return spec

    def whole(self) -> Catalog:
        """This catalogue with those of its agent tools (itself when it has
        none): a resumed run may resume a child agent's run."""
        return self.merged(Catalog()) if self.children else self

    def merged(self, other: Catalog) -> Catalog:
        out = Catalog()
        for c in (self, other):
            c._fold_into(out, set())  # noqa: SLF001 - a catalogue reads its own kind
        out._sources = [self, other]
        return out

    def tool_deps(self, run_deps: Any) -> dict[int, Any]:
        """The dependencies of the tools of the agents this catalogue's
        agents call as tools, by tool id, for a run whose own are
        ``run_deps``: authority only narrows, so a child agent's tools get
        their agent's dependencies plus the caller's named ones its
        ``as_tool(deps=[...])`` grants, never the rest of the caller's.
        The run's own tools (absent here) get ``run_deps``. A catalogue
        reached twice keeps what the first way, breadth first, gave it."""
        out: dict[int, Any] = {}
        if not any(c.children for c in self._sources):
            return out  # most runs: no child agent, nothing to narrow
        seen: set[int] = set()
        queue: list[tuple[Catalog, Any]] = [(c, run_deps) for c in self._sources]
        for c, _ in queue:
            seen.add(id(c))
        while queue:
            catalog, deps = queue.pop(0)
            routes = {id(at.catalog): at for at in catalog.agent_tools}
            for child in catalog.children:
                if id(child) in seen:
                    continue
                seen.add(id(child))
                at = routes.get(id(child))
                # An agent handed off to answers within the same run.
                child_deps = deps if at is None else _narrowed(child.deps, deps, at.deps)
                for tid in child.tools:
                    out.setdefault(tid, child_deps)
                queue.append((child, child_deps))
        return out

    def _fold_into(self, out: Catalog, seen: set[int]) -> None:
        """Add this catalogue and those of its agent tools to out (each once:
        agents may call one another)."""
        if id(self) in seen:
            return
        seen.add(id(self))
        out.tools.update(self.tools)
        out.models.update(self.models)
        out.hooks.update(self.hooks)
        out.preparers.extend(self.preparers)
        for child in self.children:
            child._fold_into(out, seen)  # noqa: SLF001 - a catalogue reads its own kind


def _narrowed(own: Any, caller: Any, granted: list[str] | None) -> Any:
    """A child agent's dependencies: its own, with the caller's named ones
    that ``granted`` names (a typed ``own`` object takes none)."""
    if own is not None and not isinstance(own, Mapping):
        return own
    picked = {n: caller[n] for n in granted or () if isinstance(caller, Mapping) and n in caller}
    return MappingProxyType({**(own or {}), **picked})


def as_tool(value: Any) -> Tool[..., Any] | ClientTool | AgentTool:
    return value if isinstance(value, (ClientTool, AgentTool)) else ensure_tool(value)


def instructions_list(value: str | Iterable[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def tags_list(value: Iterable[str]) -> list[str]:
    if isinstance(value, str):
        raise TypeError("active_tags must be a list of strings, not a str")
    out = list(value)
    if not all(isinstance(t, str) for t in out):
        raise TypeError("active_tags must hold strings")
    return out


def toolsets_list(value: Iterable[Toolset | ToolsetSource] | None) -> list[Toolset]:
    out = []
    for ts in value or []:
        # An AbstractToolset exists only once starweaver.dynamic is loaded;
        # checking by name keeps this module below it.
        if not isinstance(ts, Toolset) and instance_of_loaded(ts, "starweaver.dynamic", "AbstractToolset"):
            ts = ts.with_lifecycle(None)
        if not isinstance(ts, Toolset):
            raise TypeError(f"toolsets must be Toolset instances, got {type(ts).__name__}")
        out.append(ts)
    return out
