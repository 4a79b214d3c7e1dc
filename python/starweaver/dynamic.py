"""Dynamic toolsets: toolsets whose tools and instructions Python code decides
per run or per run step, with a lifecycle (enter before the first read, exit
when the run ends).

The Go runtime owns *when* each phase runs: it asks for them through the
run's pipe (``toolset_enter``, ``toolset_prepare``, ``toolset_exit`` items,
see ``capi/starweaver.h``), bounds each wait by the toolset's
``ToolsetLifecyclePolicy`` and the run, and publishes lifecycle reports
(``toolset_initialized``, ``toolset_unavailable``, ``toolset_failed``,
``toolset_closed``) as custom events of the run. This module only answers:
whatever a phase raises becomes a failure outcome naming the toolset, never
an exception escaping into the loop.

Sync methods run in the worker pool, async ones on the run's loop.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import enum
import itertools
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Union, overload

from starweaver._catalog import Catalog, as_tool
from starweaver._prepare import ToolsetContext, _call
from starweaver.tools import BaseTool, Tool, _optional_int
from starweaver.toolsets import ClientTool, Toolset

__all__ = [
    "AbstractToolset",
    "PythonDynamicToolset",
    "ToolsetFactory",
    "ToolsetLifecyclePolicy",
    "ToolsetLifecycleStatus",
    "ToolsetPreparation",
    "toolset_factory",
]


class ToolsetLifecycleStatus(str, enum.Enum):
    """The ``status`` of a lifecycle report (a ``toolset_*`` custom event)."""

    INITIALIZED = "initialized"
    UNAVAILABLE = "unavailable"
    FAILED = "failed"
    CLOSED = "closed"


@dataclasses.dataclass(frozen=True)
class ToolsetLifecyclePolicy:
    """How the runtime enters, reads and exits a dynamic toolset in a run.

    Attributes:
        initialization_timeout_ms: Bounds ``enter`` (none: the run's own).
        read_timeout_ms: Bounds each ``prepare``/``refresh`` (none: the
            run's own); a read that takes longer fails the run with an
            ``AgentError`` saying it timed out.
        exit_timeout_ms: Bounds ``exit`` (the runtime's default when None;
            shorter after a cancellation).
        enter_before_prepare: Call ``enter`` before the first read.
        exit_after_run: Call ``exit`` when the run ends (completed, failed,
            cancelled or waiting for a person).
        fail_on_unavailable: A toolset whose ``enter`` fails fails the run;
            otherwise it is left out of the run, reported
            (``toolset_unavailable``) and logged at WARNING on the
            ``starweaver`` logger.
    """

    initialization_timeout_ms: int | None = None
    read_timeout_ms: int | None = None
    exit_timeout_ms: int | None = None
    enter_before_prepare: bool = True
    exit_after_run: bool = True
    fail_on_unavailable: bool = False

    def __post_init__(self) -> None:
        for key in ("initialization_timeout_ms", "read_timeout_ms", "exit_timeout_ms"):
            _optional_int(getattr(self, key), key)
        for key in ("enter_before_prepare", "exit_after_run", "fail_on_unavailable"):
            if not isinstance(getattr(self, key), bool):
                raise TypeError(f"{key} must be a bool")


#: How many runs a ``ToolsetFactory(per_run_step=False)`` keeps values for.
_CACHED_RUNS = 128

ToolLike = Union[Tool[..., Any], BaseTool, ClientTool, Callable[..., Any]]


def lifecycle_policy_spec(policy: ToolsetLifecyclePolicy) -> dict[str, Any]:
    """The policy as the runtime reads it; defaults are left out (the
    runtime owns them)."""
    spec: dict[str, Any] = {}
    for key in ("initialization_timeout_ms", "read_timeout_ms", "exit_timeout_ms"):
        if getattr(policy, key) is not None:
            spec[key] = getattr(policy, key)
    if not policy.enter_before_prepare:
        spec["enter_before_prepare"] = False
    if not policy.exit_after_run:
        spec["exit_after_run"] = False
    if policy.fail_on_unavailable:
        spec["fail_on_unavailable"] = True
    return spec


class ToolsetPreparation:
    """What a dynamic toolset offers for one run step: ``tools`` (Tools,
    BaseTools, ClientTools or functions), ``instructions`` (a str or several)
    and whole ``toolsets`` (Toolsets, with their combinators, or other
    dynamic toolsets, which are prepared in turn without their lifecycle)."""

    def __init__(
        self,
        tools: Iterable[ToolLike] | None = None,
        instructions: str | Iterable[str] | None = None,
        toolsets: Iterable[Toolset | AbstractToolset] | None = None,
    ) -> None:
        self.tools: list[ToolLike] = list(tools or [])
        if isinstance(instructions, str):
            instructions = [instructions]
        self.instructions: list[str] = [str(i) for i in (instructions or []) if str(i).strip()]
        self.toolsets: list[Toolset | AbstractToolset] = list(toolsets or [])
        for ts in self.toolsets:
            if not isinstance(ts, (Toolset, AbstractToolset)):
                raise TypeError(f"ToolsetPreparation toolsets must be toolsets, got {type(ts).__name__}")

    def __repr__(self) -> str:
        return (
            f"ToolsetPreparation(tools={len(self.tools)}, instructions={len(self.instructions)}, "
            f"toolsets={[ts.name for ts in self.toolsets]!r})"
        )


class AbstractToolset:
    """A toolset whose inventory Python code decides at run time.

    Override any of (each may be sync or async):

    - ``enter(ctx)``: before the toolset is first read in a run.
    - ``exit(ctx)``: when the run ends, whatever its outcome.
    - ``get_tools(ctx)`` / ``get_instructions(ctx)``: the tools and
      instructions of a step.
    - ``prepare(ctx)``: a ``ToolsetPreparation`` (or a ``Toolset``) for a
      step; by default ``get_tools`` plus ``get_instructions``.
    - ``refresh(ctx)``: replaces the first ``prepare`` of a run continued
      after a pause (a HITL resume, same ``run_id``); by default ``prepare``.

    It is read before every model request of a run (``per_run_step``); its
    ``lifecycle_policy`` bounds and shapes the phases. Wrappers (``prefixed``,
    ``filtered``, ``with_metadata``, ``approval_required``, ...) return a
    ``Toolset`` the runtime prepares through this one.
    """

    #: Read before every model request (False: once per run).
    per_run_step: bool = True

    def __init__(
        self,
        name: str | None = None,
        *,
        id: str | None = None,  # noqa: A002 - the public SDK's name
        max_retries: int | None = None,
        timeout_ms: int | None = None,
        lifecycle_policy: ToolsetLifecyclePolicy | None = None,
    ) -> None:
        if name is None:
            name = type(self).__name__
        if not isinstance(name, str) or not name.strip():
            raise ValueError("toolset name must be a non-empty string")
        if lifecycle_policy is not None and not isinstance(lifecycle_policy, ToolsetLifecyclePolicy):
            raise TypeError("lifecycle_policy must be a ToolsetLifecyclePolicy")
        self.name = name
        self.id = id
        self.max_retries = _optional_int(max_retries, "max_retries")
        self.timeout_ms = _optional_int(timeout_ms, "timeout_ms")
        self.lifecycle_policy = lifecycle_policy

    # -- phases, to override ------------------------------------------------

    # Each phase may be overridden by a plain or an async method: the runtime
    # awaits what a phase returns when it is awaitable.

    def enter(self, ctx: ToolsetContext) -> None | Awaitable[None]:
        """Set up what the toolset needs in a run (nothing by default)."""
        return None

    def exit(self, ctx: ToolsetContext) -> None | Awaitable[None]:
        """Release what ``enter`` set up (nothing by default)."""
        return None

    def get_tools(self, ctx: ToolsetContext) -> Iterable[ToolLike] | Awaitable[Iterable[ToolLike]]:
        """The tools of ctx's step (none by default)."""
        return []

    def get_instructions(self, ctx: ToolsetContext) -> str | Iterable[str] | None | Awaitable[Any]:
        """The instructions of ctx's step (none by default)."""
        return None

    def prepare(self, ctx: ToolsetContext) -> ToolsetPreparation | Toolset | Awaitable[ToolsetPreparation | Toolset]:
        """The toolset for ctx's step: ``get_tools`` plus ``get_instructions``."""
        return self._prepare_from_parts(ctx)

    def refresh(self, ctx: ToolsetContext) -> ToolsetPreparation | Toolset | Awaitable[ToolsetPreparation | Toolset]:
        """The toolset for the first step of a resumed run: ``prepare``."""
        return self.prepare(ctx)

    async def _prepare_from_parts(self, ctx: ToolsetContext) -> ToolsetPreparation:
        tools = await _call(self.get_tools, ctx)
        instructions = await _call(self.get_instructions, ctx)
        return ToolsetPreparation(tools=tools, instructions=instructions)

    # -- as a Toolset ---------------------------------------------------------

    def with_lifecycle(self, policy: ToolsetLifecyclePolicy | None = None) -> Toolset:
        """This toolset as a ``Toolset`` under ``policy`` (its own
        ``lifecycle_policy`` when None)."""
        if policy is not None and not isinstance(policy, ToolsetLifecyclePolicy):
            raise TypeError("policy must be a ToolsetLifecyclePolicy")
        return _DynamicToolset(self, policy if policy is not None else self.lifecycle_policy)

    def _as_toolset(self) -> Toolset:
        return self.with_lifecycle(None)

    def prefixed(self, prefix: str) -> Toolset:
        """See ``Toolset.prefixed``."""
        return self._as_toolset().prefixed(prefix)

    def filtered(self, **kwargs: Any) -> Toolset:
        """See ``Toolset.filtered``."""
        return self._as_toolset().filtered(**kwargs)

    def renamed(self, names: Mapping[str, str]) -> Toolset:
        """See ``Toolset.renamed``."""
        return self._as_toolset().renamed(names)

    def with_metadata(self, metadata: Mapping[str, Any] | None = None, /, **extra: Any) -> Toolset:
        """See ``Toolset.with_metadata``."""
        return self._as_toolset().with_metadata(metadata, **extra)

    def prepared(self, prepare: Any) -> Toolset:
        """See ``Toolset.prepared``."""
        return self._as_toolset().prepared(prepare)

    def approval_required(self, names: Iterable[str] | str = "*") -> Toolset:
        """See ``Toolset.approval_required``."""
        return self._as_toolset().approval_required(names)

    def deferred(self, names: Iterable[str] | str = "*") -> Toolset:
        """See ``Toolset.deferred``."""
        return self._as_toolset().deferred(names)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class PythonDynamicToolset(AbstractToolset):
    """The public base for dynamic toolsets written in Python (the same as
    ``AbstractToolset``)."""


class ToolsetFactory(AbstractToolset):
    """A dynamic toolset made by a function: ``factory(ctx)`` (sync or async)
    returns a ``Toolset``, a dynamic toolset, a ``ToolsetPreparation``, or a
    list of toolsets and tools. With ``per_run_step=True`` it is called before
    every model request; with False once per ``run_id``: the runtime reads
    it once per run, and a run resumed after a pause (same ``run_id``) gets
    the cached value (the last ``_CACHED_RUNS`` runs are kept)."""

    def __init__(
        self,
        factory: Callable[[ToolsetContext], Any],
        *,
        name: str | None = None,
        id: str | None = None,  # noqa: A002 - the public SDK's name
        per_run_step: bool = True,
        max_retries: int | None = None,
        timeout_ms: int | None = None,
        lifecycle_policy: ToolsetLifecyclePolicy | None = None,
    ) -> None:
        if not callable(factory):
            raise TypeError("factory must be callable")
        if not isinstance(per_run_step, bool):
            raise TypeError("per_run_step must be a bool")
        super().__init__(
            name if name is not None else getattr(factory, "__name__", "toolset_factory"),
            id=id,
            max_retries=max_retries,
            timeout_ms=timeout_ms,
            lifecycle_policy=lifecycle_policy,
        )
        self.factory = factory
        self.per_run_step = per_run_step
        self._cache: collections.OrderedDict[str, Any] = collections.OrderedDict()

    async def prepare(self, ctx: ToolsetContext) -> Any:
        """What the factory returns for ctx (cached per run id when not
        per run step)."""
        if self.per_run_step or not ctx.run_id:
            return await _call(self.factory, ctx)
        if ctx.run_id in self._cache:
            self._cache.move_to_end(ctx.run_id)
            return self._cache[ctx.run_id]
        value = await _call(self.factory, ctx)
        self._cache[ctx.run_id] = value
        while len(self._cache) > _CACHED_RUNS:
            self._cache.popitem(last=False)
        return value

    def __call__(self, ctx: ToolsetContext) -> Any:
        """Calls the factory, so a decorated function stays callable."""
        return self.factory(ctx)


@overload
def toolset_factory(factory: Callable[[ToolsetContext], Any], /) -> ToolsetFactory: ...


@overload
def toolset_factory(
    factory: None = None,
    /,
    *,
    name: str | None = None,
    id: str | None = None,  # noqa: A002
    per_run_step: bool = True,
    max_retries: int | None = None,
    timeout_ms: int | None = None,
    lifecycle_policy: ToolsetLifecyclePolicy | None = None,
) -> Callable[[Callable[[ToolsetContext], Any]], ToolsetFactory]: ...


def toolset_factory(factory: Callable[[ToolsetContext], Any] | None = None, /, **options: Any) -> Any:
    """``ToolsetFactory`` as a decorator, bare or with its options."""

    def decorate(f: Callable[[ToolsetContext], Any]) -> ToolsetFactory:
        return ToolsetFactory(f, **options)

    return decorate if factory is None else decorate(factory)


# -- the bridge's side --------------------------------------------------------

_ids = itertools.count(1)
# Dynamic toolsets by the callback id the runtime sends back; the specs that
# name them (agents' and runs' catalogs) keep them alive.
_registry: weakref.WeakValueDictionary[int, _Handle] = weakref.WeakValueDictionary()


class _Handle:
    """One dynamic toolset as the runtime refers to it."""

    def __init__(self, toolset: AbstractToolset) -> None:
        self.toolset = toolset
        self.id = next(_ids)
        _registry[self.id] = self

    async def outcome(
        self, kind: str, ctx: ToolsetContext, refresh: bool, adopt: Callable[[Catalog], None]
    ) -> dict[str, Any]:
        """The answer to a toolset item; never raises for user errors
        (KeyboardInterrupt/SystemExit and outside cancellation pass)."""
        ts = self.toolset
        phase = {
            "toolset_enter": "enter",
            "toolset_exit": "exit",
            "toolset_prepare": "refresh" if refresh else "prepare",
        }
        if kind not in phase:
            return {"ok": False, "message": f"unknown toolset item kind {kind!r}"}
        try:
            if kind == "toolset_enter":
                await _call(ts.enter, ctx)
                return {"ok": True}
            if kind == "toolset_exit":
                await _call(ts.exit, ctx)
                return {"ok": True}
            value = await _call(ts.refresh if refresh else ts.prepare, ctx)
            return await _prepared(ts, value, ctx, adopt)
        except asyncio.CancelledError:
            raise
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - a failing phase is reported, never raised into the loop
            return {"ok": False, "message": f"{phase[kind]}() raised {type(exc).__name__}: {exc}"}


def lookup(callback_id: int) -> _Handle | None:
    return _registry.get(callback_id)


async def _resolve(
    ts: AbstractToolset, value: Any, ctx: ToolsetContext
) -> tuple[list[ToolLike], list[str], list[Toolset]]:
    """A phase's value as (tools, instructions, static toolsets); nested
    dynamic toolsets are prepared in turn."""
    tools: list[ToolLike] = []
    instructions: list[str] = []
    toolsets: list[Toolset] = []

    async def add(v: Any) -> None:
        if v is None:
            return
        if isinstance(v, ToolsetPreparation):
            tools.extend(v.tools)
            instructions.extend(v.instructions)
            for member in v.toolsets:
                await add(member)
        elif isinstance(v, _DynamicToolset):
            toolsets.append(await v.static(ctx))
        elif isinstance(v, Toolset):
            toolsets.append(v)
        elif isinstance(v, AbstractToolset):
            toolsets.append(await _DynamicToolset(v, None).static(ctx))
        elif isinstance(v, (Tool, BaseTool, ClientTool)) or callable(v):
            tools.append(v)
        elif isinstance(v, Iterable) and not isinstance(v, (str, bytes, Mapping)):
            for item in v:
                await add(item)
        else:
            raise TypeError(
                f"toolset {ts.name!r} must prepare a ToolsetPreparation, toolsets or tools, got {type(v).__name__}"
            )

    await add(value)
    return tools, instructions, toolsets


async def _prepared(
    ts: AbstractToolset, value: Any, ctx: ToolsetContext, adopt: Callable[[Catalog], None]
) -> dict[str, Any]:
    tools, instructions, toolsets = await _resolve(ts, value, ctx)
    catalog = Catalog()
    out = {
        "ok": True,
        "tools": [catalog.tool_spec(as_tool(t)) for t in tools],
        "instructions": instructions,
        "toolsets": [catalog.toolset_spec(m) for m in toolsets],
    }
    # The run must know the tools before the runtime can call them.
    adopt(catalog)
    return out


class _DynamicToolset(Toolset):
    """A dynamic toolset as a ``Toolset``: its spec names the toolset by a
    callback id, and the runtime asks for its phases (see ``_Handle``). It
    has the wrappers of every Toolset."""

    def __init__(self, dynamic: AbstractToolset, policy: ToolsetLifecyclePolicy | None) -> None:
        super().__init__(dynamic.name, id=dynamic.id, max_retries=dynamic.max_retries, timeout_ms=dynamic.timeout_ms)
        self.dynamic = dynamic
        self.policy = policy
        self._handle = _Handle(dynamic)

    def _extra_spec(self, keep: Callable[[Any], None]) -> dict[str, Any]:
        spec = super()._extra_spec(keep)
        keep(self._handle)
        spec["dynamic"] = {"callback": self._handle.id, "per_step": bool(self.dynamic.per_run_step)}
        if self.policy is not None:
            policy = lifecycle_policy_spec(self.policy)
            if policy:
                spec["lifecycle"] = policy
        return spec

    async def static(self, ctx: ToolsetContext) -> Toolset:
        """This toolset prepared for ctx as a plain Toolset, with the same
        combinators (for a dynamic toolset inside a preparation)."""
        tools, instructions, toolsets = await _resolve(self.dynamic, await _call(self.dynamic.prepare, ctx), ctx)
        from starweaver.toolsets import CombinedToolset  # noqa: PLC0415

        own = Toolset(self.name, tools=tools, instructions=instructions, id=self.id)
        base: Toolset = CombinedToolset(self.name, [own, *toolsets]) if toolsets else own
        base.approval_selectors = list(self.approval_selectors)
        base.deferred_selectors = list(self.deferred_selectors)
        self._give_layers(base)
        return base

    def tool_definitions(self) -> list[dict[str, Any]]:
        """None: a dynamic toolset's tools are known in runs only."""
        return []

    def __repr__(self) -> str:
        return f"DynamicToolset({self.name!r})"
