"""A worker process for the Temporal tests: `temporal_worker.py QUEUE READY`
serves QUEUE with the shop agent (its activities, its ready-made workflow,
and ShopWorkflow), writes READY once it polls, and runs until it is
stopped (or killed)."""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import timedelta
from pathlib import Path

from starweaver.temporal import AgentPlugin, StarweaverPlugin
from temporal_flows import ShopWorkflow
from temporal_shop import shop
from temporalio.client import Client
from temporalio.worker import Worker


async def main(task_queue: str, ready: Path) -> None:
    address = os.environ.get("STARWEAVER_TEMPORAL_ADDRESS", "127.0.0.1:7233")
    client = await Client.connect(address, plugins=[StarweaverPlugin()])
    worker = Worker(
        client,
        task_queue=task_queue,
        workflows=[ShopWorkflow],
        plugins=[AgentPlugin(shop)],
        # A killed worker's cached workflows move to another worker within a
        # second, not the default ten.
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=1),
    )
    async with worker:
        ready.write_text(str(os.getpid()))
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2])))
