"""The Python examples of the seed, run end to end through agents."""

from __future__ import annotations

import asyncio
from typing import Any

from helpers import call, tool_returns
from pydantic import BaseModel
from starweaver import BaseTool, ToolContext, ToolResult, create_agent, tool
from starweaver.testing import TestModel


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
    name = "deploy_release"
    description = "Deploy the current release."

    def __init__(self) -> None:
        super().__init__(parameters_schema={"type": "object", "properties": {}, "additionalProperties": False})

    async def call(self, ctx: ToolContext, args: dict[str, object]) -> dict[str, bool]:
        return {"ok": not ctx.is_cancelled()}


audit: list[str] = []


@tool(sequential=True)
async def append_audit_line(line: str) -> dict[str, bool]:
    audit.append(line)
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


@tool(
    metadata={"risk": "network"},
    timeout_ms=5_000,
    max_retries=1,
)
async def fetch_status(url: str) -> dict[str, str]:
    return {"status": "ok", "url": url}


def test_seed_examples_run_through_an_agent() -> None:
    calls = [
        call("lookup", "1", ticket_id="T-1"),
        call("fetch_ticket", "2", ticket_id="T-2", include_history=True),
        call("inspect_payload", "3", b=1, a=2),
        call("deploy", "4"),
        call("deploy_release", "5"),
        call("append_audit_line", "6", line="first"),
        call("inspect_release", "7"),
        call("fetch_status", "8", url="https://example.com"),
    ]
    tools: list[Any] = [
        lookup,
        fetch_ticket,
        inspect_payload,
        deploy,
        DeployTool(),
        append_audit_line,
        inspect_release,
        fetch_status,
    ]
    model = TestModel.responses([TestModel.tool_call_response(calls), "done"])
    result = asyncio.run(create_agent(model=model, tools=tools).run("exercise every example"))
    assert result.output == "done"
    rets = {r["name"]: r for r in tool_returns(model.captured_messages())}
    assert rets["lookup"]["content"] == {"ticket_id": "T-1", "include_history": False}
    assert rets["fetch_ticket"]["content"] == {"ticket_id": "T-2", "include_history": True}
    assert rets["inspect_payload"]["content"] == {"keys": ["a", "b"]}
    assert rets["deploy"]["content"] == {"ok": True}
    assert rets["deploy_release"]["content"] == {"ok": True}
    assert rets["append_audit_line"]["content"] == {"written": True} and audit == ["first"]
    assert rets["inspect_release"]["content"] == {"summary": "release is ready"}
    assert rets["fetch_status"]["content"] == {"status": "ok", "url": "https://example.com"}
    definitions = {d["name"]: d for d in model.captured_params()[0]["tools"]}
    assert definitions["fetch_status"]["metadata"]["risk"] == "network"
    assert definitions["fetch_status"]["metadata"]["timeout_ms"] == 5000
    assert definitions["fetch_status"]["metadata"]["max_retries"] == 1
    assert definitions["append_audit_line"]["sequential"] is True
