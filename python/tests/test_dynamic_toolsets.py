"""Dynamic toolsets and the toolset lifecycle, through real runs: the Go
runtime decides when enter, prepare, refresh and exit run, and asks for them
through the run's pipe."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import AgentError, ApprovalRequired, ToolContext, ToolRetryLimitExceeded, Toolset, ToolsetContext, tool
from starweaver.agent import create_agent
from starweaver.dynamic import (
    AbstractToolset,
    PythonDynamicToolset,
    ToolsetFactory,
    ToolsetLifecyclePolicy,
    ToolsetLifecycleStatus,
    ToolsetPreparation,
    lifecycle_policy_spec,
    toolset_factory,
)
from starweaver.testing import TestModel
from starweaver.toolsets import FunctionToolset


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@tool
def lookup(topic: str) -> str:
    """Look up a topic."""
    return f"docs for {topic}"


@tool
def search(query: str) -> str:
    """Search."""
    return f"found {query}"


def two_steps(name: str = "lookup") -> TestModel:
    return TestModel(responses=[TestModel.tool_call_response([call(name, topic="go")]), "done"])


def names(model: TestModel, request: int = 0) -> list[str]:
    return sorted(d["name"] for d in model.captured_params()[request]["tools"])


class Recording(AbstractToolset):
    """Records each phase as "phase:step"."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("docs", id="docs", **kwargs)
        self.calls: list[str] = []
        self.run_ids: list[str] = []

    async def enter(self, ctx: ToolsetContext) -> None:
        self.calls.append(f"enter:{ctx.run_step}")

    async def exit(self, ctx: ToolsetContext) -> None:
        self.calls.append(f"exit:{ctx.run_step}")

    async def prepare(self, ctx: ToolsetContext) -> ToolsetPreparation:
        self.calls.append(f"prepare:{ctx.run_step}")
        self.run_ids.append(ctx.run_id)
        return ToolsetPreparation(tools=[lookup], instructions=f"Docs at step {ctx.run_step}.")


def test_dynamic_abstract_toolset_prepare_and_lifecycle_hooks() -> None:
    ts = Recording()
    model = two_steps()
    result = run(create_agent(model=model, toolsets=[ts]).run("go"))
    assert result.output == "done"
    assert ts.calls == ["enter:0", "prepare:0", "prepare:1", "exit:2"]
    assert ts.run_ids == [result.run_id, result.run_id]
    assert tool_returns(model.captured_messages(), "lookup")[0]["content"] == "docs for go"
    assert "Docs at step 1." in model.captured_messages()[1][-1]["instructions"]


def test_dynamic_abstract_toolset_prepares_tools_and_instructions() -> None:
    seen: list[tuple[str, int]] = []

    class Docs(AbstractToolset):
        async def get_tools(self, ctx: ToolsetContext) -> list[Any]:
            seen.append((ctx.run_id, ctx.run_step))
            return [lookup]

        def get_instructions(self, ctx: ToolsetContext) -> str:
            return "Use lookup."

    model = TestModel("ok")
    result = run(create_agent(model=model, toolsets=[Docs("docs")]).run("go"))
    assert names(model) == ["lookup"]
    assert "Use lookup." in model.captured_messages()[0][0]["instructions"]
    assert seen and seen[0] == (result.run_id, 0)


def test_dynamic_toolset_context_exposes_environment_resources_and_raw_state() -> None:
    seen: list[ToolsetContext] = []

    class Probe(PythonDynamicToolset):
        def get_tools(self, ctx: ToolsetContext) -> list[Any]:
            seen.append(ctx)
            return []

    run(create_agent(model=TestModel("ok"), toolsets=[Probe("probe")], metadata={"tenant": "a"}).run("go"))
    ctx = seen[0]
    assert ctx.session_id == ctx.conversation_id != ""
    assert ctx.metadata == {"tenant": "a"} and ctx.raw_context["run_id"] == ctx.run_id
    assert ctx.workspace_root is None and ctx.environment is None and dict(ctx.resources) == {}
    assert ctx.agent_id is None and ctx.run_attachments == ()


