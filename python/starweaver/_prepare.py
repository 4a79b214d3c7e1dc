"""Host preparations: Python callbacks that decide, per run context, which
tool definitions the model gets (``available=``/``prepare=`` on tools,
``Toolset.prepared()`` and ``filtered(predicate=)``).

They are evaluated when the runtime prepares definitions and asks for them
through the run's pipe (a ``prepare`` item, see ``capi/starweaver.h``): per
run step for a tool's check, once per run for a toolset's. Asking from the
runtime, rather than evaluating them here before a run starts, gives them the
real run id, step, metadata and active tags, and leaves one place (the Go
core) deciding when definitions are prepared and reporting hidden tools
(``tools_unavailable``, ``unavailable_tools="fail"``).

Sync callbacks run in the worker pool, async ones on the loop; whatever a
callback raises ends the run with an ``AgentError`` naming the callback.
"""

from __future__ import annotations

import inspect
import itertools
import json
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Union

from starweaver._pool import in_pool

__all__ = ["AvailableFunc", "InstructionsFunc", "PrepareFunc", "ToolsetContext", "ToolsetPrepareFunc"]


class ToolsetContext:
    """The run state a preparation or a dynamic toolset sees. Read-only.

    Attributes:
        run_id: The run's id (a resumed run keeps the id of the run it
            continues).
        conversation_id: The conversation (session) the run belongs to.
        session_id: The session's id (the same as ``conversation_id``).
        run_step: The model step being prepared (0 for toolset preparations
            read once per run; for a dynamic toolset's ``exit``, the number of
            model requests the run made).
        metadata: Per-run metadata (the agent's, merged with the run's).
        active_tags: The capability tags active in the run.
        deps: The dependencies the host made available (may be empty).
        agent_id: The agent's id; None, since the runtime does not name
            agents to toolsets yet.
        run_attachments: Attachments of the run; empty, since runs carry
            none yet.
        workspace_root: The workspace of the run's environment; None until
            environments reach toolsets.
        environment: The run's environment provider; None until
            environments reach toolsets.
        resources: Named resources of the run (empty until environments
            reach toolsets).
        raw_context: The context exactly as the runtime sent it.
    """

    __slots__ = (
        "_active_tags",
        "_agent_id",
        "_conversation_id",
        "_deps",
        "_environment",
        "_metadata",
        "_raw_context",
        "_resources",
        "_run_attachments",
        "_run_id",
        "_run_step",
        "_workspace_root",
    )

    def __init__(
        self,
        *,
        run_id: str = "",
        conversation_id: str = "",
        run_step: int = 0,
        metadata: Mapping[str, Any] | None = None,
        active_tags: Sequence[str] = (),
        deps: Mapping[str, Any] | None = None,
        agent_id: str | None = None,
        run_attachments: Sequence[Any] = (),
        workspace_root: str | None = None,
        environment: Any = None,
        resources: Mapping[str, Any] | None = None,
        raw_context: Mapping[str, Any] | None = None,
    ) -> None:
        self._run_id = run_id
        self._conversation_id = conversation_id
        self._run_step = run_step
        self._metadata = MappingProxyType(dict(metadata or {}))
        self._active_tags = tuple(active_tags)
        self._deps = MappingProxyType(dict(deps or {}))
        self._agent_id = agent_id
        self._run_attachments = tuple(run_attachments)
        self._workspace_root = workspace_root
        self._environment = environment
        self._resources = MappingProxyType(dict(resources or {}))
        self._raw_context = MappingProxyType(dict(raw_context or {}))

    @property
    def run_id(self) -> str:
        return self._run_id

    @property
    def conversation_id(self) -> str:
        return self._conversation_id

    @property
    def session_id(self) -> str:
        return self._conversation_id

    @property
    def run_step(self) -> int:
        return self._run_step

    @property
    def metadata(self) -> Mapping[str, Any]:
        return self._metadata

    @property
    def active_tags(self) -> tuple[str, ...]:
        return self._active_tags

    @property
    def deps(self) -> Mapping[str, Any]:
        return self._deps

    @property
    def agent_id(self) -> str | None:
        return self._agent_id

    @property
    def run_attachments(self) -> tuple[Any, ...]:
        return self._run_attachments

    @property
    def workspace_root(self) -> str | None:
        return self._workspace_root

    @property
    def environment(self) -> Any:
        return self._environment

    @property
    def resources(self) -> Mapping[str, Any]:
        return self._resources

    @property
    def raw_context(self) -> Mapping[str, Any]:
        return self._raw_context

    def __repr__(self) -> str:
        return f"ToolsetContext(run_id={self._run_id!r}, run_step={self._run_step}, active_tags={self._active_tags!r})"


def toolset_context_from_wire(c: Mapping[str, Any], deps: Any) -> ToolsetContext:
    return ToolsetContext(
        run_id=c.get("run_id") or "",
        conversation_id=c.get("conversation_id") or "",
        run_step=int(c.get("run_step") or 0),
        metadata=c.get("metadata"),
        active_tags=c.get("active_tags") or (),
        deps=deps if isinstance(deps, Mapping) else None,
        raw_context=c,
    )


AvailableFunc = Callable[[ToolsetContext], Union[bool, Awaitable[bool]]]
"""``available(ctx) -> bool`` (or an awaitable of it): False hides the tool for that step."""

