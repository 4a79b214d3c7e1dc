"""The agent context: what a session knows beyond its messages.

Each session has one (``session.context``): metadata, notes, per-tool
capability grants, the tool-search loaded state, a task list and a handoff
message, plus context events that tools and toolsets publish (they reach
a running agent's stream as ``custom`` events; those published between
runs wait for the next run or for ``take_events()``). The exportable part
travels with ``session.export_state()``. The runtime keeps the context;
this object reads and changes it.

Grants decide what a tool with a Strict dependency profile receives: the
intersection of what it declares and what it was granted, nothing without
a grant (see ``ToolDependencies``)::

    session.context.grant_tool_capabilities(
        "send_mail", ToolCapabilityGrant(host_capabilities=["smtp"])
    )
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Union

from . import _capi
from .errors import StateError

__all__ = (
    "CONTEXT_CAPABILITIES",
    "AgentContext",
    "ContextEvent",
    "ContextHandle",
    "HandoffHandle",
    "TasksHandle",
    "ToolCapabilityGrant",
    "ToolSearchHandle",
    "UsageHandle",
)

CONTEXT_CAPABILITIES = (
    "starweaver.context.handoff",
    "starweaver.context.tasks",
    "starweaver.context.usage",
    "starweaver.context.tool_search",
)
"""The context capabilities a tool can declare (``ToolDependencies(context_capabilities=...)``)."""


def _names(value: Iterable[str] | str, what: str) -> tuple[str, ...]:
    names = (value,) if isinstance(value, str) else tuple(value)
    if any(not isinstance(n, str) or not n for n in names):
        raise TypeError(f"{what} must be non-empty strings")
    return names


@dataclasses.dataclass(frozen=True)
class ToolCapabilityGrant:
    """The authority a host grants one tool.

    Arguments:
        host_capabilities: Named dependencies (keys of a ``deps=`` mapping)
            the tool may receive.
        context_capabilities: Context capabilities it may receive (see
            ``CONTEXT_CAPABILITIES``; unknown names are ignored).
        shell_environment: Whether it may receive the shell environment.
    """

    host_capabilities: tuple[str, ...] = ()
    context_capabilities: tuple[str, ...] = ()
    shell_environment: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "host_capabilities", _names(self.host_capabilities, "host_capabilities"))
        object.__setattr__(self, "context_capabilities", _names(self.context_capabilities, "context_capabilities"))
        if not isinstance(self.shell_environment, bool):
            raise TypeError("shell_environment must be a bool")

    def to_dict(self) -> dict[str, Any]:
        """The grant as the runtime reads it."""
        return {
            "host_capabilities": list(self.host_capabilities),
            "context_capabilities": list(self.context_capabilities),
            "shell_environment": self.shell_environment,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCapabilityGrant:
        return cls(
            tuple(data.get("host_capabilities") or ()),
            tuple(data.get("context_capabilities") or ()),
            bool(data.get("shell_environment", False)),
        )


@dataclasses.dataclass(frozen=True)
class ContextEvent:
    """A context event: ``kind`` (``tool_search_loaded``, ``toolset_closed``,
    ...) and its ``payload``."""

    kind: str
    payload: Mapping[str, Any]


class AgentContext:
    """A session's agent context (``session.context``). Each read asks the
    runtime, so it sees changes tools made during runs."""

    __slots__ = ("_named", "_owner", "_session")

    def __init__(self, session: int, named: dict[str, Any] | None = None, owner: object = None) -> None:
        self._session = session
        self._named = named
        # What keeps the session handle alive (its SessionRef), for
        # ``agent.availability_report(context=...)``.
        self._owner = owner

    def _op(self, op: str, **fields: Any) -> dict[str, Any]:
        return _capi.session_context(self._session, {"op": op, **fields})

    def to_dict(self) -> dict[str, Any]:
        """The exportable state (what ``export_state()`` carries) and usage."""
        return self._op("get")

    def insert_named_dependency(self, name: str, value: Any) -> None:
        """Adds a named dependency to every later run of the session: runs
        see it as a key of their ``deps=`` mapping (the run's own ``deps=``
        wins per name), and tools request it by name in their profile.
        Host configuration: not exported.

        Raises:
            StateError: on a context reached from a tool (``ctx.agent_context``),
                which cannot change the run's dependencies.
        """
        if self._named is None:
            raise StateError("named dependencies are inserted through session.context, not from a tool")
        if not isinstance(name, str) or not name:
            raise ValueError("a named dependency needs a non-empty name")
        self._named[name] = value

    @property
    def named_dependencies(self) -> Mapping[str, Any]:
        """The named dependencies inserted through ``session.context``."""
        return MappingProxyType(dict(self._named or {}))

    @property
    def metadata(self) -> Mapping[str, Any]:
        return MappingProxyType(self.to_dict().get("metadata") or {})

    def set_metadata(self, key: str, value: Any) -> None:
        """Sets one metadata key (JSON values); None deletes it."""
        self._op("set_metadata", key=key, value=value)

    @property
    def notes(self) -> Mapping[str, str]:
        return MappingProxyType(self.to_dict().get("notes") or {})

    def set_note(self, key: str, text: str) -> None:
        """Sets a note; an empty text deletes it."""
        self._op("set_note", key=key, text=text)

    def grant_tool_capabilities(self, tool: str, grant: ToolCapabilityGrant) -> None:
        """Installs the grant of the tool registered as ``tool`` in this
        session, replacing an earlier one (and the agent's default)."""
        if not isinstance(grant, ToolCapabilityGrant):
            raise TypeError("grant must be a ToolCapabilityGrant")
        self._op("grant", tool=tool, grant=grant.to_dict())

    def revoke_tool_capabilities(self, tool: str) -> None:
        """Removes the session's grant of ``tool`` (the agent's default, if
        any, applies again)."""
        self._op("revoke", tool=tool)

    @property
    def tool_capability_grants(self) -> Mapping[str, ToolCapabilityGrant]:
        """The session's own grants (the agent's defaults are not listed)."""
        raw = self.to_dict().get("tool_capability_grants") or {}
        return MappingProxyType({name: ToolCapabilityGrant.from_dict(g) for name, g in raw.items()})

    @property
    def tool_search_loaded_tools(self) -> tuple[str, ...]:
        return tuple(self.to_dict().get("tool_search_loaded_tools") or ())

    @property
    def tool_search_loaded_namespaces(self) -> tuple[str, ...]:
        return tuple(self.to_dict().get("tool_search_loaded_namespaces") or ())

    def record_tool_search_loaded(
        self, tools: Iterable[str] = (), namespaces: Iterable[str] = ()
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Marks tools and namespaces loaded (visible from the next model
        turn); returns those that were not loaded before."""
        added = self._op(
            "record_tool_search_loaded",
            tools=list(_names(tools, "tools")),
            namespaces=list(_names(namespaces, "namespaces")),
        )["added"]
        return tuple(added["tools"]), tuple(added["namespaces"])

    def clear_tool_search_loaded(self) -> None:
        """Forgets every loaded tool and namespace."""
        self._op("clear_tool_search_loaded")

    @property
    def tasks(self) -> tuple[Mapping[str, str], ...]:
        return tuple(MappingProxyType(t) for t in self.to_dict().get("tasks") or ())

    def add_task(self, title: str) -> Mapping[str, str]:
        """Appends a pending task and returns it (``id``, ``title``, ``status``)."""
        return MappingProxyType(self._op("add_task", text=title)["added"])

    def set_task_status(self, task_id: str, status: str) -> None:
        """Raises ValueError for an unknown task."""
        self._op("set_task_status", id=task_id, status=status)

    @property
    def handoff_message(self) -> str:
        return str(self.to_dict().get("handoff_message") or "")

    def set_handoff_message(self, text: str) -> None:
        self._op("set_handoff_message", text=text)

    def set_shell_environment(self, env: Mapping[str, str]) -> None:
        """Sets the shell environment tools may receive by their profile
        (Legacy always; Filtered when declared; Strict when declared and
        granted). Host configuration: never exported."""
        self._op("set_shell_environment", env=dict(env))

    @property
    def usage(self) -> Mapping[str, int]:
        """Requests and tokens the session's runs consumed."""
        return MappingProxyType(self.to_dict().get("usage") or {})

    def publish(self, kind: str, payload: Mapping[str, Any] | None = None) -> None:
        """Publishes a context event (JSON payload): a ``custom`` event of
        the session's running run, else queued for the next run."""
        if not isinstance(kind, str) or not kind:
            raise ValueError("an event needs a kind")
        self._op("publish", kind=kind, payload=dict(payload or {}))

    def take_events(self) -> list[ContextEvent]:
        """The events published while no run was active (a host call such
        as a tool-search preload); the queue empties."""
        events = self._op("take_events").get("events") or []
        return [ContextEvent(e["kind"], MappingProxyType(e.get("payload") or {})) for e in events]

    def __repr__(self) -> str:
        return f"AgentContext({self.to_dict()!r})"


class _Handle:
    __slots__ = ("_context",)

    def __init__(self, session: int) -> None:
        self._context = AgentContext(session)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ToolSearchHandle(_Handle):
    """``starweaver.context.tool_search``: the tool-search loaded state."""

    __slots__ = ()

    def loaded(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The loaded tools and namespaces."""
        d = self._context.to_dict()
        return tuple(d.get("tool_search_loaded_tools") or ()), tuple(d.get("tool_search_loaded_namespaces") or ())

    def record(
        self, tools: Iterable[str] = (), namespaces: Iterable[str] = ()
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Marks tools and namespaces loaded; returns the newly loaded ones."""
        return self._context.record_tool_search_loaded(tools, namespaces)

    def publish(self, kind: str, payload: Mapping[str, Any] | None = None) -> None:
        self._context.publish(kind, payload)


class TasksHandle(_Handle):
    """``starweaver.context.tasks``: the session's task list."""

    __slots__ = ()

    def tasks(self) -> tuple[Mapping[str, str], ...]:
        return self._context.tasks

    def add(self, title: str) -> Mapping[str, str]:
        return self._context.add_task(title)

    def set_status(self, task_id: str, status: str) -> None:
        self._context.set_task_status(task_id, status)


class UsageHandle(_Handle):
    """``starweaver.context.usage``: what the session's runs consumed."""

    __slots__ = ()

    def usage(self) -> Mapping[str, int]:
        return self._context.usage


class HandoffHandle(_Handle):
    """``starweaver.context.handoff``: the message for whoever continues."""

    __slots__ = ()

    def message(self) -> str:
        return self._context.handoff_message

    def set(self, text: str) -> None:
        self._context.set_handoff_message(text)


ContextHandle = Union[ToolSearchHandle, TasksHandle, UsageHandle, HandoffHandle]

_HANDLES: dict[str, type[_Handle]] = {
    "starweaver.context.tool_search": ToolSearchHandle,
    "starweaver.context.tasks": TasksHandle,
    "starweaver.context.usage": UsageHandle,
    "starweaver.context.handoff": HandoffHandle,
}


def handle_for(name: str, session: int) -> ContextHandle | None:
    """The handle of one context capability, None for an unknown name."""
    cls = _HANDLES.get(name)
    return cls(session) if cls is not None else None  # type: ignore[return-value]