def test_python_dynamic_toolset_public_base_uses_native_bridge() -> None:
    class Base(PythonDynamicToolset):
        async def get_tools(self, ctx: ToolsetContext) -> list[Any]:
            return [lookup]

    prepared = run(Base("b").prepare(ToolsetContext(run_id="r")))
    assert isinstance(prepared, ToolsetPreparation) and prepared.tools == [lookup]
    assert isinstance(Base("b").with_lifecycle(), Toolset)


def test_dynamic_toolset_lifecycle_policy_controls_enter_and_exit() -> None:
    ts = Recording(lifecycle_policy=ToolsetLifecyclePolicy(enter_before_prepare=False, exit_after_run=False))
    run(create_agent(model=two_steps(), toolsets=[ts]).run("go"))
    assert ts.calls == ["prepare:0", "prepare:1"]


def test_dynamic_toolset_with_lifecycle_returns_native_toolset() -> None:
    ts = Recording()
    wrapped = ts.with_lifecycle(ToolsetLifecyclePolicy(enter_before_prepare=False))
    assert isinstance(wrapped, Toolset)
    run(create_agent(model=two_steps(), toolsets=[wrapped]).run("go"))
    assert ts.calls == ["prepare:0", "prepare:1", "exit:2"]


def test_dynamic_toolset_lifecycle_policy_enforces_read_timeout() -> None:
    class Slow(AbstractToolset):
        async def prepare(self, ctx: ToolsetContext) -> ToolsetPreparation:
            await asyncio.sleep(30)  # only the 50 ms timeout can fail the run
            return ToolsetPreparation()

    ts = Slow("slow", lifecycle_policy=ToolsetLifecyclePolicy(read_timeout_ms=50))
    with pytest.raises(AgentError, match=r'toolset "slow": read timed out after 50ms'):
        run(create_agent(model=TestModel("ok"), toolsets=[ts]).run("go"))


def test_a_raising_phase_fails_the_run_naming_the_toolset() -> None:
    class Broken(AbstractToolset):
        def prepare(self, ctx: ToolsetContext) -> Any:
            raise ValueError("no catalogue")

    with pytest.raises(AgentError, match=r'toolset "broken": read: prepare\(\) raised ValueError: no catalogue'):
        run(create_agent(model=TestModel("ok"), toolsets=[Broken("broken")]).run("go"))


def test_an_unavailable_toolset_is_left_out_or_fails_the_run() -> None:
    class Down(Recording):
        async def enter(self, ctx: ToolsetContext) -> None:
            raise ConnectionError("server down")

    ts = Down()
    events: list[dict[str, Any]] = []
    model = TestModel("ok")
    result = run(create_agent(model=model, toolsets=[ts]).run("go", on_event=events.append))
    assert result.output and names(model) == [] and ts.calls == []
    [report] = [e["custom"]["payload"] for e in events if e.get("kind") == "custom"]
    assert report["status"] == ToolsetLifecycleStatus.UNAVAILABLE
    assert "enter() raised ConnectionError: server down" in report["error"]
    strict = Down(lifecycle_policy=ToolsetLifecyclePolicy(fail_on_unavailable=True))
    with pytest.raises(AgentError, match=r'toolset "docs": enter: enter\(\) raised ConnectionError'):
        run(create_agent(model=TestModel("ok"), toolsets=[strict]).run("go"))


def test_runtime_stream_exposes_toolset_lifecycle_reports() -> None:
    async def main() -> list[Any]:
        agent = create_agent(model=two_steps(), toolsets=[Recording()])
        async with agent.run_stream("go") as stream:
            reports = [ev.custom for ev in [e async for e in stream] if ev.kind == "custom"]
            await stream.result()
        return reports

    reports = run(main())
    assert [r["kind"] for r in reports] == ["toolset_initialized", "toolset_closed"]
    first, last = reports[0]["payload"], reports[1]["payload"]
    assert first["status"] == ToolsetLifecycleStatus.INITIALIZED == "initialized"
    assert last["status"] == ToolsetLifecycleStatus.CLOSED
    assert first == {**first, "toolset": "docs", "id": "docs", "tool_count": 1, "instruction_count": 1}


