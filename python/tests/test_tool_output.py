"""Rich tool outputs: ToolOutput, content parts, and host-only output that
fails a run closed."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
from typing import Any

import pytest
from helpers import call, tool_returns
from pydantic import BaseModel, ValidationError
from starweaver import (
    AgentError,
    Hook,
    ToolContext,
    ToolOutcome,
    ToolOutput,
    ToolOutputNotVisible,
    ToolResult,
    tool,
)
from starweaver.agent import create_agent
from starweaver.content import (
    ArtifactRef,
    Audio,
    Base64Source,
    Document,
    Image,
    ResourceLink,
    Text,
    URLSource,
)
from starweaver.messages import ToolReturnPart, messages_to_json
from starweaver.testing import FunctionModel, TestModel

PNG = b"\x89PNG\r\n\x1a\nchart-pixels"
SECRET = "s3cr3t-host-only"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def calling(*names: str, then: str = "done") -> TestModel:
    return TestModel.responses([TestModel.tool_call_response([call(n) for n in names]), then])


# -- the seed's examples --------------------------------------------------------


class Weather(BaseModel):
    city: str
    celsius: int


@tool
async def current_weather(city: str) -> ToolOutput:
    """Get the current temperature for a city."""
    if city == "Atlantis":
        # The tool ran; the application rejected the request.
        return ToolOutput.model_error([f"unknown city: {city}"])
    return ToolOutput.model_visible(Weather(city=city, celsius=21))


@tool
async def render_chart(ctx: ToolContext, week: int) -> ToolOutput:
    """Render the weekly sales chart."""
    ref = await ctx.artifacts.put(PNG, "image/png", name=f"week-{week}.png", idempotency_key=f"sales-chart:{week}")
    return (
        ToolOutput.rich([Text(text=f"Sales chart for week {week}"), Image.from_artifact(ref)])
        .with_structured_content({"week": week, "growth": 0.12})
        .with_metadata("acme.chart_id", f"w{week}")
    )


@tool
def audit_log() -> ToolOutput:
    """Return the audit log (for the application only)."""
    return ToolOutput.host_only([SECRET])


def test_seed_model_visible_and_model_error() -> None:
    model = TestModel.responses(
        [
            TestModel.tool_call_response(
                [
                    {"id": "c1", "name": "current_weather", "arguments": {"city": "Paris"}},
                    {"id": "c2", "name": "current_weather", "arguments": {"city": "Atlantis"}},
                ]
            ),
            "21 in Paris",
        ]
    )
    result = run(create_agent(model=model, tools=[current_weather], max_retries=0).run("weather?"))
    assert result.output == "21 in Paris"
    paris, atlantis = tool_returns(model.captured_messages())
    # model_visible: the model reads the value; hosts keep it structured.
    assert paris["content"] == {"city": "Paris", "celsius": 21}
    assert paris["structured_content"] == {"city": "Paris", "celsius": 21}
    assert paris["is_error"] is False
    # model_error: a completed, model-visible application error, not a tool
    # failure: no error kind, nothing retried, no budget spent.
    assert atlantis["is_error"] is True and atlantis.error_kind is None
    assert [p.model_dump() for p in atlantis["parts"]] == [{"kind": "text", "text": "unknown city: Atlantis"}]


def test_seed_rich_output_with_an_artifact() -> None:
    from starweaver.artifacts import MemoryArtifactStore

    store = MemoryArtifactStore()
    model = TestModel.responses([TestModel.tool_call_response([call("render_chart", week=3)]), "sales are up"])
    agent = create_agent(model=model, tools=[render_chart], artifact_store=store, artifact_scope="tenant.acme")
    result = run(agent.run("how are sales?"))
    assert result.output == "sales are up"
    (ret,) = result.tool_returns()
    assert ret.structured_content == {"week": 3, "growth": 0.12}
    assert ret.metadata == {"acme.chart_id": "w3"}
    text, image = ret.parts or []
    assert text == Text(text="Sales chart for week 3")
    assert isinstance(image, Image) and image.source.kind == "artifact"
    assert image.source.reference.name == "week-3.png"
    assert store.get(image.source.reference) == PNG
    # The model received the bytes, the conversation keeps the reference.
    (sent,) = tool_returns(model.captured_messages())
    assert sent["parts"][1].source == Base64Source(media_type="image/png", data=base64.b64encode(PNG).decode())


# -- constructors and JSON shapes --------------------------------------------------


@dataclasses.dataclass
class Point:
    x: int
    y: int


def test_constructors_make_the_runtime_outcomes() -> None:
    assert ToolOutput.model_visible({"a": 1})._outcome() == {
        "ok": True,
        "content": {"a": 1},
        "structured_content": {"a": 1},
    }
    assert ToolOutput.model_visible("hi")._outcome() == {"ok": True, "content": "hi", "structured_content": "hi"}
    assert ToolOutput.model_visible(Point(1, 2)).value == {"x": 1, "y": 2}
    assert ToolOutput.model_visible(Weather(city="P", celsius=1)).structured_content == {"city": "P", "celsius": 1}
    assert ToolOutput.rich(["a", Image.from_url("https://x.test/a.png")])._outcome() == {
        "ok": True,
        "parts": [
            {"kind": "text", "text": "a"},
            {"kind": "image", "source": {"kind": "url", "url": "https://x.test/a.png"}},
        ],
    }
    assert ToolOutput.model_error(["no"])._outcome() == {
        "ok": True,
        "parts": [{"kind": "text", "text": "no"}],
        "is_error": True,
    }
    assert ToolOutput.host_only(["s"])._outcome() == {
        "ok": True,
        "parts": [{"kind": "text", "text": "s"}],
        "host_only": True,
    }
    base = ToolOutput.rich(["a"])
    richer = base.with_structured_content({"n": 1}).with_metadata("app.k", [1]).with_metadata("app.j", True)
    assert base.metadata == {} and base.structured_content is None  # the builders copy
    assert richer._outcome() == {
        "ok": True,
        "parts": [{"kind": "text", "text": "a"}],
        "structured_content": {"n": 1},
        "metadata": {"app.k": [1], "app.j": True},
    }
    assert richer.is_model_visible and not ToolOutput.host_only(["s"]).is_model_visible
    assert ToolOutput.model_error(["x"]).is_error and not base.is_error
    assert ToolOutput.rich(["a"]) == ToolOutput.rich([Text(text="a")])
    assert (
        repr(richer) == "ToolOutput.rich([text], structured_content={'n': 1}, metadata={'app.k': [1], 'app.j': True})"
    )
    assert repr(ToolOutput.host_only(["s"])) == "ToolOutput.host_only([text])"


def test_constructors_refuse_what_is_not_json_or_parts() -> None:
    with pytest.raises(TypeError, match="build a ToolOutput"):
        ToolOutput()
    with pytest.raises(TypeError, match="not JSON serializable"):
        ToolOutput.model_visible({"f": object()})
    with pytest.raises(TypeError, match="not JSON serializable"):
        ToolOutput.rich(["a"]).with_metadata("k", float("nan"))
    with pytest.raises(TypeError, match="keys must be strings"):
        ToolOutput.rich(["a"]).with_metadata(1, 2)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="list of content parts"):
        ToolOutput.rich("just a string")
    with pytest.raises(TypeError, match="part 1 must be a content part"):
        ToolOutput.rich(["a", {"kind": "text", "text": "b"}])  # type: ignore[list-item]


def test_part_classes() -> None:
    ref = ArtifactRef(
        scope="tenant.acme",
        artifact_id="sha256:" + "0" * 64,
        media_type="application/pdf",
        size_bytes=3,
        sha256="1" * 64,
        created_at_unix_ms=5,
    )
    parts = [
        Image.from_bytes(PNG, "image/png"),
        Audio.from_url("https://x.test/a.wav", "audio/wav"),
        Document.from_artifact(ref, name="r.pdf"),
        Document.from_bytes(b"%PDF", "application/pdf"),
        ResourceLink(uri="https://x.test/d.csv", name="d.csv", size=7),
    ]
    assert [p.model_dump(mode="json") for p in parts] == [
        {
            "kind": "image",
            "source": {"kind": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()},
        },
        {"kind": "audio", "source": {"kind": "url", "url": "https://x.test/a.wav", "media_type": "audio/wav"}},
        {
            "kind": "document",
            "source": {
                "kind": "artifact",
                "reference": {
                    "scope": "tenant.acme",
                    "artifact_id": "sha256:" + "0" * 64,
                    "media_type": "application/pdf",
                    "size_bytes": 3,
                    "sha256": "1" * 64,
                    "created_at_unix_ms": 5,
                },
            },
            "name": "r.pdf",
        },
        {"kind": "document", "source": {"kind": "base64", "media_type": "application/pdf", "data": "JVBERg=="}},
        {"kind": "resource_link", "uri": "https://x.test/d.csv", "name": "d.csv", "size": 7},
    ]
    with pytest.raises(ValidationError):
        Text(text="a", extra=1)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        Image(source={"kind": "file", "path": "/etc/passwd"})  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        parts[0].kind = "text"  # type: ignore[misc]  # frozen
    assert Image(source=URLSource(url="https://x.test")).source.media_type is None


# -- through an agent ----------------------------------------------------------------


def test_rich_parts_reach_the_model_and_history() -> None:
    @tool
    async def report() -> ToolOutput:
        return ToolOutput.rich(
            [
                "Q3:",
                Image.from_bytes(PNG, "image/png"),
                Document.from_url("https://x.test/q3.pdf", "application/pdf", name="q3.pdf"),
                ResourceLink(uri="https://x.test/q3.csv", name="q3.csv"),
            ]
        )

    model = calling("report")
    result = run(create_agent(model=model, tools=[report]).run("report"))
    (ret,) = result.tool_returns()
    assert [p.kind for p in ret.parts or []] == ["text", "image", "document", "resource_link"]
    (sent,) = tool_returns(model.captured_messages())
    assert sent["parts"] == ret.parts and sent["content"] is None
    # The history continues elsewhere, parts and all.
    again = TestModel("again")
    session = create_agent(model=again, tools=[report]).session(message_history=result.messages)
    run(session.run("and?"))
    assert messages_to_json(again.captured_messages()[0][:3]) == messages_to_json(result.messages[:3])


def test_tool_result_keeps_working_beside_tool_output() -> None:
    @tool
    async def classic() -> ToolResult:
        return ToolResult({"raw": 1}, model_content="short", app_value={"full": True})

    model = calling("classic")
    result = run(create_agent(model=model, tools=[classic]).run("x"))
    (ret,) = result.tool_returns()
    assert ret.content == "short" and ret.app_value == {"full": True} and ret.parts is None


def test_invalid_outputs_are_invalid_output_returns() -> None:
    @tool
    async def bad_image() -> ToolOutput:
        return ToolOutput.rich([Image(source=Base64Source(media_type="image/png", data="not base64!"))])

    @tool
    async def empty() -> ToolOutput:
        return ToolOutput.rich([])

    @tool
    async def big() -> ToolOutput:
        return ToolOutput.model_visible("x" * 5000)

    model = TestModel.responses([TestModel.tool_call_response([call("bad_image"), call("empty"), call("big")]), "ok"])
    result = run(create_agent(model=model, tools=[bad_image, empty, big], max_tool_output_bytes=4096).run("x"))
    bad, none, large = result.tool_returns()
    assert {bad.error_kind, none.error_kind, large.error_kind} == {"invalid_output"}
    assert "base64" in bad.content["message"]
    assert "at least one content part" in none.content["message"]
    assert "more than 4096 bytes" in large.content["message"]
    assert all(r.is_error for r in (bad, none, large))


def test_after_call_hooks_see_and_replace_rich_outputs() -> None:
    seen: list[ToolOutcome] = []

    def after(ctx: ToolContext, outcome: ToolOutcome) -> ToolOutput:
        seen.append(outcome)
        return ToolOutput.rich(["redacted"])

    @tool(hooks=[Hook(after_call=after)])
    async def leaky() -> ToolOutput:
        return ToolOutput.rich(["raw"]).with_structured_content({"n": 1})

    model = calling("leaky")
    result = run(create_agent(model=model, tools=[leaky]).run("x"))
    (outcome,) = seen
    assert outcome.parts == [{"kind": "text", "text": "raw"}] and outcome.structured_content == {"n": 1}
    assert not outcome.host_only
    (ret,) = result.tool_returns()
    assert ret.parts == [Text(text="redacted")]


def test_a_tool_returning_tool_output_stays_callable() -> None:
    assert run(current_weather("Paris")) == ToolOutput.model_visible({"city": "Paris", "celsius": 21})
    assert audit_log() == ToolOutput.host_only([SECRET])


# -- host-only output fails the run closed ------------------------------------------


@tool
async def flaky() -> str:
    raise RuntimeError("boom")


POLICIES: dict[str, dict[str, Any]] = {
    "default": {},
    "no retries": {"max_retries": 0},
    "sequential": {"sequential": True},
    "no eager dispatch": {"eager_dispatch": False},
    "an after hook observing": {"hooks": [Hook(after_call=lambda ctx, outcome: None)]},
    "a timeout": {"timeout_ms": 10_000},
}


@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("sync", [False, True], ids=["async", "sync"])
def test_host_only_output_fails_the_run_closed(policy: str, sync: bool) -> None:
    ran: list[int] = []

    @tool(name="vault")
    def vault_sync() -> ToolOutput:
        ran.append(1)
        return ToolOutput.host_only([SECRET]).with_metadata("k", SECRET).with_structured_content(SECRET)

    @tool(name="vault")
    async def vault_async() -> ToolOutput:
        ran.append(1)
        return ToolOutput.host_only([SECRET]).with_metadata("k", SECRET).with_structured_content(SECRET)

    model = TestModel.responses([TestModel.tool_call_response([call("flaky"), call("vault", "c_vault")]), "done"])
    agent = create_agent(model=model, tools=[vault_sync if sync else vault_async, flaky], **POLICIES[policy])
    session = agent.session()
    with pytest.raises(ToolOutputNotVisible) as info:
        run(session.run("open the vault"))
    err = info.value
    assert isinstance(err, AgentError)
    assert err.tool == "vault" and err.tool_call_id == "c_vault"
    assert ran, "the tool ran: only disclosure is refused"
    assert len(model.captured_messages()) == 1
    assert SECRET not in json.dumps([messages_to_json(m) for m in model.captured_messages()])
    history = messages_to_json(session.messages)
    assert SECRET not in json.dumps(history)
    (withheld,) = [p for m in session.messages for p in m.parts if isinstance(p, ToolReturnPart) and p.name == "vault"]
    assert withheld.error_kind == "user_error" and "host-only" in withheld.content["message"]


def test_host_only_output_of_an_approved_call_fails_the_resume() -> None:
    model = TestModel.responses([TestModel.tool_call_response([call("audit_log", "c1")]), "done"])
    agent = create_agent(model=model, tools=[audit_log], approval_required_tools=["audit_log"])

    async def go() -> None:
        async with agent.session() as session:
            waiting = await session.run("audit")
            assert waiting.status == "waiting"
            with pytest.raises(ToolOutputNotVisible):
                await session.resume_after_hitl(approvals=[waiting.approvals[0].approve()])

    run(go())
    assert len(model.captured_messages()) == 1


def test_host_only_returns_cannot_be_in_a_history() -> None:
    history = [
        {"kind": "request", "parts": [{"kind": "user_prompt", "content": [{"kind": "text", "text": "hi"}]}]},
        {"kind": "response", "parts": [{"kind": "tool_call", "id": "c1", "name": "audit_log", "arguments": {}}]},
        {
            "kind": "request",
            "parts": [
                {
                    "kind": "tool_return",
                    "tool_call_id": "c1",
                    "name": "audit_log",
                    "content": None,
                    "parts": [{"kind": "text", "text": SECRET}],
                    "host_only": True,
                }
            ],
        },
    ]
    with pytest.raises(ValueError, match="host-only"):
        create_agent(model=TestModel("ok"), tools=[audit_log]).session(message_history=history)


def test_function_model_reads_parts() -> None:
    got: list[Any] = []

    def respond(messages: list[Any], info: dict[str, Any]) -> Any:
        if len(messages) == 1:
            return {"tool_calls": [call("render", "c1")]}
        got.extend(messages[-1].parts)
        return "ok"

    @tool
    async def render() -> ToolOutput:
        return ToolOutput.rich(["chart", Image.from_url("https://x.test/c.png", "image/png")])

    run(create_agent(model=FunctionModel(respond), tools=[render]).run("x"))
    (ret,) = got
    assert ret.parts == [Text(text="chart"), Image.from_url("https://x.test/c.png", "image/png")]


def test_python_and_go_encode_parts_alike() -> None:
    """Encoding equivalence: the runtime writes back exactly the JSON Python
    sent, for every part and source kind."""
    from starweaver.artifacts import MemoryArtifactStore

    store = MemoryArtifactStore()
    ref = store.put("tenant.acme", b"%PDF-1.7", "application/pdf", name="r.pdf")
    parts: list[Any] = [
        "plain",
        Text(text=""),
        Image.from_bytes(PNG, "image/png"),
        Image.from_url("https://x.test/a.png"),
        Audio.from_url("https://x.test/a.wav", "audio/wav"),
        Document.from_artifact(ref),
        Document.from_bytes(b"%PDF", "application/pdf", name="q.pdf"),
        ResourceLink(
            uri="https://x.test/d.csv", name="d.csv", title="D", description="data", media_type="text/csv", size=0
        ),
    ]
    sent = ToolOutput.rich(parts).with_structured_content({"n": [1, 2]})

    @tool
    async def everything() -> ToolOutput:
        return sent

    result = run(create_agent(model=calling("everything"), tools=[everything]).run("x"))
    (ret,) = [p for m in messages_to_json(result.messages) for p in m["parts"] if p["kind"] == "tool_return"]
    assert ret["parts"] == sent._outcome()["parts"]
    assert ret["structured_content"] == {"n": [1, 2]}
