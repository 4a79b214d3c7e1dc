"""The shell toolset over a local shell, driven by a test model."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import call, live_process_stats, tool_returns
from starweaver import create_agent
from starweaver.environment import LocalEnvironment
from starweaver.shell import LocalShell, ShellPolicy, shell_toolset
from starweaver.testing import FunctionModel, TestModel

ALLOW = ShellPolicy(allow_execute=True)

# Commands run in a bubblewrap sandbox; without it these tests skip, unless
# STARWEAVER_REQUIRE_SANDBOX is set (CI sets it): then they fail.
pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("STARWEAVER_REQUIRE_SANDBOX"),
    reason="needs bubblewrap (apt-get install bubblewrap); set STARWEAVER_REQUIRE_SANDBOX=1 to fail instead",
)


Shell = LocalShell | LocalEnvironment
"""The two ways an agent gets a local shell: create_agent(shell=...), or a
local environment with a shell policy (create_agent(environment=...))."""


def shell_agent(model: Any, shell: Shell) -> Any:
    if isinstance(shell, LocalEnvironment):
        return create_agent(model=model, toolsets=[shell_toolset()], environment=shell)
    return create_agent(model=model, toolsets=[shell_toolset()], shell=shell)


def run_calls(shell: Shell, *calls: dict[str, Any]) -> list[dict[str, Any]]:
    """Runs a session whose model makes the calls, one response each, and
    returns the shell tools' returns."""
    model = TestModel.responses([*(TestModel.tool_call_response([c]) for c in calls), "done"])
    agent = shell_agent(model, shell)

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
    script.extend(
        [TestModel.tool_call_response([call("shell_exec", "c3", command="sleep 100", background=True)]), "ok"]
    )
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
    mark = marker()
    shell = LocalShell(tmp_path, policy=ALLOW)
    model = TestModel.responses(
        [
            TestModel.tool_call_response(
                [call("shell_exec", "c1", command=f"sleep {mark} & echo started > pid; sleep {mark}")]
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
    wait_count(lambda: with_marker(mark), 0, "processes left after the run was cancelled", timeout=5.0)


# The security tests below run through an agent run, on both ways of giving
# an agent a local shell, and count what is left in /proc: a process
# group's members (by the group id the metadata reports as pid), or the
# processes carrying a marker as an argument (sleep's own duration, a
# number of seconds no other process uses).

_markers = itertools.count(1)


def marker() -> str:
    return f"7{os.getpid()}{next(_markers)}"


def live_processes() -> list[tuple[int, int, list[str]]]:
    """(pid, process group, argv) of every live (not zombie) process."""
    return [(pid, int(fields[2]), argv) for pid, fields, argv in live_process_stats()]


def group_members(pgid: int) -> list[int]:
    return [pid for pid, group, _ in live_processes() if group == pgid]


def with_marker(mark: str) -> list[int]:
    """The live processes carrying mark, a sandbox's launcher (bwrap, whose
    argv ends with the command's) aside."""
    return [pid for pid, _, argv in live_processes() if mark in argv and not argv[0].endswith("bwrap")]


def wait_count(count: Any, want: int, what: str, timeout: float = 10.0) -> None:
    """Polls count() (bounded) until it returns want items."""
    deadline = time.monotonic() + timeout
    while len(got := count()) != want and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(got) == want, f"{what}: {got}, want {want}"


def allow(tmp_path: Path, kind: str, policy: ShellPolicy = ALLOW, **options: Any) -> Shell:
    if kind == "environment":
        assert not options
        return LocalEnvironment(tmp_path, shell_policy=policy)
    return LocalShell(tmp_path, policy=policy, **options)


KINDS = pytest.mark.parametrize("kind", ["shell", "environment"])


@KINDS
def test_allowlist_refuses_shell_strings_env_overrides_and_other_programs(tmp_path: Path, kind: str) -> None:
    shell = allow(tmp_path, kind, ShellPolicy(allow_execute=True, allowed_programs=("echo",)))
    returns = run_calls(
        shell,
        call("shell_exec", "script", command="echo hi"),
        call("shell_exec", "chained", command="echo hi; id"),
        call("shell_exec", "background", command="echo hi", background=True),
        call("shell_exec", "path", command="echo", arguments=["x"], environment={"PATH": str(tmp_path)}),
        call("shell_exec", "loader", command="echo", arguments=["x"], environment={"LD_PRELOAD": "/tmp/x.so"}),
        call("shell_exec", "full_path", command="/bin/echo", arguments=["x"]),
        call("shell_exec", "shell", command="sh", arguments=["-c", "echo hi"]),
        call("shell_exec", "allowed", command="echo", arguments=["$HOME; id"]),
    )
    by_id = {r["tool_call_id"]: r["content"] for r in returns}
    for call_id, why in {
        "script": "shell scripts are refused",
        "chained": "shell scripts are refused",
        "background": "shell scripts are refused",
        "path": "environment overrides are refused",
        "loader": "environment overrides are refused",
        "full_path": "is not one of the allowed programs",
        "shell": "is not one of the allowed programs",
    }.items():
        assert by_id[call_id]["kind"] == "feedback", call_id
        assert why in by_id[call_id]["message"], (call_id, by_id[call_id]["message"])
    assert by_id["allowed"]["stdout"] == "$HOME; id\n"


@KINDS
def test_fork_bomb_is_contained(tmp_path: Path, kind: str) -> None:
    # The bomb guards itself (ulimit -u binds a non-root user, the depth
    # binds root): this test must stay safe on a shared machine. What stops
    # it is the group kill at the timeout, TERM ignored included.
    bomb = (
        "ulimit -u 512 2>/dev/null\n"
        "bomb() { trap '' TERM; if [ \"$1\" -gt 0 ]; then bomb $(($1-1)) & bomb $(($1-1)) & fi; "
        "while :; do sleep 1; done; }\n"
        "bomb 5"
    )
    (returned,) = run_calls(allow(tmp_path, kind), call("shell_exec", "bomb", command=bomb, timeout_seconds=1))
    metadata = returned["content"]["metadata"]
    assert metadata["timed_out"] is True
    assert group_members(metadata["pid"]) == []


@KINDS
def test_background_starts_are_bounded_by_the_process_limit(tmp_path: Path, kind: str) -> None:
    # The model cannot fork-bomb through the tools either: one shared
    # allowance (8 by default) covers background and foreground commands.
    mark = marker()
    shell = allow(tmp_path, kind, **({} if kind == "environment" else {"max_processes": 3}))
    limit = 8 if kind == "environment" else 3
    calls = [call("shell_exec", f"s{i}", command=f"exec sleep {mark}", background=True) for i in range(limit + 2)]
    calls.append(call("shell_exec", "fg", command="true"))
    model = TestModel.responses([*(TestModel.tool_call_response([c]) for c in calls), "done"])
    agent = shell_agent(model, shell)
    session = agent.session()
    asyncio.run(session.run("go"))
    returns = {r["tool_call_id"]: r["content"] for r in tool_returns(model.captured_messages())}
    started = [returns[f"s{i}"] for i in range(limit)]
    assert all(c["status"] == "running" for c in started)
    for refused in (returns[f"s{limit}"], returns[f"s{limit + 1}"], returns["fg"]):
        assert refused["kind"] == "feedback" and "processes are already running" in refused["message"]
    # A background start returns once the process is started, not once it
    # has exec'd its command.
    wait_count(lambda: with_marker(mark), limit, "the background sleepers")
    del session, agent
    import gc

    gc.collect()
    wait_count(lambda: with_marker(mark), 0, "processes left after the agent was released")


@pytest.mark.parametrize("kind", ["shell", "environment", "unsandboxed"])
def test_output_flood_is_bounded(tmp_path: Path, kind: str) -> None:
    limit = 64 << 10
    mark = marker()
    if kind == "unsandboxed":
        shell: Shell = LocalShell(tmp_path, policy=ALLOW, max_capture_bytes=limit, sandbox=False)
    else:
        shell = allow(tmp_path, kind, **({} if kind == "environment" else {"max_capture_bytes": limit}))
    if kind == "environment":
        limit = 1 << 20  # the default capture bound
    # /bin/sh does not exec yes here: the group holds sh and yes, and the
    # run returns only once both are gone (no wait below).
    (returned,) = run_calls(shell, call("shell_exec", "flood", command=f"yes {mark}", timeout_seconds=1))
    content = returned["content"]
    metadata = content["metadata"]
    assert metadata["timed_out"] is True
    assert metadata["stdout_truncated"] is True
    assert metadata["stdout_captured_bytes"] == limit
    assert metadata["stdout_bytes"] > 4 * limit
    assert metadata["stderr_truncated"] is False
    # What the model reads is bounded again, keeping both ends.
    assert len(content["stdout"]) <= 20_000 + 200 and "middle truncated" in content["stdout"]
    assert group_members(metadata["pid"]) == []
    assert with_marker(mark) == []


@KINDS
def test_a_process_ignoring_term_is_killed(tmp_path: Path, kind: str) -> None:
    mark = marker()
    ignore = f"trap '' TERM; sleep {mark} & sleep {mark} & wait"
    script: list[Any] = [
        TestModel.tool_call_response([call("shell_exec", "fg", command=ignore, timeout_seconds=0.3)]),
        TestModel.tool_call_response([call("shell_exec", "bg", command=ignore, background=True)]),
        "started",
    ]
    model = FunctionModel(lambda messages, info: script.pop(0))
    agent = shell_agent(model, allow(tmp_path, kind))
    session = agent.session()
    asyncio.run(session.run("go"))
    by_id = {r["tool_call_id"]: r["content"] for r in tool_returns(model.captured_messages())}
    fg = by_id["fg"]
    assert fg["metadata"]["timed_out"] is True and fg["metadata"]["signal"] == 9 and fg["return_code"] == 137
    assert group_members(fg["metadata"]["pid"]) == []
    process_id = by_id["bg"]["process_id"]
    wait_count(lambda: with_marker(mark), 2, "the background sleepers")
    script.extend([TestModel.tool_call_response([call("shell_kill", "k", process_id=process_id)]), "killed"])
    asyncio.run(session.run("kill it"))
    (killed,) = tool_returns(model.captured_messages(), "shell_kill")
    assert killed["content"]["status"] == "killed" and killed["content"]["metadata"]["signal"] == 9
    assert with_marker(mark) == []


@KINDS
def test_cancelled_run_leaves_no_background_process(tmp_path: Path, kind: str) -> None:
    mark = marker()
    model = TestModel.responses(
        [
            TestModel.tool_call_response([call("shell_exec", "b1", command=f"exec sleep {mark}", background=True)]),
            TestModel.tool_call_response(
                [
                    call(
                        "shell_exec",
                        "b2",
                        command=f"trap '' TERM; sleep {mark} & sh -c 'sleep {mark}' & wait",
                        background=True,
                    )
                ]
            ),
            TestModel.tool_call_response([call("shell_exec", "fg", command=f"sleep {mark}")]),
            "done",
        ]
    )
    agent = shell_agent(model, allow(tmp_path, kind))
    session = agent.session()

    async def main() -> None:
        task = asyncio.ensure_future(session.run("go"))
        # b1's sleep, b2's sleep and its grandchild (sh -c execs it), the
        # foreground sleep.
        deadline = time.monotonic() + 10
        while len(with_marker(mark)) < 4 and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert len(with_marker(mark)) == 4, with_marker(mark)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    # The agent and its shell are still alive: the cancellation ended them.
    wait_count(lambda: with_marker(mark), 0, "processes left after the run was cancelled")
    # The session runs again, and a completed run's background process stays
    # with the session until it is killed.
    later = marker()
    script: list[Any] = [
        TestModel.tool_call_response([call("shell_exec", "b3", command=f"exec sleep {later}", background=True)]),
        "ok",
    ]
    model2 = FunctionModel(lambda messages, info: script.pop(0))
    agent2 = shell_agent(model2, allow(tmp_path, kind))
    session2 = agent2.session()
    asyncio.run(session2.run("start"))
    wait_count(lambda: with_marker(later), 1, "the session's background sleeper")
    del session2, agent2
    import gc

    gc.collect()
    wait_count(lambda: with_marker(later), 0, "processes left after the agent was released")


def test_toolset_policy_narrows_the_shell(tmp_path: Path) -> None:
    """shell_toolset(policy=) is stricter than the shell it is given, never looser."""
    narrow = shell_toolset(policy=ShellPolicy(allow_execute=True, allowed_programs=["echo"]))
    model = TestModel.responses(
        [
            TestModel.tool_call_response([call("shell_exec", "script", command="echo hi")]),
            TestModel.tool_call_response([call("shell_exec", "prog", command="echo", arguments=["ok"])]),
            TestModel.tool_call_response([call("shell_exec", "other", command="touch", arguments=["x"])]),
            "done",
        ]
    )
    environment = LocalEnvironment(tmp_path, shell_policy=ShellPolicy(allow_execute=True))
    result = asyncio.run(create_agent(model=model, toolsets=[narrow], environment=environment).run("go"))
    assert result.output == "done"
    by_id = {r["tool_call_id"]: r for r in tool_returns(model.captured_messages(), "shell_exec")}
    assert by_id["prog"]["content"]["stdout"] == "ok\n"
    assert "shell scripts are refused" in str(by_id["script"]["content"])
    assert '"touch" is not one of the allowed programs' in str(by_id["other"]["content"])
    assert not (tmp_path / "x").exists()

    closed = LocalEnvironment(tmp_path, shell_policy=ShellPolicy())
    model = TestModel.responses([TestModel.tool_call_response([call("shell_exec", "s", command="echo hi")]), "done"])
    wide = shell_toolset(policy=ShellPolicy(allow_execute=True))
    asyncio.run(create_agent(model=model, toolsets=[wide], environment=closed).run("go"))
    (ret,) = tool_returns(model.captured_messages(), "shell_exec")
    assert "does not allow running commands" in str(ret["content"])

    with pytest.raises(TypeError, match="ShellPolicy"):
        shell_toolset(policy={"allow_execute": True})  # type: ignore[arg-type]
