"""Human in the loop: approvals, deferred calls, resume and durable state."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import ApprovalRequired, CallDeferred, StateError, ToolContext, tool
from starweaver.agent import create_agent
from starweaver.hitl import ApprovalDecision, DeferredResult
from starweaver.testing import TestModel
from starweaver.toolsets import ClientTool, Toolset


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# The seed's approval example, as written.
@tool(parameters_schema={"type": "object", "properties": {}})
async def deploy(ctx: ToolContext, args: dict[str, object]) -> dict[str, bool]:
    if ctx.approval is None:
        raise ApprovalRequired("deploy production", metadata={"risk": "high"})
    return {"approved": True}


async def run_with_approval(model: Any) -> None:
    async with create_agent(model=model, tools=[deploy]) as agent:
        async with agent.session() as session:
            waiting = await session.run("deploy")
            assert waiting.status == "waiting"
            decision = waiting.hitl.approvals[0].approve(decided_by="ui")
            result = await session.hitl.resume(approvals=[decision])
    assert result.output


def test_seed_approval_example() -> None:
    model = TestModel.responses([TestModel.tool_call_response([call("deploy", "call_deploy")]), "deployed"])
    run(run_with_approval(model))
    (ret,) = tool_returns(model.captured_messages(), "deploy")
    assert ret["content"] == {"approved": True}
    assert ret["metadata"]["approval_state"] == "approved"


@tool
async def add(left: int, right: int) -> int:
    return left + right


def waiting_session(model: TestModel, **agent_kwargs: Any) -> tuple[Any, Any]:
    async def start() -> tuple[Any, Any]:
        agent = create_agent(model=model, tools=[deploy, add], **agent_kwargs)
        session = agent.session()
        return session, await session.run("go")

    return run(start())


def test_pending_items_and_batch_returns_are_kept() -> None:
    seen: list[dict[str, Any] | None] = []

    @tool
    async def guarded(ctx: ToolContext, env: str) -> str:
        seen.append(ctx.approval)
        if ctx.approval is None:
            raise ApprovalRequired("touches prod", metadata={"risk": "high"})
        return f"deployed to {env}"

    async def main() -> None:
        model = TestModel.responses(
            [
                TestModel.tool_call_response([call("guarded", "g1", env="prod"), call("add", "a1", left=2, right=3)]),
                "done",
            ]
        )
        session = create_agent(model=model, tools=[guarded, add]).session()
        waiting = await session.run("go")
        assert waiting.is_waiting and waiting.needs_approval
        (pending,) = waiting.hitl.approvals
        assert pending.tool_call_id == "g1" and pending.tool_name == "guarded"
        assert pending.arguments == {"env": "prod"}
        assert pending.metadata == {"risk": "high", "reason": "touches prod"}
        assert pending.id == f"approval_{waiting.run_id}_g1"
        assert [r["tool_call_id"] for r in waiting.batch_returns] == ["g1", "a1"]
        assert waiting.batch_returns[1]["content"] == 5
        snap = await session.hitl.snapshot()
        assert [a.id for a in snap.approvals] == [pending.id]

        decision = pending.approve(decided_by="ui", reason="ok", override_arguments={"env": "staging"}, channel="web")
        result = await session.resume_after_hitl(approvals=[decision])
        assert result.output == "done"
        assert seen[-1] == {
            "status": "approved",
            "override_arguments": {"env": "staging"},
            "arguments": {"env": "prod"},  # what the model sent
            "metadata": {"channel": "web", "decided_by": "ui", "reason": "ok"},
        }
        last = model.captured_messages()[-1][-1]
        rets = [p for p in last["parts"] if p["kind"] == "tool_return"]
        assert [r["tool_call_id"] for r in rets] == ["g1", "a1"]
        assert rets[0]["content"] == "deployed to staging" and rets[1]["content"] == 5

    run(main())


def test_deny_never_runs_tool() -> None:
    calls_seen: list[int] = []

    @tool(parameters_schema={"type": "object", "properties": {}})
    async def risky(ctx: ToolContext, args: dict[str, object]) -> str:
        calls_seen.append(1)
        if ctx.approval is None:
            raise ApprovalRequired("risky")
        return "ran"

    async def main() -> None:
        model = TestModel.responses([TestModel.tool_call_response([call("risky", "r1")]), "ok"])
        session = create_agent(model=model, tools=[risky]).session()
        waiting = await session.run("go")
        result = await session.hitl.resume(approvals=[waiting.approvals[0].deny("too risky", decided_by="ops")])
        assert result.output == "ok"
        (ret,) = tool_returns(model.captured_messages(), "risky")
        assert ret["is_error"] is True
        assert ret["content"]["kind"] == "approval_denied" and ret["content"]["message"] == "too risky"
        assert ret["metadata"]["approval_state"] == "denied" and ret["metadata"]["decided_by"] == "ops"

    run(main())
    assert calls_seen == [1]


@pytest.mark.parametrize(
    "approvals",
    [
        lambda w: {w.approvals[0].id: {"approved": True}},
        lambda w: {"call_deploy": {"approved": True}},
        lambda w: {"approval_id": w.approvals[0].id, "approved": True},
        lambda w: [ApprovalDecision(w.approvals[0].id, True)],
        lambda w: w.approvals[0].approve(),
    ],
)
def test_approval_input_shapes(approvals: Any) -> None:
    async def main() -> None:
        model = TestModel.responses([TestModel.tool_call_response([call("deploy", "call_deploy")]), "fine"])
        session = create_agent(model=model, tools=[deploy]).session()
        waiting = await session.run("go")
        assert (await session.resume_after_hitl(approvals=approvals(waiting))).output == "fine"

    run(main())


def test_invalid_resumes_are_state_errors_and_change_nothing() -> None:
    async def main() -> None:
        model = TestModel.responses([TestModel.tool_call_response([call("deploy", "call_deploy")]), "finally"])
        session = create_agent(model=model, tools=[deploy]).session()
        waiting = await session.run("go")
        pid = waiting.approvals[0].id
        # Each failure has one code, whichever layer finds it (the runtime
        # reports the same codes: capi/internal/bridge/spec_test.go, core/agent/hitl_test.go).
        bad: list[tuple[dict[str, Any], str]] = [
            ({"approvals": {"nope": {"approved": True}}}, "state"),
            ({"approvals": {pid: {"decided_by": "x"}}}, "invalid_decision"),  # no approved bool
            ({"approvals": [{"id": pid, "approved": True}, {"id": "call_deploy", "approved": False}]}, "state"),
            ({}, "state"),
            ({"deferred_results": {pid: {"status": "completed"}}}, "state"),
            ({"approvals": {pid: {"approved": True}}, "deferred_results": {"x": {"status": "done"}}}, "invalid_result"),
        ]
        for kwargs, code in bad:
            with pytest.raises(StateError) as info:
                await session.resume_after_hitl(**kwargs)
            assert info.value.code == code, (kwargs, info.value)
            assert [a.id for a in (await session.hitl.snapshot()).approvals] == [pid]
        result = await session.resume_after_hitl(approvals={pid: {"approved": True}})
        assert result.output == "finally"
        with pytest.raises(StateError, match="not waiting"):
            await session.resume_after_hitl(approvals={pid: {"approved": True}})

    run(main())


def test_call_deferred_and_completion() -> None:
    @tool
    async def render(scene: str) -> str:
        raise CallDeferred("queued on the farm", metadata={"queue": "gpu"})

    async def main() -> None:
        for status, check in (
            ("completed", lambda r: r["content"] == {"url": "s3://out.png"} and r["is_error"] is False),
            ("failed", lambda r: r["content"]["kind"] == "deferred_failed" and r["is_error"] is True),
            ("cancelled", lambda r: r["content"]["kind"] == "deferred_cancelled" and r["is_error"] is True),
        ):
            model = TestModel.responses([TestModel.tool_call_response([call("render", "r1", scene="a")]), "ok"])
            session = create_agent(model=model, tools=[render]).session()
            events: list[str] = []
            waiting = await session.run("go", on_event=lambda ev: events.append(ev["kind"]))
            assert waiting.needs_approval and not waiting.approvals
            (pending,) = waiting.deferred
            assert pending.metadata == {"queue": "gpu", "reason": "queued on the farm"}
            assert "deferred_requested" in events and events[-1] == "run_waiting"
            result_item = {
                "completed": pending.complete({"url": "s3://out.png"}, worker="w1"),
                "failed": pending.fail("GPU melted"),
                "cancelled": pending.cancel("user left"),
            }[status]
            resumed_events: list[str] = []
            result = await session.hitl.resume(
                deferred_results=[result_item], on_event=lambda ev: resumed_events.append(ev["kind"])
            )
            assert result.output == "ok"
            assert "hitl_resolved" in resumed_events
            (ret,) = tool_returns(model.captured_messages(), "render")
            assert check(ret), ret
            assert ret["metadata"]["deferred_status"] == status

    run(main())


def test_deferred_result_shapes() -> None:
    async def main() -> None:
        for shape in (
            lambda p: {"results": [{"deferred_id": p.id, "status": "completed", "response": 1}]},
            lambda p: {p.tool_call_id: {"status": "completed", "response": 1}},
            lambda p: {"deferred_id": p.id, "status": "completed", "response": 1},
            lambda p: DeferredResult(p.id, "completed", 1),
        ):
            model = TestModel.responses([TestModel.tool_call_response([call("pick", "p1")]), "ok"])
            session = create_agent(model=model, tools=[ClientTool("pick", description="User picks")]).session()
            waiting = await session.run("go")
            result = await session.resume_after_hitl(deferred_results=shape(waiting.deferred[0]))
            assert tool_returns(model.captured_messages(), "pick")[0]["content"] == 1
            assert result.output == "ok"

    run(main())


def test_policies_without_touching_tool_code() -> None:
    ran: list[str] = []

    @tool
    async def lookup(q: str) -> str:
        ran.append(q)
        return q.upper()

    async def main() -> None:
        model = TestModel.responses([TestModel.tool_call_response([call("lookup", "l1", q="x")]), "ok"])
        agent = create_agent(model=model, tools=[lookup], approval_required_tools=["lookup"])
        session = agent.session()
        waiting = await session.run("go")
        assert waiting.is_waiting and ran == []
        assert (await session.resume_after_hitl(approvals={"l1": {"approved": True}})).output == "ok"
        assert ran == ["x"]

        ts = Toolset("ops", tools=[lookup], id="ops_v1")
        for toolset, resume in (
            (ts.approval_required("*"), {"approvals": {"l2": {"approved": True}}}),
            (ts.deferred(["ops_v1"]), {"deferred_results": {"l2": {"status": "completed", "response": "remote"}}}),
        ):
            model = TestModel.responses([TestModel.tool_call_response([call("lookup", "l2", q="y")]), "ok"])
            session = create_agent(model=model, toolsets=[toolset]).session()
            waiting = await session.run("go")
            assert waiting.is_waiting
            defs = model.captured_params()[0]["tools"]
            assert defs[0]["metadata"].get("approval_required") or defs[0]["metadata"].get("deferred_call")
            await session.resume_after_hitl(**resume)
        assert ran == ["x", "y"], "the deferred tool never ran here"

    run(main())


def test_export_and_restore_in_process_and_tampering() -> None:
    async def main() -> None:
        model = TestModel.responses([TestModel.tool_call_response([call("deploy", "call_deploy")])])
        session = create_agent(model=model, tools=[deploy]).session()
        await session.run("go")
        state = session.export_state()
        assert state["version"] == 1
        assert json.loads(json.dumps(state)) == state

        agent2 = create_agent(model=TestModel.responses(["restored"]), tools=[deploy])
        restored = agent2.session_from_state(json.dumps(state, indent=2), allow_unsigned=True)
        assert restored.id == session.id
        snap = await restored.hitl.snapshot()
        assert [a.tool_name for a in snap.approvals] == ["deploy"]
        result = await restored.hitl.resume(approvals=[snap.approvals[0].approve()])
        assert result.output == "restored"

        tampered = json.loads(json.dumps(state))
        tampered["state"]["waiting"]["calls"][0]["arguments"] = {"evil": True}
        # Unsigned state is allowed here so that the other checks show.
        for bad_agent, bad_state, allow in (
            (agent2, tampered, True),
            (agent2, {**state, "version": 2}, True),
            (create_agent(model=TestModel("ok"), tools=[add]), state, True),
            (create_agent(model=TestModel("ok"), tools=[deploy], state_key="k"), state, False),
        ):
            with pytest.raises(StateError):
                bad_agent.session_from_state(bad_state, allow_unsigned=allow)

    run(main())


def test_resume_in_another_process(tmp_path: Path) -> None:
    state_file = tmp_path / "state.json"
    common = textwrap.dedent(
        """
        import asyncio, json, sys
        from starweaver import ApprovalRequired, ToolContext, tool
        from starweaver.agent import create_agent
        from starweaver.testing import TestModel

        @tool(parameters_schema={"type": "object", "properties": {}})
        async def deploy(ctx: ToolContext, args: dict) -> dict:
            if ctx.approval is None:
                raise ApprovalRequired("deploy production")
            return {"approved_by": ctx.approval["metadata"]["decided_by"]}
        """
    )
    first = common + textwrap.dedent(
        f"""
        async def main():
            model = TestModel.responses([TestModel.tool_call_response([{{"id": "c1", "name": "deploy", "arguments": {{}}}}])])
            session = create_agent(model=model, tools=[deploy], state_key="secret").session()
            waiting = await session.run("deploy")
            assert waiting.status == "waiting"
            open({str(state_file)!r}, "w").write(json.dumps(session.export_state()))
        asyncio.run(main())
        """
    )
    second = common + textwrap.dedent(
        f"""
        async def main():
            model = TestModel.responses(["resumed in a new process"])
            agent = create_agent(model=model, tools=[deploy], state_key="secret")
            session = agent.session_from_state(open({str(state_file)!r}).read())
            waiting = await session.hitl.snapshot()
            result = await session.hitl.resume(approvals=[waiting.approvals[0].approve(decided_by="cli")])
            ret = [p for p in model.captured_messages()[0][-1]["parts"] if p["kind"] == "tool_return"][0]
            print(json.dumps({{"output": result.output, "content": ret["content"]}}))
        asyncio.run(main())
        """
    )
    env = dict(os.environ)
    for script in (first, second):
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
        assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"output": "resumed in a new process", "content": {"approved_by": "cli"}}


def test_python_user_input_preprocessor_replaces_arguments() -> None:
    seen: list[tuple[dict[str, Any], dict[str, Any] | None]] = []

    @tool
    async def write_file(ctx: ToolContext, path: str, text: str = "") -> str:
        seen.append(({"path": path, "text": text}, ctx.approval))
        if ctx.approval is None:
            raise ApprovalRequired("review the file")
        return f"wrote {path}"

    @write_file.user_input_preprocessor
    async def edited(ctx: ToolContext, user_input: Any) -> dict[str, Any]:
        assert ctx.tool_name == "write_file"
        return {"override_arguments": {"path": user_input["path"], "text": "reviewed"}, "metadata": {"edited": True}}

    async def main() -> None:
        model = TestModel.responses([TestModel.tool_call_response([call("write_file", "w1", path="a.txt")]), "ok"])
        session = create_agent(model=model, tools=[write_file]).session()
        waiting = await session.run("go")
        decision = waiting.approvals[0].approve(decided_by="ui").with_user_input({"path": "b.txt"})
        result = await session.hitl.resume(approvals=[decision])
        assert result.output == "ok"
        args, approval = seen[-1]
        assert args == {"path": "b.txt", "text": "reviewed"}
        assert approval is not None and approval["metadata"] == {"decided_by": "ui", "edited": True}
        assert tool_returns(model.captured_messages(), "write_file")[0]["content"] == "wrote b.txt"

        @write_file.user_input_preprocessor
        def broken(ctx: ToolContext, user_input: Any) -> Any:
            raise ValueError("cannot parse the edit")

        model = TestModel.responses([TestModel.tool_call_response([call("write_file", "w2", path="c.txt")]), "ok"])
        session = create_agent(model=model, tools=[write_file]).session()
        waiting = await session.run("go")
        await session.hitl.resume(approvals=[waiting.approvals[0].approve().with_user_input("x")])
        ret = tool_returns(model.captured_messages(), "write_file")[0]
        assert ret["is_error"] and "cannot parse the edit" in ret["content"]["message"]
        assert seen[-1][0]["path"] == "c.txt" and seen[-1][1] is None, "the tool did not run again"

    run(main())
