"""Toolsets: named groups of tools sharing instructions and defaults."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from starweaver._schema import validate_parameters_schema
from starweaver.tools import BaseTool, Tool, ensure_tool

__all__ = ["ClientTool", "Toolset"]


class ClientTool:
    """A tool the client executes: a name, description and schema with no
    Python body. Every call pauses the run as a deferred call; answer it with
    ``waiting.hitl.deferred[i].complete(value)`` and a resume."""

    def __init__(
        self, name: str, *, description: str | None = None, parameters_schema: dict[str, Any] | None = None
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError("client tool name must be a non-empty string")
        self.name = name
        self.description = description
        self.parameters_schema = validate_parameters_schema(
            parameters_schema if parameters_schema is not None else {"type": "object", "properties": {}}
        )

    def definition(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "parameters": self.parameters_schema}
        if self.description:
            out["description"] = self.description
        return out

    def __repr__(self) -> str:
        return f"ClientTool({self.name!r})"


class Toolset:
    """A named group of tools with shared instructions and defaults.

    ``instructions`` are sent once per request, as one block for the toolset.
    ``max_retries`` and ``timeout_ms`` apply to its tools that set none.
    Duplicate tool names are rejected when an agent is built.
    """

    def __init__(
        self,
        name: str,
        *,
        tools: Iterable[Tool[..., Any] | BaseTool | ClientTool | Any] | None = None,
        instructions: Iterable[str] | str | None = None,
        id: str | None = None,
        max_retries: int | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError("toolset name must be a non-empty string")
        self.name = name
        self.id = id
        self.tools: list[Tool[..., Any] | ClientTool] = [
            t if isinstance(t, ClientTool) else ensure_tool(t) for t in (tools or [])
        ]
        if isinstance(instructions, str):
            instructions = [instructions]
        self.instructions: list[str] = [i for i in (instructions or []) if i.strip()]
        if max_retries is not None and max_retries < 0:
            raise ValueError("max_retries must not be negative")
        if timeout_ms is not None and timeout_ms <= 0:
            raise ValueError("timeout_ms must be positive")
        self.max_retries = max_retries
        self.timeout_ms = timeout_ms
        self.approval_selectors: list[str] = []
        self.deferred_selectors: list[str] = []

    def _with(self, **changes: list[str]) -> Toolset:
        clone = copy.copy(self)
        clone.tools = list(self.tools)
        for key, value in changes.items():
            setattr(clone, key, value)
        return clone

    def approval_required(self, names: Iterable[str] | str = "*") -> Toolset:
        """A copy whose matching tools wait for a person's approval before
        they run. A name matches a tool name, the toolset's name or id, a
        metadata ``bundle``, or ``*``."""
        selectors = [names] if isinstance(names, str) else list(names)
        return self._with(approval_selectors=self.approval_selectors + selectors)

    def deferred(self, names: Iterable[str] | str = "*") -> Toolset:
        """A copy whose matching tools never run here: each call pauses the
        run as a deferred call, answered by an external worker."""
        selectors = [names] if isinstance(names, str) else list(names)
        return self._with(deferred_selectors=self.deferred_selectors + selectors)

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The definitions of the toolset's tools."""
        return [t.definition() for t in self.tools]

    def __repr__(self) -> str:
        return f"Toolset({self.name!r}, tools={[t.name for t in self.tools]!r})"


class _NativeToolset(Toolset):
    """A toolset implemented inside the runtime (a first-party bundle)."""

    def __init__(self, name: str, bundle: str) -> None:
        super().__init__(name, id=name)
        self.bundle = bundle


def user_input_tools() -> Toolset:
    """The opt-in ``ask_user_question`` toolset: the model asks one to four
    structured clarifying questions and the run waits for the answers, given
    with ``approvals[i].approve().with_user_input(...)``."""
    return _NativeToolset("user_input", "user_input")