def test_exit_runs_when_the_run_fails_or_is_cancelled() -> None:
    ts = Recording()
    with pytest.raises(ToolRetryLimitExceeded):
        # The model calls a tool the toolset lacks until the retry budget ends.
        run(create_agent(model=two_steps("nope"), toolsets=[ts], max_retries=0).run("go"))
    assert ts.calls[0] == "enter:0" and ts.calls[-1].startswith("exit:")

    started = asyncio.Event()

    @tool
    async def wait() -> str:
        """Wait forever."""
        started.set()
        await asyncio.sleep(60)
        return "never"

    cancelled = Recording()

    async def main() -> None:
        model = TestModel(responses=[TestModel.tool_call_response([call("wait")]), "done"])
        agent = create_agent(model=model, tools=[wait], toolsets=[cancelled])
        task = asyncio.create_task(agent.run("go"))
        await asyncio.wait_for(started.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    assert cancelled.calls == ["enter:0", "prepare:0", "exit:1"]


def test_dynamic_toolset_refresh_callback_runs_on_hitl_resume_prepare() -> None:
    @tool
    async def deploy(ctx: ToolContext) -> str:
        """Deploy."""
        if ctx.approval is None:
            raise ApprovalRequired("deploy?")
        return "deployed"

    class Refreshing(Recording):
        async def prepare(self, ctx: ToolsetContext) -> ToolsetPreparation:
            self.calls.append(f"prepare:{ctx.run_step}")
            self.run_ids.append(ctx.run_id)
            return ToolsetPreparation(tools=[deploy])

        async def refresh(self, ctx: ToolsetContext) -> ToolsetPreparation:
            self.calls.append(f"refresh:{ctx.run_step}")
            self.run_ids.append(ctx.run_id)
            return ToolsetPreparation(tools=[deploy])

    ts = Refreshing()
    model = TestModel(responses=[TestModel.tool_call_response([call("deploy")]), "done"])

    async def main() -> Any:
        agent = create_agent(model=model, toolsets=[ts])
        async with agent.session() as session:
            waiting = await session.run("go")
            assert waiting.status == "waiting"
            result = await session.resume_after_hitl(approvals=[waiting.approvals[0].approve()])
            return waiting, result

    waiting, result = run(main())
    assert result.output == "done"
    assert ts.calls == ["enter:0", "prepare:0", "exit:1", "enter:0", "refresh:0", "prepare:1", "exit:2"]
    assert set(ts.run_ids) == {waiting.run_id} == {result.run_id}
    assert tool_returns(model.captured_messages(), "deploy")[0]["content"] == "deployed"


def test_toolset_factory_default_re_evaluates_each_run_step() -> None:
    steps: list[int] = []

    @toolset_factory
    def by_step(ctx: ToolsetContext) -> list[Any]:
        steps.append(ctx.run_step)
        return [lookup] if ctx.run_step == 0 else [search]

    assert isinstance(by_step, ToolsetFactory) and by_step.name == "by_step"
    model = two_steps()
    run(create_agent(model=model, toolsets=[by_step]).run("go"))
    assert steps == [0, 1]
    assert names(model, 0) == ["lookup"] and names(model, 1) == ["search"]


def test_toolset_factory_prepares_dynamic_toolsets_and_caches_per_run() -> None:
    calls: list[str] = []
    agent = create_agent(
        model=TestModel(responses=[TestModel.tool_call_response([call("lookup", topic="a")]), "ok", "again"])
    )

    @agent.toolset(per_run_step=False)
    async def docs(ctx: ToolsetContext) -> Toolset:
        calls.append(ctx.run_id)
        return Toolset("docs", tools=[lookup], instructions="Docs.")

    first = run(agent.run("go"))
    assert first.output == "ok"
    assert calls == [first.run_id]
    second = run(agent.run("again"))
    assert calls == [first.run_id, second.run_id]
    assert run(docs(ToolsetContext())).name == "docs"  # the factory stays callable


def test_toolset_factory_once_per_run_is_cached_across_a_resume() -> None:
    calls: list[tuple[str, int]] = []

    @tool
    async def deploy(ctx: ToolContext) -> str:
        """Deploy."""
        if ctx.approval is None:
            raise ApprovalRequired("deploy?")
        return "deployed"

    @toolset_factory(per_run_step=False)
    def ops(ctx: ToolsetContext) -> list[Any]:
        calls.append((ctx.run_id, ctx.run_step))
        return [deploy]

    model = TestModel(responses=[TestModel.tool_call_response([call("deploy")]), "done"])

    async def main() -> Any:
        async with create_agent(model=model, toolsets=[ops]).session() as session:
            waiting = await session.run("go")
            return await session.resume_after_hitl(approvals=[waiting.approvals[0].approve()])

    result = run(main())
    assert result.output == "done" and calls == [(result.run_id, 0)]


def test_per_run_toolset_factory_accepts_sequence_and_preparation_toolsets() -> None:
    fs = FunctionToolset("fs", instructions="Files.")

    @fs.tool_plain
    def read(path: str) -> str:
        """Read."""
        return path

    inner = ToolsetFactory(lambda ctx: [search], name="inner")
    factory = ToolsetFactory(
        lambda ctx: ToolsetPreparation(tools=[lookup], toolsets=[fs.prefixed("x"), inner]), name="outer"
    )
    model = TestModel("ok")
    run(create_agent(model=model).run("go", toolsets=[factory]))
    assert names(model) == ["lookup", "search", "x_read"]
    listed = ToolsetFactory(lambda ctx: [Toolset("a", tools=[lookup]), search], name="listed")
    model = TestModel("ok")
    run(create_agent(model=model).run("go", toolsets=[listed]))
    assert names(model) == ["lookup", "search"]


def test_abstract_toolset_wrapper_methods_prepare_dynamic_inventory() -> None:
    class Docs(AbstractToolset):
        def get_tools(self, ctx: ToolsetContext) -> list[Any]:
            return [lookup]

    model = TestModel("ok")
    run(create_agent(model=model, toolsets=[Docs("docs").with_metadata(bundle="kb").prefixed("ws")]).run("go"))
    [d] = model.captured_params()[0]["tools"]
    assert d["name"] == "ws_lookup" and d["metadata"]["bundle"] == "kb"


def test_abstract_toolset_approval_and_deferred_wrappers_preserve_hitl() -> None:
    class Docs(AbstractToolset):
        def get_tools(self, ctx: ToolsetContext) -> list[Any]:
            return [lookup]

    model = two_steps()

    async def main() -> Any:
        agent = create_agent(model=model, toolsets=[Docs("docs").approval_required("*")])
        async with agent.session() as session:
            waiting = await session.run("go")
            assert waiting.status == "waiting"
            return await session.resume_after_hitl(approvals=[waiting.approvals[0].approve()])

    assert run(main()).output == "done"
    assert tool_returns(model.captured_messages(), "lookup")[0]["content"] == "docs for go"


def test_duplicate_tool_names_across_dynamic_toolsets_fail_during_preparation() -> None:
    twice = ToolsetFactory(lambda ctx: [lookup], name="twice")
    with pytest.raises(AgentError, match="duplicate tool name|lookup"):
        run(create_agent(model=TestModel("ok"), tools=[lookup], toolsets=[twice]).run("go"))


def test_policy_and_wrapper_arguments_are_checked() -> None:
    with pytest.raises(TypeError):
        ToolsetLifecyclePolicy(read_timeout_ms="1")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Recording(lifecycle_policy={"read_timeout_ms": 1})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="positive"):
        run(
            create_agent(
                model=TestModel("ok"), toolsets=[Recording(lifecycle_policy=ToolsetLifecyclePolicy(read_timeout_ms=0))]
            ).run("go")
        )
    assert lifecycle_policy_spec(ToolsetLifecyclePolicy()) == {}


