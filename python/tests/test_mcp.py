"""MCP toolsets (starweaver.mcp) against real MCP servers nobody here wrote:
``@modelcontextprotocol/server-everything`` (npm, stdio), ``mcp-server-time``
(PyPI, stdio) and a small server written with the Python ``mcp`` package
(fixtures/mcp_http_server.py, streamable HTTP).

The servers are found as core/mcp's Go tests find them: server-everything
through STARWEAVER_MCP_EVERYTHING or in .ci/cache/mcp-npm (where .ci/run
installs it), the Python ones run by STARWEAVER_MCP_PYTHON (default
python3). Without them the tests skip, unless STARWEAVER_REQUIRE_MCP is set
(CI sets it): then they fail.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import tool_returns
from starweaver import AgentError
from starweaver.agent import create_agent
from starweaver.catalog import ToolProxyToolset
from starweaver.content import Base64Source, Image
from starweaver.mcp import MCPToolset, MCPTransport
from starweaver.testing import TestModel

ROOT = Path(__file__).resolve().parents[2]
HTTP_SERVER = Path(__file__).resolve().parent / "fixtures" / "mcp_http_server.py"


def _need(what: str) -> None:
    msg = (
        f"MCP tests need {what} (run .ci/run, or: npm install --prefix .ci/cache/mcp-npm "
        "@modelcontextprotocol/server-everything; pip install mcp mcp-server-time)"
    )
    if os.environ.get("STARWEAVER_REQUIRE_MCP"):
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture(scope="module")
def everything() -> MCPTransport:
    default = ROOT / ".ci" / "cache" / "mcp-npm" / "node_modules" / ".bin" / "mcp-server-everything"
    path = os.environ.get("STARWEAVER_MCP_EVERYTHING") or str(default)
    if not os.path.exists(path) or shutil.which("node") is None:
        _need("node and @modelcontextprotocol/server-everything (or STARWEAVER_MCP_EVERYTHING naming it)")
    return MCPTransport.stdio(path, args=["stdio"])


@pytest.fixture(scope="module")
def mcp_python() -> str:
    py = os.environ.get("STARWEAVER_MCP_PYTHON") or "python3"
    probe = subprocess.run(
        [py, "-c", "import mcp_server_time, mcp.server.mcpserver"], capture_output=True, text=True, timeout=60
    )
    if probe.returncode != 0:
        _need(f"the Python packages mcp and mcp-server-time importable by {py} (or STARWEAVER_MCP_PYTHON)")
    return py


@pytest.fixture(scope="module")
def http_url(mcp_python: str) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [mcp_python, str(HTTP_SERVER), str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail(f"the MCP fixture server exited: {proc.stderr.read() if proc.stderr else ''}")
                if time.monotonic() > deadline:
                    pytest.fail("the MCP fixture server did not listen within 60s")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait()


def call(tool: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": tool, "arguments": arguments}


def run(ts: MCPToolset, *calls: dict[str, Any], **agent_kwargs: Any) -> tuple[TestModel, Any]:
    """One run whose model makes calls (in one response), then says "done"."""
    model = TestModel(responses=[TestModel.tool_call_response(list(calls)), "done"])
    result = asyncio.run(create_agent(model=model, toolsets=[ts], **agent_kwargs).run("go"))
    assert result.output == "done"
    return model, result


def returns(model: TestModel) -> dict[str, dict[str, Any]]:
    return {r["tool_call_id"]: r for r in tool_returns(model.captured_messages())}


def test_spec_is_plain_json_without_defaults() -> None:
    ts = MCPToolset("fs", transport=MCPTransport.stdio("srv", args=["-v"], env={"A": "1"}, cwd="/tmp"))
    assert ts._extra_spec(lambda _: None) == {
        "kind": "mcp",
        "mcp": {"transport": {"kind": "stdio", "command": "srv", "args": ["-v"], "env": {"A": "1"}, "cwd": "/tmp"}},
    }
    web = MCPToolset(
        "web",
        transport=MCPTransport.streamable_http("http://h/mcp", headers={"A": "1"}),
        headers={"Authorization": "Bearer x"},
        tool_prefix="web",
        cache_tools=False,
        read_timeout_ms=100,
        init_timeout_ms=200,
        include_instructions=True,
    ).prefixed("p")
    assert web._extra_spec(lambda _: None) == {
        "layers": [{"kind": "prefixed", "prefix": "p"}],
        "kind": "mcp",
        "mcp": {
            "transport": {
                "kind": "streamable_http",
                "url": "http://h/mcp",
                "headers": {"A": "1", "Authorization": "Bearer x"},
            },
            "tool_prefix": "web",
            "cache_tools": False,
            "read_timeout_ms": 100,
            "init_timeout_ms": 200,
            "include_instructions": True,
        },
    }
    assert "Bearer" not in repr(web.transport)  # type: ignore[attr-defined]


def test_type_errors_are_raised_in_python() -> None:
    with pytest.raises(TypeError, match="transport"):
        MCPToolset("x", transport="python -m srv")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="headers"):
        MCPToolset("x", transport=MCPTransport.stdio("srv"), headers={"A": "1"})
    with pytest.raises(ValueError, match="cmd"):
        MCPTransport.stdio(" ")
    with pytest.raises(TypeError, match="args"):
        MCPTransport.stdio("srv", args="-v")


def test_server_everything_echo_and_sum(everything: MCPTransport) -> None:
    ts = MCPToolset("everything", transport=everything, tool_prefix="ev")
    model, _ = run(ts, call("ev_echo", "c1", message="hello"), call("ev_get-sum", "c2", a=40, b=2))
    rets = returns(model)
    assert rets["c1"]["content"] == "Echo: hello"
    assert "42" in rets["c2"]["content"] and not rets["c2"]["is_error"]
    defs = {d["name"]: d for d in model.captured_params()[0]["tools"]}
    assert defs["ev_echo"]["metadata"] == {
        "mcp_server_id": "everything",
        "mcp_transport": "stdio",
        "mcp_tool_name": "echo",
        "mcp_task": False,
    }
    assert defs["ev_echo"]["parameters"]["required"] == ["message"]


def test_arguments_are_validated_against_the_server_schema(everything: MCPTransport) -> None:
    model, _ = run(MCPToolset("everything", transport=everything), call("echo", "c1", message=3))
    ret = returns(model)["c1"]
    assert ret["is_error"] and ret["metadata"]["error_kind"] == "invalid_arguments"


def test_image_content_becomes_an_image_part(everything: MCPTransport) -> None:
    model, _ = run(MCPToolset("everything", transport=everything), call("get-tiny-image", "c1"))
    ret = returns(model)["c1"]
    images = [p for p in ret["parts"] if isinstance(p, Image)]
    assert images and isinstance(images[0].source, Base64Source) and images[0].source.media_type == "image/png"


def test_time_server(mcp_python: str) -> None:
    ts = MCPToolset("time", transport=MCPTransport.stdio(mcp_python, args=["-m", "mcp_server_time"]))
    model, _ = run(ts, call("get_current_time", "c1", timezone="Europe/Paris"))
    ret = returns(model)["c1"]
    assert "Europe/Paris" in ret["content"] and not ret["is_error"]


def test_http_server_tools_headers_is_error_and_images(http_url: str) -> None:
    ts = MCPToolset(
        "fixture",
        transport=MCPTransport.streamable_http(http_url),
        headers={"X-Starweaver-Test": "token-1"},
        tool_prefix="fx",
    )
    model, _ = run(
        ts,
        call("fx_greet", "c1", name="Ada"),
        call("fx_header", "c2", name="X-Starweaver-Test"),
        call("fx_fail", "c3", message="no such order"),
        call("fx_pixel", "c4"),
        call("fx_document", "c5"),
    )
    rets = returns(model)
    assert rets["c1"]["content"] == "Hello, Ada!"
    assert rets["c2"]["content"] == "token-1"
    # isError: the model reads the server's message as an error; no retry.
    assert rets["c3"]["is_error"] and "no such order" in rets["c3"]["content"]
    assert "error_kind" not in rets["c3"]["metadata"]
    assert [p.kind for p in rets["c4"]["parts"]] == ["image"]
    assert rets["c5"]["content"] == "Remember the milk."


def test_a_slow_call_times_out_and_is_cancelled_on_the_server(http_url: str) -> None:
    ts = MCPToolset("fixture", transport=MCPTransport.streamable_http(http_url), timeout_ms=300)
    before = time.monotonic()
    model, _ = run(ts, call("slow", "c1", seconds=30))
    assert time.monotonic() - before < 20
    ret = returns(model)["c1"]
    assert ret["metadata"]["error_kind"] == "timeout"
    deadline = time.monotonic() + 10
    while True:
        model, _ = run(
            MCPToolset("fixture", transport=MCPTransport.streamable_http(http_url)), call("cancelled_calls", "c1")
        )
        if returns(model)["c1"]["content"] != "0":
            break
        assert time.monotonic() < deadline, "the server never saw the cancellation"
        time.sleep(0.1)


@pytest.mark.parametrize(
    "transport",
    [
        MCPTransport.stdio("/nonexistent/mcp-server"),
        MCPTransport.stdio("sh", args=["-c", "echo boom: bad config >&2; exit 3"]),
        MCPTransport.stdio("sleep", args=["60"]),
    ],
    ids=["missing", "exits", "silent"],
)
def test_a_server_that_cannot_start_is_a_clear_error(transport: MCPTransport) -> None:
    """The run fails with an AgentError naming the toolset and its command
    (and a toolset_unavailable event), never completes silently without the
    server's tools."""
    before = time.monotonic()
    events: list[Any] = []
    agent = create_agent(
        model=TestModel.responses(["fine without it"]),
        toolsets=[MCPToolset("broken", transport=transport, init_timeout_ms=1000)],
    )
    with pytest.raises(AgentError, match=r'toolset "broken"') as info:
        asyncio.run(agent.run("go", on_event=events.append))
    message = str(info.value)
    assert transport._to_spec()["command"] in message
    assert "optional" in message, "the error says how to run without the server"
    assert len(unavailable_reports(events)) == 1
    assert time.monotonic() - before < 30
    if "boom" in " ".join(transport._to_spec().get("args", [])):
        assert "boom: bad config" in message


