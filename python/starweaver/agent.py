"""Agents, sessions and run results over the Go runtime."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypedDict, Union, overload

from typing_extensions import ParamSpec, TypeVar, Unpack

from starweaver import _capi
from starweaver._catalog import (
    AgentTool,
    Catalog,
    ToolLike,
    as_tool,
    instructions_list,
    next_id,
    tags_list,
    toolsets_list,
)
from starweaver._deprecated import forwarding
from starweaver._launcher import RunLauncher
from starweaver._policy import ToolErrorPolicy, policy_spec
from starweaver._runs import DepsT, MessageHistory, OutputT, RunResult, SessionRef, settle_runs
from starweaver.context import ToolContext
from starweaver.errors import AgentError, instance_of_loaded
from starweaver.hooks import Hook
from starweaver.models import FallbackModel, ProviderModel, infer_model, is_model, model_objects
from starweaver.output import Output, OutputMode, is_text_type
from starweaver.session import AgentSession, SessionHITL, environment_spec_of
from starweaver.settings import ModelSettings, settings_spec
from starweaver.tools import DestructiveDecider, DestructivePolicy, Effect, Tool, ToolOptions
from starweaver.toolsets import Toolset
from starweaver.usage import UsageLimits, usage_limits_spec

# What only some agents use (messages and their pydantic models, human in the
# loop, stores, artifacts, intents, streaming, environments) and what only a
# run uses (asyncio, the bridge) is imported where it is first needed, so
# ``from starweaver import create_agent`` stays cheap.
if TYPE_CHECKING:
    from starweaver._bridge import EventCallback
    from starweaver._testmodels import FunctionModel, TestModel
    from starweaver.agent_context import AgentContext, ToolCapabilityGrant
    from starweaver.artifacts import ArtifactStore, OutputBudget, ToolArtifacts
    from starweaver.dynamic import AbstractToolset, ToolsetFactory
    from starweaver.environment import Environment
    from starweaver.handoffs import Handoff
    from starweaver.intents import ScopeKind, ToolIntents
    from starweaver.shell import LocalShell
    from starweaver.stores import EffectRecovery, SessionStore, Store
    from starweaver.streaming import AgentRun

__all__ = [
    "AGENT_OPTIONS",
    "Agent",
    "AgentOptions",
    "AvailabilityReport",
    "AgentSession",
    "Model",
    "RunOptions",
    "RunResult",
    "SessionHITL",
    "create_agent",
]

# Old names, for one release (see CHANGELOG.md).
if not TYPE_CHECKING:
    __getattr__ = forwarding(
        __name__,
        {
            "SessionHitl": "starweaver.session:SessionHITL",
        },
    )

Model = Union["TestModel", "FunctionModel", ProviderModel, FallbackModel, str]
"""A model object, or a model string such as ``"openai:gpt-4.1"`` (see ``starweaver.models``)."""

_P = ParamSpec("_P")
_R = TypeVar("_R")
# override()'s "not given", as None is a valid deps value.
_KEEP: Any = object()


class RunOptions(TypedDict, total=False):
    """The keywords of ``Agent.run`` after the prompt, for ``run_sync``."""

    tools: Iterable[ToolLike] | None
    toolsets: Iterable[Toolset | AbstractToolset] | None
    instructions: str | Iterable[str] | None
    metadata: Mapping[str, Any] | None
    on_event: EventCallback | None
    usage_limits: UsageLimits | None
    model_settings: ModelSettings | None
    message_history: MessageHistory | None
    deps: Any
    active_tags: Iterable[str] | None
    grants: Iterable[str] | None
    tool_error_policy: ToolErrorPolicy | None


#: The environment variable that gives agents built without ``state_key=``
#: their key for signing and verifying exported session state.
_STATE_KEY_ENV = "STARWEAVER_STATE_KEY"


def _grants_spec(grants: Mapping[str, ToolCapabilityGrant] | None) -> dict[str, Any] | None:
    if not grants:
        return None
    from starweaver.agent_context import ToolCapabilityGrant  # noqa: PLC0415 - see the imports above

    for name, g in grants.items():
        if not isinstance(g, ToolCapabilityGrant):
            raise TypeError(f"tool_capability_grants[{name!r}] must be a ToolCapabilityGrant")
    return {name: g.to_dict() for name, g in grants.items()}


def _shell_spec(shell: LocalShell | None) -> dict[str, Any] | None:
    if shell is None:
        return None
    from starweaver.shell import shell_spec  # noqa: PLC0415 - see the imports above

    return shell_spec(shell)


class AgentOptions(TypedDict, total=False):
    """The keywords of ``Agent``, ``create_agent`` and
    ``create_agent_runtime`` beside ``model``, ``output_type`` and ``deps``
    (see ``create_agent`` for what each means): the one list of agent
    options. An option whose spec field has its name and takes its value as
    given needs nothing else here; one that needs converting has a line in
    ``_SPEC_FIELDS``."""

    tools: Iterable[ToolLike] | None
    toolsets: Iterable[Toolset | AbstractToolset] | None
    instructions: str | Iterable[str] | None
    system_prompt: str | None
    name: str | None
    max_retries: int | None
    timeout_ms: int | None
    default_effect: Effect | None
    sequential: bool
    max_concurrency: int | None
    unavailable_tools: str
    active_tags: Iterable[str] | None
    max_steps: int | None
    usage_limits: UsageLimits | None
    metadata: Mapping[str, Any] | None
    approval_required_tools: Iterable[str] | None
    state_key: str | None
    model_settings: ModelSettings | None
    output_mode: OutputMode
    output_retries: int | None
    hooks: Iterable[Hook]
    eager_dispatch: bool
    trace_content: bool
    session_store: SessionStore | None
    artifact_store: ArtifactStore | None
    artifact_scope: str | None
    artifact_resolve_limit: int | None
    max_tool_output_bytes: int | None
    output_budget: OutputBudget | None
    tool_error_policy: ToolErrorPolicy | None
    effect_journal: Store | None
    effect_recovery: EffectRecovery | None
    tool_capability_grants: Mapping[str, ToolCapabilityGrant] | None
    shell: LocalShell | None
    environment: Environment | None
    batch_tool: bool
    intent_journal: Store | None
    handoffs: Iterable[Agent[Any, Any] | Handoff] | None
    subagents: Iterable[Agent[Any, Any] | AgentTool] | None
    spawn_concurrency: int | None
    destructive_policy: DestructivePolicy | DestructiveDecider | None
    plugins: Iterable[str] | None
    projection_resolver: Callable[[Any], Any] | None


#: The names of every agent option (the keys of ``AgentOptions``).
AGENT_OPTIONS: frozenset[str] = frozenset(AgentOptions.__annotations__)

# An option left out counts as this value (None when not listed).
_DEFAULTS: dict[str, Any] = {
    "sequential": False,
    "unavailable_tools": "skip",
    "output_mode": "tool",
    "hooks": (),
    "eager_dispatch": True,
    "trace_content": False,
    "batch_tool": False,
}

# The options ``artifacts_spec`` turns into the spec's artifact fields, in
# its parameter order.
_ARTIFACT_OPTIONS = (
    "artifact_store",
    "artifact_scope",
    "artifact_resolve_limit",
    "max_tool_output_bytes",
    "output_budget",
)

# Options the agent itself reads: they need its catalogue or output, or
# they are not spec fields.
_HOST_OPTIONS = frozenset(
    {
        "tools",
        "toolsets",
        "instructions",
        "hooks",
        "output_mode",
        "trace_content",
        "handoffs",
        "subagents",
        "projection_resolver",
        *_ARTIFACT_OPTIONS,
    }
)


def _store_handle(option: str, kind: str, examples: str) -> Callable[[Any], int | None]:
    def handle(store: Any) -> int | None:
        if store is None:
            return None
        if not instance_of_loaded(store, "starweaver.stores", kind):
            raise TypeError(f"{option} must be a starweaver.stores store ({examples}), got {type(store).__name__}")
        return int(store._native_handle())

    return handle


def _projection_tool(resolver: Callable[[Any], Any]) -> Tool[..., Any]:
    """The host function Go calls to materialise a projected value: its
    arguments are ``{"ref": reference}``, its return the value."""

    def materialize(ref: Any) -> Any:
        return resolver(ref)

    return Tool(materialize, name="projection_resolver")


def _plugin_ids(ids: Any) -> list[str]:
    if isinstance(ids, str) or not all(isinstance(i, str) for i in ids):
        raise TypeError("plugins must be an iterable of plugin ids (str)")
    return list(ids)


def _destructive_policy(value: Any) -> str | None:
    # A callable is the agent's to register (a host function), not a field.
    if value is None or callable(value):
        return None
    if not isinstance(value, str):
        raise TypeError(f"destructive_policy must be a str or a callable, got {type(value).__name__}")
    return value


def _destructive_tool(decide: DestructiveDecider) -> Tool[..., Any]:
    """The host function Go calls to decide a destructive call: its
    arguments are ``{"arguments": the call's arguments}``, its return the
    policy."""

    def destructive_policy(ctx: ToolContext, arguments: Any) -> Any:
        return decide(ctx, arguments)

    return Tool(destructive_policy, name="destructive_policy")


def _effect_recovery(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"effect_recovery must be a str, got {type(value).__name__}")
    return value


# Options whose spec field has another name or a converted value: option ->
# (spec field, converter); a converter's None leaves the field out. Every
# other option (not in _HOST_OPTIONS) is a spec field of the same name, sent
# as given when it is not None: adding such an option to ``AgentOptions`` and
# to Go's agent spec is all it takes.
_SPEC_FIELDS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "session_store": (
        "session_store",
        _store_handle("session_store", "SessionStore", "SqliteSessionStore, PostgresSessionStore"),
    ),
    "effect_journal": ("effect_journal", _store_handle("effect_journal", "Store", "SqliteStore, PostgresStore")),
    "effect_recovery": ("effect_recovery", _effect_recovery),
    "destructive_policy": ("destructive_policy", _destructive_policy),
    "plugins": ("plugins", lambda ids: None if ids is None else _plugin_ids(ids)),
    "intent_journal": ("intent_journal", _store_handle("intent_journal", "Store", "SqliteStore, PostgresStore")),
    "sequential": ("sequential", bool),
    "eager_dispatch": ("eager_dispatch", lambda on: None if on else False),
    "batch_tool": ("batch_tool", lambda on: True if on else None),
    "usage_limits": ("usage_limits", usage_limits_spec),
    "metadata": ("metadata", lambda metadata: dict(metadata) if metadata else None),
    "approval_required_tools": ("approval_required_tools", lambda names: list(names) if names else None),
    "state_key": ("state_key", lambda key: key if key is not None else os.environ.get(_STATE_KEY_ENV) or None),
    "model_settings": ("settings", settings_spec),
    "active_tags": ("active_tags", lambda tags: None if tags is None else tags_list(tags)),
    "tool_error_policy": ("tool_error_policy", policy_spec),
    "tool_capability_grants": ("tool_capability_grants", _grants_spec),
    "shell": ("shell", _shell_spec),
    "environment": ("environment", environment_spec_of),
}


def _as_handoff(value: Any) -> Handoff:
    """A ``handoffs=`` entry as a Handoff (an Agent gets the defaults)."""
    from starweaver.handoffs import Handoff, handoff  # noqa: PLC0415 - see the imports above

    h = value if isinstance(value, Handoff) else handoff(value)
    if not isinstance(h.agent, Agent):
        raise TypeError(f"handoffs take agents and handoff(agent, ...), got {type(h.agent).__name__}")
    return h


def _receiving(h: Handoff) -> Agent[Any, Any]:
    """The agent h hands off to (checked by _as_handoff)."""
    assert isinstance(h.agent, Agent)
    return h.agent


@dataclasses.dataclass(frozen=True)
class AvailabilityReport:
    """What the first model request of a run would offer, and why each
    other tool is not offered (``agent.availability_report()``).

    Attributes:
        definitions: The tool definitions the model would receive (after
            ``prepare=`` callbacks), sorted by name.
        available: The names of those tools.
        unavailable: The tools a run reports in its ``tools_unavailable``
            event (and refuses under ``unavailable_tools="fail"``): hidden by
            ``available=``, by an active tag in their ``hidden_by_tags`` or
            by ``prepare=`` returning None.
        reasons: For every tool not offered, why: ``"unavailable"``,
            ``"hidden_by_tags"``, ``"prepare_hidden"``, ``"not_loaded"``
            (tool search has not loaded it; not in ``unavailable``) or
            ``"not_granted"`` (the run's ``grants`` leave it out; not in
            ``unavailable``).
        instructions: The instructions the request would carry.
    """

    definitions: tuple[Mapping[str, Any], ...]
    available: tuple[str, ...]
    unavailable: tuple[str, ...]
    reasons: Mapping[str, str]
    instructions: str

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AvailabilityReport:
        """The report from the runtime's JSON."""
        return cls(
            definitions=tuple(data.get("definitions") or ()),
            available=tuple(data.get("available") or ()),
            unavailable=tuple(data.get("unavailable") or ()),
            reasons=MappingProxyType(dict(data.get("reasons") or {})),
            instructions=str(data.get("instructions") or ""),
        )


class Agent(Generic[DepsT, OutputT]):
    """A model paired with tools and policies; reusable across runs.

    Build one with ``create_agent``. ``async with agent`` is supported for
    symmetry with sessions; runs never outlive the call that awaits them.
    """

    def __init__(
        self, *, model: Model, output_type: Any = str, deps: Any = None, **options: Unpack[AgentOptions]
    ) -> None:
        unknown = sorted(set(options) - AGENT_OPTIONS)
        if unknown:
            raise TypeError(f"unknown agent option(s): {', '.join(unknown)}")
        given: dict[str, Any] = {key: options.get(key, _DEFAULTS.get(key)) for key in AGENT_OPTIONS}
        if isinstance(model, str):
            model = infer_model(model)
        if not is_model(model):
            raise TypeError(
                "model must be a model string ('openai:gpt-4.1'), a starweaver.models model, "
                f"a TestModel or a FunctionModel, got {type(model).__name__}"
            )
        #: Where the agent keeps its sessions by id (None: in memory only).
        self.session_store: SessionStore | None = given["session_store"]
        #: Where the agent journals its tool calls that may change the world
        #: (None: no journal).
        self.effect_journal: Store | None = given["effect_journal"]
        #: Where the agent keeps the intents its tools declare (None: tools
        #: may not declare intents).
        self.intent_journal: Store | None = given["intent_journal"]
        # The options that become spec fields are converted (and checked)
        # before the catalogue is built, as they were when each had a line.
        converted = {key: _SPEC_FIELDS[key][1](given[key]) for key in _SPEC_FIELDS}
        self._catalog = Catalog()
        # What the agent's tools receive when it runs as another's tool.
        self._catalog.deps = dict(deps or {}) if deps is None or isinstance(deps, Mapping) else deps
        handle = model._native_handle()
        self._catalog.models.update(model_objects(model))
        self._output: Output | None = None
        output_mode = given["output_mode"]
        output_spec: dict[str, Any] | None = None
        if not is_text_type(output_type):
            self._output = Output(output_type, mode=output_mode)
            validator_id = next_id()
            self._catalog.tools[validator_id] = self._output.tool
            output_spec = self._output.spec(validator_id)
        elif output_mode != "tool":
            raise ValueError("output_mode needs an output_type other than str")
        spec: dict[str, Any] = {
            "model": handle,
            "tools": [self._catalog.tool_spec(as_tool(t)) for t in (given["tools"] or [])],
            "toolsets": [self._catalog.toolset_spec(ts) for ts in toolsets_list(given["toolsets"])],
            "instructions": instructions_list(given["instructions"]),
        }
        # Tools reach the store through their context (ctx.artifacts).
        self._artifacts: ToolArtifacts | None = None
        artifact_options = [given[key] for key in _ARTIFACT_OPTIONS]
        if any(option is not None for option in artifact_options):
            from starweaver.artifacts import ToolArtifacts, artifacts_spec  # noqa: PLC0415 - see the imports above

            spec.update(artifacts_spec(*artifact_options))
            if given["artifact_store"] is not None and given["artifact_scope"] is not None:
                self._artifacts = ToolArtifacts(given["artifact_store"], given["artifact_scope"])
        for key, value in given.items():
            if key in _HOST_OPTIONS or key in _SPEC_FIELDS:
                continue
            # A plain option: the spec field of its name, when set.
            if value is not None:
                spec[key] = value
        for key, value in converted.items():
            if value is not None:
                spec[_SPEC_FIELDS[key][0]] = value
        if output_spec is not None:
            spec["output"] = output_spec
        if callable(given["destructive_policy"]):
            decider_id = next_id()
            self._catalog.tools[decider_id] = _destructive_tool(given["destructive_policy"])
            spec["destructive_decider"] = decider_id
        resolver = given["projection_resolver"]
        if resolver is not None:
            if not callable(resolver):
                raise TypeError(f"projection_resolver must be callable, got {type(resolver).__name__}")
            resolver_id = next_id()
            self._catalog.tools[resolver_id] = _projection_tool(resolver)
            spec["projection_resolver"] = resolver_id
        hooks = [self._catalog.hook_spec(h) for h in given["hooks"]]
        if hooks:
            spec["hooks"] = hooks
        self._handoffs: list[Handoff] = []
        # The spec entries of the handoffs, without the receiving agents'
        # handles (see _handoff_specs).
        self._handoff_entries: list[dict[str, Any]] = []
        if given["handoffs"]:
            self._handoffs = [_as_handoff(h) for h in given["handoffs"]]
            self._handoff_entries = [self._handoff_entry(h) for h in self._handoffs]
            spec["handoffs"] = self._handoff_specs()
        if given["subagents"]:
            spec["subagents"] = [self._subagent_spec(s) for s in given["subagents"]]
        # What the agent's sessions and live runs start their runs through.
        self._launcher = RunLauncher(
            name=given["name"],
            model=model,
            # A mapping holds named dependencies; any other object is the typed one.
            deps=dict(deps or {}) if deps is None or isinstance(deps, Mapping) else deps,
            catalog=self._catalog,
            output=self._output,
            artifacts=self._artifacts,
            trace_content=bool(given["trace_content"]),
        )
        # The run's result names the agent that answered last (handoffs).
        self._launcher.owner = weakref.ref(self)
        self._spec = spec
        self._handle = _capi.agent_new(spec)
        self._release = weakref.finalize(self, _capi.release, self._handle)

    def _subagent_spec(self, value: Any) -> dict[str, Any]:
        """The spec of a ``subagents=`` entry: an agent (its name routes to
        it) or ``agent.as_tool(...)`` (its name, description and grants)."""
        route = value.as_tool() if isinstance(value, Agent) else value
        if not isinstance(route, AgentTool):
            raise TypeError(f"subagents take agents and agent.as_tool(...), got {type(value).__name__}")
        self._catalog.children.append(route.catalog)
        self._catalog.agent_tools.append(route)
        spec: dict[str, Any] = {"agent": route.handle(), "name": route.name, "description": route.description}
        if route.grants is not None:
            spec["grants"] = route.grants
        if route.deps:
            spec["deps"] = route.deps
        return spec

    def _handoff_entry(self, h: Handoff) -> dict[str, Any]:
        """The spec's entry for h but the receiving agent's handle: its
        catalogue is joined to this agent's, and the callbacks are host
        tools."""
        from starweaver.handoffs import input_filter_host, on_handoff_host  # noqa: PLC0415 - see the imports above

        self._catalog.children.append(_receiving(h)._catalog)  # noqa: SLF001 - an agent reads another agent's catalogue
        entry: dict[str, Any] = {}
        if h.tool_name_override is not None:
            entry["tool_name"] = h.tool_name_override
        if h.tool_description_override is not None:
            entry["description"] = h.tool_description_override
        if h.on_handoff is not None:
            tid = next_id()
            self._catalog.tools[tid] = Tool(on_handoff_host(h.on_handoff), name="on_handoff")
            entry["on_handoff"] = tid
        if h.input_filter is not None:
            tid = next_id()
            self._catalog.tools[tid] = Tool(input_filter_host(h.input_filter), name="input_filter")
            entry["input_filter"] = tid
        return entry

    def _handoff_specs(self) -> list[dict[str, Any]]:
        """The spec's handoffs, each naming its agent by its current handle
        (the native agent of a receiving agent that gained tools or
        handoffs since is a new one)."""
        return [
            {"agent": h.agent._native_handle(), **entry}  # noqa: SLF001 - an agent reads another agent's handle
            for h, entry in zip(self._handoffs, self._handoff_entries, strict=True)
        ]

    def _refresh_handoffs(self) -> None:
        """Rebuild the native agent when a receiving agent changed since it
        was built (it gained a tool, say), so runs hand off to the agent as
        it is now."""
        if not self._handoffs:
            return
        specs = self._handoff_specs()
        if specs != self._spec.get("handoffs"):
            self._respec({**self._spec, "handoffs": specs})

    def _reachable_named(self, name: str | None) -> Agent[Any, Any] | None:
        """The agent named name among this one and those its handoffs reach,
        breadth first (this one first), as the runtime finds it."""
        seen: set[int] = {id(self)}
        queue: list[Agent[Any, Any]] = [self]
        while queue:
            agent = queue.pop(0)
            if (agent.name or None) == (name or None):
                return agent
            for h in agent._handoffs:  # noqa: SLF001 - an agent reads another agent's handoffs
                if id(h.agent) not in seen:
                    seen.add(id(h.agent))
                    queue.append(_receiving(h))
        return None

    @property
    def handoffs(self) -> list[Handoff]:
        """The agent's handoffs (``handoffs=``), each as a ``Handoff``."""
        return list(self._handoffs)

    @property
    def model(self) -> TestModel | FunctionModel | ProviderModel | FallbackModel:
        """The agent's model (``override(model=...)`` swaps it for a while)."""
        return self._launcher.model

    @model.setter
    def model(self, model: TestModel | FunctionModel | ProviderModel | FallbackModel) -> None:
        self._launcher.model = model

    @property
    def name(self) -> str | None:
        """The agent's name (``name=``), in its trace spans."""
        return self._launcher.name

    @name.setter
    def name(self, name: str | None) -> None:
        self._launcher.name = name

    @property
    def deps(self) -> Any:
        """The agent's dependencies: a dict of named ones, or the typed object;
        each run's ``deps`` are merged over them."""
        return self._launcher.deps

    @deps.setter
    def deps(self, deps: Any) -> None:
        self._launcher.deps = deps

    def _native_handle(self) -> int:
        self._refresh_handoffs()
        return int(self._handle)

    def toolset(self, func: Any = None, /, **options: Any) -> Any:
        """Decorator adding ``func(ctx)`` to the agent as a ``ToolsetFactory``
        (bare, or with its options: ``per_run_step``, ``name``, ``id``,
        ``lifecycle_policy``, ...); returns the factory, which stays callable.
        Sessions started before keep the toolsets they had."""

        def decorate(f: Any) -> ToolsetFactory:
            from starweaver.dynamic import ToolsetFactory  # noqa: PLC0415 - see the imports above

            factory = ToolsetFactory(f, **options)
            added = self._catalog.toolset_spec(factory.with_lifecycle(None))
            self._respec({**self._spec, "toolsets": [*self._spec["toolsets"], added]})
            return factory

        return decorate if func is None else decorate(func)

    def as_tool(
        self,
        *,
        name: str | None = None,
        description: str = "",
        grants: Iterable[str] | None = None,
        deps: Iterable[str] | None = None,
    ) -> AgentTool:
        """This agent as a tool of another agent: pass the result in the
        other's ``tools=[...]``.

        The tool takes ``{"prompt": str}``; a call runs this agent in a fresh
        session with that prompt and returns its output (the structured
        value when the agent has an ``output_type``). ``name`` defaults to
        the agent's name; ``grants``, when given, are the only tools of this
        agent its runs as a tool may call (a name it lacks raises
        ``ValueError`` when the other agent is made). The run's usage is
        added to the caller's ``result.usage`` (and it runs within what the
        caller has left of its ``usage_limits``); its events reach the
        caller's ``on_event`` with ``"agent_name"`` set, and
        ``result.usage_by_agent`` splits the usage per agent. A failed run
        gives the caller's model an error return naming the agent. A run
        that stops to wait for approvals, deferred results or answers makes
        the caller's run wait: its ``approvals`` and ``deferred`` list them
        with their ``path`` of agents, and resuming the caller resumes this
        agent's run where it stopped (with a session store, in another
        process too). With a ``session_store`` of its own, each call's run
        is kept under the call's idempotency key, so a caller recovered
        after a crash continues it instead of running it again.

        Authority only narrows: this agent's tools receive this agent's own
        ``deps``, plus those of the caller's named dependencies that
        ``deps`` names (a caller's dependency it does not name never
        reaches them; a typed ``deps`` object of this agent takes none).

        The same tool, passed in another agent's ``subagents=[...]``, is a
        child-agent route that agent's ``spawn_agent`` tool starts.
        """
        tool_name = name if name is not None else self.name
        if not tool_name:
            raise ValueError("as_tool needs a name: the agent has none (name= on create_agent or as_tool)")
        return AgentTool(
            handle=lambda: self._handle,
            catalog=self._catalog,
            name=tool_name,
            description=description,
            grants=None if grants is None else [str(g) for g in grants],
            agent=self,
            deps=None if deps is None else [str(d) for d in deps],
        )

    def __repr__(self) -> str:
        tools = [t["definition"]["name"] for t in self._spec["tools"] if "definition" in t]
        parts = [f"name={self.name!r}"] if self.name else []
        parts.append(f"model={self.model!r}")
        parts.append(f"tools={tools!r}")
        if self._spec["toolsets"]:
            parts.append(f"toolsets={len(self._spec['toolsets'])}")
        if self._output is not None:
            kind = self._output.type
            parts.append(f"output_type={getattr(kind, '__name__', None) or repr(kind)}")
        return f"Agent({', '.join(parts)})"

    def _respec(self, spec: dict[str, Any]) -> None:
        """Rebuilds the native agent from spec; sessions started before keep
        the agent they had."""
        handle = _capi.agent_new(spec)
        self._release()
        self._spec, self._handle = spec, handle
        self._release = weakref.finalize(self, _capi.release, handle)

    def _add_tool(
        self, f: Callable[..., Any], options: ToolOptions, *, context: bool, decorator: str
    ) -> Tool[..., Any]:
        t = Tool(f, **options)
        if t.takes_ctx != context:
            other = "@agent.tool_plain" if context else "@agent.tool"
            wants = "takes the context first (ctx: ToolContext)" if context else "takes no context"
            raise TypeError(f"{decorator} adds a tool that {wants}; {t.name!r} does not: use {other}")
        self._respec({**self._spec, "tools": [*self._spec["tools"], self._catalog.tool_spec(t)]})
        return t

    @overload
    def tool(self, func: Callable[_P, _R], /, **options: Unpack[ToolOptions]) -> Tool[_P, _R]: ...

    @overload
    def tool(
        self, func: None = None, /, **options: Unpack[ToolOptions]
    ) -> Callable[[Callable[_P, _R]], Tool[_P, _R]]: ...

    def tool(self, func: Callable[..., Any] | None = None, /, **options: Unpack[ToolOptions]) -> Any:
        """Decorator adding a tool whose first parameter is its
        ``ToolContext`` (``ctx``) to this agent, bare or with ``@tool``'s
        options; returns the ``Tool``. For a tool without the context use
        ``tool_plain``. Sessions started before keep the tools they had."""

        def decorate(f: Callable[..., Any]) -> Tool[..., Any]:
            return self._add_tool(f, options, context=True, decorator="@agent.tool")

        return decorate if func is None else decorate(func)

    @overload
    def tool_plain(self, func: Callable[_P, _R], /, **options: Unpack[ToolOptions]) -> Tool[_P, _R]: ...

    @overload
    def tool_plain(
        self, func: None = None, /, **options: Unpack[ToolOptions]
    ) -> Callable[[Callable[_P, _R]], Tool[_P, _R]]: ...

    def tool_plain(self, func: Callable[..., Any] | None = None, /, **options: Unpack[ToolOptions]) -> Any:
        """Decorator adding a tool that takes no ``ToolContext`` to this
        agent (see ``tool``)."""

        def decorate(f: Callable[..., Any]) -> Tool[..., Any]:
            return self._add_tool(f, options, context=False, decorator="@agent.tool_plain")

        return decorate if func is None else decorate(func)

    @contextlib.contextmanager
    def override(self, *, model: Model | None = None, deps: Any = _KEEP) -> Iterator[Agent[DepsT, OutputT]]:
        """Within the ``with`` block, runs and sessions started from this
        agent use ``model`` and/or ``deps`` instead of the agent's own:
        tests swap the model of an agent built deep in the application
        without rebuilding it. Sessions started inside keep the override
        after the block; the agent's own model and deps come back on exit,
        also when the block raises."""
        saved = (self.model, self.deps, self._spec, self._handle, self._release)
        if model is not None:
            if isinstance(model, str):
                model = infer_model(model)
            if not is_model(model):
                raise TypeError(
                    f"model must be a model string, a starweaver.models model, a TestModel or a FunctionModel, "
                    f"got {type(model).__name__}"
                )
            handle = model._native_handle()
            self._catalog.models.update(model_objects(model))
            spec = {**self._spec, "model": handle}
            self._handle = _capi.agent_new(spec)
            self._spec, self.model = spec, model
            self._release = weakref.finalize(self, _capi.release, self._handle)
        if deps is not _KEEP:
            self.deps = dict(deps or {}) if deps is None or isinstance(deps, Mapping) else deps
        try:
            yield self
        finally:
            if self._handle != saved[3]:
                self._release()
            self.model, self.deps, self._spec, self._handle, self._release = saved

    def run_sync(self, prompt: str, **options: Unpack[RunOptions]) -> RunResult[OutputT]:
        """``run`` for code without an event loop: runs ``prompt`` to its end
        on a new loop and returns its result (same options, same errors).
        Inside a running loop (a notebook cell, an ``async def``) it raises
        ``RuntimeError``: there, ``await agent.run(...)``."""
        import asyncio  # noqa: PLC0415 - see the imports above

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.run(prompt, **options))
        raise RuntimeError("run_sync() cannot run inside a running event loop: use `await agent.run(...)`")

    def session_from_state(
        self, state: Mapping[str, Any] | str | bytes, *, allow_unsigned: bool = False
    ) -> AgentSession[DepsT, OutputT]:
        """Restore a session exported with ``AgentSession.export_state()``,
        possibly in another process; it uses this agent's current tools and
        policies.

        What each mode guarantees:

        - Signed state (exported by an agent with a state key: ``state_key=``
          or ``STARWEAVER_STATE_KEY``; its digest starts ``hmac-sha256:``)
          is accepted only by an agent with the same key. Whoever lacks the
          key cannot change the history, the paused calls or their arguments
          without the restore failing.
        - Unsigned state (exported without a key; ``sha256:``) is refused by
          an agent with a key, always (a keyed agent accepts only signed
          state, so a stripped signature does not pass), and by an agent
          without a key unless ``allow_unsigned=True``. Its digest is a
          checksum anyone can recompute, so with ``allow_unsigned=True``
          the state is **unprotected**: an edit made by whoever could write
          it (tool arguments included) is accepted and runs. Use it only
          for state that never left your control.

        Either way state is a value, not a claim on the run: without a
        ``session_store`` every copy of a waiting state restores to a waiting
        session, so an old copy can be resumed again after another copy was
        resumed; keep track of which copy is current yourself. With a
        ``session_store`` the store decides: only the copy of the session's
        current stored state runs or resumes, and any other copy raises
        ``StateError`` (code ``"session_conflict"``) before it runs.

        Raises:
            StateError: state of another shape (not the JSON object
                ``export_state()`` returns, or missing one of its fields),
                of another version, modified state, unsigned state without
                ``allow_unsigned=True`` or given to an agent with a key,
                state signed with another key (or signed, for an agent
                without a key), or a waiting run naming tools this agent
                lacks.
            TypeError: ``state`` is not a mapping, ``str`` or bytes.
        """
        if isinstance(state, Mapping):
            data = json.dumps(state).encode()
        elif isinstance(state, str):
            data = state.encode()
        elif isinstance(state, (bytes, bytearray, memoryview)):
            data = bytes(state)
        else:
            raise TypeError(
                "session_from_state() takes the state export_state() returned: a dict, "
                f"or its JSON as str or bytes, not {type(state).__name__}"
            )
        handle = _capi.session_restore(self._handle, data, allow_unsigned=allow_unsigned)
        return AgentSession(self, _launcher=self._launcher, _ref=SessionRef(handle))

    async def run(
        self,
        prompt: str,
        *,
        tools: Iterable[ToolLike] | None = None,
        toolsets: Iterable[Toolset | AbstractToolset] | None = None,
        instructions: str | Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        on_event: EventCallback | None = None,
        usage_limits: UsageLimits | None = None,
        model_settings: ModelSettings | None = None,
        message_history: MessageHistory | None = None,
        deps: Any = None,
        active_tags: Iterable[str] | None = None,
        grants: Iterable[str] | None = None,
        tool_error_policy: ToolErrorPolicy | None = None,
    ) -> RunResult[OutputT]:
        """Run ``prompt`` in a fresh session.

        ``message_history`` (an earlier result's ``messages``, typed or as
        dicts) makes the fresh session continue that conversation: the model
        sees those messages before ``prompt``, and the result's ``messages``
        start with them.

        ``tools``, ``toolsets``, ``instructions``, ``usage_limits`` and
        ``model_settings`` apply to this run only (the set fields of
        ``usage_limits`` and the keys of ``model_settings`` replace the
        agent's); ``active_tags`` are added to the agent's for this run
        (a tool whose ``hidden_by_tags`` holds one is unavailable).
        ``on_event`` receives each event (``run_start``, ``tool_call``,
        ``tool_return``, ``custom``, ``run_complete``, ...) on the loop; an
        ``async def`` callback is awaited, in event order, before the run
        returns. A callback never breaks the run: what it raises is
        logged on the ``starweaver`` logger. ``deps`` are this run's
        dependencies: a mapping is merged over the agent's (the run's entry
        wins per name); any other object replaces the agent's.

        ``grants`` are the only tools this run may call (``None``, the
        default: every tool the run registers; ``"*"`` grants all; ``[]``
        none). The others are not offered to the model, and a call that
        names one anyway gets a ``user_error`` return ("tool X is not
        granted to this run") before anything of the tool runs: no hook,
        no validation, no tool code. The output tool and ``read_artifact``
        need no grant. ``tool_error_policy`` overrides the agent's for
        this run (see ``create_agent``).

        Raises:
            ToolRetryLimitExceeded: a tool used up its correction budget, or
                the model kept calling a tool that does not exist (the
                message says it is unknown).
            UsageLimitExceeded: the run would pass a usage limit (by default
                50 model requests).
            OutputRetryLimitExceeded: the model's structured answers kept
                failing validation past the output-retry budget.
            ModelError: the model failed or answered with garbage, or
                refused to give the structured answer (the message names
                the refusal).
            ToolOutputNotVisible: a tool returned ``ToolOutput.host_only``
                output, which the run refused to show its model.
            ToolFailed: under ``tool_error_policy="fail_fast"``, a tool call
                failed (``.tool``, ``.tool_call_id``, ``.kind``; the message
                holds the full error).
            ArtifactError: an artifact in a tool output could not be read
                into the request (``ArtifactInvalid`` for a reference of
                another scope or over the resolve limit), or spilling an
                output failed (``StoreUnavailableError`` too).
            AgentError: the run failed for another reason (an output
                validator raised something other than ``ModelRetry``, or
                ``grants`` name a tool the run does not register).
            ValueError: a usage limit is 0 or less, a model setting is
                out of range, ``tool_error_policy`` is neither policy, or
                ``message_history`` is malformed (an unknown kind, a tool
                call without its return).
            TypeError: ``grants`` is a string rather than a list of names.
        """
        # The session lives as long as the result needs its messages.
        session = self._new_session(message_history)
        return await self._launcher.run(
            session,
            prompt,
            tools=tools,
            toolsets=toolsets,
            instructions=instructions,
            metadata=metadata,
            on_event=on_event,
            usage_limits=usage_limits,
            model_settings=model_settings,
            deps=deps,
            active_tags=active_tags,
            grants=grants,
            tool_error_policy=tool_error_policy,
        )

    def run_stream(
        self,
        prompt: str,
        *,
        tools: Iterable[ToolLike] | None = None,
        toolsets: Iterable[Toolset | AbstractToolset] | None = None,
        instructions: str | Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        usage_limits: UsageLimits | None = None,
        model_settings: ModelSettings | None = None,
        message_history: MessageHistory | None = None,
        deps: Any = None,
        active_tags: Iterable[str] | None = None,
        grants: Iterable[str] | None = None,
        tool_error_policy: ToolErrorPolicy | None = None,
    ) -> AgentRun:
        """Start ``prompt`` in a fresh session as a live run (options as in
        ``run``) and return at once; see ``starweaver.streaming``. Call it
        with an event loop running.

        Raises:
            RuntimeError: no event loop is running.
            ValueError: as ``run``, for an invalid option or history.
        """
        session = self._new_session(message_history)
        request, catalog = self._launcher.request(
            prompt,
            tools,
            toolsets,
            instructions,
            metadata,
            True,
            usage_limits,
            model_settings,
            active_tags,
            grants,
            tool_error_policy,
        )
        return self._launcher.stream(session, request, catalog, deps)

    async def availability_report(
        self,
        *,
        context: AgentContext | None = None,
        tools: Iterable[ToolLike] | None = None,
        toolsets: Iterable[Toolset | AbstractToolset] | None = None,
        instructions: str | Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        deps: Any = None,
        active_tags: Iterable[str] | None = None,
        grants: Iterable[str] | None = None,
    ) -> AvailabilityReport:
        """Preview what the model would be offered by a run with these
        options (as ``run`` takes them), without running it: the runtime
        prepares the run's tools and toolsets as it does before a run's
        first request (``available=`` and ``prepare=`` callbacks and
        toolset preparations are asked with the run's context) and reports
        the definitions it would send and why each other tool is hidden.
        No model is asked and no tool runs. ``context`` is a session's
        ``session.context``: the preview reads that session (its metadata,
        named dependencies, capability grants and tool-search loaded
        state); without it, a fresh session's.

        Raises:
            AgentError: ``grants`` name a tool the run does not register,
                or a toolset could not be prepared.
            StateError: the session of ``context`` is running or waits
                for a resume.
            TypeError: ``context`` is not a session's ``AgentContext``.
        """
        if context is None:
            session = self._new_session(None)
        else:
            owner = getattr(context, "_owner", None)
            if not isinstance(owner, SessionRef):
                raise TypeError("context must be a session's AgentContext (session.context)")
            session = owner
        request, catalog = self._launcher.request(
            "", tools, toolsets, instructions, metadata, False, None, None, active_tags, grants, None
        )
        request["availability"] = True
        done = await self._launcher.step(session, request, deps, catalog)
        return AvailabilityReport.from_dict(done.get("availability") or {})

    async def definitions_for_context(
        self,
        *,
        context: AgentContext | None = None,
        tools: Iterable[ToolLike] | None = None,
        toolsets: Iterable[Toolset | AbstractToolset] | None = None,
        metadata: Mapping[str, Any] | None = None,
        deps: Any = None,
        active_tags: Iterable[str] | None = None,
        grants: Iterable[str] | None = None,
    ) -> list[dict[str, Any]]:
        """The tool definitions the model would be offered by a run with
        these options: ``availability_report(...).definitions``.

        Raises:
            AgentError: as ``availability_report``.
            StateError: as ``availability_report``.
            TypeError: as ``availability_report``.
        """
        report = await self.availability_report(
            context=context,
            tools=tools,
            toolsets=toolsets,
            metadata=metadata,
            deps=deps,
            active_tags=active_tags,
            grants=grants,
        )
        return [dict(d) for d in report.definitions]

    def output_validator(self, func: Any) -> Any:
        """Register a function that checks (and may change) each structured
        answer after pydantic validated it, as pydantic-ai's
        ``@agent.output_validator``: ``f(value)`` or ``f(ctx, value)``, sync
        (run in the worker threads of sync tools) or async (run on the
        loop); it returns the value to keep and may raise ``ModelRetry`` to
        send the model a retry prompt within the output-retry budget.
        Validators run in registration order, for runs started afterwards.
        Returns ``func`` unchanged.

        Raises:
            TypeError: the agent has no ``output_type``, or func is not callable.
        """
        if self._output is None:
            raise TypeError("output_validator needs an agent with an output_type other than str")
        self._output.add_validator(func)
        return func

    def _new_session(self, message_history: MessageHistory | None, session_id: str | None = None) -> SessionRef:
        self._refresh_handoffs()
        if message_history is None and session_id is None:
            return SessionRef(_capi.session_new(self._handle))
        from starweaver.messages import messages_to_json  # noqa: PLC0415 - see the imports above

        history = messages_to_json(message_history) if message_history is not None else []
        return SessionRef(_capi.session_from_messages(self._handle, history, session_id))

    def session(self, *, message_history: MessageHistory | None = None) -> AgentSession[DepsT, OutputT]:
        """Start a session: a conversation whose runs share history.
        ``message_history`` starts it from earlier messages (see ``run``).

        Raises:
            ValueError: ``message_history`` is malformed.
        """
        return AgentSession(self, _launcher=self._launcher, _ref=self._new_session(message_history))

    def tool_intents(self, session_id: str, scope: str, *, scope_kind: ScopeKind = "process") -> ToolIntents:
        """The host ingress of execution scope ``scope`` (a process id, or a
        turn id with ``scope_kind="turn"``) in session ``session_id``, over
        the agent's ``intent_journal``: ``.key(call_id, index)``,
        ``.submit(key, intent)`` and ``.settle_parent_end()``.

        Raises:
            AgentError: the agent has no ``intent_journal``.
        """
        if self.intent_journal is None:
            raise AgentError("the agent has no intent_journal (create_agent(intent_journal=SqliteStore(...)))")
        from starweaver.intents import ToolIntents  # noqa: PLC0415 - see the imports above

        return ToolIntents(self, session_id, scope, scope_kind)

    async def open_session(self, session_id: str, *, allow_unsigned: bool = False) -> AgentSession[DepsT, OutputT]:
        """Load the session ``session_id`` from the agent's session store, as
        its last run left it (in this process or another); each call loads
        a new ``AgentSession``. The stored state is verified as
        ``session_from_state`` verifies it: without a ``state_key`` it is
        unsigned and needs ``allow_unsigned=True``.

        A session whose claimed resume never finished opens with
        ``claimed_resume`` set and refuses to run until ``abandon_resume()``.
        A session whose worker stopped while its run ran tool calls opens
        with ``in_flight`` set and refuses to run until ``recover()`` (with
        an ``effect_journal``) or ``abandon_in_flight()``.

        Raises:
            TypeError: ``session_id`` is not a string.
            SessionNotFoundError: the store holds no such session.
            StoreUnavailableError: the store failed.
            StateError: the stored state is refused (unsigned, signed with
                another key, or another session's).
            AgentError: the agent has no ``session_store``.
        """
        if not isinstance(session_id, str):
            raise TypeError(f"session_id must be a str, got {type(session_id).__name__}")

        def load() -> SessionRef:
            return SessionRef(_capi.agent_open_session(self._handle, session_id, allow_unsigned=allow_unsigned))

        import asyncio  # noqa: PLC0415 - loaded with the first run

        # The store may be a server: wait for it off the event loop.
        return AgentSession(self, _launcher=self._launcher, _ref=await asyncio.to_thread(load))

    async def __aenter__(self) -> Agent[DepsT, OutputT]:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Settle the agent's runs on this loop: leaving on an exception
        interrupts them (and waits briefly for their end), leaving normally
        waits until they end."""
        await settle_runs(list(self._launcher.runs), exc, "the agent's context")


@overload
def create_agent(
    *, model: Model, output_type: type[OutputT], deps: DepsT = ..., **options: Unpack[AgentOptions]
) -> Agent[DepsT, OutputT]: ...


@overload
def create_agent(*, model: Model, deps: DepsT = ..., **options: Unpack[AgentOptions]) -> Agent[DepsT, str]: ...


@overload
def create_agent(
    *, model: Model, output_type: Any, deps: DepsT = ..., **options: Unpack[AgentOptions]
) -> Agent[DepsT, Any]: ...


def create_agent(
    *, model: Model, output_type: Any = str, deps: Any = None, **options: Unpack[AgentOptions]
) -> Agent[Any, Any]:
    """Build an agent. Raw callables are accepted as tools.

    ``state_key`` signs exported session state (HMAC-SHA256) and verifies it
    on restore; when it is None the ``STARWEAVER_STATE_KEY`` environment
    variable, if set and not empty, is the key. An empty ``state_key=""`` is
    refused (``AgentError``): leave it out for unsigned state. Without a key,
    exported state is unsigned and ``session_from_state`` refuses it unless
    ``allow_unsigned=True``; an agent with a key accepts only state signed
    with it, ``allow_unsigned=True`` or not.

    ``max_steps`` bounds the model requests of each run (the request limit;
    50 by default). ``usage_limits`` sets that and the tool-call and token
    limits of every run (see ``UsageLimits``); its set fields replace
    ``max_steps``. Calls of unknown tool names spend the model-correction
    budget (``max_retries``, 3 by default) per name.

    ``default_effect`` is the effect class of tools that declare none (see
    ``@tool(effect=)``). Undeclared tools keep the old rule, an unexpected
    failure is re-run within ``max_retries`` whatever the tool does; with
    ``default_effect="unknown"`` they fail closed instead: run once, a
    failure reported as ambiguous.

    ``model_settings`` (see ``ModelSettings``) go with every model request;
    a run's own ``model_settings`` are merged over them.

    ``active_tags`` are capability tags active in every run: a tool whose
    ``hidden_by_tags`` holds one is unavailable. Unavailable tools (hidden by
    a tag, an ``available=`` check or a ``prepare=`` callback) are left out
    of the model request and reported in a ``custom`` event of kind
    ``tools_unavailable``; with ``unavailable_tools="fail"`` the run fails
    instead (``AgentError``) before the model is asked.

    ``output_type`` makes each run end with a validated value in
    ``result.output`` instead of text (``str``, the default): a pydantic
    model, a dataclass, a TypedDict, a union or any other type pydantic can
    validate (non-object types travel wrapped as ``{"response": ...}``). The
    model gives it by calling an output tool (``output_mode="tool"``, the
    default) or, with ``output_mode="native"``, as JSON text in the
    provider's JSON-schema response format. Invalid answers go back to the
    model as retry prompts, at most ``output_retries`` times (by default
    ``max_retries``, else 3; pydantic-ai defaults to 1). When the response
    that calls the output tool also calls other tools, the output wins and
    the other calls are not executed (pydantic-ai's "early" strategy).
    A text answer where the output tool was expected is a retry too.

    ``hooks`` are global execution hooks (``starweaver.Hook``): they run
    around every executed call, Go tools included, before the tool's own
    hooks on input and after them on output. ``deps`` is a mapping of named
    dependencies or one typed object (``ToolContext[MyDeps]``); see
    ``ToolDependencies`` for what each tool receives.

    ``eager_dispatch`` (on by default) starts a tool call as soon as its
    arguments have streamed, while a streaming model is still answering;
    returns still reach history in model order, and sequential tools,
    repeated names and tools needing approval wait for the whole response.
    ``False`` waits for every response to end first.

    ``handoffs`` are agents the model may transfer the run to, each an
    ``Agent`` or ``handoff(agent, ...)`` (``starweaver.handoffs``): the model
    sees a ``transfer_to_<agent name>`` tool per handoff, and a call hands the
    run to that agent, which answers from then on over the conversation so
    far (``input_filter`` decides what it reads); ``result.last_agent`` is the
    agent that answered last. A transfer tool named like another tool, or
    two of one name, raise ``AgentError``. See docs/agents.md.

    Runs are traced with OpenTelemetry when a global tracer provider is set
    (see ``starweaver.tracing``); ``trace_content=True`` adds tool arguments
    and results to the ``execute_tool`` spans.

    ``session_store`` (``starweaver.stores``: ``SqliteSessionStore(path)``,
    ``PostgresSessionStore(dsn)``) keeps the agent's sessions by id: every
    run's end is saved, ``agent.open_session(id)`` loads a session in any
    process sharing the store, and a waiting run is resumed at most once: a
    second resume (in this process or another, or from an old exported
    copy) raises ``StateError`` and runs nothing. Before a run's tool calls
    start, the session is saved with the run in flight, so a worker killed
    mid-run leaves a session that reports it (``session.in_flight``). Such
    an agent does not dispatch calls while a reply streams. Give the agents
    sharing a store the same ``state_key``.
    ``intent_journal`` (a store: ``SqliteStore(path)``, ``PostgresStore(dsn)``)
    keeps the intents tools declare (``return Done(value, intents=[...])``,
    see ``starweaver.intents``): after a call's final attempt its result and
    intents are committed, then each intent is realised once under a replay
    key of the session, the turn, the call id and its index; the outcomes
    are in the return's metadata under ``"starweaver_intents"`` and their
    lines follow what the model reads. A recovered run replays a committed
    call instead of running it. ``agent.tool_intents(session_id, scope)`` is
    the host ingress over the same journal.
    ``effect_journal`` (a store, the same as ``session_store`` or another)
    journals every call of a tool that may change the world (any tool not
    declared pure or read-only): it is recorded before it runs and, with its
    return, when it ends. A call met again replays its recorded return (its
    metadata says ``"starweaver_replayed": True``) instead of running; a
    call whose worker stopped while it ran is not run again but returns an
    error marked ``"starweaver_ambiguous": True`` (``effect_recovery=
    "retry_safe"`` runs it again when its class is safe to repeat). With a
    ``session_store`` too, each run is saved before it runs a batch of calls,
    so a session whose process stopped mid-run opens with ``in_flight`` set
    and is continued by ``await session.recover()``. See docs/durability.md.
    ``artifact_store`` (with ``artifact_scope``, a name such as
    ``"tenant.acme"``) gives tools a store for binary outputs through
    ``ctx.artifacts``; artifact references in tool outputs are read from it
    just before each model request (at most ``artifact_resolve_limit``
    bytes each, 16 MiB by default), so conversations and exported state
    keep references only. With a store, returns over the ``output_budget``
    (32 KiB of text by default) are spilled to it and the agent offers a
    ``read_artifact`` tool to page through them. ``max_tool_output_bytes``
    bounds one call's output (8 MiB by default; a larger one is an
    ``invalid_output`` error return). See docs/outputs.md.

    ``tool_error_policy`` says what a failed tool call does (a run's own
    ``tool_error_policy`` overrides it). ``"return_to_model"`` (the
    default): the model reads the call's error return and carries on.
    ``"fail_fast"``: a call failing with ``execution``, ``timeout``,
    ``user_error``, ``invalid_output`` or ``deferred_failed`` ends the run,
    once its batch ran, with ``ToolFailed``; corrections (``ModelRetry``,
    invalid arguments), ``Feedback``, approvals, deferrals and
    ``ToolOutput.model_error`` outputs are no failures. Either way, what the
    model reads of an error is redacted by the runtime (credentials in
    URLs and DSNs, tokens, API keys, secret-named values, tracebacks: only
    the exception's last line is kept); the full text stays in the
    return's ``private_metadata`` and in events and results. See
    docs/errors.md.

    ``tool_capability_grants`` maps tool names to the ``ToolCapabilityGrant``
    every session starts with: a tool with a Strict dependency profile
    receives what it declares only as far as its grant allows, nothing
    without one (``session.context.grant_tool_capabilities`` replaces a
    grant for one session). See docs/toolsets.md.

    ``shell`` (``starweaver.shell.LocalShell(root, policy=ShellPolicy(...))``)
    gives the agent's runs a local shell for ``shell_toolset()``: commands
    start in ``root``, each in its own process group, killed whole on
    timeout, when the run is cancelled and when the agent is released. See
    docs/environment.md.

    ``batch_tool=True`` offers the model the native ``batch`` tool: one call
    ``{"tool_calls": [{"tool": name, "parameters": {...}}, ...]}`` runs up to
    25 calls of the agent's other tools, in parallel where the batch rules
    allow, each through validation, hooks, timeouts and approval, and
    returns ``{"results": [{"index", "tool", "success", "duration_ms",
    "result"?, "error"?}]}`` in index order. Call ``i`` of the batch call
    ``P`` has ``ctx.tool_call_id == f"{P}:{i:02}"``. See docs/batch.md.
    It is the shorthand of ``plugins=["starweaver.batch"]``: ``plugins``
    installs built-in plugins by id, in order (an unknown id is refused).

    ``projection_resolver`` (``resolver(ref) -> value``)
    materialises projected values: an argument object
    ``{"__projection_ref__": ref}`` a host wrote into what the model sees is
    replaced by ``resolver(ref)`` before the call's hooks and validation,
    except in a tool's ``preserve_projected_refs_in_field`` argument; an
    exception from it is an ``invalid_arguments`` return. See docs/toolsets.md.

    ``destructive_policy`` says what a call of a tool declared
    ``effect="destructive"`` does before it runs: ``"approve"`` (the
    default) pauses it for a person's approval like ``ApprovalRequired``,
    ``"allow"`` runs it, ``"deny"`` never runs it and gives the model an
    ``approval_denied`` return. A callable ``(ctx, arguments) -> policy``
    decides each destructive call instead (``ctx.tool_name`` names the
    tool); if it raises, the call waits for approval. See docs/hitl.md.

    Raises:
        TypeError: ``session_store`` or ``effect_journal`` is not a store,
            or ``shell`` is not a ``LocalShell``.
        AgentError: duplicate tool names or an invalid configuration.
        ValueError: malformed schemas or options (a limit of 0 or less).
        StateError: ``session_store`` is closed.
    """
    return Agent(model=model, output_type=output_type, deps=deps, **options)
