"""Dependency profiles: how much of a run's ``deps=`` a tool receives.

A tool declares its requirements with ``@tool(dependencies=ToolDependencies.strict("db"))``;
the declaration travels as the reserved ``starweaver_tool_dependencies``
definition metadata, which the runtime also reads (a batch mixing Legacy
tools with Filtered or Strict ones runs in model order). The rules are
core/tool's (``ParseDependencies`` and the call context's narrowing):

- Legacy (no declaration, the default): the tool sees every dependency.
- Filtered: the tool sees a typed ``deps=`` object unchanged, but of a
  mapping of named dependencies only the names it declares.
- Strict: the tool sees only the named dependencies it declares; a typed
  object is withheld (``ctx.deps`` is then an empty mapping).

A present but malformed metadata value fails closed to Strict with no names.
The same narrowing applies to the tool's calls, to its user-input
preprocessor and to its approved re-runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

__all__ = ("METADATA_KEY", "DependencyProfile", "ToolDependencies", "merge_deps")

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

    Build it with ``ToolDependencies.filtered(...)`` or ``.strict(...)``
    rather than writing the metadata shape by hand.
    """

    profile: DependencyProfile = "legacy"
    host_capabilities: tuple[str, ...] = ()
    shell_environment: bool = False

    def __post_init__(self) -> None:
        if self.profile not in _PROFILES:
            raise ValueError(f"profile must be one of {', '.join(_PROFILES)}, got {self.profile!r}")
        names = tuple(self.host_capabilities)
        if any(not isinstance(n, str) or not n for n in names):
            raise TypeError("host_capabilities must be non-empty strings")
        object.__setattr__(self, "host_capabilities", names)

    @classmethod
    def legacy(cls) -> ToolDependencies:
        """Every dependency (the default of a tool that declares nothing)."""
        return cls("legacy")

    @classmethod
    def filtered(cls, *names: str) -> ToolDependencies:
        """The typed ``deps=`` object, and only these named dependencies."""
        return cls("filtered", names)

    @classmethod
    def strict(cls, *names: str) -> ToolDependencies:
        """Only these named dependencies (least authority)."""
        return cls("strict", names)

    def to_metadata_value(self) -> dict[str, Any]:
        """The value stored under ``METADATA_KEY``."""
        return {
            "profile": self.profile,
            "host_capabilities": list(self.host_capabilities),
            "shell_environment": self.shell_environment,
        }

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any] | None) -> ToolDependencies:
        """The requirements in definition metadata: Legacy when absent,
        Strict with no names when malformed (fail closed)."""
        if not metadata or METADATA_KEY not in metadata:
            return cls("legacy")
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
        if not _names(names) or not _names(raw.get("context_capabilities", [])):
            return closed
        return cls(profile, tuple(names), shell)

    def grant(self, deps: Any) -> Any:
        """What a tool with these requirements sees of a run's ``deps``."""
        if self.profile == "legacy":
            return deps
        if isinstance(deps, Mapping):
            return MappingProxyType({n: deps[n] for n in self.host_capabilities if n in deps})
        if self.profile == "filtered":
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
