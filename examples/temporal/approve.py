"""Later, from another process: approve what a run waits for, and read its
outcome.

    python examples/temporal/approve.py WORKFLOW_ID
"""

import asyncio
import os
import sys

from starweaver.temporal import AgentRunOutcome, StarweaverPlugin
from temporalio.client import Client

ADDRESS = os.environ.get("TEMPORAL_ADDRESS", "127.0.0.1:7233")


async def main(workflow_id: str) -> None:
    client = await Client.connect(ADDRESS, plugins=[StarweaverPlugin()])
    handle = client.get_workflow_handle(workflow_id, result_type=AgentRunOutcome)
    for item in await handle.query("pending"):
        # execute_update returns once the workflow accepted the answer
        # (an unknown id is refused); deny takes a reason the model reads.
        left = await handle.execute_update("approve", args=[item["id"], "ops"])
        print(f"approved {item['id']} ({left} still waiting)")
    outcome = await handle.result()
    print(f"status: {outcome.status}")
    print(f"output: {outcome.output}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
    # A short script leaves without tearing the interpreter down: the Temporal
    # client's threads can crash it at exit (temporalio/sdk-python#300).
    sys.stdout.flush()
    os._exit(0)
