"""Dependencies: run deps beside the agent's, typed deps, named deps and
dependency profiles, through real runs."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import ApprovalRequired, BaseTool, ToolContext, ToolDependencies, UserError, create_agent, tool
from starweaver.agent_context import ToolCapabilityGrant
from starweaver.dependencies import METADATA_KEY
from starweaver.testing import TestModel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def calls(*names: str) -> TestModel:
    return TestModel.responses([TestModel.tool_call_response([call(n, f"c_{n}") for n in names]), "done"])


def test_run_deps_merge_over_the_agents_and_win_per_name() -> None:
    seen: list[dict[str, Any]] = []

    @tool
    def show(ctx: ToolContext) -> str:
        seen.append(dict(ctx.deps))
        return "ok"

    agent = create_agent(model=calls("show"), tools=[show], deps={"db": "agent-db", "cache": "agent-cache"})
    run(agent.run("go", deps={"db": "run-db", "user": "ada"}))
    assert seen == [{"db": "run-db", "cache": "agent-cache", "user": "ada"}]
    assert agent.deps == {"db": "agent-db", "cache": "agent-cache"}, "the agent's deps are unchanged"


@dataclasses.dataclass
class Deps:
    api_key: str
    base_url: str = "https://example.invalid"


def test_typed_deps_object() -> None:
    seen: list[str] = []

    @tool
    def fetch(ctx: ToolContext[Deps], path: str) -> str:
        seen.append(ctx.deps.base_url + path + "?key=" + ctx.deps.api_key)
        return "ok"

    fetch_call = TestModel.tool_call_response([call("fetch", "c1", path="/x")])
    model = TestModel.responses([fetch_call, "done", fetch_call, "done"])
    agent = create_agent(model=model, tools=[fetch], deps=Deps("agent-key"))
    run(agent.run("go"))
    run(agent.run("go", deps=Deps("run-key", "https://run.invalid")))
    assert seen == ["https://example.invalid/x?key=agent-key", "https://run.invalid/x?key=run-key"]


def test_profiles_narrow_what_each_tool_sees() -> None:
    seen: dict[str, Any] = {}

    @tool
    def legacy(ctx: ToolContext) -> str:
        seen["legacy"] = dict(ctx.deps)
        return "ok"

    @tool(dependencies=ToolDependencies.filtered("db"))
    def filtered(ctx: ToolContext) -> str:
        seen["filtered"] = dict(ctx.deps)
        return "ok"

    @tool(dependencies=ToolDependencies.strict("db"))
    def strict(ctx: ToolContext) -> Any:
        seen["strict"] = dict(ctx.deps)
        return ctx.dependency("secret")

    @tool(dependencies=ToolDependencies.strict("db"))
    def ungranted(ctx: ToolContext) -> str:
        seen["ungranted"] = dict(ctx.deps)
        return "ok"

    model = calls("legacy", "filtered", "strict", "ungranted")
    # The grant names more than strict asks for: it still gets only "db".
    grants = {"strict": ToolCapabilityGrant(host_capabilities=("db", "secret"))}
    agent = create_agent(
        model=model,
        tools=[legacy, filtered, strict, ungranted],
        deps={"db": 1, "secret": 2},
        tool_capability_grants=grants,
    )
    run(agent.run("go"))
    assert seen == {"legacy": {"db": 1, "secret": 2}, "filtered": {"db": 1}, "strict": {"db": 1}, "ungranted": {}}
    ret = tool_returns(model.captured_messages(), "strict")[0]
    assert ret["content"]["kind"] == "user_error"
    assert "dependency 'secret' is not available to tool 'strict'" in ret["content"]["message"]


def test_malformed_profile_metadata_fails_closed_in_a_run() -> None:
    """A tool whose profile metadata the runtime cannot read is Strict with
    nothing: even a grant naming every dependency gives it none."""
    seen: dict[str, Any] = {}

    def probe(ctx: ToolContext) -> str:
        """Report what the call received."""
        seen[ctx.tool_name] = (dict(ctx.deps), ctx.agent_context is None)
        return "ok"

    malformed: dict[str, dict[str, Any]] = {
        "unknown_profile": {
            METADATA_KEY: {"profile": "admin", "host_capabilities": ["db"], "shell_environment": False}
        },
        "not_an_object": {METADATA_KEY: "all"},
        "caps_not_strings": {
            METADATA_KEY: {"profile": "filtered", "host_capabilities": [1], "shell_environment": False}
        },
    }
    tools = [tool(probe, name=name, metadata=md) for name, md in malformed.items()]
    grant = ToolCapabilityGrant(host_capabilities=("db", "secret"))
    agent = create_agent(
        model=calls(*malformed),
        tools=tools,
        deps={"db": 1, "secret": 2},
        tool_capability_grants={name: grant for name in malformed},
    )
    run(agent.run("go"))
    assert seen == {name: ({}, True) for name in malformed}


def test_filtered_keeps_the_typed_object_strict_withholds_it() -> None:
    seen: dict[str, Any] = {}

    @tool(dependencies=ToolDependencies.filtered())
    def filtered(ctx: ToolContext[Deps]) -> str:
        seen["filtered"] = ctx.deps
        return "ok"

    @tool(dependencies=ToolDependencies.strict())
    def strict(ctx: ToolContext) -> str:
        seen["strict"] = dict(ctx.deps)
        return "ok"

    deps = Deps("k")
    run(create_agent(model=calls("filtered", "strict"), tools=[filtered, strict], deps=deps).run("go"))
    assert seen == {"filtered": deps, "strict": {}}


def test_preprocessor_and_approved_rerun_see_only_what_the_profile_grants() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    @tool(dependencies=ToolDependencies.strict("repo"))
    async def deploy(ctx: ToolContext, target: str) -> str:
        seen.append(("call", dict(ctx.deps)))
        if ctx.approval is None:
            raise ApprovalRequired("deploy?")
        return f"deployed {target}"

    @deploy.user_input_preprocessor
    def edit(ctx: ToolContext, user_input: Any) -> dict[str, Any]:
        seen.append(("preprocess", dict(ctx.deps)))
        return {"override_arguments": {"target": user_input}}

    model = TestModel.responses([TestModel.tool_call_response([call("deploy", "d1", target="prod")]), "done"])
    agent = create_agent(
        model=model,
        tools=[deploy],
        deps={"repo": "r", "token": "t"},
        tool_capability_grants={"deploy": ToolCapabilityGrant(host_capabilities=("repo", "token"))},
    )

    async def main() -> None:
        session = agent.session()
        waiting = await session.run("go", deps={"token": "run-token"})
        decision = waiting.approvals[0].approve().with_user_input("staging")
        await session.resume_after_hitl(approvals=[decision], deps={"repo": "r2"})

    run(main())
    assert seen == [("call", {"repo": "r"}), ("preprocess", {"repo": "r2"}), ("call", {"repo": "r2"})]
    assert tool_returns(model.captured_messages(), "deploy")[0]["content"] == "deployed staging"


def test_dependencies_become_the_reserved_metadata() -> None:
    @tool(dependencies=ToolDependencies.strict("db", "cache"))
    def t() -> None:
        return None

    assert t.definition()["metadata"][METADATA_KEY] == {
        "profile": "strict",
        "host_capabilities": ["db", "cache"],
        "shell_environment": False,
    }
    assert t.dependencies == ToolDependencies.strict("db", "cache")
    assert t.replace(dependencies=None).dependencies == ToolDependencies.legacy()
    # Absent: Legacy. Malformed: Strict with nothing (fail closed), as in core/tool.
    assert ToolDependencies.from_metadata({}).profile == "legacy"
    assert ToolDependencies.from_metadata({METADATA_KEY: {"profile": "admin"}}) == ToolDependencies.strict()
    assert tool(lambda: 1, metadata={METADATA_KEY: "all"}).dependencies == ToolDependencies.strict()
    with pytest.raises(ValueError, match="profile"):
        ToolDependencies("admin")  # type: ignore[arg-type]


def test_dependency_lookup() -> None:
    ctx: ToolContext = ToolContext(tool_name="t", deps={"db": 1})
    assert ctx.dependency("db") == 1
    assert ctx.dependency("cache", None) is None
    with pytest.raises(UserError, match="dependency 'cache' is not available to tool 't'"):
        ctx.dependency("cache")


TYPED = """
import dataclasses
from starweaver import ToolContext, create_agent, tool
from starweaver.testing import TestModel


