"""Stepped runs: a run whose model requests and tool batches go to handlers
(what a durable engine runs as activities), and the worker end that
carries them out. The engine itself is tested in tests/temporal/."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from helpers import call
from starweaver import ApprovalRequired, ToolContext, tool
from starweaver._remote import request_model, resume_stepped, run_batch, run_stepped
from starweaver.agent import Agent, create_agent
from starweaver.errors import ModelError
from starweaver.messages import ToolReturnPart
from starweaver.testing import TestModel


@tool(parameters_schema={"type": "object", "properties": {}})
async def deploy(ctx: ToolContext, args: dict[str, object]) -> dict[str, bool]:
    if ctx.approval is None:
        raise ApprovalRequired("deploy production", metadata={"risk": "high"})
    return {"approved": True}


@tool
async def add(left: int, right: int) -> int:
    return left + right


def script() -> TestModel:
    return TestModel.responses(
        [
            TestModel.tool_call_response(
                [call("add", "c1", left=1, right=2), call("add", "c2", left=3, right=4), call("deploy", "c3")]
            ),
            "done",
        ]
    )


class Handlers:
    """Carries the steps out on a worker agent, in this process, through
    JSON as an engine would; records what it was handed."""

    def __init__(self, worker: Agent[Any, Any], lose: frozenset[str] = frozenset()) -> None:
        self.worker = worker
        self.lose = lose
        self.log: list[tuple[str, Any]] = []

    async def model(self, request: dict[str, Any]) -> dict[str, Any]:
        self.log.append(("model", json.loads(json.dumps(request))))
        return await request_model(self.worker, request)

    async def batch(self, batch: dict[str, Any]) -> list[dict[str, Any] | None]:
        self.log.append(("batch", json.loads(json.dumps(batch))))
        out: list[dict[str, Any] | None] = []
        for c in batch["calls"]:
            if c["name"] in self.lose:
                out.append(None)
                continue
            (ret,) = await run_batch(self.worker, {**batch, "calls": [c]})
            out.append(ret)
        return out


def test_a_stepped_run_waits_resumes_and_matches_the_ids_it_was_given() -> None:
    async def main() -> tuple[Any, Any, Handlers]:
        worker = create_agent(model=script(), tools=[deploy, add])
        agent = create_agent(model=TestModel.responses([]), tools=[deploy, add])
        h = Handlers(worker)
        waiting = await run_stepped(agent, "go", conversation_id="conv_1", run_id="run_1", handlers=h)
        assert waiting.status == "waiting"
        decision = waiting.hitl.approvals[0].approve(decided_by="ui")
        done = await resume_stepped(agent, waiting.raw["state"], handlers=h, approvals=[decision])
        return waiting, done, h

    waiting, done, h = asyncio.run(main())
    assert waiting.run_id == "run_1"
    assert waiting.hitl.approvals[0].id == "approval_run_1_c3"
    assert done.output == "done" and done.status == "completed"
    kinds = [k for k, _ in h.log]
    assert kinds == ["model", "batch", "batch", "model"]
    first = h.log[1][1]
    assert first["conversation_id"] == "conv_1" and [c["name"] for c in first["calls"]] == ["add", "add", "deploy"]
    assert first["calls"][1]["key"] == "session/conv_1/run/run_1/turn/0/call/1"
    # The approved call goes out again, alone, with its approval.
    again = h.log[2][1]["calls"]
    assert [c["name"] for c in again] == ["deploy"] and again[0]["approval"]["status"] == "approved"
    returns = [p for m in done.messages for p in m.parts if isinstance(p, ToolReturnPart)]
    assert [r.content for r in returns] == [3, 7, {"approved": True}]


def test_a_lost_call_gets_the_recovery_return_and_the_run_goes_on() -> None:
    async def main() -> Any:
        worker = create_agent(model=script(), tools=[deploy, add])
        agent = create_agent(model=TestModel.responses([]), tools=[deploy, add])
        return await run_stepped(
            agent, "go", conversation_id="c", run_id="r", handlers=Handlers(worker, lose=frozenset({"add"}))
        )

    waiting = asyncio.run(main())
    returns = [p for m in waiting.messages for p in m.parts if isinstance(p, ToolReturnPart)]
    assert waiting.status == "waiting" and len(returns) == 0  # the batch waits for the approval
    batch = waiting.batch_returns
    assert "may have run or not" in batch[0]["metadata"]["message"]
    assert batch[0]["metadata"]["error_kind"] == "cancelled"


def test_a_failing_model_step_fails_the_run_as_a_model_error() -> None:
    class Failing(Handlers):
        async def model(self, request: dict[str, Any]) -> dict[str, Any]:
            raise RuntimeError("activity failed")

    async def main() -> None:
        agent = create_agent(model=TestModel.responses([]), tools=[add])
        await run_stepped(agent, "go", conversation_id="c", run_id="r", handlers=Failing(agent))

    with pytest.raises(ModelError, match="activity failed"):
        asyncio.run(main())


def test_a_run_without_an_executor_host_refuses_steps() -> None:
    async def main() -> None:
        agent = create_agent(model=TestModel.responses(["x"]))
        await request_model(agent, {"run_id": "r", "step": 0, "messages": "nope", "params": {}})

    with pytest.raises(ValueError):
        asyncio.run(main())
