"""Effect classes decide which failed calls are re-run (core/tool tests the
rules; these check that Python declarations reach them)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from starweaver import BaseTool, ToolContext, create_agent, tool
from starweaver.testing import TestModel

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(coro, 30)

    return asyncio.run(bounded())


def calling(*names: str) -> TestModel:
    return TestModel(
        responses=[
            {"tool_calls": [{"id": f"c{i}", "name": n, "arguments": {}} for i, n in enumerate(names)]},
            "done",
        ]
    )


def returns(result: Any) -> list[Any]:
    return [p for m in result.messages for p in m.parts if p.kind == "tool_return"]


@pytest.mark.parametrize(
    ("effect", "attempts", "ambiguous"),
    [(None, 3, False), ("read_only", 3, False), ("idempotent_write", 3, False), ("non_idempotent_write", 1, True)],
)
def test_only_safe_calls_are_re_run(effect: Any, attempts: int, ambiguous: bool) -> None:
    calls: list[str] = []

    @tool(effect=effect, max_retries=2)
    def send(ctx: ToolContext) -> str:
        calls.append(ctx.idempotency_key)
        raise ConnectionError("connection reset")

    result = run(create_agent(model=calling("send"), tools=[send]).run("go"))
    assert len(calls) == attempts
    # Every attempt of the call sees the same key.
    assert len(set(calls)) == 1 and calls[0].endswith("/turn/0/call/0")
    (ret,) = returns(result)
    assert ret.is_error and bool(ret.metadata.get("starweaver_ambiguous")) is ambiguous
    if ambiguous:
        assert "may already have taken effect" in ret.content["message"]


def test_default_effect_makes_undeclared_tools_fail_closed() -> None:
    calls = 0

    @tool(max_retries=2)
    async def undeclared() -> str:
        nonlocal calls
        calls += 1
        raise RuntimeError("boom")

    run(create_agent(model=calling("undeclared"), tools=[undeclared], default_effect="unknown").run("go"))
    assert calls == 1


def test_an_unknown_effect_is_refused_where_the_tool_is_declared() -> None:
    """The mistake is reported by @tool (and by a BaseTool subclass when it
    is defined), naming the tool and the known classes, not later by
    create_agent."""
    with pytest.raises(ValueError, match=r"tool 'odd': unknown effect 'maybe' \(want one of pure, read_only,"):

        @tool(effect="maybe")  # type: ignore[arg-type]
        async def odd() -> str:
            return "x"

    async def plain() -> str:
        return "x"

    with pytest.raises(ValueError, match="unknown effect 'sometimes'"):
        tool(plain, effect="sometimes")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="effect must be a str, got int"):
        tool(effect=3)(plain)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"BaseTool subclass .*Odd: unknown effect 'maybe'"):

        class Odd(BaseTool):
            effect = "maybe"  # type: ignore[assignment]

            def call(self, ctx: ToolContext, args: dict[str, Any]) -> str:
                return "x"

    class Fine(BaseTool):
        effect = "read_only"

        def call(self, ctx: ToolContext, args: dict[str, Any]) -> str:
            return "x"

    with pytest.raises(ValueError, match=r"Fine\(effect=...\): unknown effect 'maybe'"):
        Fine(effect="maybe")  # type: ignore[typeddict-item]
    assert Fine().to_tool().effect == "read_only"
    # The agent's default is checked by the runtime when the agent is built.
    with pytest.raises(ValueError, match="unknown effect"):
        create_agent(model=calling("odd"), default_effect="maybe")  # type: ignore[arg-type]


def test_every_effect_class_of_the_runtime_is_known_here() -> None:
    from starweaver import _capi  # noqa: PLC0415 - the library's vocabulary
    from starweaver.tools import EFFECTS  # noqa: PLC0415

    assert tuple(_capi.error_kinds()["effect_classes"]) == EFFECTS
    for effect in EFFECTS:

        @tool(effect=effect)  # type: ignore[arg-type]
        async def ok() -> str:
            return "x"

        create_agent(model=calling("ok"), tools=[ok])


def test_calls_of_one_read_only_tool_run_in_parallel() -> None:
    async def main() -> None:
        both = asyncio.Event()
        started = 0

        @tool(effect="read_only")
        async def look(ctx: ToolContext) -> str:
            nonlocal started
            started += 1
            if started == 2:
                both.set()
            # In model order the second call could never start: this waits.
            await asyncio.wait_for(both.wait(), 5)
            return "seen"

        result = await create_agent(model=calling("look", "look"), tools=[look]).run("go")
        assert [r.content for r in returns(result)] == ["seen", "seen"]

    run(main())


def test_base_tool_declares_its_effect() -> None:
    class Delete(BaseTool):
        """Delete a record."""

        effect = "destructive"

        def call(self, ctx: ToolContext, args: dict[str, Any]) -> str:
            raise OSError("disk error")

    t = Delete(max_retries=3).to_tool()
    assert t.effect == "destructive"
    # A destructive call waits for approval by default (test_destructive.py);
    # this one is allowed so that its failure shows.
    result = run(create_agent(model=calling("delete"), tools=[t], destructive_policy="allow").run("go"))
    (ret,) = returns(result)
    assert ret.metadata.get("starweaver_ambiguous") is True
