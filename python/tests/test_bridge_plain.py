"""A plain async tool (keyword arguments of plain types, no context) called
in a batch is awaited in one frame with its completion encoded straight to
its line (RunDriver._await_plain). Every outcome must equal the general
path's (_declaring.guard over Tool._runner), byte for byte apart from the
Python traceback, which names the frame that caught the exception."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel
from starweaver import Feedback, ModelRetry, Tool, ToolResult, tool
from starweaver._bridge import RunDriver
from starweaver.errors import ApprovalRequired
from starweaver.intents import Done, StartProcess

BOUND = 30.0


class Point(BaseModel):
    x: int
    y: int


def corpus() -> list[tuple[Tool, dict[str, Any]]]:
    """Plain async tools and the arguments of one call each."""

    async def integer(n: int) -> int:
        return n * 2

    async def text(s: str) -> str:
        return s + ' é \u2028 "q"'

    async def big() -> int:
        return 10**40

    async def nothing() -> None:
        return None

    async def flag(b: bool) -> bool:
        return not b

    async def real() -> float:
        return 1.5

    async def nan() -> float:
        return float("nan")

    async def nested(n: int) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"n": [n, None, {"k": "v"}]}

    async def opaque() -> object:
        return object()

    async def model() -> Point:
        return Point(x=1, y=2)

    async def surfaces() -> ToolResult:
        return ToolResult({"raw": 1}, metadata={"m": 1}, private_metadata={"p": 2})

    async def done() -> Done:
        return Done(7, intents=[StartProcess(originator="w", input={"a": 1})])

    async def retry() -> int:
        raise ModelRetry("try again")

    async def feedback() -> int:
        raise Feedback("missing file")

    async def fails() -> int:
        raise ValueError("boom")

    async def own_cancel() -> int:
        raise asyncio.CancelledError()

    async def paused_after_declaring() -> int:
        Done(1, intents=[StartProcess(originator="w")])
        raise ApprovalRequired("needs a human")

    fns: list[tuple[Callable[..., Any], dict[str, Any]]] = [
        (integer, {"n": 21}),
        (text, {"s": "x"}),
        (big, {}),
        (nothing, {}),
        (flag, {"b": True}),
        (real, {}),
        (nan, {}),
        (nested, {"n": 3}),
        (opaque, {}),
        (model, {}),
        (surfaces, {}),
        (done, {}),
        (retry, {}),
        (feedback, {}),
        (fails, {}),
        (own_cancel, {}),
        (paused_after_declaring, {}),
    ]
    return [(tool(f), args) for f, args in fns]


def without_traceback(line: bytes) -> Any:
    token, outcome = json.loads(line)
    private = outcome.get("private_metadata")
    if isinstance(private, dict):
        private.pop("python_traceback", None)
    return token, outcome


def completions(tools: list[tuple[Tool, dict[str, Any]]]) -> dict[int, bytes]:
    """Each call's completion line, the calls sent as one batch of compact
    items ([token, tool, arguments]) to a driver over real pipes."""

    async def main() -> dict[int, bytes]:
        loop = asyncio.get_running_loop()
        items_r, items_w = os.pipe()
        done_r, done_w = os.pipe()
        for fd in (items_r, done_r, done_w):
            os.set_blocking(fd, False)
        by_id = {i + 1: t for i, (t, _) in enumerate(tools)}
        driver = RunDriver(loop, 10**12, items_r, done_w, by_id, {}, None, None)
        try:
            batch = b"".join(
                b"[%d,%d,%s]\n" % (100 + i, i + 1, json.dumps(args).encode()) for i, (_, args) in enumerate(tools)
            )
            os.write(items_w, batch)
            got = b""
            while got.count(b"\n") < len(tools):
                await asyncio.sleep(0.001)
                try:
                    got += os.read(done_r, 1 << 16)
                except BlockingIOError:
                    pass
            os.write(items_w, b'{"kind":"done","result":{},"error":null}\n')
            await asyncio.wait_for(driver.closed, BOUND)
        finally:
            for fd in (items_r, items_w, done_r, done_w):
                os.close(fd)
        return {json.loads(line)[0]: line for line in got.splitlines()}

    return asyncio.run(asyncio.wait_for(main(), BOUND))


def test_plain_calls_match_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    tools = corpus()
    plain_awaits = [0]
    real = RunDriver._await_plain

    def counted(self: RunDriver, *args: Any) -> Any:
        plain_awaits[0] += 1
        return real(self, *args)

    monkeypatch.setattr(RunDriver, "_await_plain", counted)
    fast = completions(tools)
    assert plain_awaits[0] == len(tools), "every call of the corpus takes the plain path"

    monkeypatch.setattr(Tool, "_plain_coroutine", lambda self, args: None)
    general = completions(tools)
    assert plain_awaits[0] == len(tools), "the general path was forced"

    assert fast.keys() == general.keys() == {100 + i for i in range(len(tools))}
    for token in sorted(fast):
        name = tools[token - 100][0].name
        if b"python_traceback" in general[token]:
            assert without_traceback(fast[token]) == without_traceback(general[token]), name
        else:
            assert fast[token] == general[token], name
    # Spot checks that the corpus covers what it means to.
    kinds = {tools[t - 100][0].name: json.loads(fast[t])[1] for t in fast}
    assert kinds["integer"] == {"ok": True, "content": 42}
    assert kinds["nan"]["kind"] == "user_error"
    assert kinds["opaque"]["kind"] == "user_error"
    assert kinds["done"]["intents"]["intents"][0]["kind"] == "start_process"
    assert kinds["retry"]["kind"] == "model_retry"
    assert kinds["own_cancel"]["kind"] == "cancelled"
    assert kinds["paused_after_declaring"]["kind"] == "user_error"
