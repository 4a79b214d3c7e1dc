"""A worker for the support agent: its activities (model requests, tool
calls) and its ready-made workflow "support.run" on the task queue
"support". Run it next to a Temporal server (`temporal server start-dev`),
as many as you like:

    python examples/temporal/worker.py

The model is a FunctionModel that decides from the messages, so the
example runs without an API key; use `model="openai:gpt-5-mini"` (or any
model) in a real agent.
"""

import asyncio
import os
from datetime import timedelta
from typing import Any

from starweaver import ApprovalRequired, ToolContext, create_agent, tool
from starweaver.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from starweaver.temporal import AgentPlugin, StarweaverPlugin, TemporalAgent
from starweaver.testing import FunctionModel
from temporalio.client import Client
from temporalio.common import RetryPolicy
from temporalio.worker import Worker

ADDRESS = os.environ.get("TEMPORAL_ADDRESS", "127.0.0.1:7233")
TASK_QUEUE = os.environ.get("SUPPORT_TASK_QUEUE", "support")


@tool(effect="read_only", timeout_ms=60_000)
async def lookup_order(order_id: int) -> dict[str, int]:
    """Look an order up (read-only: a lost call runs again)."""
    if os.environ.get("SUPPORT_SLOW_LOOKUPS"):
        # The crash example holds this worker here, then kills it.
        print(f"looking up order {order_id}", flush=True)
        await asyncio.sleep(600)
    return {"order_id": order_id, "total": 42}


@tool(effect="non_idempotent_write")
async def refund(ctx: ToolContext, order_id: int, amount: int) -> str:
    """Refund an order (a person approves it first; never run twice)."""
    if ctx.approval is None:
        raise ApprovalRequired(f"refund {amount} on order {order_id}")
    return f"refunded {amount} on order {order_id}"


def support_model(messages: list[ModelMessage], info: dict[str, Any]) -> Any:
    """Look the order up, refund it when asked to, then say what happened."""
    parts = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts]
    prompt = next(p.text for p in parts if isinstance(p, UserPromptPart))
    returns = [p for p in parts if isinstance(p, ToolReturnPart)]
    if not returns:
        return {"tool_calls": [{"id": "lookup", "name": "lookup_order", "arguments": {"order_id": 42}}]}
    if "refund" in prompt and len(returns) == 1:
        return {"tool_calls": [{"id": "refund", "name": "refund", "arguments": {"order_id": 42, "amount": 42}}]}
    return " / ".join(str(r.content) for r in returns)


agent = create_agent(model=FunctionModel(support_model), tools=[lookup_order, refund])
support = TemporalAgent(
    agent,
    name="support",
    # A lost worker is noticed after 2 s without a heartbeat.
    heartbeat_timeout=timedelta(seconds=2),
    retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=200)),
)


async def main() -> None:
    client = await Client.connect(ADDRESS, plugins=[StarweaverPlugin()])
    worker = Worker(
        client,
        task_queue=TASK_QUEUE,
        plugins=[AgentPlugin(support)],
        # A killed worker's runs move to another worker after a second.
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=1),
    )
    async with worker:
        print("worker ready", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
