"""Tool error policy, redaction of what the model reads of an error, and
per-run grants, driven through the native runtime."""

from __future__ import annotations

import asyncio
import json
import pickle
import traceback
from typing import Any

import pytest
from helpers import call
from starweaver import (
    AgentError,
    Feedback,
    Hook,
    ModelRetry,
    TestModel,
    ToolContext,
    ToolFailed,
    ToolOutput,
    create_agent,
    tool,
)
from starweaver.messages import ModelMessage, ToolReturnPart

DSN = "postgresql://app:hunter2@db.internal:5432/prod"
TOKEN = "sk-proj-AbCdEf0123456789xyzXYZ"
BEARER = "Bearer eyJhbGciOiJIUzI1NiJ9abcdefgh"


def _connect() -> None:
    raise ConnectionError(f"could not connect to {DSN}")


@tool(max_retries=0)
def lookup() -> str:
    """A tool whose failure holds a DSN with a password, an API key, a
    bearer token and a traceback."""
    try:
        _connect()
    except ConnectionError:
        raise RuntimeError(
            f"lookup failed with key {TOKEN} and header Authorization: {BEARER}\n{traceback.format_exc()}"
        ) from None
    return "unreachable"


SECRETS = ("hunter2", TOKEN, "eyJhbGciOiJIUzI1NiJ9abcdefgh", __file__, "_connect()")


def model_text(model: TestModel) -> str:
    return json.dumps([[m.model_dump(mode="json") for m in msgs] for msgs in model.captured_messages()])


def returns_of(messages: list[ModelMessage], name: str) -> list[ToolReturnPart]:
    return [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart) and p.name == name]


def test_the_model_reads_a_redacted_error_and_the_host_keeps_it_whole() -> None:
    model = TestModel(responses=[TestModel.tool_call_response([call("lookup")]), "done"])
    agent = create_agent(model=model, tools=[lookup])
    result = asyncio.run(asyncio.wait_for(agent.run("go"), 10))
    assert result.output == "done"
    seen = model_text(model)
    for secret in SECRETS:
        assert secret not in seen, f"the model read {secret!r}"
    (ret,) = returns_of(result.messages, "lookup")
    message = ret.content["message"]
    assert "postgresql://***@db.internal:5432/prod" in message
    assert "Authorization: ***" in message and "key ***" in message
    assert message.rstrip().endswith("ConnectionError: could not connect to postgresql://***@db.internal:5432/prod")
    assert "Traceback" not in message
    # The application keeps the full text: the runtime's copy and the
    # Python exception's.
    full = ret.private_metadata["starweaver_error_message"]
    for secret in ("hunter2", TOKEN, "Traceback (most recent call last)", "_connect()"):
        assert secret in full
    assert "hunter2" in ret.private_metadata["python_exception"]


def test_fail_fast_raises_tool_failed_with_the_full_error() -> None:
    model = TestModel(responses=[TestModel.tool_call_response([call("lookup", "c1")]), "never"])
    agent = create_agent(model=model, tools=[lookup], tool_error_policy="fail_fast")

    async def main() -> tuple[ToolFailed, list[ModelMessage]]:
        session = agent.session()
        with pytest.raises(ToolFailed) as info:
            await asyncio.wait_for(session.run("go"), 10)
        return info.value, session.messages

    exc, kept = asyncio.run(main())
    assert isinstance(exc, AgentError)
    assert (exc.tool, exc.tool_call_id, exc.kind) == ("lookup", "c1", "execution")
    assert "hunter2" in str(exc) and TOKEN in str(exc)
    assert len(model.captured_messages()) == 1, "the model must not be asked again"
    # The failed call's return stays in the exception's and the session's
    # messages, redacted where the model would read it.
    for messages in (exc.messages, kept):
        (ret,) = returns_of(list(messages), "lookup")
        assert "hunter2" not in ret.content["message"]
        assert "hunter2" in ret.private_metadata["starweaver_error_message"]
    back = pickle.loads(pickle.dumps(exc))
    assert (type(back), back.tool, back.tool_call_id, back.kind, str(back)) == (
        ToolFailed,
        "lookup",
        "c1",
        "execution",
        str(exc),
    )


def test_a_runs_policy_overrides_the_agents() -> None:
    async def main() -> None:
        model = TestModel(responses=[TestModel.tool_call_response([call("lookup")]), "done"])
        agent = create_agent(model=model, tools=[lookup], tool_error_policy="fail_fast")
        result = await asyncio.wait_for(agent.run("go", tool_error_policy="return_to_model"), 10)
        assert result.output == "done"

        model = TestModel(responses=[TestModel.tool_call_response([call("lookup")]), "done"])
        agent = create_agent(model=model, tools=[lookup])
        with pytest.raises(ToolFailed):
            await asyncio.wait_for(agent.run("go", tool_error_policy="fail_fast"), 10)

    asyncio.run(main())


