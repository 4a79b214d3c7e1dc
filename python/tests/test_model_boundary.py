"""The model boundary: models receive only the model-visible projection of
history; the host surfaces of tool returns stay in results and sessions."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from helpers import call
from starweaver import FunctionModel, TestModel, ToolResult, create_agent, tool

HOST_ONLY = ("APP-SECRET", "USER-SECRET", "PRIVATE-SECRET", "RAW-CONTENT", "Traceback", __file__)
HOST_FIELDS = ("app_value", "user_content", "private_metadata", "python_traceback")


@tool
async def rich() -> ToolResult:
    return ToolResult(
        "RAW-CONTENT",
        metadata={"public": "yes"},
        app_value={"id": "APP-SECRET"},
        user_content="USER-SECRET",
        private_metadata={"evidence": "PRIVATE-SECRET"},
        model_content="model view",
    )


@tool(max_retries=0)
def broken() -> str:
    raise RuntimeError("disk on fire")


def assert_model_saw_no_host_surface(requests: list[list[dict[str, Any]]]) -> None:
    assert requests
    # Messages are pydantic models: their JSON form is what the model got.
    text = json.dumps(requests, default=lambda m: m.model_dump(mode="json"))
    for secret in HOST_ONLY + HOST_FIELDS:
        assert secret not in text, f"the model received {secret!r}"
    returns = [p for m in requests[-1] for p in m.get("parts", []) if p.get("kind") == "tool_return"]
    by_name = {p["name"]: p for p in returns}
    assert by_name["rich"]["content"] == "model view"
    assert by_name["rich"]["metadata"] == {"public": "yes"}
    assert "disk on fire" in by_name["broken"]["content"]["message"]
    assert set(by_name["rich"]) == {"kind", "tool_call_id", "name", "content", "is_error", "metadata"}


def assert_host_kept_everything(returns: list[dict[str, Any]]) -> None:
    by_name = {r["name"]: r for r in returns}
    assert by_name["rich"]["app_value"] == {"id": "APP-SECRET"}
    assert by_name["rich"]["user_content"] == "USER-SECRET"
    assert by_name["rich"]["private_metadata"] == {"evidence": "PRIVATE-SECRET"}
    assert "Traceback" in by_name["broken"]["private_metadata"]["python_traceback"]
    assert __file__ in by_name["broken"]["private_metadata"]["python_traceback"]


def host_returns(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for m in messages for p in m.get("parts", []) if p.get("kind") == "tool_return"]


async def run_session(model: TestModel | FunctionModel) -> tuple[Any, dict[str, Any]]:
    agent = create_agent(model=model, tools=[rich, broken])
    session = agent.session()
    result = await asyncio.wait_for(session.run("go"), 10)
    return result, session.export_state()


def test_test_model_receives_only_the_projection() -> None:
    model = TestModel.responses([TestModel.tool_call_response([call("rich"), call("broken")]), "done"])
    result, state = asyncio.run(run_session(model))
    assert result.output == "done"
    assert_model_saw_no_host_surface(model.captured_messages())
    assert_host_kept_everything(result.tool_returns())
    assert_host_kept_everything(host_returns(result.messages))
    assert_host_kept_everything(host_returns(state["state"]["messages"]))


@pytest.mark.parametrize("is_async", [False, True])
def test_function_model_receives_only_the_projection(is_async: bool) -> None:
    received: list[list[dict[str, Any]]] = []

    def respond(messages: list[dict[str, Any]], info: dict[str, Any]) -> Any:
        received.append(messages)
        if len(received) == 1:
            return {"tool_calls": [call("rich"), call("broken")]}
        return "done"

    async def respond_async(messages: list[dict[str, Any]], info: dict[str, Any]) -> Any:
        return respond(messages, info)

    model = FunctionModel(respond_async if is_async else respond)
    result, state = asyncio.run(run_session(model))
    assert result.output == "done"
    assert_model_saw_no_host_surface(received)
    assert_model_saw_no_host_surface(model.captured_messages())
    assert_host_kept_everything(result.tool_returns())
    assert_host_kept_everything(host_returns(state["state"]["messages"]))


def test_restored_session_sends_only_the_projection() -> None:
    model = TestModel.responses([TestModel.tool_call_response([call("rich"), call("broken")]), "done", "again"])
    agent = create_agent(model=model, tools=[rich, broken])

    async def main() -> Any:
        session = agent.session()
        await asyncio.wait_for(session.run("go"), 10)
        restored = agent.session_from_state(session.export_state(), allow_unsigned=True)
        return await asyncio.wait_for(restored.run("more"), 10)

    result = asyncio.run(main())
    assert result.output == "again"
    assert_model_saw_no_host_surface(model.captured_messages()[-1:])
    assert_host_kept_everything(host_returns(result.messages))
