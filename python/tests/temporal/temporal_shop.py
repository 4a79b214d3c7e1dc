"""The agents, tools and model of the Temporal tests, shared by the test
process and the worker processes (temporal_worker.py).

The model decides from the messages only (a scripted model keeps its
position per process, and a run's requests reach any worker): the prompt
names the scenario, the tool returns so far say what comes next.
"""

from __future__ import annotations

import asyncio
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from starweaver import ApprovalRequired, CallDeferred, ModelRetry, ToolContext, ToolOutput, create_agent, tool
from starweaver.artifacts import MemoryArtifactStore
from starweaver.content import Image
from starweaver.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from starweaver.models import FallbackModel, OpenAIModel
from starweaver.temporal import TemporalAgent
from starweaver.testing import FunctionModel, TestModel
from temporalio.common import RetryPolicy


def _dir(ctx: ToolContext) -> Path:
    return Path(ctx.deps["dir"])


def _blocked(d: Path) -> bool:
    return (d / "block").exists()


async def _hold(d: Path) -> None:
    """Blocks while the test holds the worker (until it is killed)."""
    while _blocked(d):
        await asyncio.sleep(0.05)


@tool(effect="non_idempotent_write")
async def charge(ctx: ToolContext, amount: int) -> str:
    """Charge the card: not safe to run twice."""
    d = _dir(ctx)
    with open(d / "charges", "a") as f:
        f.write(f"{amount}\n")
    await _hold(d)
    return f"charged {amount}"


@tool(effect="read_only")
async def lookup(ctx: ToolContext, item: str) -> str:
    """Look an item up."""
    d = _dir(ctx)
    with open(d / "lookups", "a") as f:
        f.write(f"{item} pid={os.getpid()}\n")
    await _hold(d)
    return f"{item}: in stock"


@tool(effect="non_idempotent_write")
async def refund(ctx: ToolContext, amount: int) -> str:
    """Refund: a person approves it first."""
    if ctx.approval is None:
        raise ApprovalRequired(f"refund {amount}")
    with open(_dir(ctx) / "refunds", "a") as f:
        f.write(f"{amount}\n")
    return f"refunded {amount}"


@tool(effect="non_idempotent_write")
def ship(order: int) -> str:
    """Ship an order: the warehouse answers later (a deferred call)."""
    raise CallDeferred(f"order {order} queued at the warehouse")


@tool(effect="pure")
def double(n: int) -> int:
    """Twice n."""
    return 2 * n


@tool(effect="read_only", timeout_ms=300)
async def slowpoke() -> str:
    """Takes longer than its timeout."""
    await asyncio.sleep(30)
    return "too late"


@tool(effect="pure")
def blob(size: int) -> str:
    """A string of size bytes."""
    return "x" * size


@tool(effect="pure")
def picky(x: int) -> str:
    """Wants x == 2 and says so."""
    if x != 2:
        raise ModelRetry("x must be 2")
    return "picky is happy"


def _prompt(messages: list[ModelMessage]) -> str:
    for m in messages:
        if isinstance(m, ModelRequest):
            for p in m.parts:
                if isinstance(p, UserPromptPart):
                    return p.text
    return ""


def _returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


def _call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def _describe(ret: ToolReturnPart) -> str:
    if ret.is_error:
        return f"{ret.name}=error:{ret.error_kind}"
    return f"{ret.name}={ret.content}"


def decide(messages: list[ModelMessage], info: dict[str, Any]) -> Any:
    prompt = _prompt(messages)
    returns = _returns(messages)
    if prompt.startswith("n="):
        n = int(prompt[2:])
        if not returns:
            return {"tool_calls": [_call("double", "c1", n=n)]}
        return str(returns[-1].content)
    if prompt.startswith("big:"):
        if not returns:
            return {"tool_calls": [_call("blob", "c1", size=int(prompt[4:]))]}
        ret = returns[-1]
        return f"error:{ret.error_kind}" if ret.is_error else f"len={len(str(ret.content))}"
    if prompt == "picky":
        # A ModelRetry reaches the model as a model_retry return: it calls
        # again with what the tool asked for.
        asked = [r for r in returns if r.error_kind == "model_retry"]
        if not returns or returns[-1].error_kind == "model_retry":
            return {"tool_calls": [_call("picky", f"c{len(asked) + 1}", x=1 + len(asked))]}
        return f"retries={len(asked)} {_describe(returns[-1])}"
    if prompt == "slow":
        if not returns:
            return {"tool_calls": [_call("slowpoke", "c1")]}
        return _describe(returns[-1])
    if prompt == "ship":
        if not returns:
            return {"tool_calls": [_call("ship", "c1", order=9)]}
        return "; ".join(_describe(r) for r in returns)
    if prompt == "crash":
        if not returns:
            return {"tool_calls": [_call("charge", "c1", amount=7), _call("lookup", "c2", item="lamp")]}
        return "; ".join(_describe(r) for r in returns)
    if prompt == "shop":
        if not returns:
            calls = [_call("lookup", "c1", item="a"), _call("lookup", "c2", item="b"), _call("refund", "c3", amount=5)]
            return {"tool_calls": calls}
        return "; ".join(_describe(r) for r in returns)
    return f"unknown prompt {prompt!r}"


