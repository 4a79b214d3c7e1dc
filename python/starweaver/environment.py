"""Environments: the files and programs first-party filesystem and shell
tools work on, as plain JSON specs the Go core builds (see
``sw_session_set_environment`` in capi/starweaver.h).

An environment reaches Go tools as the host capability
``"starweaver.environment"``. Every default lives in the core: fields left
at their default are not sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from os import PathLike, fspath
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

__all__ = (
    "CAPABILITY",
    "Environment",
    "LocalEnvironment",
    "LocalShell",
    "ShellOutput",
    "ShellPolicy",
    "SkillRegistry",
    "SkillSourceScope",
    "VirtualEnvironment",
    "filesystem_toolset",
    "shell_toolset",
    "skill_toolset",
)

if TYPE_CHECKING:
    from starweaver.shell import LocalShell, ShellPolicy, shell_toolset
    from starweaver.skills import SkillRegistry, SkillSourceScope, skill_toolset
    from starweaver.toolsets import filesystem_toolset

# The environment bundles, importable from here as well; loaded on first use
# because their modules import the toolset machinery, which this module's
# specs do not need.
_BUNDLES = {
    "LocalShell": "shell",
    "ShellPolicy": "shell",
    "shell_toolset": "shell",
    "SkillRegistry": "skills",
    "SkillSourceScope": "skills",
    "skill_toolset": "skills",
    "filesystem_toolset": "toolsets",
}


def __getattr__(name: str) -> Any:
    module = _BUNDLES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"starweaver.{module}"), name)


CAPABILITY = "starweaver.environment"
"""The host capability under which tools receive the active environment."""


@runtime_checkable
class _ShellPolicyLike(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True, kw_only=True)
class ShellOutput:
    """A virtual environment's canned output of one command."""

    exit_code: int = 0
    stdout: str = ""
    stderr: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"exit_code": self.exit_code, "stdout": self.stdout, "stderr": self.stderr}


@dataclass(frozen=True, init=False)
class VirtualEnvironment:
    """An in-memory, deterministic environment: ``files`` maps relative paths
    to text, ``shell_outputs`` maps exact commands to their canned output.
    Each session gets its own copy, which travels with its exported state."""

    id: str = "virtual"
    files: Mapping[str, str] | None = None
    shell_outputs: Mapping[str, ShellOutput] | None = None
    read_only: bool = False

    def __init__(
        self,
        id: str = "virtual",
        *,
        files: Mapping[str, str] | None = None,
        shell_outputs: Mapping[str, ShellOutput] | None = None,
        read_only: bool = False,
    ) -> None:
        if not isinstance(id, str):
            raise TypeError("id must be a string")
        for path, text in (files or {}).items():
            if not isinstance(path, str) or not isinstance(text, str):
                raise TypeError("files must map path strings to text strings")
        for command, out in (shell_outputs or {}).items():
            if not isinstance(command, str) or not isinstance(out, ShellOutput):
                raise TypeError("shell_outputs must map command strings to ShellOutput")
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "files", dict(files) if files else None)
        object.__setattr__(self, "shell_outputs", dict(shell_outputs) if shell_outputs else None)
        object.__setattr__(self, "read_only", read_only)

    def to_dict(self) -> dict[str, Any]:
        """The environment's JSON spec, defaults left out."""
        spec: dict[str, Any] = {"kind": "virtual"}
        if self.id != "virtual":
            spec["id"] = self.id
        if self.files:
            spec["files"] = dict(self.files)
        if self.shell_outputs:
            spec["shell_outputs"] = {c: o.to_dict() for c, o in self.shell_outputs.items()}
        if self.read_only:
            spec["read_only"] = True
        return spec


@dataclass(frozen=True, init=False)
class LocalEnvironment:
    """A directory of the host. Every path stays inside ``root`` (``..``,
    absolute paths and symbolic links out of it are refused, and writes never
    go through a link); ``read_only`` refuses every write. ``shell_policy``
    (an object with ``to_dict()``, such as a ``ShellPolicy``) says what the
    local shell may run; without one nothing runs. The shell's commands run
    in a sandbox (see ``LocalShell``; ``sandbox_read_only`` adds host paths
    its commands may read); ``sandbox=False`` opts out, which is
    UNSAFE: commands can then read this process, API keys included. A file
    with more than one hard link (another of its names may be outside
    ``root``) is neither read nor written unless ``allow_hard_links``."""

    root: str
    read_only: bool = False
    shell_policy: Any = None
    sandbox: bool = True
    allow_hard_links: bool = False
    sandbox_read_only: tuple[str, ...] = ()

    def __init__(
        self,
        root: str | PathLike[str],
        *,
        read_only: bool = False,
        shell_policy: Any = None,
        sandbox: bool = True,
        allow_hard_links: bool = False,
        sandbox_read_only: Sequence[str | PathLike[str]] = (),
    ) -> None:
        if not isinstance(root, (str, PathLike)):
            raise TypeError("root must be a path")
        if shell_policy is not None and not isinstance(shell_policy, _ShellPolicyLike):
            raise TypeError("shell_policy must have a to_dict() method")
        if not isinstance(sandbox, bool):
            raise TypeError("sandbox must be a bool")
        if not isinstance(allow_hard_links, bool):
            raise TypeError("allow_hard_links must be a bool")
        object.__setattr__(self, "root", fspath(root))
        object.__setattr__(self, "read_only", read_only)
        object.__setattr__(self, "shell_policy", shell_policy)
        object.__setattr__(self, "sandbox", sandbox)
        object.__setattr__(self, "allow_hard_links", allow_hard_links)
        if isinstance(sandbox_read_only, (str, PathLike)) or not isinstance(sandbox_read_only, (list, tuple)):
            raise TypeError("sandbox_read_only must be a list of paths")
        object.__setattr__(self, "sandbox_read_only", tuple(fspath(p) for p in sandbox_read_only))

    def to_dict(self) -> dict[str, Any]:
        """The environment's JSON spec, defaults left out."""
        spec: dict[str, Any] = {"kind": "local", "root": self.root}
        if self.read_only:
            spec["read_only"] = True
        if self.shell_policy is not None:
            spec["shell"] = self.shell_policy.to_dict()
        if not self.sandbox:
            spec["sandbox"] = False
        if self.allow_hard_links:
            spec["allow_hard_links"] = True
        if self.sandbox_read_only:
            spec["sandbox_read_only"] = list(self.sandbox_read_only)
        return spec


Environment = VirtualEnvironment | LocalEnvironment
"""An environment an agent or a session can be given."""


def environment_spec(environment: Environment | None) -> dict[str, Any] | None:
    """The JSON spec of ``environment`` (None for none).

    Raises:
        TypeError: not an environment.
    """
    if environment is None:
        return None
    if not isinstance(environment, (VirtualEnvironment, LocalEnvironment)):
        raise TypeError("environment must be a VirtualEnvironment or a LocalEnvironment")
    return environment.to_dict()
