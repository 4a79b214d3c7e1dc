"""Helpers for the tests that run agents through the native runtime."""

from __future__ import annotations

from typing import Any


def tool_returns(messages_per_request: list[list[dict[str, Any]]], name: str | None = None) -> list[dict[str, Any]]:
    """The tool_return parts of the last request's messages (optionally by name)."""
    out: list[dict[str, Any]] = []
    for message in messages_per_request[-1]:
        if message.get("kind") != "request":
            continue
        for part in message.get("parts", []):
            if part.get("kind") == "tool_return" and (name is None or part.get("name") == name):
                out.append(part)
    return out


def call(name: str, call_id: str | None = None, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id or f"call_{name}", "name": name, "arguments": arguments}
