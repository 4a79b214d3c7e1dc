"""Durable runs on a real Temporal server: parallel calls and an approval
(a user's workflow and the ready-made one), a worker killed in the middle
of a batch, many concurrent runs over two worker processes, replay of a
recorded history, payloads near the limit, and ModelRetry."""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("STARWEAVER_REQUIRE_TEMPORAL") != "1":
    pytest.importorskip("temporalio")

from starweaver.temporal import AgentPlugin, AgentRunOutcome, AgentWorkflowInput, StarweaverPlugin
from temporal_flows import CityWorkflow, FallbackWorkflow, LimitedWorkflow, ShopWorkflow, ShopWorkflowChanged
from temporal_shop import CHART, City, broken, charts, cities, shop, shop_renamed, unreachable
from temporal_support import ADDRESS, queue, wait_for
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle, WorkflowHistory, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Replayer, Worker
from temporalio.workflow import NondeterminismError

# The agents are module-level, made once per process.
pytestmark = [pytest.mark.keeps_handles, pytest.mark.usefixtures("temporal_server")]


async def connect() -> Client:
    return await Client.connect(ADDRESS, plugins=[StarweaverPlugin()])


def worker(client: Client, task_queue: str) -> Worker:
    return Worker(client, task_queue=task_queue, workflows=[ShopWorkflow], plugins=[AgentPlugin(shop)])


