"""Fileops-loaded skills: markdown packages found through an environment.

A skill is a directory holding a ``SKILL.md``: YAML frontmatter between
``---`` lines with a ``name`` and a ``description`` (other keys are kept as
``metadata``), then the markdown body. :meth:`SkillRegistry.scan` reads the
summaries of every skill under the directories of some
:class:`SkillSourceScope` s; :func:`skill_toolset` turns them into a toolset
with no tools and one instruction that lists the skills, so the model reads
a matching ``SKILL.md`` with the filesystem tools before it plans.

The runtime (core/skills) does the scanning, parsing, precedence and
comparison; this module describes the requests and types the results.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Protocol, final, runtime_checkable

from starweaver import _capi
from starweaver._prepare import Preparer
from starweaver.agent_context import AgentContext
from starweaver.catalog import ToolSearchRefreshBinding
from starweaver.toolsets import Toolset

__all__ = [
    "SKILLS_ACTIVATED_EVENT",
    "SKILLS_RELOADED_EVENT",
    "SKILLS_SCANNED_EVENT",
    "SkillEnvironment",
    "SkillPackage",
    "SkillRegistry",
    "SkillReloadBinding",
    "SkillReloadChange",
    "SkillReloadReport",
    "SkillScanDiagnostic",
    "SkillScanReport",
    "SkillSourceKind",
    "SkillSourceScope",
    "SkillToolset",
    "skill_toolset",
]

SKILLS_SCANNED_EVENT = "skills_scanned"
"""The custom event a scan report's toolset publishes when each run starts."""
SKILLS_ACTIVATED_EVENT = "skill_activated"
"""The event :meth:`SkillRegistry.activate` publishes on a context."""
SKILLS_RELOADED_EVENT = "skills_reloaded"
"""The event :meth:`SkillRegistry.reload_with_report` publishes on a context."""

SkillSourceKind = Literal["built_in", "user_shared", "user_tool", "workspace_shared", "workspace_tool", "custom"]
"""A scope's tier, lowest precedence first: with two skills of one name the
higher tier wins, then the later scope. The runtime rejects any other
kind when a scan starts."""


@runtime_checkable
class _HasSpec(Protocol):
    def _to_spec(self) -> Mapping[str, Any]: ...


@runtime_checkable
class _HasDict(Protocol):
    def to_dict(self) -> Mapping[str, Any]: ...


SkillEnvironment = _HasSpec | _HasDict | Mapping[str, Any]
"""An environment to read skills from: an object with ``_to_spec()`` or
``to_dict()`` giving its spec, or the spec itself, e.g.
``{"kind": "virtual", "files": {"skills/x/SKILL.md": "..."}}``."""


def _environment_spec(environment: SkillEnvironment) -> dict[str, Any]:
    if isinstance(environment, _HasSpec):
        spec = environment._to_spec()  # noqa: SLF001 - the skill environment and scope protocol
    elif isinstance(environment, _HasDict):
        spec = environment.to_dict()
    elif isinstance(environment, Mapping):
        spec = environment
    else:
        raise TypeError(f"environment must be an environment or its spec, got {type(environment).__name__}")
    if not isinstance(spec, Mapping):
        raise TypeError("an environment's spec must be a mapping")
    return copy.deepcopy(dict(spec))


@final
@dataclass(frozen=True)
class SkillSourceScope:
    """Where skills are searched: each of ``directories`` under ``root``
    (paths relative to the environment's root; ``""`` is the root).

    ``directories=None`` means the kind's default: ``[".agents/skills",
    "skills"]`` for ``custom`` (so ``skills/`` wins a duplicate name),
    ``["skills"]`` for ``built_in``, ``user_tool`` and ``workspace_tool``,
    ``[".agents/skills"]`` for ``user_shared`` and ``workspace_shared``.
    """

    root: str = ""
    kind: SkillSourceKind = "custom"
    directories: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.root, str):
            raise TypeError(f"root must be a string, got {type(self.root).__name__}")
        if not isinstance(self.kind, str):
            raise TypeError(f"kind must be a string, got {type(self.kind).__name__}")
        if self.directories is not None:
            if isinstance(self.directories, str) or not all(isinstance(d, str) for d in self.directories):
                raise TypeError("directories must be a sequence of strings")
            object.__setattr__(self, "directories", tuple(self.directories))

    @classmethod
    def new(cls, root: str = "") -> SkillSourceScope:
        """A ``custom`` scope with the default directories."""
        return cls(root)

    @classmethod
    def built_in(cls, root: str) -> SkillSourceScope:
        """First-party skills a host bundles (directories ``["skills"]``)."""
        return cls(root, "built_in")

    @classmethod
    def user_shared(cls, root: str) -> SkillSourceScope:
        """A user's shared skills (directories ``[".agents/skills"]``)."""
        return cls(root, "user_shared")

    @classmethod
    def user_tool(cls, root: str) -> SkillSourceScope:
        """A user's starweaver skills (directories ``["skills"]``)."""
        return cls(root, "user_tool")

    @classmethod
    def workspace_shared(cls, root: str) -> SkillSourceScope:
        """A workspace's shared skills (directories ``[".agents/skills"]``)."""
        return cls(root, "workspace_shared")

    @classmethod
    def workspace_tool(cls, root: str) -> SkillSourceScope:
        """A workspace's starweaver skills (directories ``["skills"]``)."""
        return cls(root, "workspace_tool")

    def with_directories(self, *directories: str) -> SkillSourceScope:
        """A copy searching ``directories`` instead (none: nothing)."""
        return SkillSourceScope(self.root, self.kind, tuple(directories))

    def _to_spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {"root": self.root}
        if self.kind != "custom":
            spec["kind"] = self.kind
        if self.directories is not None:
            spec["directories"] = list(self.directories)
        return spec


