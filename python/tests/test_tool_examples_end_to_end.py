"""Every tool example of seed 001 runs end to end through an agent."""

from __future__ import annotations

import asyncio
from typing import Any

from helpers import call, tool_returns
from seed_tools import (
    DeployTool,
    append_audit_line,
    deploy,
    fetch_status,
    fetch_ticket,
    inspect_payload,
    inspect_release,
    lookup,
)
from starweaver import create_agent
from starweaver.testing import TestModel


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
        DeployTool().to_tool().replace(name="deploy_release"),
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
    assert rets["append_audit_line"]["content"] == {"written": True}
    assert rets["inspect_release"]["content"] == {"summary": "release is ready"}
    assert rets["fetch_status"]["content"] == {"status": "ok", "url": "https://example.com"}
    definitions = {d["name"]: d for d in model.captured_params()[0]["tools"]}
    assert definitions["fetch_status"]["metadata"]["risk"] == "network"
    assert definitions["fetch_status"]["metadata"]["timeout_ms"] == 5000
    assert definitions["fetch_status"]["metadata"]["max_retries"] == 1
    assert definitions["append_audit_line"]["sequential"] is True
