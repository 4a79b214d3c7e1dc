"""Shell commands run in a sandbox (bubblewrap): the model's commands cannot
read this process (its /proc environ, cmdline, mem); ``sandbox=False`` opts
out; without bubblewrap an agent that may run commands is refused with a
clear error.

The sandboxed tests need bubblewrap: without it they skip, unless
STARWEAVER_REQUIRE_SANDBOX is set (CI sets it): then they fail.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import starweaver
from helpers import call, tool_returns
from starweaver import create_agent
from starweaver.environment import LocalEnvironment
from starweaver.shell import LocalShell, ShellPolicy, shell_toolset
from starweaver.testing import TestModel

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox is Linux only")

# The directory holding the starweaver under test (the installed one under
# `make test`, the source tree's after `make build`).
PACKAGE = str(Path(starweaver.__file__).resolve().parents[1])


@pytest.fixture
def bwrap() -> None:
    if shutil.which("bwrap") is None:
        msg = "needs bubblewrap (apt-get install bubblewrap)"
        if os.environ.get("STARWEAVER_REQUIRE_SANDBOX"):
            pytest.fail(msg)
        pytest.skip(msg)


def run_command(shell: LocalShell | LocalEnvironment, **arguments: Any) -> dict[str, Any]:
    model = TestModel.responses([TestModel.tool_call_response([call("shell_exec", "c", **arguments)]), "done"])
    if isinstance(shell, LocalEnvironment):
        agent = create_agent(model=model, toolsets=[shell_toolset()], environment=shell)
    else:
        agent = create_agent(model=model, toolsets=[shell_toolset()], shell=shell)

    async def main() -> None:
        assert (await agent.session().run("go")).output == "done"

    asyncio.run(main())
    (returned,) = tool_returns(model.captured_messages(), "shell_exec")
    content: dict[str, Any] = returned["content"]
    return content


HOST = os.getpid()
# A variable of this process's environment (its /proc environ) to look for.
NEEDLE = "PATH="


@pytest.mark.parametrize("kind", ["shell", "environment"])
def test_a_command_cannot_read_the_host_process(tmp_path: Path, kind: str, bwrap: None) -> None:
    programs = ShellPolicy(allow_execute=True, allowed_programs=["cat"])
    shell: LocalShell | LocalEnvironment = (
        LocalShell(tmp_path, policy=programs) if kind == "shell" else LocalEnvironment(tmp_path, shell_policy=programs)
    )
    for name in ("environ", "cmdline", "mem"):
        out = run_command(shell, command="cat", arguments=[f"/proc/{HOST}/{name}"])
        assert out["return_code"] != 0 and out["stdout"] == "", (name, out)
    # Nor through the sandbox's own first process.
    out = run_command(shell, command="cat", arguments=["/proc/1/environ"])
    assert NEEDLE not in out["stdout"] and "sk-" not in out["stdout"], out


@pytest.mark.parametrize("kind", ["shell", "environment"])
def test_opting_out_runs_on_the_host(tmp_path: Path, kind: str) -> None:
    policy = ShellPolicy(allow_execute=True)
    shell: LocalShell | LocalEnvironment = (
        LocalShell(tmp_path, policy=policy, sandbox=False)
        if kind == "shell"
        else LocalEnvironment(tmp_path, shell_policy=policy, sandbox=False)
    )
    out = run_command(shell, command=f"tr '\\0' '\\n' < /proc/{HOST}/environ")
    assert out["return_code"] == 0 and NEEDLE in out["stdout"]


def test_sandbox_specs() -> None:
    assert "sandbox" not in LocalShell("/tmp").to_dict()
    assert LocalShell("/tmp", sandbox=False).to_dict()["sandbox"] is False
    assert "sandbox" not in LocalEnvironment("/tmp").to_dict()
    assert LocalEnvironment("/tmp", sandbox=False).to_dict()["sandbox"] is False
    with pytest.raises(TypeError):
        LocalShell("/tmp", sandbox="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        LocalEnvironment("/tmp", sandbox=0)  # type: ignore[arg-type]


MISSING = """
import sys
from starweaver import create_agent
from starweaver.environment import LocalEnvironment
from starweaver.shell import LocalShell, ShellPolicy
from starweaver.testing import TestModel
allow = ShellPolicy(allow_execute=True)
for make in (
    lambda: create_agent(model=TestModel.responses(["x"]), shell=LocalShell(sys.argv[1], policy=allow)),
    lambda: create_agent(model=TestModel.responses(["x"]), environment=LocalEnvironment(sys.argv[1], shell_policy=allow)),
):
    try:
        make()
    except ValueError as e:
        print("refused:", e)
    else:
        print("accepted")
create_agent(model=TestModel.responses(["x"]), shell=LocalShell(sys.argv[1], policy=allow, sandbox=False))
create_agent(model=TestModel.responses(["x"]), shell=LocalShell(sys.argv[1]))
print("opted out: ok")
"""


def test_without_bubblewrap_the_shell_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty), "PYTHONPATH": PACKAGE}
    done = subprocess.run(
        [sys.executable, "-c", MISSING, str(tmp_path)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3 and lines[2] == "opted out: ok", done.stdout
    for line in lines[:2]:
        assert line.startswith("refused:") and "bubblewrap" in line and "sandbox=False" in line, line


@pytest.mark.parametrize("kind", ["shell", "environment"])
def test_a_command_sees_no_host_file_but_the_systems_and_those_shown(tmp_path: Path, kind: str, bwrap: None) -> None:
    # Not under /tmp (the sandbox has its own): next to the tests, as a
    # user's other project or home would be.
    outside = Path(__file__).resolve().parent / f"outside-{os.getpid()}-{kind}"
    outside.mkdir()
    try:
        secret = outside / "credentials"
        secret.write_text("sk-host-secret\n")
        programs = ShellPolicy(allow_execute=True, allowed_programs=["cat"])

        def make(**extra: Any) -> LocalShell | LocalEnvironment:
            if kind == "shell":
                return LocalShell(tmp_path, policy=programs, **extra)
            return LocalEnvironment(tmp_path, shell_policy=programs, **extra)

        hidden = run_command(make(), command="cat", arguments=[str(secret)])
        assert hidden["return_code"] != 0 and "sk-host-secret" not in hidden["stdout"], hidden
        # The system's files are there: programs run, /etc reads.
        system = run_command(make(), command="cat", arguments=["/etc/passwd"])
        assert system["return_code"] == 0, system
        shown = run_command(make(sandbox_read_only=[str(outside)]), command="cat", arguments=[str(secret)])
        assert shown["stdout"] == "sk-host-secret\n", shown
    finally:
        shutil.rmtree(outside)


def test_sandbox_read_only_must_be_a_list_of_paths(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="sandbox_read_only"):
        LocalShell(tmp_path, sandbox_read_only="/opt")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="sandbox_read_only"):
        LocalEnvironment(tmp_path, sandbox_read_only="/opt")  # type: ignore[arg-type]
