"""A host process of the orphan tests (test_orphans.py): an agent whose run
starts shell commands (and, when asked, a stdio MCP server) and then blocks
in a foreground command until the test kills this process.

    python orphan_worker.py ROOT MARK sandbox|unsandboxed [MCP_PYTHON]

Its commands carry MARK as an argument (sleep's duration), so the test finds
them in /proc.
"""

from __future__ import annotations

import asyncio
import sys

from helpers import call
from starweaver import create_agent
from starweaver.mcp import MCPToolset, MCPTransport
from starweaver.shell import LocalShell, ShellPolicy, shell_toolset
from starweaver.testing import TestModel


def main() -> None:
    root, mark, mode = sys.argv[1:4]
    mcp_python = sys.argv[4] if len(sys.argv) > 4 else ""
    sandbox = mode == "sandbox"
    if sandbox:
        # Children and grandchildren, in the background and the foreground.
        background = f"sleep {mark} & sh -c 'sleep {mark}; true' & wait"
        foreground = f"sh -c 'sleep {mark}; true' & sleep {mark}; wait"
    else:
        # Unsandboxed, only the started process itself dies with the host.
        background = f"exec sleep {mark}"
        foreground = f"exec sleep {mark}"
    model = TestModel.responses(
        [
            TestModel.tool_call_response([call("shell_exec", "bg", command=background, background=True)]),
            TestModel.tool_call_response([call("shell_exec", "fg", command=foreground, timeout_seconds=3600)]),
            "done",
        ]
    )
    toolsets = [shell_toolset()]
    if mcp_python:
        transport = MCPTransport.stdio(mcp_python, args=["-m", "mcp_server_time", "--local-timezone", "UTC"])
        toolsets.append(MCPToolset("time", transport=transport))
    shell = LocalShell(root, policy=ShellPolicy(allow_execute=True), sandbox=sandbox)
    agent = create_agent(model=model, toolsets=toolsets, shell=shell)
    asyncio.run(agent.session().run("go"))


if __name__ == "__main__":
    main()