@tool
def corrected(n: int) -> str:
    raise ModelRetry("use a smaller n")


@tool
def guided() -> str:
    raise Feedback("no such file")


@tool
def rejected() -> ToolOutput:
    return ToolOutput.model_error(["rejected by policy"])


@pytest.mark.parametrize(
    "calls",
    [
        [call("corrected", n=1)],
        [call("corrected", n="not a number")],
        [call("guided")],
        [call("rejected")],
    ],
    ids=["model_retry", "invalid_arguments", "feedback", "model_error"],
)
def test_fail_fast_lets_what_is_no_failure_through(calls: list[dict[str, Any]]) -> None:
    model = TestModel(responses=[TestModel.tool_call_response(calls), "done"])
    agent = create_agent(model=model, tools=[corrected, guided, rejected], tool_error_policy="fail_fast")
    assert asyncio.run(asyncio.wait_for(agent.run("go"), 10)).output == "done"


def test_policy_values_are_checked() -> None:
    with pytest.raises(ValueError, match="fail_fast"):
        create_agent(model=TestModel("ok"), tool_error_policy="sometimes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        create_agent(model=TestModel("ok"), tool_error_policy=1)  # type: ignore[arg-type]
    agent = create_agent(model=TestModel("ok"))
    with pytest.raises(ValueError, match="fail_fast"):
        asyncio.run(agent.run("go", tool_error_policy="never"))  # type: ignore[arg-type]


ran: list[str] = []


@tool
def search(q: str = "") -> str:
    ran.append("search")
    return "found"


@tool
def read_file(path: str = "") -> str:
    ran.append("read_file")
    return "text"


@tool
def delete_file(path: str = "") -> str:
    ran.append("delete_file")
    return "deleted"


def test_grants_hide_and_refuse_ungranted_tools() -> None:
    ran.clear()
    hooked: list[str] = []

    def before(ctx: ToolContext[Any], arguments: dict[str, Any]) -> None:
        hooked.append(ctx.tool_name or "")

    model = TestModel(
        responses=[
            TestModel.tool_call_response([call("delete_file", "c1", path="/"), call("search", "c2", q="x")]),
            "done",
        ]
    )
    agent = create_agent(model=model, tools=[search, read_file, delete_file], hooks=[Hook(before_call=before)])
    result = asyncio.run(asyncio.wait_for(agent.run("go", grants=["search", "read_file"]), 10))
    assert result.output == "done"
    for params in model.captured_params():
        assert sorted(t["name"] for t in params["tools"]) == ["read_file", "search"]
    assert ran == ["search"] and hooked == ["search"], "nothing of an ungranted tool may run"
    (refused,) = returns_of(result.messages, "delete_file")
    assert refused.content["kind"] == "user_error"
    assert 'tool "delete_file" is not granted to this run' in refused.content["message"]


def test_grants_all_none_and_errors() -> None:
    async def offered(**options: Any) -> list[str]:
        model = TestModel("done")
        agent = create_agent(model=model, tools=[search, read_file])
        await asyncio.wait_for(agent.run("go", **options), 10)
        return sorted(t["name"] for t in model.captured_params()[0]["tools"])

    async def main() -> None:
        assert await offered() == ["read_file", "search"]
        assert await offered(grants=None) == ["read_file", "search"]
        assert await offered(grants=["*"]) == ["read_file", "search"]
        assert await offered(grants=[]) == []
        assert await offered(grants=("search",)) == ["search"]
        with pytest.raises(AgentError, match="serach"):
            await offered(grants=["serach"])
        with pytest.raises(TypeError):
            await offered(grants="search")
        with pytest.raises(TypeError):
            await offered(grants=[1])

    asyncio.run(main())


@tool
def deploy(env: str) -> str:
    ran.append("deploy")
    return "deployed"


def test_a_resumes_grants_refuse_an_approved_call() -> None:
    ran.clear()

    async def main() -> None:
        model = TestModel(responses=[TestModel.tool_call_response([call("deploy", "d1", env="prod")]), "done"])
        session = create_agent(model=model, tools=[deploy, search], approval_required_tools=["deploy"]).session()
        waiting = await asyncio.wait_for(session.run("go"), 10)
        (pending,) = waiting.hitl.approvals
        result = await asyncio.wait_for(session.resume_after_hitl(approvals=[pending.approve()], grants=["search"]), 10)
        assert result.output == "done"
        (ret,) = [r for r in returns_of(result.messages, "deploy") if r.content != "deployed"]
        assert ret.content["kind"] == "user_error"

    asyncio.run(main())
    assert "deploy" not in ran
