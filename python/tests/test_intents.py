"""Tool intents from Python: ``return Done(value, intents=[...])`` realised
once through ``create_agent(intent_journal=...)``, the host ingress
(``agent.tool_intents``), parent-end policies, the batch tool's drain order
and a crash test, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import tool_returns
from intent_worker import STATE_KEY, queue_tool
from starweaver import AgentError, CallDeferred, ToolContext, create_agent, create_agent_runtime, tool
from starweaver.errors import (
    ToolIntentBudgetRefused,
    ToolIntentForeignSession,
    ToolIntentIdentityBoundToDifferentIntent,
    ToolIntentInvalid,
    ToolIntentSessionMismatch,
)
from starweaver.intents import (
    CancelProcess,
    Done,
    EmitProcessEvent,
    EmitTrigger,
    ProcessParentEndPolicy,
    SignalProcess,
    StartProcess,
)
from starweaver.shell import LocalShell, ShellPolicy
from starweaver.stores import PostgresStore, SqliteStore, Store
from starweaver.testing import TestModel

GOLDEN = "tool-intent:v1:sha256:8cd893b79abe66a4a894753ab43053964c7bc4253a841916235b90aeedf50719"
WORKER = str(Path(__file__).with_name("intent_worker.py"))
#: How long the worker may take to reach the point where it is killed.
WORKER_TIMEOUT = 60.0


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture(params=["sqlite", "postgres"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def location(store_kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if store_kind == "sqlite":
        return str(tmp_path / "sw.db")
    return str(request.getfixturevalue("postgres_dsn"))


@pytest.fixture
def store(store_kind: str, location: str) -> Iterator[Store]:
    s: Store = SqliteStore(location) if store_kind == "sqlite" else PostgresStore(location)
    with s:
        yield s


def calls_model(*calls: dict[str, Any], final: str = "done") -> TestModel:
    return TestModel.responses([TestModel.tool_call_response(list(calls)), final])


def the_return(model: TestModel, name: str) -> dict[str, Any]:
    (ret,) = tool_returns(model.captured_messages(), name)  # type: ignore[arg-type]
    return ret


def outcomes(ret: dict[str, Any]) -> list[dict[str, Any]]:
    return list(ret["metadata"]["starweaver_intents"])


def test_a_tools_intents_are_realised_once_with_the_golden_replay_key(store: Store) -> None:
    ran = 0

    @tool
    def queue_reports(ctx: ToolContext, report: str) -> Done:
        nonlocal ran
        ran += 1
        return Done(
            {"queued": report},
            intents=[
                StartProcess(originator="report", input={"report": report}),
                EmitTrigger("report_queued", idempotency_key=f"report-{report}", payload={"n": 1}),
            ],
        )

    model = calls_model({"id": "call-1", "name": "queue_reports", "arguments": {"report": "r1"}})
    agent = create_agent(model=model, tools=[queue_reports], intent_journal=store)
    session = agent.session()
    result = run(session.run("queue r1"))
    assert result.output == "done" and ran == 1
    ret = the_return(model, "queue_reports")
    start, trigger = outcomes(ret)
    assert start["status"] == "executed" and start["kind"] == "start_process"
    assert trigger["status"] == "executed" and trigger["result"]["sequence"] == 0
    # The process id is the replay key, derived from the session, the turn
    # ("<run id>:<step>"), the call id and the index.
    turn = agent.tool_intents(session.id, f"{result.run_id}:0", scope_kind="turn")
    key = turn.key("call-1", 0)
    assert start["identity"]["replay_key"] == key.replay_key == start["result"]["process_id"]
    assert start["parent_end"] == {"process_id": key.replay_key, "policy": "cancel"}
    assert trigger["identity"]["replay_key"] == turn.key("call-1", 1).replay_key
    # The golden vector of the reference.
    golden = agent.tool_intents("session-fig1292", "turn-7", scope_kind="turn").key("call-3", 2)
    assert golden.replay_key == GOLDEN
    # The model reads the tool's output, then one line per outcome.
    content = ret["content"]
    assert content.startswith('{"queued":"r1"}\n[tool intent start_process #0 executed: {')
    assert "\n[tool intent emit_trigger #1 executed: {" in content
    # A host cannot submit under an identity a tool realised.
    with pytest.raises(Exception) as refused:
        turn.submit(key, CancelProcess("x"))
    assert getattr(refused.value, "code", None) == "intent_duplicate_identity"
    # The turn's end cancels the started process (the default policy), once.
    (settled,) = turn.settle_parent_end()
    assert settled.result == "cancelled" and settled.process_id == key.replay_key
    assert turn.settle_parent_end() == [settled]


def test_admission_limits_and_refusal_texts() -> None:
    @tool
    def many(n: int, kind: str) -> Done:
        if kind == "mixed":
            # 10 of each of 4 kinds: under the per-kind budget, over the count.
            per = [
                CancelProcess("p"),
                SignalProcess("p", "wake"),
                EmitProcessEvent("p", "tick"),
                EmitTrigger("t", idempotency_key="k"),
            ]
            return Done("ok", intents=[per[i % 4] for i in range(n)])
        return Done("ok", intents=[CancelProcess(f"p{i}") for i in range(n)])

    @tool
    def foreign() -> Done:
        return Done("ok", intents=[CancelProcess("p", session_id="another-session")])

    @tool
    def unknown_process() -> Done:
        return Done("ok", intents=[SignalProcess("no-such-process", "wake")])

    model = calls_model(
        {"id": "c-count", "name": "many", "arguments": {"n": 40, "kind": "mixed"}},
        {"id": "c-kind", "name": "many", "arguments": {"n": 17, "kind": "cancel"}},
        {"id": "c-foreign", "name": "foreign", "arguments": {}},
        {"id": "c-unknown", "name": "unknown_process", "arguments": {}},
    )
    with SqliteStore(":memory:") as store:
        agent = create_agent(model=model, tools=[many, foreign, unknown_process], intent_journal=store)
        run(agent.run("go"))
    rets = {r["tool_call_id"]: r for r in tool_returns(model.captured_messages())}  # type: ignore[arg-type]
    count = outcomes(rets["c-count"])
    assert len(count) == 40 and {o["refusal"]["code"] for o in count} == {"count_budget_exceeded"}
    assert rets["c-count"]["content"].split("\n")[1] == "[tool intent cancel_process #0 refused: count_budget_exceeded]"
    per_kind = outcomes(rets["c-kind"])
    assert per_kind[0]["refusal"] == {"code": "per_kind_budget_exceeded", "kind": "cancel_process"}
    (mismatch,) = outcomes(rets["c-foreign"])
    assert mismatch["refusal"]["code"] == "session_mismatch" and mismatch["refusal"]["recorded"] == "another-session"
    # Admission refusals never rewrite the output; a command's refusal does.
    assert rets["c-foreign"]["is_error"] is False
    (failed,) = outcomes(rets["c-unknown"])
    assert failed["refusal"]["code"] == "command_failed"
    assert failed["refusal"]["command_code"] == "process_not_visible"
    assert rets["c-unknown"]["is_error"] is True
    assert rets["c-unknown"]["content"].startswith("[Tool execution failed]\nprocess_not_visible: ")
    assert rets["c-unknown"]["content"].endswith("\n[tool intent signal_process #0 refused: command_failed]")


def test_intents_need_a_final_result_and_a_journal() -> None:
    @tool
    def pauses() -> str:
        Done("x", intents=[CancelProcess("p")])
        raise CallDeferred("later")

    @tool
    def declares() -> Done:
        return Done("x", intents=[CancelProcess("p")])

    model = calls_model({"id": "c1", "name": "pauses", "arguments": {}})
    with SqliteStore(":memory:") as store:
        run(create_agent(model=model, tools=[pauses], intent_journal=store).run("go"))
    ret = the_return(model, "pauses")
    assert ret["metadata"]["error_kind"] == "user_error"
    assert "declared intents and then paused (call_deferred)" in ret["content"]["message"]

    model = calls_model({"id": "c1", "name": "declares", "arguments": {}})
    run(create_agent(model=model, tools=[declares]).run("go"))
    ret = the_return(model, "declares")
    assert ret["metadata"]["error_kind"] == "user_error"
    assert "no intent journal" in ret["content"]["message"]
    with pytest.raises(AgentError, match="intent_journal"):
        create_agent(model=TestModel("ok")).tool_intents("s", "p")
    with pytest.raises(TypeError, match="intent_journal"):
        create_agent(model=TestModel("ok"), intent_journal="nope")  # type: ignore[arg-type]


def test_host_ingress_duplicate_submits_and_refusals(store: Store) -> None:
    agent = create_agent(model=TestModel("ok"), intent_journal=store)
    ingress = agent.tool_intents("session-1", "host-process")
    key = ingress.key("spawn-report-worker", 0)
    start = StartProcess(originator="report-worker", input={"report": 42}, id="replaced-by-the-intent-key")
    first = ingress.submit(key, start)
    assert first.replayed is False and first.outcome["status"] == "executed"
    assert first.result["process_id"] == key.replay_key == first.replay_key
    again = ingress.submit(key, start)
    assert again.replayed is True and again.outcome == first.outcome
    assert again.model_addendum == first.model_addendum
    assert first.model_addendum.startswith("[tool intent start_process #0 executed: {")
    # Another agent over the same journal shares the identity gate.
    other = create_agent(model=TestModel("ok"), intent_journal=store).tool_intents("session-1", "host-process")
    assert other.submit(other.key("spawn-report-worker", 0), start).replayed is True
    with pytest.raises(ToolIntentIdentityBoundToDifferentIntent):
        ingress.submit(key, StartProcess(originator="someone-else"))
    with pytest.raises(ToolIntentSessionMismatch):
        ingress.submit(ingress.key("c", 0), CancelProcess("p", session_id="session-2"))
    with pytest.raises(ToolIntentForeignSession):
        ingress.submit(agent.tool_intents("session-2", "host-process").key("c", 0), CancelProcess("p"))
    with pytest.raises(ToolIntentBudgetRefused) as budget:
        ingress.submit(ingress.key("big", 0), StartProcess(input={"pad": "x" * (70 * 1024)}))
    assert budget.value.code == "canonical_byte_budget_exceeded"
    with pytest.raises(ToolIntentInvalid):
        ingress.key("c", -1)
    with pytest.raises(ToolIntentInvalid):
        ingress.key("", 0)
    signal = ingress.submit(ingress.key("wake", 0), SignalProcess(key.replay_key, "wake", {"now": True}))
    assert signal.result["sequence"] == 1


def test_parent_end_policies(store: Store) -> None:
    agent = create_agent(model=TestModel("ok"), intent_journal=store)
    ingress = agent.tool_intents("session-1", "parent")
    kept = ingress.submit(ingress.key("spawn", 0), StartProcess(on_parent_end=ProcessParentEndPolicy.ABANDON))
    cancelled = ingress.submit(ingress.key("spawn", 1), StartProcess())
    ended = ingress.submit(ingress.key("spawn", 2), StartProcess())
    ingress.submit(ingress.key("end", 0), CancelProcess(ended.replay_key))
    settled = ingress.settle_parent_end()
    assert [(s.process_id, s.policy, s.result) for s in settled] == [
        (kept.replay_key, "abandon", "abandoned"),
        (cancelled.replay_key, "cancel", "cancelled"),
        (ended.replay_key, "cancel", "refused"),
    ]
    assert settled[2].code == "process_already_terminal"
    # Settling again (a redrive) replays the recorded outcomes.
    assert agent.tool_intents("session-1", "parent").settle_parent_end() == settled
    # Another scope has nothing to settle.
    assert agent.tool_intents("session-1", "other").settle_parent_end() == []


def test_batch_children_drain_in_call_order_then_index(store: Store) -> None:
    released = asyncio.Event()

    def emitting(name: str) -> Any:
        @tool(name=name)
        async def emit(n: int) -> Done:
            if name == "first":
                # Ends after the last child: the drain follows call order,
                # not completion order.
                try:
                    await asyncio.wait_for(released.wait(), 10)
                except asyncio.TimeoutError:
                    pass
            if name == "last":
                released.set()
            return Done(name, intents=[EmitTrigger("t", idempotency_key=f"{name}-{i}") for i in range(n)])

        return emit

    entries = [
        {"tool": "first", "parameters": {"n": 2}},
        {"tool": "second", "parameters": {"n": 1}},
        {"tool": "last", "parameters": {"n": 2}},
    ]
    model = calls_model({"id": "B", "name": "batch", "arguments": {"tool_calls": entries}})
    agent = create_agent(
        model=model,
        tools=[emitting("first"), emitting("second"), emitting("last")],
        batch_tool=True,
        intent_journal=store,
    )
    session = agent.session()
    result = run(session.run("go"))
    batch = the_return(model, "batch")
    results = json.loads(batch["content"]) if isinstance(batch["content"], str) else batch["content"]
    seen = []
    for entry in results["results"]:
        assert entry["success"] is True
        lines = entry["result"].split("\n")[1:]
        for line in lines:
            report = json.loads(line.split(" executed: ", 1)[1][:-1])
            seen.append((report["idempotency_key"], report["sequence"]))
    assert seen == [("first-0", 0), ("first-1", 1), ("second-0", 2), ("last-0", 3), ("last-1", 4)]
    # Each child's intents are keyed by its own call id, "B:0i".
    turn = agent.tool_intents(session.id, f"{result.run_id}:0", scope_kind="turn")
    assert "#0 executed: {" in results["results"][2]["result"]
    assert turn.key("B:02", 1).replay_key in results["results"][2]["result"]


def crash(kind: str, location: str, log: Path) -> tuple[str, list[Any]]:
    """Run an intent worker until it reports it is ready, kill it with
    SIGKILL, and return the id of the session it left and the outcomes it
    saw."""
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, WORKER, kind, location], stdout=subprocess.PIPE, stderr=err, text=True)
        lines: queue.Queue[str | None] = queue.Queue()

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=read, daemon=True).start()
        try:
            seen = lines.get(timeout=WORKER_TIMEOUT)
            assert seen is not None and seen.startswith("outcomes "), f"the worker ended: {log.read_text()}"
            ready = lines.get(timeout=WORKER_TIMEOUT)
            assert ready is not None and ready.startswith("ready "), f"the worker ended: {log.read_text()}"
        finally:
            proc.kill()  # SIGKILL
            proc.wait(WORKER_TIMEOUT)
    return ready.split()[1], json.loads(seen.split(" ", 1)[1])


def test_killed_after_the_attempt_commit_a_redrive_realises_each_intent_once(
    store_kind: str, location: str, tmp_path: Path
) -> None:
    sid, before = crash(store_kind, location, tmp_path / "worker.log")
    assert [o["status"] for o in before] == ["executed", "executed"]
    ran = 0

    def counted() -> None:
        nonlocal ran
        ran += 1

    async def recover(store: Store) -> Any:
        async with create_agent_runtime(
            model=TestModel("recovered"),
            tools=[queue_tool(counted)],
            session_store=store,
            effect_journal=store,
            intent_journal=store,
            state_key=STATE_KEY,
        ) as runtime:
            session = await runtime.open_session(sid)
            return await session.recover()

    store: Store = SqliteStore(location) if store_kind == "sqlite" else PostgresStore(location)
    with store:
        result = run(recover(store))
        assert result.output == "recovered" and ran == 0  # the committed call did not run again
        ret = next(
            p
            for m in result.messages
            for p in m["parts"]
            if p["kind"] == "tool_return" and p["tool_call_id"] == "call_queue"
        )
        after = list(ret["metadata"]["starweaver_intents"])
        # Byte for byte the outcomes the killed worker reported.
        assert json.dumps(after, sort_keys=True) == json.dumps(before, sort_keys=True)
        start, trigger = after
        assert trigger["result"]["sequence"] == 0 and trigger["result"]["duplicate"] is False
        # Each intent was realised once: a host submitting the same trigger
        # under another key finds the first occurrence.
        host = create_agent(model=TestModel("ok"), intent_journal=store).tool_intents(sid, "host")
        dup = host.submit(host.key("again", 0), EmitTrigger("report_queued", idempotency_key="report-q1"))
        assert dup.result["duplicate"] is True and dup.result["sequence"] == 0
        # The started process holds one entry: its start.
        signal = host.submit(host.key("wake", 0), SignalProcess(start["result"]["process_id"], "wake"))
        assert signal.result["sequence"] == 1


def _with_argument(arg: str) -> list[int]:
    """The live processes with arg in their argv (from /proc), a sandbox's
    launcher (bwrap, whose argv ends with the command's) aside."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except (OSError, IndexError):
            continue
        if state != "Z" and arg in argv and not argv[0].endswith("bwrap"):
            out.append(int(entry.name))
    return out


def _wait_for(count: Any, want: int) -> None:
    """Polls count() (bounded: a hang guard, not a measurement)."""
    import time

    deadline = time.monotonic() + 30
    while len(count()) != want and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(count()) == want


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="counts processes in /proc")
def test_an_agent_with_a_shell_starts_real_processes_and_its_turn_end_kills_them(tmp_path: Path) -> None:
    """With a shell, a StartProcess runs its input as a process of that shell
    (the process id still the replay key); the turn's Cancel parent end
    kills it, and a process the shell's policy refuses never starts."""
    import os
    import shutil

    if shutil.which("bwrap") is None and not os.environ.get("STARWEAVER_REQUIRE_SANDBOX"):
        pytest.skip("needs bubblewrap (apt-get install bubblewrap); set STARWEAVER_REQUIRE_SANDBOX=1 to fail instead")
    mark = f"7{os.getpid()}{len(str(tmp_path))}"  # sleep's seconds: a number no other process has

    @tool
    def spawn(command: str) -> Done:
        return Done("spawned", intents=[StartProcess(input={"command": command, "arguments": [mark]})])

    root = tmp_path / "root"
    root.mkdir()
    model = TestModel.responses(
        [
            TestModel.tool_call_response([{"id": "ok", "name": "spawn", "arguments": {"command": "sleep"}}]),
            TestModel.tool_call_response([{"id": "no", "name": "spawn", "arguments": {"command": "touch"}}]),
            "done",
        ]
    )
    with SqliteStore(str(tmp_path / "sw.db")) as store:
        agent = create_agent(
            model=model,
            tools=[spawn],
            intent_journal=store,
            shell=LocalShell(root, policy=ShellPolicy(allow_execute=True, allowed_programs=["sleep"])),
        )
        session = agent.session()
        result = run(session.run("spawn"))
        assert result.output == "done"
        rets = {r["tool_call_id"]: r for r in tool_returns(model.captured_messages(), "spawn")}  # type: ignore[arg-type]
        (started,) = outcomes(rets["ok"])
        assert started["status"] == "executed" and started["result"]["process_id"] == started["identity"]["replay_key"]
        _wait_for(lambda: _with_argument(mark), 1)
        (refused,) = outcomes(rets["no"])
        assert refused["status"] == "refused" and refused["refusal"]["command_code"] == "process_start_refused"
        assert not (root / mark).exists()
        scope = started["identity"]["execution_scope_id"]
        settled = agent.tool_intents(session.id, scope, scope_kind="turn").settle_parent_end()
        assert [(s.process_id, s.result) for s in settled] == [(started["result"]["process_id"], "cancelled")]
        _wait_for(lambda: _with_argument(mark), 0)
