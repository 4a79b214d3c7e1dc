"""Artifact stores: tools write through ctx.artifacts, conversations keep
references, the model boundary reads the bytes, and large outputs are
spilled and paged through with read_artifact."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import ArtifactError, ToolContext, ToolOutput, _capi, tool
from starweaver.agent import create_agent
from starweaver.artifacts import MemoryArtifactStore, OutputBudget
from starweaver.content import ArtifactRef, Document, Image
from starweaver.errors import ArtifactConflict, ArtifactExpired, ArtifactInvalid, ArtifactNotFound
from starweaver.messages import messages_to_json
from starweaver.testing import FunctionModel, TestModel

PNG = b"\x89PNG\r\n\x1a\nchart-pixels"
PNG_B64 = base64.b64encode(PNG).decode()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# -- the store ------------------------------------------------------------------


def test_memory_store_put_and_get() -> None:
    store = MemoryArtifactStore()
    ref = store.put("tenant.acme", PNG, "image/png", name="chart.png")
    assert isinstance(ref, ArtifactRef)
    assert (ref.scope, ref.media_type, ref.size_bytes, ref.name) == ("tenant.acme", "image/png", len(PNG), "chart.png")
    assert ref.artifact_id.startswith("sha256:") and len(ref.sha256) == 64 and ref.expires_at_unix_ms is None
    assert store.get(ref) == PNG
    # Without a key, the key follows the content: the same put is the same ref.
    assert store.put("tenant.acme", PNG, "image/png", name="chart.png") == ref
    # With a key, the key names one artifact.
    keyed = store.put("tenant.acme", b"a", "text/plain", idempotency_key="k1")
    with pytest.raises(ArtifactConflict):
        store.put("tenant.acme", b"b", "text/plain", idempotency_key="k1")
    assert store.put("tenant.acme", b"a", "text/plain", idempotency_key="k1") == keyed


def test_memory_store_failures_are_typed() -> None:
    store = MemoryArtifactStore(max_bytes=8)
    ref = store.put("tenant.acme", b"1234", "text/plain")
    for bad in (
        lambda: store.put("../etc", b"x", "text/plain"),
        lambda: store.put("tenant.acme", b"not a png", "image/png"),
        lambda: store.put("tenant.acme", b"123456789", "text/plain"),  # over max_bytes
        lambda: store.put("tenant.acme", b"", "text/plain"),
    ):
        with pytest.raises(ArtifactInvalid):
            bad()
    with pytest.raises(ArtifactNotFound):
        MemoryArtifactStore().get(ref)
    forged = ref.model_copy(update={"name": "other"})
    with pytest.raises(ArtifactError) as info:
        store.get(forged)
    assert info.value.type == "artifact_integrity"
    past = store.put("tenant.acme", b"old", "text/plain", expires_at=datetime.now(timezone.utc) - timedelta(seconds=1))
    with pytest.raises(ArtifactExpired):
        store.get(past)
    with pytest.raises(TypeError, match="timezone-aware"):
        store.put("tenant.acme", b"x", "text/plain", expires_at=datetime(2030, 1, 1))
    with pytest.raises(TypeError, match="bytes"):
        store.put("tenant.acme", "text", "text/plain")  # type: ignore[arg-type]
    assert isinstance(ArtifactInvalid("m"), ValueError) and isinstance(ArtifactNotFound("m"), LookupError)


def test_store_handles_are_released() -> None:
    before = _capi.handle_count()
    store = MemoryArtifactStore()
    assert _capi.handle_count() == before + 1
    store.close()
    assert _capi.handle_count() == before


# -- ctx.artifacts ---------------------------------------------------------------


@tool
async def render_chart(ctx: ToolContext, week: int) -> ToolOutput:
    ref = await ctx.artifacts.put(PNG, "image/png", name="chart.png", idempotency_key=f"chart:{week}")
    assert await ctx.artifacts.get(ref) == PNG
    return ToolOutput.rich([f"week {week}:", Image.from_artifact(ref)])


@tool
def render_report(ctx: ToolContext) -> ToolOutput:
    # A sync tool runs in a worker thread: it may block on the store.
    ref = ctx.artifacts.put_sync(b"%PDF-1.7 report", "application/pdf", name="report.pdf")
    assert ctx.artifacts.get_sync(ref) == b"%PDF-1.7 report"
    return ToolOutput.rich([Document.from_artifact(ref)])


def chart_model() -> TestModel:
    return TestModel.responses([TestModel.tool_call_response([call("render_chart", "c1", week=3)]), "nice chart"])


def test_tools_store_through_their_context_and_the_model_gets_the_bytes() -> None:
    store = MemoryArtifactStore()
    model = chart_model()
    agent = create_agent(model=model, tools=[render_chart], artifact_store=store, artifact_scope="tenant.acme")
    session = agent.session()
    result = run(session.run("draw"))
    assert result.output == "nice chart"
    (sent,) = tool_returns(model.captured_messages())
    assert sent["parts"][1].source.model_dump() == {"kind": "base64", "media_type": "image/png", "data": PNG_B64}
    (kept,) = result.tool_returns()
    ref = kept.parts[1].source.reference  # type: ignore[index, union-attr]
    assert ref.scope == "tenant.acme" and store.get(ref) == PNG
    # Neither the history nor the exported state holds the bytes.
    for data in (json.dumps(messages_to_json(session.messages)), json.dumps(session.export_state())):
        assert PNG_B64 not in data and "chart-pixels" not in data
        assert ref.artifact_id in data


def test_sync_tools_use_the_blocking_calls() -> None:
    store = MemoryArtifactStore()
    model = TestModel.responses([TestModel.tool_call_response([call("render_report", "c1")]), "read it"])
    agent = create_agent(model=model, tools=[render_report], artifact_store=store, artifact_scope="tenant.acme")
    assert run(agent.run("report")).output == "read it"
    (sent,) = tool_returns(model.captured_messages())
    assert sent["parts"][0].source.data == base64.b64encode(b"%PDF-1.7 report").decode()
    assert sent["parts"][0].name == "report.pdf"


def test_async_store_calls_never_run_on_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    put, get = _capi.artifact_put, _capi.artifact_get

    def spy_put(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return put(*args)

    def spy_get(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return get(*args)

    monkeypatch.setattr(_capi, "artifact_put", spy_put)
    monkeypatch.setattr(_capi, "artifact_get", spy_get)
    loop_thread: list[str] = []

    @tool
    async def probe(ctx: ToolContext) -> str:
        loop_thread.append(threading.current_thread().name)
        ref = await ctx.artifacts.put(b"x", "text/plain")
        await ctx.artifacts.get(ref)
        return "ok"

    model = TestModel.responses([TestModel.tool_call_response([call("probe")]), "done"])
    store = MemoryArtifactStore()
    run(create_agent(model=model, tools=[probe], artifact_store=store, artifact_scope="t").run("x"))
    assert len(threads) == 2 and loop_thread and loop_thread[0] not in threads


def test_context_artifacts_are_bound_to_the_agents_scope() -> None:
    store = MemoryArtifactStore()
    foreign = store.put("tenant.other", b"theirs", "text/plain")
    errors: list[BaseException] = []

    @tool
    async def peek(ctx: ToolContext) -> str:
        try:
            await ctx.artifacts.get(foreign)
        except ArtifactInvalid as exc:
            errors.append(exc)
        return ctx.artifacts.scope

    model = TestModel.responses([TestModel.tool_call_response([call("peek")]), "done"])
    run(create_agent(model=model, tools=[peek], artifact_store=store, artifact_scope="tenant.acme").run("x"))
    assert len(errors) == 1 and "another scope" in str(errors[0])
    assert tool_returns(model.captured_messages())[0]["content"] == "tenant.acme"


def test_without_a_store_ctx_artifacts_is_a_user_error() -> None:
    model = chart_model()
    result = run(create_agent(model=model, tools=[render_chart], max_retries=0).run("x"))
    (ret,) = result.tool_returns()
    assert ret.error_kind == "user_error" and "no artifact store" in ret.content["message"]


def test_store_and_scope_go_together() -> None:
    with pytest.raises(TypeError, match="go together"):
        create_agent(model=TestModel("ok"), artifact_store=MemoryArtifactStore())
    with pytest.raises(TypeError, match="go together"):
        create_agent(model=TestModel("ok"), artifact_scope="tenant.acme")
    with pytest.raises(ValueError, match="scope"):
        create_agent(model=TestModel("ok"), artifact_store=MemoryArtifactStore(), artifact_scope="../x")


# -- resolution failures at the model boundary ------------------------------------


def test_a_reference_of_another_scope_fails_the_run() -> None:
    store = MemoryArtifactStore()
    foreign = store.put("tenant.other", PNG, "image/png")

    @tool
    async def smuggle() -> ToolOutput:
        return ToolOutput.rich([Image.from_artifact(foreign)])

    model = TestModel.responses([TestModel.tool_call_response([call("smuggle")]), "done"])
    agent = create_agent(model=model, tools=[smuggle], artifact_store=store, artifact_scope="tenant.acme")
    with pytest.raises(ArtifactInvalid, match="another scope"):
        run(agent.run("x"))
    assert len(model.captured_messages()) == 1


def test_an_artifact_over_the_resolve_limit_fails_the_run() -> None:
    store = MemoryArtifactStore()
    model = chart_model()
    agent = create_agent(
        model=model, tools=[render_chart], artifact_store=store, artifact_scope="tenant.acme", artifact_resolve_limit=4
    )
    with pytest.raises(ArtifactInvalid, match="limit of 4"):
        run(agent.run("x"))


# -- output budgeting ---------------------------------------------------------------


def big_text(n: int) -> str:
    lines = []
    i = 0
    while sum(len(x) for x in lines) < n:
        lines.append(f"line {i:06d} " + chr(ord("a") + i % 26) * 20 + "\n")
        i += 1
    return "".join(lines)[:n]


BIG = big_text(200 * 1024)


@tool
async def dump_log() -> str:
    return BIG


def test_a_large_return_is_spilled_and_paged_with_read_artifact() -> None:
    store = MemoryArtifactStore()
    seen: dict[str, Any] = {}

    steps: list[int] = []

    def respond(messages: list[Any], info: dict[str, Any]) -> Any:
        step = len(steps)
        steps.append(step)
        if step == 0:
            seen["tools"] = [t["name"] for t in info["params"]["tools"]]
            return {"tool_calls": [call("dump_log", "c_dump")]}
        ret = messages[-1].parts[-1]
        if step == 1:
            seen["head"] = ret.content
            ref = ret.content[ret.content.index("sha256:") :][:71]
            seen["ref"] = ref
            return {"tool_calls": [call("read_artifact", "c_read", ref=ref, offset=100_000, limit=5_000)]}
        seen["slice"] = ret.content
        return "read it"

    session = create_agent(
        model=FunctionModel(respond), tools=[dump_log], artifact_store=store, artifact_scope="tenant.acme"
    ).session()
    result = run(session.run("show the log"))
    assert result.output == "read it"
    assert "read_artifact" in seen["tools"]
    head = seen["head"]
    assert f"{len(BIG)} bytes" in head and BIG[:4000] in head and len(head) < 5 * 1024
    assert seen["slice"]["text"] == BIG[100_000:105_000]
    assert seen["slice"]["next_offset"] == 105_000 and seen["slice"]["more"] is True
    assert seen["slice"]["size_bytes"] == len(BIG)
    # The history stays small; the store holds the whole output.
    assert len(json.dumps(messages_to_json(session.messages))) < 20 * 1024
    spilled = [r for r in result.tool_returns() if r.name == "dump_log"][0]
    record = spilled.metadata["starweaver_spilled"]
    assert record["size_bytes"] == len(BIG) and record["artifact"]["artifact_id"] == seen["ref"]
    assert store.get(ArtifactRef.model_validate(record["artifact"])).decode() == BIG


def test_budget_options() -> None:
    store = MemoryArtifactStore()
    model = TestModel.responses([TestModel.tool_call_response([call("dump_log")]), "ok"])
    agent = create_agent(
        model=model,
        tools=[dump_log],
        artifact_store=store,
        artifact_scope="tenant.acme",
        output_budget=OutputBudget(max_bytes=300 * 1024),
    )
    (ret,) = run(agent.run("x")).tool_returns()
    assert ret.content == BIG and "read_artifact" in [t["name"] for t in model.captured_params()[0]["tools"]]
    model = TestModel.responses([TestModel.tool_call_response([call("dump_log")]), "ok"])
    agent = create_agent(
        model=model,
        tools=[dump_log],
        artifact_store=store,
        artifact_scope="tenant.acme",
        output_budget=OutputBudget(disabled=True),
    )
    (ret,) = run(agent.run("x")).tool_returns()
    assert ret.content == BIG and "read_artifact" not in [t["name"] for t in model.captured_params()[0]["tools"]]
    model = TestModel.responses([TestModel.tool_call_response([call("dump_log")]), "ok"])
    agent = create_agent(
        model=model,
        tools=[dump_log],
        artifact_store=store,
        artifact_scope="tenant.acme",
        output_budget=OutputBudget(max_bytes=1000, head_bytes=100),
    )
    (ret,) = run(agent.run("x")).tool_returns()
    assert ret.content.endswith("\n" + BIG[:100]) and ret.metadata["starweaver_spilled"]["head_bytes"] == 100
    with pytest.raises(Exception, match="output budget"):
        create_agent(
            model=TestModel("ok"),
            artifact_store=store,
            artifact_scope="t",
            output_budget=OutputBudget(max_bytes=10, head_bytes=20),
        )
    # No store: no spilling, no read_artifact.
    model = TestModel.responses([TestModel.tool_call_response([call("dump_log")]), "ok"])
    (ret,) = run(create_agent(model=model, tools=[dump_log]).run("x")).tool_returns()
    assert ret.content == BIG and "read_artifact" not in [t["name"] for t in model.captured_params()[0]["tools"]]
