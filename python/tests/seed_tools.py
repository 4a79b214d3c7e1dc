"""The tool examples of seed 001, as written there.

Shared by the tests of the tool layer (test_tools.py) and the end-to-end run
of every example through an agent (test_tool_examples_end_to_end.py).
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel
from starweaver import ApprovalRequired, BaseTool, ToolContext, ToolResult, tool

__all__ = [
    "DeployTool",
    "TicketArgs",
    "add",
    "append_audit_line",
    "deploy",
    "deploy_with_approval",
    "fetch_status",
    "fetch_ticket",
    "inspect_payload",
    "inspect_release",
    "lookup",
]


@tool
async def add(left: int, right: int) -> dict[str, int]:
    await asyncio.sleep(0)
    return {"total": left + right}


@tool
async def lookup(ticket_id: str, include_history: bool = False) -> dict[str, object]:
    return {"ticket_id": ticket_id, "include_history": include_history}


class TicketArgs(BaseModel):
    ticket_id: str
    include_history: bool = False


@tool
async def fetch_ticket(args: TicketArgs) -> dict[str, object]:
    return {"ticket_id": args.ticket_id, "include_history": args.include_history}


@tool(parameters_schema={"type": "object", "additionalProperties": True})
async def inspect_payload(args: dict[str, object]) -> dict[str, object]:
    return {"keys": sorted(args)}


@tool(parameters_schema={"type": "object", "properties": {}})
async def deploy(ctx: ToolContext, args: dict[str, object]) -> dict[str, bool]:
    return {"ok": not ctx.is_cancelled()}


class DeployTool(BaseTool):
    name = "deploy"
    description = "Deploy the current release."

    def __init__(self) -> None:
        super().__init__(parameters_schema={"type": "object", "properties": {}, "additionalProperties": False})

    async def call(self, ctx: ToolContext, args: dict[str, object]) -> dict[str, bool]:
        return {"ok": not ctx.is_cancelled()}


@tool(sequential=True)
async def append_audit_line(line: str) -> dict[str, bool]:
    return {"written": True}


@tool(parameters_schema={"type": "object", "properties": {}})
async def inspect_release(args: dict[str, object]) -> ToolResult:
    return ToolResult(
        {"raw": "application record"},
        metadata={"audit": "release"},
        app_value={"release_id": 42},
        model_content={"summary": "release is ready"},
        user_content={"markdown": "**Ready**"},
        private_metadata={"trace_id": "host-only"},
    )


@tool(parameters_schema={"type": "object", "properties": {}})
async def deploy_with_approval(ctx: ToolContext, args: dict[str, object]) -> dict[str, bool]:
    if ctx.approval is None:
        raise ApprovalRequired("deploy production", metadata={"risk": "high"})
    return {"approved": True}


@tool(metadata={"risk": "network"}, timeout_ms=5_000, max_retries=1)
async def fetch_status(url: str) -> dict[str, str]:
    return {"status": "ok", "url": url}