async def poll(fn: Any, what: str, timeout: float = 30.0) -> Any:
    """Await fn() until it gives something truthy (bounded)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await fn()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.05)


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def tool_schedules(history: WorkflowHistory) -> list[tuple[int, str, Any]]:
    """(event id, summary, attributes) of each tool activity scheduled, in
    order."""
    out = []
    for e in history.events:
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = e.activity_task_scheduled_event_attributes
            if attrs.activity_type.name == "shop.tool":
                out.append((e.event_id, json.loads(e.user_metadata.summary.data), attrs))
    return out


def test_user_workflow_runs_calls_in_parallel_and_resumes_on_an_approval(tmp_path: Path) -> None:
    async def main() -> tuple[AgentRunOutcome, WorkflowHistory]:
        client = await connect()
        tq = queue()
        async with worker(client, tq):
            h: WorkflowHandle[Any, AgentRunOutcome] = await client.start_workflow(
                "ShopWorkflow",
                args=["shop", str(tmp_path)],
                id=f"shop-{uuid.uuid4()}",
                task_queue=tq,
                result_type=AgentRunOutcome,
            )
            pending = await poll(lambda: h.query("waiting_for"), "the run to wait for an approval")
            assert [(p["kind"], p["tool_name"]) for p in pending] == [("approval", "refund")]
            assert not (tmp_path / "refunds").exists()
            await h.execute_update("decide", True)
            out = await h.result()
            return out, await h.fetch_history()

    out, history = asyncio.run(main())
    assert out.status == "completed"
    assert out.output == "lookup=a: in stock; lookup=b: in stock; refund=refunded 5"
    assert lines(tmp_path / "refunds") == ["5"]
    assert out.usage["requests"] == 2
    # The three calls were scheduled together (in model order, before any
    # completed); the approved call ran again as an activity of its own.
    scheduled = tool_schedules(history)
    summaries = [s for _, s, _ in scheduled]
    assert summaries[0].startswith("tool lookup call c1") and summaries[1].startswith("tool lookup call c2")
    assert summaries[2].startswith("tool refund call c3") and summaries[3].startswith("tool refund call c3")
    first_done = min(
        e.event_id
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED and e.event_id > scheduled[0][0]
    )
    assert all(event_id < first_done for event_id, _, _ in scheduled[:3])
    # Retries follow the effect class: the read-only lookups take the
    # agent's policy (no bound), the refund (a write) one attempt.
    attempts = [attrs.retry_policy.maximum_attempts for _, _, attrs in scheduled]
    assert attempts == [0, 0, 1, 1], attempts

    async def replay() -> None:
        # (d) the recorded history replays with the same code ...
        await Replayer(workflows=[ShopWorkflow], plugins=[StarweaverPlugin(), AgentPlugin(shop)]).replay_workflow(
            history
        )
        # ... and a changed workflow fails loudly.
        changed = Replayer(workflows=[ShopWorkflowChanged], plugins=[StarweaverPlugin(), AgentPlugin(shop_renamed)])
        with pytest.raises(NondeterminismError):
            await changed.replay_workflow(history)

    asyncio.run(replay())


def test_ready_made_workflow_waits_for_the_approve_update(tmp_path: Path) -> None:
    async def main() -> tuple[AgentRunOutcome, list[dict[str, Any]], WorkflowHistory]:
        client = await connect()
        tq = queue()
        async with worker(client, tq):
            h: WorkflowHandle[Any, AgentRunOutcome] = await client.start_workflow(
                "shop.run",
                AgentWorkflowInput("shop", deps={"dir": str(tmp_path)}),
                id=f"shop-{uuid.uuid4()}",
                task_queue=tq,
                result_type=AgentRunOutcome,
            )
            pending = await poll(lambda: h.query("pending"), "the run to wait")
            (approval,) = pending
            assert approval["tool_name"] == "refund"
            with pytest.raises(WorkflowUpdateFailedError):
                await h.execute_update("approve", "no-such-approval")
            assert await h.execute_update("approve", approval["id"]) == 0
            out = await h.result()
            events = await h.query("events")
            assert await h.query("events", 2) == events[2:]
            return out, events, await h.fetch_history()

    out, events, history = asyncio.run(main())
    assert out.status == "completed"
    assert out.output == "lookup=a: in stock; lookup=b: in stock; refund=refunded 5"
    assert [m["kind"] for m in out.messages][:1] == ["request"]
    assert out.typed_messages()[-1].parts
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "run_start" and kinds[-1] == "run_complete" and kinds.count("tool_call") >= 3, kinds

    async def replay() -> None:
        await Replayer(workflows=[], plugins=[StarweaverPlugin(), AgentPlugin(shop)]).replay_workflow(history)

    asyncio.run(replay())


def test_ready_made_workflow_takes_a_deferred_result_from_the_complete_update() -> None:
    async def main() -> AgentRunOutcome:
        client = await connect()
        tq = queue()
        async with worker(client, tq):
            h: WorkflowHandle[Any, AgentRunOutcome] = await client.start_workflow(
                "shop.run",
                AgentWorkflowInput("ship"),
                id=f"ship-{uuid.uuid4()}",
                task_queue=tq,
                result_type=AgentRunOutcome,
            )
            (deferred,) = await poll(lambda: h.query("pending"), "the run to wait")
            assert deferred["kind"] == "deferred" and deferred["tool_name"] == "ship"
            with pytest.raises(WorkflowUpdateFailedError):
                await h.execute_update("approve", deferred["id"])  # not an approval
            assert await h.execute_update("complete", args=[deferred["id"], "shipped by truck"]) == 0
            return await h.result()

    out = asyncio.run(main())
    assert out.status == "completed" and out.output == "ship=shipped by truck"


def test_a_worker_killed_in_a_batch_loses_the_write_and_retries_the_read(tmp_path: Path, workers: Any) -> None:
    tq = queue()
    (tmp_path / "block").touch()
    first = workers(tq)
    first.wait_ready()

    async def start() -> str:
        client = await connect()
        h = await client.start_workflow(
            "shop.run",
            AgentWorkflowInput("crash", deps={"dir": str(tmp_path)}),
            id=f"crash-{uuid.uuid4()}",
            task_queue=tq,
        )
        return h.id

    wf = asyncio.run(start())
    # Both calls started on the first worker: the charge is written, the
    # lookup tried once; both now hold the worker.
    wait_for(
        lambda: len(lines(tmp_path / "charges")) == 1 and len(lines(tmp_path / "lookups")) == 1, "the batch to start"
    )
    first.kill()
    (tmp_path / "block").unlink()
    second = workers(tq)
    second.wait_ready()

    async def finish() -> AgentRunOutcome:
        client = await connect()
        return await asyncio.wait_for(client.get_workflow_handle(wf, result_type=AgentRunOutcome).result(), 60)

    out = asyncio.run(finish())
    assert out.status == "completed"
    # The write ran once and was not run again: the model read the lost
    # call's return; the read-only call ran again on the second worker.
    assert lines(tmp_path / "charges") == ["7"]
    assert out.output == "charge=error:cancelled; lookup=lamp: in stock"
    tries = lines(tmp_path / "lookups")
    assert len(tries) == 2 and tries[0].split("pid=")[1] != tries[1].split("pid=")[1]


def test_two_hundred_runs_over_two_worker_processes(workers: Any) -> None:
    tq = queue()
    for w in [workers(tq), workers(tq)]:
        w.wait_ready()

    async def main() -> list[AgentRunOutcome]:
        client = await connect()
        run = f"many-{uuid.uuid4().hex[:8]}"
        handles = await asyncio.gather(
            *(
                client.start_workflow(
                    "shop.run",
                    AgentWorkflowInput(f"n={i}"),
                    id=f"{run}-{i}",
                    task_queue=tq,
                    result_type=AgentRunOutcome,
                )
                for i in range(200)
            )
        )
        return await asyncio.wait_for(asyncio.gather(*(h.result() for h in handles)), 80)

    outs = asyncio.run(main())
    assert [o.status for o in outs] == ["completed"] * 200
    assert [o.output for o in outs] == [str(2 * i) for i in range(200)]


def test_a_return_near_the_payload_limit_travels_and_one_over_it_is_a_clear_error(tmp_path: Path) -> None:
    async def main() -> list[AgentRunOutcome]:
        client = await connect()
        tq = queue()
        async with worker(client, tq):
            return [
                await client.execute_workflow(
                    "shop.run",
                    AgentWorkflowInput(prompt),
                    id=f"big-{uuid.uuid4()}",
                    task_queue=tq,
                    result_type=AgentRunOutcome,
                )
                for prompt in ("big:1500000", "big:2500000")
            ]

    near, over = asyncio.run(main())
    assert near.status == "completed" and near.output == "len=1500000"
    assert over.status == "completed" and over.output == "error:execution"
    (ret,) = [p for m in over.messages for p in m["parts"] if p["kind"] == "tool_return"]
    assert "over the 1800000" in ret["content"]["message"] and "artifact" in ret["content"]["how_to_fix"]


def test_model_retry_keeps_its_meaning() -> None:
    async def main() -> AgentRunOutcome:
        client = await connect()
        tq = queue()
        async with worker(client, tq):
            return await client.execute_workflow(
                "shop.run",
                AgentWorkflowInput("picky"),
                id=f"picky-{uuid.uuid4()}",
                task_queue=tq,
                result_type=AgentRunOutcome,
            )

    out = asyncio.run(main())
    assert out.output == "retries=1 picky=picky is happy"


def test_typed_output_travels_and_a_usage_limit_fails_the_workflow() -> None:
    async def main() -> tuple[City, BaseException | None]:
        client = await connect()
        tq = queue()
        flows = [CityWorkflow, LimitedWorkflow]
        async with Worker(client, task_queue=tq, workflows=flows, plugins=[AgentPlugin(shop, cities)]):
            city = await client.execute_workflow(
                "CityWorkflow", "a city", id=f"city-{uuid.uuid4()}", task_queue=tq, result_type=City
            )
            with pytest.raises(WorkflowFailureError) as failed:
                await client.execute_workflow("LimitedWorkflow", "n=3", id=f"limited-{uuid.uuid4()}", task_queue=tq)
            return city, failed.value.cause

    city, cause = asyncio.run(main())
    assert city == City(name="Bern", population=1)
    # The run's error fails the workflow (it does not retry its task forever).
    assert isinstance(cause, ApplicationError) and cause.type == "UsageLimitExceeded", cause


def test_a_failing_model_fails_the_run_after_one_attempt() -> None:
    async def main() -> tuple[BaseException | None, WorkflowHistory]:
        client = await connect()
        tq = queue()
        async with Worker(client, task_queue=tq, plugins=[AgentPlugin(broken)]):
            h = await client.start_workflow(
                "broken.run",
                AgentWorkflowInput("hi"),
                id=f"broken-{uuid.uuid4()}",
                task_queue=tq,
                result_type=AgentRunOutcome,
            )
            with pytest.raises(WorkflowFailureError) as failed:
                await asyncio.wait_for(h.result(), 60)
            return failed.value.cause, await h.fetch_history()

    cause, history = asyncio.run(main())
    assert "the model is down" in str(cause), cause
    attempts = [
        e.activity_task_failed_event_attributes
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED
    ]
    assert len(attempts) == 1 and attempts[0].failure.application_failure_info.non_retryable, attempts


def test_a_fallback_failure_keeps_its_code_and_attempts() -> None:
    """Every model of a FallbackModel fails in the model activity: the
    workflow's run fails with code fallback_failed and both attempts, and
    its events show each attempt before run_failed, as a local run's do."""

    async def main() -> dict[str, Any]:
        client = await connect()
        tq = queue()
        async with Worker(client, task_queue=tq, workflows=[FallbackWorkflow], plugins=[AgentPlugin(unreachable)]):
            out: dict[str, Any] = await asyncio.wait_for(
                client.execute_workflow("FallbackWorkflow", "hi", id=f"fallback-{uuid.uuid4()}", task_queue=tq),
                60,
            )
            return out

    out = asyncio.run(main())
    assert out["code"] == "fallback_failed", out
    assert [(a["model"], a["provider"], a["code"]) for a in out["attempts"]] == [
        ("gpt-4.1", "openai", "connection_error"),
        ("gpt-4o-mini", "openai", "connection_error"),
    ], out["attempts"]
    assert "gpt-4.1" in out["message"] and "gpt-4o-mini" in out["message"]
    assert out["fallbacks"] == ["gpt-4.1", "gpt-4o-mini"]
    kinds = out["kinds"]
    assert kinds.index("model_request") < kinds.index("model_fallback") < kinds.index("run_failed"), kinds


