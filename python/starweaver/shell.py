"""The shell toolset and a local shell for an agent's runs.

``shell_toolset()`` is the first-party ``shell`` toolset (``shell_exec``,
``shell_wait``, ``shell_status``, ``shell_input``, ``shell_signal``,
``shell_kill``), implemented in the runtime. Its tools run commands through
the shell an agent is given with ``create_agent(shell=LocalShell(root,
policy=ShellPolicy(...)))``: commands start in ``root``, each in its own
process group, killed whole on timeout, cancellation and when the agent is
released. See docs/environment.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starweaver.toolsets import Toolset, _NativeToolset

__all__ = ["LocalShell", "ShellPolicy", "shell_spec", "shell_toolset"]


@dataclass(frozen=True)
class ShellPolicy:
    """What a shell may run. The default runs nothing.

    ``allow_execute`` permits running commands at all. A non-empty
    ``allowed_programs`` permits only those exact programs, called by the
    model as ``shell_exec(command=name, arguments=[...])`` with literal
    arguments; every shell script and every environment override is then
    refused (a script's first word proves nothing about what it runs).
    """

    allow_execute: bool = False
    allowed_programs: Sequence[str] = field(default=())

    def __post_init__(self) -> None:
        if not isinstance(self.allow_execute, bool):
            raise TypeError(f"allow_execute must be a bool, got {type(self.allow_execute).__name__}")
        programs: Any = self.allowed_programs
        if isinstance(programs, str) or not isinstance(programs, Iterable):
            raise TypeError("allowed_programs must be a sequence of program names, not a string")
        names = tuple(programs)
        if not all(isinstance(n, str) and n for n in names):
            raise TypeError("allowed_programs must hold non-empty strings")
        object.__setattr__(self, "allowed_programs", names)

    def to_dict(self) -> dict[str, Any]:
        """The policy as the runtime's spec keys."""
        out: dict[str, Any] = {"allow_execute": self.allow_execute}
        if self.allowed_programs:
            out["allowed_programs"] = list(self.allowed_programs)
        return out


@dataclass(frozen=True)
class LocalShell:
    """A local shell for an agent (``create_agent(shell=...)``).

    Commands start in ``root`` (an existing directory; a call's ``cwd`` stays
    inside it) under ``policy``. At most ``max_processes`` (8 by default)
    run at once, foreground and background together; more are refused, not
    queued. Each of stdout and stderr keeps at most ``max_capture_bytes``
    (1 MiB by default). Commands inherit only a few variables of this
    process's environment (PATH, HOME, USER, LOGNAME, LANG, LC_ALL, LC_CTYPE,
    TZ, TMPDIR, TERM), plus the session's shell environment. Releasing the
    agent kills every process still running.

    Commands run in a sandbox (bubblewrap, Linux): their own PID namespace
    and ``/proc``, so this process (its environment, API keys included) is
    out of their reach; of the host's files only the system's directories
    (``/usr``, ``/bin``, ``/lib``, ``/etc``...) read-only, ``root``
    read-write, the ``sandbox_read_only`` paths (absolute: a tool installed
    in ``/opt``, a virtualenv) read-only and a fresh ``/tmp``: your home
    directory and other projects are not there; they die with this process,
    even when it is killed.
    Without bubblewrap, an agent whose policy allows running commands is
    refused with a clear error. ``sandbox=False`` opts out: UNSAFE, commands
    then run on the host and can read this process through ``/proc``.
    """

    root: str | Path
    policy: ShellPolicy = field(default_factory=ShellPolicy)
    max_processes: int | None = None
    max_capture_bytes: int | None = None
    sandbox: bool = True
    sandbox_read_only: tuple[str | Path, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.root, (str, Path)) or not str(self.root):
            raise TypeError("root must be a non-empty path")
        if not isinstance(self.policy, ShellPolicy):
            raise TypeError(f"policy must be a ShellPolicy, got {type(self.policy).__name__}")
        for name in ("max_processes", "max_capture_bytes"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if not isinstance(self.sandbox, bool):
            raise TypeError(f"sandbox must be a bool, got {type(self.sandbox).__name__}")
        object.__setattr__(self, "sandbox_read_only", read_only_paths(self.sandbox_read_only))

    def to_dict(self) -> dict[str, Any]:
        """The runtime's ``shell`` spec; the runtime applies the defaults."""
        out: dict[str, Any] = {"root": str(self.root), **self.policy.to_dict()}
        if self.max_processes is not None:
            out["max_processes"] = self.max_processes
        if self.max_capture_bytes is not None:
            out["max_capture_bytes"] = self.max_capture_bytes
        if not self.sandbox:
            out["sandbox"] = False
        if self.sandbox_read_only:
            out["sandbox_read_only"] = [str(p) for p in self.sandbox_read_only]
        return out


def read_only_paths(value: Any) -> tuple[str | Path, ...]:
    """``sandbox_read_only`` as a tuple of paths (the runtime checks that
    each is absolute and exists)."""
    if isinstance(value, (str, Path)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"sandbox_read_only must be a list of paths, got {type(value).__name__}")
    for p in value:
        if not isinstance(p, (str, Path)) or not str(p):
            raise TypeError("sandbox_read_only must hold non-empty paths")
    return tuple(value)


def shell_toolset(policy: ShellPolicy | None = None) -> Toolset:
    """The first-party ``shell`` toolset: ``shell_exec {command, arguments?,
    timeout_seconds=180, environment?, cwd?, background=false}``,
    ``shell_wait {process_id, timeout_seconds=180}``, ``shell_status {}``,
    ``shell_input {process_id, text, close_stdin}``, ``shell_signal
    {process_id, signal}`` and ``shell_kill {process_id}``. The agent needs a
    shell (``create_agent(shell=LocalShell(...))`` or a ``LocalEnvironment``
    with a ``shell_policy``); without one each call returns a ``user_error``.

    ``policy`` narrows what this toolset's ``shell_exec`` may run: a command
    runs only when ``policy`` and the shell's own policy both permit it, so
    the toolset can be stricter than the shell, never looser.

    Raises:
        TypeError: ``policy`` is not a ``ShellPolicy``.
    """
    if policy is not None and not isinstance(policy, ShellPolicy):
        raise TypeError(f"policy must be a ShellPolicy, got {type(policy).__name__}")
    return _NativeToolset("shell", "shell", options=None if policy is None else {"policy": policy.to_dict()})


def shell_spec(shell: LocalShell | None) -> dict[str, Any] | None:
    """The agent spec's ``shell`` value for ``create_agent(shell=...)``.

    Raises:
        TypeError: ``shell`` is not a ``LocalShell``.
    """
    if shell is None:
        return None
    if not isinstance(shell, LocalShell):
        raise TypeError(f"shell must be a starweaver.shell.LocalShell, got {type(shell).__name__}")
    return shell.to_dict()
