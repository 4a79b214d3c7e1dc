"""The shell toolset over a local shell, driven by a test model."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import call, tool_returns
from starweaver import LocalShell, ShellPolicy, create_agent, shell_toolset
from starweaver.testing import FunctionModel, TestModel

ALLOW = ShellPolicy(allow_execute=True)


def run_calls(shell: LocalShell, *calls: dict[str, Any]) -> list[dict[str, Any]]:
    """Runs a session whose model makes the calls, one response each, and
    returns the shell tools' returns."""
    model = TestModel.responses([*(TestModel.tool_call_response([c]) for c in calls), "done"])
    agent = create_agent(model=model, toolsets=[shell_toolset()], shell=shell)

    async def main() -> None:
        result = await agent.session().run("go")
        assert result.output == "done"

    asyncio.run(main())
    return [r for r in tool_returns(model.captured_messages()) if r["name"].startswith("shell_")]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_policy_and_spec() -> None:
    assert ShellPolicy().to_dict() == {"allow_execute": False}
    policy = ShellPolicy(allow_execute=True, allowed_programs=["git"])  # type: ignore[arg-type]
    assert policy.allowed_programs == ("git",)
    assert LocalShell("/tmp", policy=policy, max_processes=2).to_dict() == {
        "root": "/tmp",
        "allow_execute": True,
        "allowed_programs": ["git"],
        "max_processes": 2,
    }
    with pytest.raises(TypeError):
        ShellPolicy(allowed_programs="git")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        create_agent(model=TestModel.responses(["x"]), shell="/tmp")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="shell"):
        create_agent(model=TestModel.responses(["x"]), shell=LocalShell("/no/such/dir", policy=ALLOW))


def test_foreground_echo_and_timeout(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    shell = LocalShell(tmp_path, policy=ALLOW)
    echo, timed = run_calls(
        shell,
        call("shell_exec", "c1", command='echo "hi $WHO"; pwd', cwd="sub", environment={"WHO": "there"}),
        call("shell_exec", "c2", command="sleep 30", timeout_seconds=0.3),
    )
    content = echo["content"]
    assert echo["is_error"] is False
    assert content["return_code"] == 0
    assert content["stdout"] == f"hi there\n{(tmp_path / 'sub').resolve()}\n"
    assert content["metadata"]["stdout_truncated"] is False
    assert timed["content"]["metadata"]["timed_out"] is True
    assert "timed out" in timed["content"]["stderr"]
    assert not alive(timed["content"]["metadata"]["pid"])


def test_script_refused_under_an_allowlist(tmp_path: Path) -> None:
    shell = LocalShell(tmp_path, policy=ShellPolicy(allow_execute=True, allowed_programs=("echo",)))
    refused, allowed = run_calls(
        shell,
        call("shell_exec", "c1", command="echo hi; id"),
        call("shell_exec", "c2", command="echo", arguments=["hi; id"]),
    )
    assert refused["content"]["kind"] == "feedback"
    assert "shell scripts are refused" in refused["content"]["message"]
    assert allowed["content"]["stdout"] == "hi; id\n"


def test_background_wait_kill_and_unknown(tmp_path: Path) -> None:
    shell = LocalShell(tmp_path, policy=ALLOW)
    script: list[Any] = [
        TestModel.tool_call_response([call("shell_exec", "c1", command="echo started; sleep 0.2", background=True)]),
        TestModel.tool_call_response([call("shell_exec", "c2", command="sleep 100", background=True)]),
        "started",
    ]
    model = FunctionModel(lambda messages, info: script.pop(0))
    agent = create_agent(model=model, toolsets=[shell_toolset()], shell=shell)
    session = agent.session()
    asyncio.run(session.run("start"))
    first, second = tool_returns(model.captured_messages(), "shell_exec")
    assert first["content"]["status"] == second["content"]["status"] == "running"
    quick_id, sleeper_id = first["content"]["process_id"], second["content"]["process_id"]
    sleeper_pid = second["content"]["metadata"]["pid"]
    assert alive(sleeper_pid)

    # The agent keeps its shell across runs: a later run waits and kills.
    script.extend(
        [
            TestModel.tool_call_response([call("shell_wait", "w", process_id=quick_id, timeout_seconds=10)]),
            TestModel.tool_call_response([call("shell_kill", "k", process_id=sleeper_id)]),
            TestModel.tool_call_response([call("shell_kill", "u", process_id="process_0")]),
            TestModel.tool_call_response([call("shell_status", "s")]),
            "done",
        ]
    )
    asyncio.run(session.run("manage"))
    by_id = {r["tool_call_id"]: r for r in tool_returns(model.captured_messages())}
    assert by_id["w"]["content"]["status"] == "completed"
    assert by_id["w"]["content"]["stdout"] == "started\n"
    assert by_id["k"]["content"]["status"] == "killed"
    assert by_id["u"]["content"]["kind"] == "feedback"
    assert [p["process_id"] for p in by_id["s"]["content"]["processes"]] == [quick_id, sleeper_id]
    assert not alive(sleeper_pid)

    # Releasing the agent kills what its shell still runs.
    script.extend([TestModel.tool_call_response([call("shell_exec", "c3", command="sleep 100", background=True)]), "ok"])
    asyncio.run(session.run("again"))
    (last,) = [r for r in tool_returns(model.captured_messages()) if r["tool_call_id"] == "c3"]
    pid = last["content"]["metadata"]["pid"]
    assert alive(pid)
    del session, agent
    assert_eventually_dead(pid)


def assert_eventually_dead(pid: int, timeout: float = 5.0) -> None:
    import gc

    gc.collect()
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid), f"process {pid} outlived its agent"


def test_cancelled_run_leaves_no_process(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    shell = LocalShell(tmp_path, policy=ALLOW)
    model = TestModel.responses(
        [
            TestModel.tool_call_response(
                [call("shell_exec", "c1", command="sleep 100 & echo $! > pid; sleep 100")]
            ),
            "done",
        ]
    )
    agent = create_agent(model=model, toolsets=[shell_toolset()], shell=shell)

    async def main() -> None:
        task = asyncio.ensure_future(agent.session().run("go"))
        deadline = time.monotonic() + 10
        while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    child = int(pidfile.read_text())
    assert_eventually_dead(child)