agent = create_agent(
    model=FunctionModel(decide),
    tools=[charge, lookup, refund, ship, slowpoke, double, blob, picky],
    instructions="a shop",
)

#: Short heartbeats and retries: a lost worker is noticed within seconds.
shop = TemporalAgent(
    agent,
    name="shop",
    start_to_close_timeout=timedelta(seconds=60),
    heartbeat_timeout=timedelta(seconds=2),
    retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=1)),
)

#: The same agent under another name: its activities have other types, so a
#: history recorded with ``shop`` does not replay with it.
shop_renamed = TemporalAgent(agent, name="shop_renamed")


class City(BaseModel):
    name: str
    population: int


#: An agent with a structured output: its runs' output is a City.
cities = TemporalAgent(
    create_agent(
        model=FunctionModel(lambda messages, info: TestModel.output_response(City(name="Bern", population=1))),
        output_type=City,
    ),
    name="cities",
)


#: The bytes of a chart: large, and not compressible.
CHART = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 1200


@tool(effect="idempotent_write")
async def render_chart(ctx: ToolContext, week: int) -> ToolOutput:
    """A chart kept in the artifact store: the return holds its reference."""
    ref = await ctx.artifacts.put(CHART, "image/png", name=f"week-{week}.png", idempotency_key=f"chart:{week}")
    return ToolOutput.rich([f"Sales for week {week}:", Image.from_artifact(ref)])


def _chart_model(messages: list[ModelMessage], info: dict[str, Any]) -> Any:
    returns = _returns(messages)
    if not returns:
        return {"tool_calls": [_call("render_chart", "c1", week=3)]}
    image = (returns[0].parts or [None, None])[1]
    return f"saw {image.source.kind}" if isinstance(image, Image) else "saw no image"


#: An agent whose tool returns an artifact (a store this process's worker
#: and workflow share).
charts = TemporalAgent(
    create_agent(
        model=FunctionModel(_chart_model),
        tools=[render_chart],
        artifact_store=MemoryArtifactStore(),
        artifact_scope="tests",
    ),
    name="charts",
)


def _broken_model(messages: list[ModelMessage], info: dict[str, Any]) -> Any:
    raise ValueError("the model is down")


# A model that fails: the run fails at once, as locally, never retried
# without end by Temporal's default policy.
broken = TemporalAgent(create_agent(model=FunctionModel(_broken_model)), name="broken")


def _unreachable(name: str) -> OpenAIModel:
    # Nothing listens on port 1: the connection is refused at once, a
    # failure a fallback passes on.
    return OpenAIModel(name, base_url="http://127.0.0.1:1/v1", api_key="sk-test", max_retries=0)


# A fallback whose every model fails: the run fails with both attempts.
unreachable = TemporalAgent(
    create_agent(model=FallbackModel(_unreachable("gpt-4.1"), _unreachable("gpt-4o-mini"))), name="unreachable"
)


@tool
async def hello(name: str) -> str:
    return f"hello {name}"


def _greet(messages: list[ModelMessage], info: dict[str, Any]) -> Any:
    if any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts):
        return "greeted"
    return TestModel.tool_call_response([{"id": "g1", "name": "hello", "arguments": {"name": "ada"}}])


#: One call, then the answer: the tracing test's agent.
greeter = TemporalAgent(
    create_agent(model=FunctionModel(_greet, model_name="greeter-model"), tools=[hello]), name="greeter"
)