def test_a_tool_timeout_bounds_its_activity() -> None:
    async def main() -> tuple[AgentRunOutcome, WorkflowHistory]:
        client = await connect()
        tq = queue()
        async with worker(client, tq):
            h = await client.start_workflow(
                "shop.run",
                AgentWorkflowInput("slow"),
                id=f"slow-{uuid.uuid4()}",
                task_queue=tq,
                result_type=AgentRunOutcome,
            )
            return await h.result(), await h.fetch_history()

    out, history = asyncio.run(main())
    # The tool's own timeout answered (not the activity's): the model read
    # a timeout return.
    assert out.output == "slowpoke=error:timeout"
    ((_, summary, attrs),) = tool_schedules(history)
    assert summary.startswith("tool slowpoke call c1 (read_only)")
    # 300 ms per attempt, for each of its attempts, plus the 5 s grace.
    bound = attrs.start_to_close_timeout.ToTimedelta().total_seconds()
    assert 5.3 <= bound < 10, bound


def payload_sizes(history: WorkflowHistory, activity: str) -> tuple[list[int], list[int]]:
    """The input and result sizes (bytes) of each activity of a type."""
    scheduled: dict[int, str] = {}
    inputs, results = [], []
    for e in history.events:
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = e.activity_task_scheduled_event_attributes
            scheduled[e.event_id] = attrs.activity_type.name
            if attrs.activity_type.name == activity:
                inputs.append(sum(len(p.data) for p in attrs.input.payloads))
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            done = e.activity_task_completed_event_attributes
            if scheduled.get(done.scheduled_event_id) == activity:
                results.append(sum(len(p.data) for p in done.result.payloads))
    return inputs, results


def chart_history() -> tuple[AgentRunOutcome, WorkflowHistory]:
    async def main() -> tuple[AgentRunOutcome, WorkflowHistory]:
        client = await connect()
        tq = queue()
        async with Worker(client, task_queue=tq, plugins=[AgentPlugin(charts)]):
            h = await client.start_workflow(
                "charts.run",
                AgentWorkflowInput("chart"),
                id=f"chart-{uuid.uuid4()}",
                task_queue=tq,
                result_type=AgentRunOutcome,
            )
            return await h.result(), await h.fetch_history()

    return asyncio.run(main())


def test_an_artifact_leaves_its_tool_activity_as_a_reference() -> None:
    out, history = chart_history()
    assert out.output == "saw base64", "the model received the chart's bytes"
    _, results = payload_sizes(history, "charts.tool")
    assert len(results) == 1 and results[0] < 4096 < len(CHART), results


def test_an_artifact_reaches_the_model_activity_as_a_reference() -> None:
    _, history = chart_history()
    inputs, _ = payload_sizes(history, "charts.model")
    assert max(inputs) < len(CHART), inputs
