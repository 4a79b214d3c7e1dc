"""A crash survived: a worker is killed (SIGKILL) while it runs a tool
call; a second worker finishes the run. The read-only lookup runs again
there; a write would not (its return would say it was lost).

    python examples/temporal/crash.py
"""

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

from starweaver.temporal import AgentRunOutcome, AgentWorkflowInput, StarweaverPlugin
from temporalio.client import Client

ADDRESS = os.environ.get("TEMPORAL_ADDRESS", "127.0.0.1:7233")
WORKER = Path(__file__).with_name("worker.py")


def start_worker(queue: str, slow: bool) -> subprocess.Popen[str]:
    env = {**os.environ, "SUPPORT_TASK_QUEUE": queue}
    if slow:
        env["SUPPORT_SLOW_LOOKUPS"] = "1"
    proc = subprocess.Popen([sys.executable, str(WORKER)], env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "worker ready"
    return proc


async def main() -> None:
    queue = f"support-crash-{uuid.uuid4().hex[:8]}"
    first = start_worker(queue, slow=True)
    client = await Client.connect(ADDRESS, plugins=[StarweaverPlugin()])
    handle = await client.start_workflow(
        "support.run",
        AgentWorkflowInput("where is order 42?"),
        id=f"support-{uuid.uuid4()}",
        task_queue=queue,
        result_type=AgentRunOutcome,
    )
    assert first.stdout is not None
    print(f"first worker: {first.stdout.readline().strip()}")
    first.send_signal(signal.SIGKILL)
    first.wait()
    print("first worker killed")
    second = start_worker(queue, slow=False)
    try:
        outcome = await asyncio.wait_for(handle.result(), 60)
    finally:
        second.terminate()
        second.wait()
    print(f"status: {outcome.status}")
    print(f"output: {outcome.output}")


if __name__ == "__main__":
    asyncio.run(main())
    # A short script leaves without tearing the interpreter down: the Temporal
    # client's threads can crash it at exit (temporalio/sdk-python#300).
    sys.stdout.flush()
    os._exit(0)