@final
@dataclass(frozen=True)
class SkillPackage:
    """One skill: its summary and, once activated, its ``body``."""

    name: str
    description: str
    path: str
    body: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def activated(self) -> bool:
        """Whether the package holds its body (scanned packages do not)."""
        return self.body is not None

    def summary_line(self) -> str:
        """The package's line in the skills instruction."""
        return f"- {self.name}: {self.description} ({self.path})"

    def to_dict(self) -> dict[str, Any]:
        """The package as the runtime writes it (no ``body`` when none)."""
        d: dict[str, Any] = {"name": self.name, "description": self.description, "path": self.path}
        if self.body is not None:
            d["body"] = self.body
        if self.metadata:
            d["metadata"] = copy.deepcopy(dict(self.metadata))
        return d


def skill_package_from_dict(d: Mapping[str, Any]) -> SkillPackage:
    return SkillPackage(
        d["name"], d["description"], d["path"], d.get("body"), MappingProxyType(dict(d.get("metadata") or {}))
    )


@final
@dataclass(frozen=True)
class SkillScanDiagnostic:
    """A problem a reporting scan went past: ``duplicate_overridden`` (a
    skill replaced ``previous_path``'s of the same name), ``invalid_skill``
    (a SKILL.md that does not parse) or ``unreadable_skill``."""

    kind: Literal["duplicate_overridden", "invalid_skill", "unreadable_skill"]
    source: SkillSourceKind
    path: str
    message: str
    name: str | None = None
    previous_path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The diagnostic as the runtime writes it."""
        d: dict[str, Any] = {"kind": self.kind, "source": self.source, "path": self.path, "message": self.message}
        if self.name is not None:
            d["name"] = self.name
        if self.previous_path is not None:
            d["previous_path"] = self.previous_path
        return d


def scan_diagnostic_from_dict(d: Mapping[str, Any]) -> SkillScanDiagnostic:
    return SkillScanDiagnostic(d["kind"], d["source"], d["path"], d["message"], d.get("name"), d.get("previous_path"))


@final
@dataclass(frozen=True)
class SkillReloadChange:
    """A skill that differs after a reload: ``added`` (no
    ``previous_path``), ``removed`` (no ``path``) or ``modified``
    (description, path, metadata or body presence)."""

    kind: Literal["added", "removed", "modified"]
    name: str
    previous_path: str | None = None
    path: str | None = None


class SkillReloadBinding(ToolSearchRefreshBinding):
    """When a host's skill directories are due for a reload: an observed
    inventory change (``inventory_changed(version, now_ms)``) once pending
    for ``debounce_ms`` (reason ``inventory_changed``), otherwise every
    ``interval_ms`` (``interval_elapsed``; 0 means never). The same
    deterministic binding as a catalogue's refresh binding; pass it to
    :meth:`SkillRegistry.reload_if_due`, which updates it."""


@final
class SkillRegistry:
    """Skill packages by name, from a scan. Immutable."""

    __slots__ = ("_packages",)

    def __init__(self, packages: Iterable[SkillPackage] = ()) -> None:
        pkgs: dict[str, SkillPackage] = {}
        for p in packages:
            if not isinstance(p, SkillPackage):
                raise TypeError(f"packages must be SkillPackages, got {type(p).__name__}")
            pkgs[p.name] = p
        self._packages = pkgs

    def get(self, name: str) -> SkillPackage | None:
        """The package named ``name``, or None."""
        return self._packages.get(name)

    def packages(self) -> list[SkillPackage]:
        """The packages in name order."""
        return [self._packages[n] for n in sorted(self._packages)]

    def __len__(self) -> int:
        return len(self._packages)

    def __iter__(self) -> Iterator[SkillPackage]:
        return iter(self.packages())

    def __contains__(self, name: object) -> bool:
        return name in self._packages

    def __repr__(self) -> str:
        return f"SkillRegistry({sorted(self._packages)!r})"

    @classmethod
    def scan(cls, environment: SkillEnvironment, scopes: Iterable[SkillSourceScope]) -> SkillRegistry:
        """The skills of ``scopes`` in ``environment``, without bodies.

        Scopes are read in ascending precedence of their kind, then in the
        order given, and a later skill replaces an earlier one of the same
        name (so does a later directory of a scope). Missing directories
        are skipped.

        Raises:
            ValueError: a SKILL.md that cannot be read or parsed, an invalid
                scope, or a malformed environment spec.
            TypeError: an argument of the wrong type.
        """
        out = _capi.skills_scan(_scan_request(environment, scopes))
        return cls(skill_package_from_dict(p) for p in out["packages"])

    @classmethod
    def scan_with_report(cls, environment: SkillEnvironment, scopes: Iterable[SkillSourceScope]) -> SkillScanReport:
        """Scan as :meth:`scan` does, going past files that cannot be read
        or parsed, with a diagnostic for each and for every replaced
        duplicate.

        Raises:
            ValueError: an invalid scope or a malformed environment spec.
            TypeError: an argument of the wrong type.
        """
        out = _capi.skills_scan({**_scan_request(environment, scopes), "report": True})
        return SkillScanReport(
            cls(skill_package_from_dict(p) for p in out["packages"]),
            tuple(scan_diagnostic_from_dict(d) for d in out.get("diagnostics") or []),
        )

    @staticmethod
    def activate(environment: SkillEnvironment, path: str, *, context: AgentContext | None = None) -> SkillPackage:
        """The skill whose SKILL.md is at ``path``, with its body. With
        ``context`` (a session's), also publishes ``skill_activated`` on it:
        name, description, path, body_bytes and metadata, never the body.

        Raises:
            ValueError: a path that is missing, outside the environment or
                not a valid SKILL.md.
            TypeError: an argument of the wrong type.
        """
        if not isinstance(path, str):
            raise TypeError(f"path must be a string, got {type(path).__name__}")
        out = _capi.skills_activate({"environment": _environment_spec(environment), "path": path})
        if context is not None:
            context.publish(SKILLS_ACTIVATED_EVENT, out["event"])
        return skill_package_from_dict(out["package"])

    def reload_with_report(
        self,
        environment: SkillEnvironment,
        scopes: Iterable[SkillSourceScope],
        *,
        context: AgentContext | None = None,
    ) -> SkillReloadReport:
        """Scan again (as :meth:`scan_with_report`) and report what changed
        from this registry, which stays as it is. With ``context`` (a
        session's), also publishes ``skills_reloaded`` on it.

        Raises:
            ValueError: an invalid scope or a malformed environment spec.
            TypeError: an argument of the wrong type.
        """
        request = {**_scan_request(environment, scopes), "previous": [p.to_dict() for p in self.packages()]}
        return self._reload_report(_capi.skills_scan(request), context)

    @staticmethod
    def _reload_report(out: Mapping[str, Any], context: AgentContext | None) -> SkillReloadReport:
        if context is not None:
            context.publish(SKILLS_RELOADED_EVENT, out["event"])
        return SkillReloadReport(
            SkillRegistry(skill_package_from_dict(p) for p in out["packages"]),
            tuple(scan_diagnostic_from_dict(d) for d in out.get("diagnostics") or []),
            tuple(
                SkillReloadChange(c["kind"], c["name"], c.get("previous_path"), c.get("path"))
                for c in out.get("changes") or []
            ),
        )

    def reload_if_due(
        self,
        environment: SkillEnvironment,
        scopes: Iterable[SkillSourceScope],
        binding: SkillReloadBinding,
        now_ms: int,
        *,
        context: AgentContext | None = None,
    ) -> SkillReloadReport | None:
        """Reload as :meth:`reload_with_report` does when ``binding`` says a
        reload is due at ``now_ms``, and update ``binding``; None when none
        was due. The ``skills_reloaded`` event then also carries
        ``reload_scheduled``, ``reload_reason``, ``reload_ms`` and
        ``inventory_version``.

        Raises:
            ValueError: an invalid scope or a malformed environment spec.
            TypeError: an argument of the wrong type.
        """
        if not isinstance(binding, ToolSearchRefreshBinding):
            raise TypeError(f"binding must be a SkillReloadBinding, got {type(binding).__name__}")
        if not isinstance(now_ms, int) or isinstance(now_ms, bool):
            raise TypeError(f"now_ms must be an int, got {type(now_ms).__name__}")
        request = {
            **_scan_request(environment, scopes),
            "previous": [p.to_dict() for p in self.packages()],
            "binding": binding._wire(),  # noqa: SLF001 - the binding is this module's: the host op reads and updates it
            "now_ms": now_ms,
        }
        out = _capi.skills_scan(request)
        binding._update(out["binding"])  # noqa: SLF001 - the binding is this module's: the host op reads and updates it
        if not out["reloaded"]:
            return None
        return self._reload_report(out["result"], context)

    def toolset(self) -> SkillToolset:
        """The skills toolset of the registry's packages."""
        return skill_toolset(self)


@final
@dataclass(frozen=True)
class SkillScanReport:
    """A reporting scan's registry and diagnostics."""

    registry: SkillRegistry
    diagnostics: tuple[SkillScanDiagnostic, ...] = ()

    def toolset(self) -> SkillToolset:
        """The skills toolset, publishing this report as ``skills_scanned``
        when each run starts."""
        return skill_toolset(self)


@final
@dataclass(frozen=True)
class SkillReloadReport:
    """A reload's new registry, diagnostics and changes (sorted by name)."""

    registry: SkillRegistry
    diagnostics: tuple[SkillScanDiagnostic, ...] = ()
    changes: tuple[SkillReloadChange, ...] = ()


def _scan_request(environment: SkillEnvironment, scopes: Iterable[SkillSourceScope]) -> dict[str, Any]:
    scope_list = list(scopes)
    for s in scope_list:
        if not isinstance(s, SkillSourceScope):
            raise TypeError(f"scopes must be SkillSourceScopes, got {type(s).__name__}")
    return {"environment": _environment_spec(environment), "scopes": [s._to_spec() for s in scope_list]}  # noqa: SLF001 - the skill environment and scope protocol


class SkillToolset(Toolset):
    """The toolset ``skills``: no tools, one instruction listing the skills
    (a routing policy and ``- {name}: {description} ({path})`` per skill,
    sorted, or "No fileops-loaded skills are currently available."). The
    model reads a skill's SKILL.md with the filesystem tools, so give the
    agent those too. Built by :func:`skill_toolset`."""

    def __init__(
        self, packages: Iterable[SkillPackage], *, report: tuple[SkillScanDiagnostic, ...] | None = None
    ) -> None:
        super().__init__("skills", id="skills")
        self.packages: tuple[SkillPackage, ...] = tuple(packages)
        self._report = report

    @property
    def publishes_scan(self) -> bool:
        """Whether each run starts by publishing ``skills_scanned``."""
        return self._report is not None

    def _extra_spec(self, keep: Callable[[Preparer], None]) -> dict[str, Any]:
        skills: dict[str, Any] = {"packages": [p.to_dict() for p in self.packages]}
        if self._report is not None:
            skills["publish_scan"] = True
            if self._report:
                skills["diagnostics"] = [d.to_dict() for d in self._report]
        return {**super()._extra_spec(keep), "kind": "skills", "skills": skills}

    def __repr__(self) -> str:
        return f"SkillToolset({[p.name for p in self.packages]!r})"


def skill_toolset(skills: SkillRegistry | SkillScanReport | Iterable[SkillPackage]) -> SkillToolset:
    """The skills toolset of a registry, a scan report or packages, for
    ``create_agent(toolsets=[...])``. A scan report's toolset also
    publishes the report as the custom event ``skills_scanned``
    (``package_count``, ``packages``, ``diagnostics``) when each run starts.

    Raises:
        TypeError: anything else.
    """
    if isinstance(skills, SkillScanReport):
        return SkillToolset(skills.registry.packages(), report=skills.diagnostics)
    if isinstance(skills, SkillRegistry):
        return SkillToolset(skills.packages())
    if isinstance(skills, (str, bytes, Mapping)) or not isinstance(skills, Iterable):
        raise TypeError(
            f"skill_toolset takes a SkillRegistry, a SkillScanReport or SkillPackages, got {type(skills).__name__}"
        )
    pkgs = list(skills)
    for p in pkgs:
        if not isinstance(p, SkillPackage):
            raise TypeError(f"skill_toolset takes SkillPackages, got {type(p).__name__}")
    return SkillToolset(pkgs)
