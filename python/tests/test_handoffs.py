"""Handoffs: create_agent(handoffs=[...]) and handoff(...)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from helpers import call
from pydantic import BaseModel
from starweaver import Handoff, ToolContext, create_agent, handoff, tool
from starweaver.errors import HandoffError
from starweaver.messages import ModelMessage, ModelRequest
from starweaver.testing import TestModel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def tool_returns(requests: list[list[ModelMessage]], name: str) -> list[dict[str, Any]]:
    """The returns of tool name in the messages of requests, in order."""
    out: list[dict[str, Any]] = []
    for messages in requests:
        for message in messages:
            for part in message.parts:
                if part.kind == "tool_return" and part.get("name") == name:
                    out.append(part.model_dump(mode="json"))
    return out


def transfer(name: str, call_id: str = "h1") -> dict[str, Any]:
    return TestModel.tool_call_response([call(name, call_id)])


class Refund(BaseModel):
    order: str
    amount: float


def test_the_receiving_agent_answers_and_is_the_last_agent() -> None:
    @tool
    def invoice_status(invoice: str) -> str:
        """Look up an invoice."""
        return f"{invoice} is paid"

    billing_model = TestModel.responses(
        [
            TestModel.tool_call_response([call("invoice_status", "i1", invoice="A-1")]),
            {"text": "A-1 is paid", "usage": {"input_tokens": 30, "output_tokens": 4}},
        ]
    )
    billing = create_agent(
        model=billing_model, name="Billing agent", instructions="You handle billing.", tools=[invoice_status]
    )
    triage_model = TestModel.responses(
        [{**transfer("transfer_to_billing_agent"), "usage": {"input_tokens": 10, "output_tokens": 1}}]
    )
    triage = create_agent(model=triage_model, name="triage", instructions="You route.", handoffs=[billing])
    events: list[dict[str, Any]] = []
    result = run(triage.run("Was invoice A-1 paid?", on_event=events.append))
    assert result.output == "A-1 is paid"
    assert result.last_agent is billing
    assert len(triage_model.captured_messages()) == 1
    (ret,) = tool_returns(billing_model.captured_messages()[:1], "transfer_to_billing_agent")
    assert ret["content"] == "Transferred to Billing agent."
    # The billing agent's Python tool ran; usage counts both agents.
    assert tool_returns(billing_model.captured_messages(), "invoice_status")[0]["content"] == "A-1 is paid"
    assert result.usage.requests == 3
    assert result.usage.tool_calls == 2
    handoffs = [e for e in events if e["kind"] == "custom" and e["custom"]["kind"] == "handoff"]
    assert len(handoffs) == 1
    assert handoffs[0]["custom"]["payload"]["to"] == "Billing agent"
    after = events[events.index(handoffs[0]) :]
    before = events[: events.index(handoffs[0])]
    assert all(e.get("agent_name") == "Billing agent" for e in after)
    assert not any(e.get("agent_name") for e in before)
    assert result.messages[-1]["kind"] == "response"


def test_an_agent_without_handoffs_is_its_own_last_agent() -> None:
    agent = create_agent(model=TestModel.responses(["hi"]))
    assert run(agent.run("hello")).last_agent is agent


def test_input_filter_and_on_handoff() -> None:
    refund_model = TestModel.responses([TestModel.output_response({"order": "o-7", "amount": 12.5})])
    refunds = create_agent(model=refund_model, name="refunds", output_type=Refund)
    seen: list[tuple[str, int]] = []
    filtered: list[list[ModelMessage]] = []

    async def on_handoff(ctx: ToolContext[Any]) -> None:
        seen.append((ctx.run_id, ctx.run_step))

    def only_the_prompt(messages: list[ModelMessage]) -> list[ModelMessage]:
        filtered.append(messages)
        return messages[:1]

    triage = create_agent(
        model=TestModel.responses([transfer("refund_desk")]),
        name="triage",
        handoffs=[
            handoff(
                refunds,
                tool_name_override="refund_desk",
                tool_description_override="Refunds.",
                input_filter=only_the_prompt,
                on_handoff=on_handoff,
            )
        ],
    )
    result = run(triage.run("Refund order o-7"))
    # The receiving agent's output type gives the answer.
    assert result.output == Refund(order="o-7", amount=12.5)
    assert result.last_agent is refunds
    assert len(seen) == 1 and seen[0][0] == result.run_id
    (history,) = filtered
    assert [m["kind"] for m in history] == ["request", "response", "request"]
    assert isinstance(history[0], ModelRequest)
    (read,) = refund_model.captured_messages()
    assert len(read) == 1 and "Refund order o-7" in str(read[0])
    # The run's messages keep everything.
    assert len(result.messages) == 5  # with the output call's return


def test_a_sync_on_handoff_without_context() -> None:
    calls: list[str] = []
    other = create_agent(model=TestModel.responses(["done"]), name="other")
    triage = create_agent(
        model=TestModel.responses([transfer("transfer_to_other")]),
        handoffs=[handoff(other, on_handoff=lambda: calls.append(threading.current_thread().name))],
    )
    assert run(triage.run("go")).output == "done"
    assert len(calls) == 1


@pytest.mark.parametrize("where", ["on_handoff", "input_filter", "bad_filter"])
def test_callback_errors_fail_the_run_with_handoff_error(where: str) -> None:
    def boom(*_: Any) -> Any:
        raise RuntimeError("boom")

    options: dict[str, Any] = {
        "on_handoff": {"on_handoff": boom},
        "input_filter": {"input_filter": boom},
        "bad_filter": {"input_filter": lambda messages: 42},
    }[where]
    other = create_agent(model=TestModel.responses(["never"]), name="other")
    triage = create_agent(
        model=TestModel.responses([transfer("transfer_to_other")]), handoffs=[handoff(other, **options)]
    )
    with pytest.raises(HandoffError) as info:
        run(triage.run("go"))
    assert "transfer_to_other" in str(info.value)
    assert ("boom" if where != "bad_filter" else "list of messages") in str(info.value)


def test_handoffs_count_against_the_run_limits() -> None:
    # The run keeps the starting agent's limits: the receiving agent's
    # request is the run's second, past max_steps=1.
    from starweaver.errors import UsageLimitExceeded

    desk = create_agent(model=TestModel.responses(["desk"]), name="desk", max_steps=10)
    front = create_agent(model=TestModel.responses([transfer("transfer_to_desk")]), handoffs=[desk], max_steps=1)
    with pytest.raises(UsageLimitExceeded):
        run(front.run("go"))


def test_name_collisions_and_bad_entries_are_refused() -> None:
    other = create_agent(model=TestModel(), name="other")

    @tool
    def transfer_to_other() -> str:
        """Clash."""
        return ""

    with pytest.raises(Exception, match="transfer_to_other"):
        create_agent(model=TestModel(), tools=[transfer_to_other], handoffs=[other])
    with pytest.raises(Exception, match="transfer_to_other"):
        create_agent(model=TestModel(), handoffs=[other, other])
    with pytest.raises(TypeError):
        create_agent(model=TestModel(), handoffs=["other"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        handoff(other, on_handoff=42)  # type: ignore[arg-type]
    nameless = create_agent(model=TestModel())
    with pytest.raises(Exception, match="ToolName|tool_name|name"):
        create_agent(model=TestModel(), handoffs=[nameless])


def test_handoff_objects() -> None:
    other = create_agent(model=TestModel(), name="other")
    h = handoff(other, tool_name_override="go_other")
    assert isinstance(h, Handoff) and h.agent is other
    agent = create_agent(model=TestModel(), handoffs=[h, create_agent(model=TestModel(), name="b")])
    assert [x.tool_name_override for x in agent.handoffs] == ["go_other", None]
    assert agent._spec["handoffs"][0]["tool_name"] == "go_other"


def test_the_next_run_of_a_session_starts_with_the_agent_itself() -> None:
    other = create_agent(model=TestModel.responses(["other here"]), name="other")
    triage_model = TestModel.responses([transfer("transfer_to_other"), "triage again"])
    triage = create_agent(model=triage_model, name="triage", handoffs=[other])

    async def both() -> tuple[Any, Any]:
        async with triage.session() as session:
            first = await session.run("one")
            second = await session.run("two")
            return first, second

    first, second = run(both())
    assert first.last_agent is other
    assert second.last_agent is triage and second.output == "triage again"


def test_a_run_waiting_after_a_handoff_resumes_with_the_receiving_agent() -> None:
    from starweaver import ApprovalRequired

    @tool
    def deploy(ctx: ToolContext[Any]) -> str:
        """Deploy."""
        if ctx.approval is None:
            raise ApprovalRequired("deploy production")
        return "deployed"

    ops_model = TestModel.responses([TestModel.tool_call_response([call("deploy", "d1")]), "ops done"])
    ops = create_agent(model=ops_model, name="ops", tools=[deploy])
    triage = create_agent(model=TestModel.responses([transfer("transfer_to_ops")]), name="triage", handoffs=[ops])

    async def flow() -> tuple[Any, Any]:
        async with triage.session() as session:
            waiting = await session.run("deploy it")
            decision = waiting.hitl.approvals[0].approve(decided_by="ui")
            return waiting, await session.hitl.resume(approvals=[decision])

    waiting, result = run(flow())
    assert waiting.status == "waiting" and waiting.last_agent is ops
    assert result.output == "ops done" and result.last_agent is ops
    assert tool_returns(ops_model.captured_messages(), "deploy")[0]["content"] == "deployed"


def test_tools_the_receiving_agent_gains_later_are_offered() -> None:
    billing_model = TestModel.responses([TestModel.tool_call_response([call("late", "l1")]), "done"])
    billing = create_agent(model=billing_model, name="billing")
    triage = create_agent(model=TestModel.responses([transfer("transfer_to_billing")]), handoffs=[billing])

    @billing.tool_plain
    def late() -> str:
        """Added after the triage agent was made."""
        return "late tool ran"

    assert run(triage.run("go")).output == "done"
    assert tool_returns(billing_model.captured_messages(), "late")[0]["content"] == "late tool ran"


def test_cancelling_the_run_ends_a_hanging_on_handoff() -> None:
    other = create_agent(model=TestModel.responses(["never"]), name="other")
    started = asyncio.Event()

    async def hang() -> None:
        started.set()
        await asyncio.Event().wait()

    triage = create_agent(
        model=TestModel.responses([transfer("transfer_to_other")]), handoffs=[handoff(other, on_handoff=hang)]
    )

    async def flow() -> None:
        task = asyncio.create_task(triage.run("go"))
        await asyncio.wait_for(started.wait(), timeout=30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=30)

    run(flow())
