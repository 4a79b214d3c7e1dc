"""Agents that work together through real providers against the local
fixture server (fixture_server.py): the parent speaks OpenAI Chat
Completions, its children Anthropic Messages, each to a server of its own."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Any, TypeVar

from fixture_server import serving
from starweaver import create_agent, tool
from starweaver.models import AnthropicModel, OpenAIModel

T = TypeVar("T")


def bounded(aw: Awaitable[T]) -> T:
    async def main() -> T:
        return await asyncio.wait_for(aw, 60)

    return asyncio.run(main())


def chat(message: dict[str, Any], finish: str, tokens: int = 10) -> dict[str, Any]:
    """An OpenAI chat.completion reply (shape as in fixtures/openai)."""
    return {
        "status": 200,
        "body": {
            "id": "chatcmpl-agents",
            "object": "chat.completion",
            "created": 1741570283,
            "model": "gpt-4.1-2025-04-14",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
            "usage": {"prompt_tokens": tokens, "completion_tokens": 2, "total_tokens": tokens + 2},
        },
    }


def chat_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    fn = {"name": name, "arguments": json.dumps(arguments)}
    return chat({"content": None, "tool_calls": [{"id": call_id, "type": "function", "function": fn}]}, "tool_calls")


def chat_text(text: str) -> dict[str, Any]:
    return chat({"content": text}, "stop")


def messages(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    """An Anthropic Message reply (shape as in fixtures/anthropic)."""
    return {
        "status": 200,
        "body": {
            "id": "msg_agents",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 7, "output_tokens": 3},
        },
    }


def test_an_agent_tool_whose_child_waits_for_approval() -> None:
    paid: list[int] = []

    @tool
    def pay(amount: int) -> str:
        """Pay an amount."""
        paid.append(amount)
        return f"paid {amount}"

    parent_replies = [chat_call("call_cashier", "cashier", {"prompt": "Pay 5."}), chat_text("The cashier paid.")]
    child_replies = [
        messages([{"type": "tool_use", "id": "toolu_pay", "name": "pay", "input": {"amount": 5}}], "tool_use"),
        messages([{"type": "text", "text": "Paid 5."}], "end_turn"),
    ]
    with serving(*parent_replies) as parent_srv, serving(*child_replies) as child_srv:
        cashier = create_agent(
            model=AnthropicModel("claude-sonnet-4-5", base_url=child_srv.url, api_key="ant-test", max_tokens=256),
            name="cashier",
            tools=[pay],
            approval_required_tools=["pay"],
        )
        front = create_agent(
            model=OpenAIModel("gpt-4.1", base_url=parent_srv.url + "/v1", api_key="sk-test"),
            tools=[cashier.as_tool(description="Pays bills.")],
        )

        async def main() -> Any:
            session = front.session()
            result = await session.run("Pay my bill.")
            assert result.status == "waiting"
            (asked,) = result.approvals
            assert asked.path == ("cashier",) and asked.tool_call_id == "toolu_pay"
            return await session.resume_after_hitl(approvals=[asked.approve()])

        result = bounded(main())
    assert result.output == "The cashier paid." and paid == [5]
    # The parent's model read the child's answer as the call's result.
    tool_message = parent_srv.requests[1].body["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_cashier"
    assert tool_message["content"] == "Paid 5."
    # The child's second request carried the approved call's result.
    returned = child_srv.requests[1].body["messages"][-1]["content"][0]
    assert returned["type"] == "tool_result" and returned["tool_use_id"] == "toolu_pay"
    assert result.usage_by_agent["cashier"].requests == 2 and result.usage_by_agent[""].requests == 2


def test_spawned_subagents_and_a_handoff() -> None:
    parent_replies = [
        chat(
            {
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_spawn",
                        "type": "function",
                        "function": {
                            "name": "spawn_agent",
                            "arguments": json.dumps({"agent": "scholar", "prompt": "x"}),
                        },
                    },
                ],
            },
            "tool_calls",
        ),
        chat_call("call_handoff", "transfer_to_closer", {}),
    ]
    scholar_replies = [messages([{"type": "text", "text": "Three papers."}], "end_turn")]
    closer_replies = [messages([{"type": "text", "text": "Closing: three papers."}], "end_turn")]
    with (
        serving(*parent_replies) as parent_srv,
        serving(*scholar_replies) as scholar_srv,
        serving(*closer_replies) as closer_srv,
    ):

        def claude(url: str) -> AnthropicModel:
            return AnthropicModel("claude-sonnet-4-5", base_url=url, api_key="ant-test", max_tokens=256)

        scholar = create_agent(model=claude(scholar_srv.url), name="scholar")
        closer = create_agent(model=claude(closer_srv.url), name="closer")
        lead = create_agent(
            model=OpenAIModel("gpt-4.1", base_url=parent_srv.url + "/v1", api_key="sk-test"),
            name="lead",
            subagents=[scholar],
            handoffs=[closer],
        )
        result = bounded(lead.run("Research and close."))
    assert result.output == "Closing: three papers."
    assert result.last_agent is closer
    (spawn_def,) = [t for t in parent_srv.requests[0].body["tools"] if t["function"]["name"] == "spawn_agent"]
    assert spawn_def["function"]["parameters"]["properties"]["agent"]["enum"] == ["scholar"]
    assert parent_srv.requests[1].body["messages"][-1]["content"] == "Three papers."
    assert len(closer_srv.requests) == 1 and len(scholar_srv.requests) == 1
