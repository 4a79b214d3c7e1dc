"""A client starts a run of the ready-made workflow and leaves it waiting
for a refund's approval (the workflow waits at no cost, for days if need
be). It prints the workflow id to approve with.

    python examples/temporal/start_run.py
"""

import asyncio
import os
import sys
import uuid

from starweaver.temporal import AgentWorkflowInput, StarweaverPlugin
from temporalio.client import Client

ADDRESS = os.environ.get("TEMPORAL_ADDRESS", "127.0.0.1:7233")
TASK_QUEUE = os.environ.get("SUPPORT_TASK_QUEUE", "support")


async def main() -> None:
    client = await Client.connect(ADDRESS, plugins=[StarweaverPlugin()])
    handle = await client.start_workflow(
        "support.run",
        AgentWorkflowInput("refund order 42"),
        id=f"support-{uuid.uuid4()}",
        task_queue=TASK_QUEUE,
    )
    # The run stops at the refund: the pending query says what it waits for.
    for _ in range(600):
        pending = await handle.query("pending")
        if pending:
            break
        await asyncio.sleep(0.05)
    else:
        raise SystemExit("the run did not stop for an approval")
    print(f"workflow: {handle.id}")
    for item in pending:
        print(f"waiting for: {item['kind']} {item['id']} ({item['tool_name']} {item['arguments']})")


if __name__ == "__main__":
    asyncio.run(main())
    # A short script leaves without tearing the interpreter down: the Temporal
    # client's threads can crash it at exit (temporalio/sdk-python#300).
    sys.stdout.flush()
    os._exit(0)
