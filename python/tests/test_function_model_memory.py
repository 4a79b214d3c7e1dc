"""FunctionModel over long sessions: every request shows the whole
conversation, yet memory grows with the conversation, not with its square.

Measured in a fresh interpreter (its RSS is this test's alone)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import starweaver
from starweaver import create_agent
from starweaver.testing import FunctionModel

PACKAGE_PARENT = str(Path(starweaver.__file__).resolve().parent.parent)

RUNS = 10_000
#: RSS growth allowed from run 200 to run 10 000. After the fix it is about
#: 70 MB; keeping every request's own decoded history passed 1.7 GB by run
#: 1000 (and took minutes), so the child stops as soon as it passes this.
GROWTH_LIMIT_MB = 400

CHILD = """
import asyncio, json, resource, sys

from starweaver import create_agent
from starweaver.testing import FunctionModel

RUNS, LIMIT_MB = int(sys.argv[1]), int(sys.argv[2])
seen = []
ends = []


def answer(messages, info):
    seen.append(len(messages))
    ends[:] = [messages[0].parts[0].content[0].text, messages[-1].parts[0].content[0].text]
    return "ok"


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def main():
    model = FunctionModel(answer)
    session = create_agent(model=model).session()
    base = None
    for i in range(RUNS):
        result = await session.run(f"hello {i}")
        assert result.output == "ok", result
        if i == 200:
            base = rss_mb()
        if base is not None and i % 100 == 0 and rss_mb() - base > LIMIT_MB:
            print(json.dumps({"stopped_at": i, "growth_mb": rss_mb() - base}))
            return
    print(json.dumps({
        "growth_mb": rss_mb() - base,
        "lengths_ok": seen == [2 * i + 1 for i in range(RUNS)],
        "ends": ends,
        "params": len(model.captured_params()),
    }))


asyncio.run(main())
"""


def test_a_session_of_10000_runs_has_bounded_memory() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD), str(RUNS), str(GROWTH_LIMIT_MB)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "stopped_at" not in out, f"RSS grew by {out['growth_mb']:.0f} MB by run {out['stopped_at']}"
    assert out["growth_mb"] < GROWTH_LIMIT_MB
    # Each request showed the whole conversation.
    assert out["lengths_ok"]
    assert out["ends"] == ["hello 0", f"hello {RUNS - 1}"]
    assert out["params"] == RUNS


def test_captured_requests_are_what_each_request_showed() -> None:
    shown: list[list[Any]] = []

    def answer(messages: list[Any], info: dict[str, Any]) -> str:
        shown.append(list(messages))
        return f"answer {len(shown)}"

    model = FunctionModel(answer)
    agent = create_agent(model=model)
    first, second = agent.session(), agent.session()

    async def main() -> None:
        for i in range(30):
            await first.run(f"first {i}")
            if i % 3 == 0:
                await second.run(f"second {i}")
            if i % 10 == 0:
                await agent.run(f"alone {i}")

    asyncio.run(main())
    captured = model.captured_messages()
    assert captured == shown
    assert [len(c) for c in captured if c[0].parts[0].content[0].text == "first 0"] == [2 * i + 1 for i in range(30)]
    assert len(model.captured_params()) == len(shown)