def test_a_failing_exit_is_reported_and_keeps_the_outcome() -> None:
    class LeakyExit(Recording):
        def exit(self, ctx: ToolsetContext) -> None:  # type: ignore[override]
            raise RuntimeError("socket already closed")

    events: list[dict[str, Any]] = []
    result = run(create_agent(model=two_steps(), toolsets=[LeakyExit()]).run("go", on_event=events.append))
    assert result.output == "done"
    reports = [e["custom"] for e in events if e.get("kind") == "custom"]
    assert [r["kind"] for r in reports] == ["toolset_initialized", "toolset_failed"]
    assert reports[1]["payload"]["phase"] == "exit"
    assert "exit() raised RuntimeError: socket already closed" in reports[1]["payload"]["error"]


def test_an_unknown_toolset_item_kind_fails_the_item() -> None:
    from starweaver import dynamic

    handle = dynamic._Handle(Recording())
    outcome = run(handle.outcome("toolset_other", ToolsetContext(), False, lambda catalog: None))
    assert outcome == {"ok": False, "message": "unknown toolset item kind 'toolset_other'"}


def test_lifecycle_policy_bounds_enter_and_exit() -> None:
    class StuckEnter(Recording):
        async def enter(self, ctx: ToolsetContext) -> None:
            await asyncio.Event().wait()  # a server that never answers the handshake

    policy = ToolsetLifecyclePolicy(initialization_timeout_ms=50, fail_on_unavailable=True)
    with pytest.raises(AgentError, match=r'toolset "docs": enter timed out after 50ms'):
        run(create_agent(model=TestModel("ok"), toolsets=[StuckEnter(lifecycle_policy=policy)]).run("go"))

    # Without fail_on_unavailable the toolset is left out and reported.
    events: list[dict[str, Any]] = []
    left_out = StuckEnter(lifecycle_policy=ToolsetLifecyclePolicy(initialization_timeout_ms=50))
    model = TestModel("ok")
    result = run(create_agent(model=model, toolsets=[left_out]).run("go", on_event=events.append))
    assert result.output and names(model) == []
    [report] = [e["custom"]["payload"] for e in events if e.get("kind") == "custom"]
    assert report["status"] == ToolsetLifecycleStatus.UNAVAILABLE
    assert 'toolset "docs": enter timed out after 50ms' in report["error"]

    class StuckExit(Recording):
        async def exit(self, ctx: ToolsetContext) -> None:
            self.calls.append(f"exit:{ctx.run_step}")
            await asyncio.Event().wait()  # a server that never acknowledges the shutdown

    ts = StuckExit(lifecycle_policy=ToolsetLifecyclePolicy(exit_timeout_ms=50))
    events = []
    result = run(create_agent(model=two_steps(), toolsets=[ts]).run("go", on_event=events.append))
    assert result.output == "done" and ts.calls == ["enter:0", "prepare:0", "prepare:1", "exit:2"]
    reports = [e["custom"] for e in events if e.get("kind") == "custom"]
    assert [r["kind"] for r in reports] == ["toolset_initialized", "toolset_failed"]
    assert reports[1]["payload"]["phase"] == "exit"
    assert 'toolset "docs": exit timed out after 50ms' in reports[1]["payload"]["error"]


