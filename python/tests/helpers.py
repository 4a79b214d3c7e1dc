"""Helpers for the tests that run agents through the native runtime."""

from __future__ import annotations

import os
from collections.abc import Iterator
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


def live_process_stats() -> Iterator[tuple[int, list[str], list[str]]]:
    """(pid, the fields of /proc/<pid>/stat after the command name, argv) of
    every live (not zombie) process: fields[1] is the parent, fields[2] the
    process group, fields[19] the start time (stat's 22nd)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if fields[0] != "Z":
            yield int(entry), fields, argv
