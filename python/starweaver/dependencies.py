"""Dependency profiles: how much of a run's ``deps=`` a tool receives.

A tool declares its requirements with ``@tool(dependencies=ToolDependencies.strict("db"))``;
the declaration travels as the reserved ``starweaver_tool_dependencies``
definition metadata, which the runtime also reads (a batch mixing Legacy
tools with Filtered or Strict ones runs in model order). The rules are
core/tool's (``ParseDependencies`` and the call context's narrowing); the
runtime decides each call's authority and sends it with the call, and this
package only applies it to the Python ``deps=`` value (``narrow``):

- Legacy (no declaration, the default): the tool sees every dependency and
  the session's agent context (``ctx.agent_context``).
- Filtered: the tool sees a typed ``deps=`` object unchanged, but of a
  mapping of named dependencies only the names it declares.
- Strict: the tool sees only the named dependencies it declares *and* was
  granted (``ToolCapabilityGrant``, installed on the agent or the session's
  agent context); nothing without a grant; a typed object is withheld
  (``ctx.deps`` is then an empty mapping).

Context capabilities (``starweaver.context.*``) and the shell environment
follow the same rules. A present but malformed metadata value fails closed
to Strict with no names. The same narrowing applies to the tool's calls, to
its user-input preprocessor and to its approved re-runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

__all__ = ("METADATA_KEY", "DependencyProfile", "ToolDependencies", "merge_deps", "narrow")

METADATA_KEY = "starweaver_tool_dependencies"
"""The reserved definition metadata key holding a tool's requirements."""

DependencyProfile = Literal["legacy", "filtered", "strict"]

_PROFILES = ("legacy", "filtered", "strict")


@dataclasses.dataclass(frozen=True)
class ToolDependencies:
    """A tool's declared dependency requirements.

    Arguments:
        profile: ``"legacy"``, ``"filtered"`` or ``"strict"``.
        host_capabilities: The named dependencies (keys of a ``deps=``
            mapping) the tool asks for.
        shell_environment: Whether the tool asks for the shell environment.
        context_capabilities: The context capabilities it asks for
            (``starweaver.context.tool_search`` and the others listed in
            ``starweaver.agent_context.CONTEXT_CAPABILITIES``); asking for
            any makes its calls run in model order.

    Build it with ``ToolDependencies.filtered(...)`` or ``.strict(...)``
    rather than writing the metadata shape by hand.
    """

    profile: DependencyProfile = "legacy"
    host_capabilities: tuple[str, ...] = ()
    shell_environment: bool = False
    context_capabilities: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.profile not in _PROFILES:
            raise ValueError(f"profile must be one of {', '.join(_PROFILES)}, got {self.profile!r}")
        for field in ("host_capabilities", "context_capabilities"):
            names = tuple(getattr(self, field))
            if any(not isinstance(n, str) or not n for n in names):
                raise TypeError(f"{field} must be non-empty strings")
            object.__setattr__(self, field, names)

    @classmethod
    def legacy(cls) -> ToolDependencies:
        """Every dependency (the default of a tool that declares nothing)."""
        return cls("legacy")

    @classmethod
    def legacy_with_context_capabilities(cls, *capabilities: str) -> ToolDependencies:
        """Every dependency, plus the handles of these context capabilities."""
        return cls("legacy", context_capabilities=capabilities)

    @classmethod
    def filtered(
        cls, *names: str, shell_environment: bool = False, context_capabilities: tuple[str, ...] = ()
    ) -> ToolDependencies:
        """The typed ``deps=`` object, and only these named dependencies."""
        return cls("filtered", names, shell_environment, context_capabilities)

    @classmethod
    def strict(
        cls, *names: str, shell_environment: bool = False, context_capabilities: tuple[str, ...] = ()
    ) -> ToolDependencies:
        """Only these named dependencies, and only as far as the tool's grant
        allows (least authority)."""
        return cls("strict", names, shell_environment, context_capabilities)

    @classmethod
    def granted_filtered(cls, *names: str, shell_environment: bool = False) -> ToolDependencies:
        """Strict with no context capabilities: these names, as granted."""
        return cls("strict", names, shell_environment)

    def to_metadata_value(self) -> dict[str, Any]:
        """The value stored under ``METADATA_KEY``."""
        value: dict[str, Any] = {
            "profile": self.profile,
            "host_capabilities": list(self.host_capabilities),
            "shell_environment": self.shell_environment,
        }
        if self.context_capabilities:
            value["context_capabilities"] = list(self.context_capabilities)
        return value

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any] | None) -> ToolDependencies:
        """The requirements in definition metadata: Legacy when absent,
        Strict with no names when malformed (fail closed)."""
        if not metadata or METADATA_KEY not in metadata:
            return _LEGACY if cls is ToolDependencies else cls("legacy")
        raw = metadata[METADATA_KEY]
        closed = cls("strict")
        if not isinstance(raw, Mapping):
            return closed
        profile = raw.get("profile")
        names = raw.get("host_capabilities")
        shell = raw.get("shell_environment")
        if profile not in _PROFILES or not isinstance(shell, bool):
            return closed
        if names is None:
            names = []
        context = raw.get("context_capabilities", [])
        if not _names(names) or not _names(context):
            return closed
        return cls(profile, tuple(names), shell, tuple(context or ()))


# What a tool that declares nothing gets (frozen, so one serves every tool).
_LEGACY = ToolDependencies("legacy")


def narrow(deps: Any, authority: Mapping[str, Any] | None) -> Any:
    """What a call sees of a run's ``deps``, given the authority the
    runtime sent with the call (None: a Legacy call, which sees all)."""
    if authority is None or authority.get("profile") in (None, "", "legacy"):
        return deps
    names = authority.get("host_capabilities") or ()
    if isinstance(deps, Mapping):
        return MappingProxyType({n: deps[n] for n in names if n in deps})
    if authority.get("profile") == "filtered":
        return deps
    return MappingProxyType({})


def _names(value: Any) -> bool:
    """Whether value is a list of names as the runtime reads it (None is an
    empty list; an empty name is malformed)."""
    return value is None or (isinstance(value, list) and all(isinstance(n, str) and n for n in value))


def merge_deps(base: Any, override: Any) -> Any:
    """A run's dependencies: two mappings merge (the run's entries win per
    name); otherwise the run's ``deps=`` replaces the agent's when given."""
    if override is None:
        return base
    if isinstance(base, Mapping) and isinstance(override, Mapping):
        return MappingProxyType({**base, **override})
    return override