def test_sync_phase_overrides_run_like_async_ones() -> None:
    @tool
    async def deploy(ctx: ToolContext) -> str:
        """Deploy."""
        if ctx.approval is None:
            raise ApprovalRequired("deploy?")
        return "deployed"

    # The runtime takes sync phases; AbstractToolset types them async, hence the ignores.
    class Sync(AbstractToolset):
        def __init__(self) -> None:
            super().__init__("ops", id="ops")
            self.calls: list[str] = []

        def enter(self, ctx: ToolsetContext) -> None:
            self.calls.append(f"enter:{ctx.run_step}")

        def prepare(self, ctx: ToolsetContext) -> ToolsetPreparation:
            self.calls.append(f"prepare:{ctx.run_step}")
            return ToolsetPreparation(tools=[deploy])

        def refresh(self, ctx: ToolsetContext) -> ToolsetPreparation:
            self.calls.append(f"refresh:{ctx.run_step}")
            return ToolsetPreparation(tools=[deploy])

        def exit(self, ctx: ToolsetContext) -> None:
            self.calls.append(f"exit:{ctx.run_step}")

    ts = Sync()
    model = TestModel(responses=[TestModel.tool_call_response([call("deploy")]), "done"])

    async def main() -> Any:
        async with create_agent(model=model, toolsets=[ts]).session() as session:
            waiting = await session.run("go")
            return await session.resume_after_hitl(approvals=[waiting.approvals[0].approve()])

    assert run(main()).output == "done"
    assert ts.calls == ["enter:0", "prepare:0", "exit:1", "enter:0", "refresh:0", "prepare:1", "exit:2"]