PrepareFunc = Callable[
    [ToolsetContext, dict[str, Any]], Union[Mapping[str, Any], None, Awaitable[Union[Mapping[str, Any], None]]]
]
"""``prepare(ctx, definition) -> definition | None``: the definition to send
(description, metadata, schema may change; the name stays), or None to hide
the tool for that step."""

ToolsetPrepareFunc = Callable[
    [ToolsetContext, list[dict[str, Any]]],
    Union[Sequence[Mapping[str, Any]], None, Awaitable[Union[Sequence[Mapping[str, Any]], None]]],
]
"""``prepared(ctx, definitions) -> definitions | None``: the toolset's
definitions for the run (fewer hides tools; a changed one rewrites its tool),
or None to keep them unchanged."""

InstructionsFunc = Callable[
    [ToolsetContext], Union[str, Sequence[str], None, Awaitable[Union[str, Sequence[str], None]]]
]
"""``instructions(ctx) -> str | list[str] | None`` (sync or async): a
toolset's instructions for one run, added to its static ones."""


_ids = itertools.count(1)
# Preparers by the id the runtime sends back. Owners (agents, and runs for
# run-level tools) hold them strongly; the runtime only holds ids.
_registry: weakref.WeakValueDictionary[int, Preparer] = weakref.WeakValueDictionary()


async def _call(func: Callable[..., Any], *args: Any) -> Any:
    """Calls a user callback: async on the loop, sync in the worker pool."""
    if inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(getattr(func, "__call__", None)):  # noqa: B004
        return await func(*args)
    value = await in_pool(lambda: func(*args))
    if inspect.isawaitable(value):
        value = await value
    return value


def _definition(value: Any, label: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"{label} must return a definition dict or None, got {type(value).__name__}")
    out: dict[str, Any] = json.loads(json.dumps(dict(value)))
    return out


class Preparer:
    """One preparation the runtime can ask for by id."""

    def __init__(
        self,
        label: str,
        run: Callable[[ToolsetContext, list[dict[str, Any]]], Awaitable[Any]],
        key: str = "definitions",
    ) -> None:
        self.label = label
        self._run = run
        self._key = key
        self.id = next(_ids)
        _registry[self.id] = self

    async def outcome(self, ctx: ToolsetContext, definitions: list[dict[str, Any]]) -> dict[str, Any]:
        """The answer to a ``prepare`` item; never raises for user errors
        (KeyboardInterrupt/SystemExit and outside cancellation pass)."""
        import asyncio  # noqa: PLC0415 - loaded: a loop runs this

        try:
            value = await self._run(ctx, definitions)
        except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - a failing callback ends the run clearly
            return {"ok": False, "message": f"{self.label} raised {type(exc).__name__}: {exc}"}
        return {"ok": True, self._key: value}


def lookup(callback_id: int) -> Preparer | None:
    return _registry.get(callback_id)


def tool_preparer(name: str, prepare: PrepareFunc) -> Preparer:
    """A tool's preparation as a host callback: its one definition, rewritten,
    or none to hide the tool."""
    label = f"the prepare callback of tool {name!r}"

    async def run(ctx: ToolsetContext, definitions: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        value = await _call(prepare, ctx, definitions[0])
        if value is None:
            return []
        return [_definition(value, label)]

    return Preparer(label, run)


def available_preparer(name: str, available: AvailableFunc) -> Preparer:
    """A tool's availability check as a host callback: null (keep the tool)
    or none (unavailable). It is separate from the preparation so that the
    runtime can say which of the two hid the tool."""

    async def run(ctx: ToolsetContext, definitions: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        ok = await _call(available, ctx)
        if not isinstance(ok, bool):
            raise TypeError(f"available must return a bool, got {type(ok).__name__}")
        return None if ok else []

    return Preparer(f"the available callback of tool {name!r}", run)


def toolset_preparer(name: str, prepare: ToolsetPrepareFunc) -> Preparer:
    label = f"the prepared() callback of toolset {name!r}"

    async def run(ctx: ToolsetContext, definitions: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        value = await _call(prepare, ctx, definitions)
        if value is None:
            return None
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
            raise TypeError(f"{label} must return a list of definitions or None, got {type(value).__name__}")
        return [_definition(d, label) for d in value]

    return Preparer(label, run)


def predicate_preparer(name: str, predicate: Callable[[dict[str, Any]], bool | Awaitable[bool]]) -> Preparer:
    label = f"the filtered() predicate of toolset {name!r}"

    async def run(ctx: ToolsetContext, definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept = []
        for d in definitions:
            keep = await _call(predicate, d)
            if not isinstance(keep, bool):
                raise TypeError(f"{label} must return a bool, got {type(keep).__name__}")
            if keep:
                kept.append(d)
        return kept

    return Preparer(label, run)


def instructions_preparer(name: str, funcs: Sequence[InstructionsFunc]) -> Preparer:
    """A toolset's per-context instructions as one host callback; the
    answer is their texts joined by blank lines."""
    label = f"an instructions callback of toolset {name!r}"

    async def run(ctx: ToolsetContext, definitions: list[dict[str, Any]]) -> str:
        texts: list[str] = []
        for func in funcs:
            value = await _call(func, ctx)
            if value is None:
                continue
            items = [value] if isinstance(value, str) else list(value)
            if not all(isinstance(v, str) for v in items):
                raise TypeError(f"{label} must return a str, a list of str or None")
            texts.extend(v for v in items if v.strip())
        return "\n\n".join(texts)

    return Preparer(label, run, key="instructions")