@pytest.mark.parametrize("on_event", [False, True], ids=["no-events", "events"])
def test_an_optional_server_that_cannot_start_is_left_out_with_a_warning(
    on_event: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """optional=True: the run goes on without the server's tools, a WARNING
    names it (with or without an on_event callback) and the event reports
    it; optional wins over unavailable_tools="fail"."""
    for kwargs in ({}, {"unavailable_tools": "fail"}):
        caplog.clear()
        events: list[Any] = []
        model = TestModel.responses(["fine without it"])
        ts = MCPToolset("broken", transport=MCPTransport.stdio("/nonexistent/mcp-server"), optional=True)
        agent = create_agent(model=model, toolsets=[ts], **kwargs)
        with caplog.at_level(logging.WARNING, logger="starweaver"):
            result = asyncio.run(agent.run("go", on_event=events.append if on_event else None))
        assert result.output == "fine without it"
        assert model.captured_params()[0]["tools"] == []
        warnings = [r for r in caplog.records if r.name == "starweaver" and r.levelno == logging.WARNING]
        assert len(warnings) == 1, caplog.records
        text = warnings[0].getMessage()
        assert 'toolset "broken"' in text and "/nonexistent/mcp-server" in text and "without its tools" in text
        if on_event:
            (report,) = unavailable_reports(events)
            assert report["toolset"] == "broken" and 'toolset "broken"' in report["error"]


def test_optional_is_sent_only_when_set() -> None:
    transport = MCPTransport.stdio("srv")
    assert "optional" not in MCPToolset("a", transport=transport)._mcp_spec()
    assert MCPToolset("a", transport=transport, optional=True)._mcp_spec()["optional"] is True
    with pytest.raises(TypeError, match="optional must be a bool"):
        MCPToolset("a", transport=transport, optional="yes")  # type: ignore[arg-type]


def unavailable_reports(events: list[Any]) -> list[dict[str, Any]]:
    return [
        e["custom"]["payload"] for e in events if e["kind"] == "custom" and e["custom"]["kind"] == "toolset_unavailable"
    ]


def test_a_proxy_over_an_mcp_server_starts_it_per_run(mcp_python: str, tmp_path: Path) -> None:
    """The catalogue manages its member's lifecycle: nothing starts when the
    agent is built, the server runs during the run and is gone after it."""
    marker = tmp_path / "started"
    script = f'echo $$ >> "{marker}"; exec "{mcp_python}" -m mcp_server_time'
    ts = MCPToolset("time", transport=MCPTransport.stdio("sh", args=["-c", script]))
    model = TestModel.responses(
        [
            TestModel.tool_call_response(
                [call("call_tool", "c1", name="get_current_time", arguments={"timezone": "UTC"})]
            ),
            "done",
        ]
    )
    agent = create_agent(model=model, toolsets=[ToolProxyToolset([ts])])
    assert not marker.exists()
    asyncio.run(agent.run("what time is it"))
    assert '"timezone": "UTC"' in str(returns(model)["c1"]["content"])
    pid = int(marker.read_text().split()[0])
    deadline = time.monotonic() + 10
    while _alive(pid):
        assert time.monotonic() < deadline, f"the MCP server {pid} outlived the run"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return True
