"""Toolsets: named groups of tools sharing instructions and defaults."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from starweaver.tools import BaseTool, Tool, ensure_tool

__all__ = ["Toolset"]


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
        tools: Iterable[Tool[..., Any] | BaseTool | Any] | None = None,
        instructions: Iterable[str] | str | None = None,
        id: str | None = None,
        max_retries: int | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError("toolset name must be a non-empty string")
        self.name = name
        self.id = id
        self.tools: list[Tool[..., Any]] = [ensure_tool(t) for t in (tools or [])]
        if isinstance(instructions, str):
            instructions = [instructions]
        self.instructions: list[str] = [i for i in (instructions or []) if i.strip()]
        if max_retries is not None and max_retries < 0:
            raise ValueError("max_retries must not be negative")
        if timeout_ms is not None and timeout_ms <= 0:
            raise ValueError("timeout_ms must be positive")
        self.max_retries = max_retries
        self.timeout_ms = timeout_ms

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The definitions of the toolset's tools."""
        return [t.definition() for t in self.tools]

    def __repr__(self) -> str:
        return f"Toolset({self.name!r}, tools={[t.name for t in self.tools]!r})"