@dataclasses.dataclass
class MyDeps:
    api_key: str


@tool
def key_length(ctx: ToolContext[MyDeps]) -> int:
    return len(ctx.deps.api_key)


def untyped(ctx: ToolContext) -> object:
    return ctx.deps["anything"]


agent = create_agent(model=TestModel("ok"), tools=[key_length], deps=MyDeps("k"))
n: int = key_length.func(ToolContext(deps=MyDeps("k")))
"""

BAD = (
    TYPED
    + """
@tool
def wrong(ctx: ToolContext[MyDeps]) -> int:
    return ctx.deps.missing
"""
)


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_typed_deps_pass_mypy_strict(tmp_path: Path) -> None:
    package = Path(__file__).resolve().parents[1]
    spec = importlib.util.find_spec("mypy")
    assert spec is not None and spec.origin is not None
    mypy_root = Path(spec.origin).parents[1]
    for name, text, ok in (("typed.py", TYPED, True), ("bad.py", BAD, False)):
        f = tmp_path / name
        f.write_text(textwrap.dedent(text))
        proc = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "c"), str(f)],
            capture_output=True,
            text=True,
            env={"PYTHONPATH": f"{package}:{mypy_root}", "PATH": "/usr/bin:/bin", "MYPYPATH": str(package)},
            check=False,
            cwd=package.parent,  # the project's mypy configuration
        )
        assert (proc.returncode == 0) == ok, proc.stdout + proc.stderr
        if not ok:
            assert '"MyDeps" has no attribute "missing"' in proc.stdout


def test_base_tool_declares_dependencies() -> None:
    class Report(BaseTool):
        dependencies = ToolDependencies.strict("db")

        def call(self, ctx: ToolContext, args: dict[str, Any]) -> Any:
            return sorted(ctx.deps)

    model = calls("report")
    grants = {"report": ToolCapabilityGrant(host_capabilities=("db",))}
    run(
        create_agent(model=model, tools=[Report()], deps={"db": 1, "secret": 2}, tool_capability_grants=grants).run(
            "go"
        )
    )
    assert tool_returns(model.captured_messages(), "report")[0]["content"] == ["db"]


VECTORS = Path(__file__).resolve().parents[2] / "core" / "tool" / "testdata" / "dependency_profiles.json"


@pytest.mark.parametrize("case", json.loads(VECTORS.read_text())["cases"], ids=lambda c: c["name"])
def test_profile_metadata_is_read_as_the_runtime_reads_it(case: dict[str, Any]) -> None:
    """The vectors core/tool's ParseDependencies is tested with: the Python
    reader grants exactly what the runtime schedules for."""
    got = ToolDependencies.from_metadata(case["metadata"])
    want = case["want"]
    assert (got.profile, list(got.host_capabilities), got.shell_environment) == (
        want["profile"],
        want["host_capabilities"],
        want["shell_environment"],
    )
