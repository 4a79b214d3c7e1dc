"""Per-tool concurrency limits and resource-keyed ordering (core/tool tests
the rules; these check that Python declarations reach them, including a key
function answered through the bridge). Interleavings are forced with events:
nothing waits on time."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from starweaver import FunctionToolset, ToolContext, create_agent, tool
from starweaver.messages import ModelMessage
from starweaver.testing import FunctionModel, TestModel

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(coro, 30)

    return asyncio.run(bounded())


def calling(*calls: tuple[str, dict[str, Any]]) -> TestModel:
    return TestModel(
        responses=[
            {"tool_calls": [{"id": f"c{i}", "name": n, "arguments": a} for i, (n, a) in enumerate(calls)]},
            "done",
        ]
    )


def returns(result: Any) -> list[Any]:
    return [p for m in result.messages for p in m.parts if p.kind == "tool_return"]


class Gates:
    """Calls that record their start and wait until the test opens them."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}
        self.changed = asyncio.Event()
        self.in_flight: dict[str, int] = {}
        self.peak: dict[str, int] = {}

    def gate(self, cid: str) -> asyncio.Event:
        return self.gates.setdefault(cid, asyncio.Event())

    async def enter(self, name: str, cid: str) -> str:
        self.started.append(cid)
        self.in_flight[name] = self.in_flight.get(name, 0) + 1
        self.peak[name] = max(self.peak.get(name, 0), self.in_flight[name])
        self.changed.set()
        await self.gate(cid).wait()
        self.in_flight[name] -= 1
        return cid

    async def until(self, *cids: str) -> None:
        while not all(c in self.started for c in cids):
            self.changed.clear()
            await self.changed.wait()


@pytest.mark.parametrize("key", ["path", "/path", lambda args: args["path"]], ids=["argument", "pointer", "callable"])
def test_a_write_waits_between_two_reads_and_other_keys_overlap(key: Any) -> None:
    async def main() -> None:
        g = Gates()

        @tool(resource_key=key, access="read")
        async def read(ctx: ToolContext, path: str) -> str:
            return await g.enter("read", ctx.tool_call_id)

        @tool(resource_key=key, access="write")
        async def write(ctx: ToolContext, path: str) -> str:
            return await g.enter("write", ctx.tool_call_id)

        model = calling(
            ("read", {"path": "a"}),  # c0
            ("write", {"path": "a"}),  # c1
            ("read", {"path": "a"}),  # c2
            ("read", {"path": "b"}),  # c3
            ("write", {"path": "b"}),  # c4
        )
        task = asyncio.ensure_future(create_agent(model=model, tools=[read, write]).run("go"))
        await g.until("c0", "c3")  # "b" overlaps "a"
        g.gate("c3").set()
        await g.until("c4")  # the write on "b" waited for the read on "b" only
        assert "c1" not in g.started and "c2" not in g.started
        g.gate("c4").set()
        g.gate("c0").set()
        await g.until("c1")
        assert "c2" not in g.started  # the second read waits for the write
        g.gate("c1").set()
        await g.until("c2")
        g.gate("c2").set()
        result = await task
        assert [r.content for r in returns(result)] == ["c0", "c1", "c2", "c3", "c4"]

    run(main())


def test_reads_of_one_key_run_together() -> None:
    async def main() -> None:
        g = Gates()

        @tool(resource_key="path", access="read")
        async def read(ctx: ToolContext, path: str) -> str:
            return await g.enter("read", ctx.tool_call_id)

        task = asyncio.ensure_future(
            create_agent(model=calling(*[("read", {"path": "a"})] * 3), tools=[read]).run("go")
        )
        await g.until("c0", "c1", "c2")  # model order would never get here
        for c in ("c0", "c1", "c2"):
            g.gate(c).set()
        await task

    run(main())


def test_a_raising_key_function_orders_its_call_as_a_barrier() -> None:
    async def main() -> None:
        g = Gates()

        @tool(resource_key=lambda args: args["path"], access="read")
        async def read(ctx: ToolContext, path: str = "") -> str:
            return await g.enter("read", ctx.tool_call_id)

        model = calling(("read", {"path": "a"}), ("read", {}), ("read", {"path": "b"}))
        task = asyncio.ensure_future(create_agent(model=model, tools=[read]).run("go"))
        await g.until("c0")
        g.gate("c0").set()
        await g.until("c1")
        assert "c2" not in g.started
        g.gate("c1").set()
        await g.until("c2")
        g.gate("c2").set()
        await task

    run(main())


def test_max_concurrency_caps_one_tool_without_holding_back_the_others() -> None:
    async def main() -> None:
        g = Gates()

        @tool(max_concurrency=2, effect="read_only")
        async def slow(ctx: ToolContext) -> str:
            return await g.enter("slow", ctx.tool_call_id)

        @tool(effect="read_only")
        async def other(ctx: ToolContext) -> str:
            return await g.enter("other", ctx.tool_call_id)

        model = calling(*[("slow", {})] * 6, ("other", {}), ("other", {}))  # c0..c5 slow, c6 c7 other
        task = asyncio.ensure_future(create_agent(model=model, tools=[slow, other]).run("go"))
        await g.until("c0", "c1", "c6", "c7")
        assert g.in_flight["slow"] == 2
        g.gate("c6").set()
        g.gate("c7").set()
        for i in range(4):
            g.gate(f"c{i}").set()
            await g.until(f"c{i + 2}")  # one end lets exactly the next start
            assert g.in_flight["slow"] <= 2
        g.gate("c4").set()
        g.gate("c5").set()
        await task
        assert g.peak == {"slow": 2, "other": 2}

    run(main())


def test_max_concurrency_holds_across_concurrent_runs_of_one_agent() -> None:
    async def main() -> None:
        g = Gates()
        seen: list[str] = []

        @tool(max_concurrency=1)
        async def only(ctx: ToolContext) -> str:
            seen.append(ctx.run_id)
            return await g.enter("only", f"{len(seen)}")

        # Each run calls the tool once, then ends: the answer depends on the
        # run's own conversation, not on the order the two runs ask in (a
        # script shared by both would give the second call to whichever
        # run asks second, and the first run could call the tool twice).
        calls_answered: list[int] = []
        second_call_sent = threading.Event()

        def script(messages: list[ModelMessage], info: Any) -> Any:
            if any(p["kind"] == "tool_return" for p in messages[-1]["parts"]):
                return "done"
            calls_answered.append(1)
            if len(calls_answered) == 2:
                second_call_sent.set()
            return {"tool_calls": [{"id": "c", "name": "only", "arguments": {}}]}

        agent = create_agent(model=FunctionModel(script), tools=[only])
        first = asyncio.ensure_future(agent.run("one"))
        await g.until("1")
        second = asyncio.ensure_future(agent.run("two"))
        # The second run's call is on its way to the tool (its model asked
        # for it) while the first still holds the only slot: it waits for
        # the first, which ends first.
        assert await asyncio.to_thread(second_call_sent.wait, 20)
        g.gate("1").set()
        await first
        await g.until("2")
        assert g.peak["only"] == 1
        g.gate("2").set()
        await second
        assert len(set(seen)) == 2

    run(main())


def test_function_toolset_max_concurrency_caps_each_tool() -> None:
    async def main() -> None:
        g = Gates()

        @tool(effect="read_only")
        async def a(ctx: ToolContext) -> str:
            return await g.enter("a", ctx.tool_call_id)

        @tool(effect="read_only")
        async def b(ctx: ToolContext) -> str:
            return await g.enter("b", ctx.tool_call_id)

        ts = FunctionToolset("s", tools=[a, b], max_concurrency=1)
        task = asyncio.ensure_future(
            create_agent(model=calling(("a", {}), ("a", {}), ("b", {})), toolsets=[ts]).run("go")
        )
        await g.until("c0", "c2")  # each tool capped on its own
        assert "c1" not in g.started
        g.gate("c0").set()
        await g.until("c1")
        g.gate("c1").set()
        g.gate("c2").set()
        await task
        assert g.peak == {"a": 1, "b": 1}

    run(main())


def test_options_are_checked() -> None:
    with pytest.raises(TypeError):
        tool(max_concurrency="2")(lambda: None)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="access needs a resource_key"):
        tool(access="read")(lambda: None)
    with pytest.raises(TypeError):
        tool(resource_key=3)(lambda: None)  # type: ignore[call-overload]

    def f(path: str) -> str:
        return path

    t = tool(resource_key="path", access="read", max_concurrency=3)(f)
    assert (t.resource_key, t.access, t.max_concurrency) == ("path", "read", 3)
    assert t._scheduling_spec() == {"max_concurrency": 3, "resource": {"key": "path", "access": "read"}}
    assert t.replace(max_concurrency=None)._scheduling_spec() == {"resource": {"key": "path", "access": "read"}}
    assert tool(resource_key=lambda a: a["path"])(f)._scheduling_spec() == {"resource": {"host": True}}
    for bad in ({"max_concurrency": 0}, {"resource_key": "path", "access": "sideways"}):
        with pytest.raises(Exception, match="max_concurrency|access"):
            create_agent(model=TestModel(responses=["done"]), tools=[tool(**bad)(f)])
