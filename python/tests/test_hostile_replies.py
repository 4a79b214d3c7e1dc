"""A model reply can never make history unreadable: tool-call arguments that
Python's JSON reader could not decode (a 5 001-digit integer, nesting 1 500
deep, invalid UTF-8) are refused as invalid_arguments, and what history keeps
of them is their text, so results, sessions and exported state stay readable."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fixture_server import serving
from starweaver import create_agent, tool
from starweaver.models import OpenAIModel

HOSTILE: dict[str, tuple[bytes, str]] = {
    "huge integer": (b'{"city": ' + b"7" * 5001 + b"}", "number longer than"),
    "deep nesting": (b'{"city": ' + b"[" * 1500 + b"]" * 1500 + b"}", "nest deeper than"),
    "invalid UTF-8": (b'{"city": "caf\xe9 \xff"}', "not valid UTF-8"),
}

calls: list[str] = []


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    calls.append(city)
    return "sunny"


def chat_reply(arguments: bytes) -> dict[str, Any]:
    """An OpenAI chat completion asking for get_weather with these
    arguments, written byte for byte (a JSON string holding them)."""
    escaped = arguments.replace(b"\\", b"\\\\").replace(b'"', b'\\"')
    body = (
        b'{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",'
        b' "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",'
        b' "content": null, "tool_calls": [{"id": "call_1", "type": "function",'
        b' "function": {"name": "get_weather", "arguments": "' + escaped + b'"}}]}}],'
        b' "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}'
    )
    return {"status": 200, "raw": body}


def text_reply(text: str) -> dict[str, Any]:
    return {
        "status": 200,
        "body": {
            "id": "chatcmpl-2",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4.1",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
    }


@pytest.fixture(autouse=True)
def no_provider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_arguments_leave_history_readable(case: str) -> None:
    arguments, reason = HOSTILE[case]
    calls.clear()
    with serving(chat_reply(arguments), text_reply("done")) as srv:
        model = OpenAIModel("gpt-4.1", base_url=srv.url + "/v1", api_key="sk-test", max_retries=0)
        agent = create_agent(model=model, tools=[get_weather])

        async def main() -> tuple[Any, Any, dict[str, Any]]:
            async with agent.session() as session:
                result = await asyncio.wait_for(session.run("Paris?"), 60)
                return result, session.messages, session.export_state()

        result, session_messages, state = asyncio.run(main())
    assert result.output == "done"
    assert calls == [], "the tool ran with arguments beyond the limits"
    # Every surface that reads history works.
    (ret,) = result.tool_returns()
    assert ret.error_kind == "invalid_arguments"
    assert reason in json.dumps(ret.content)
    assert len(result.messages) == len(session_messages) >= 4
    (call_part,) = [p for m in result.messages for p in m.parts if p.kind == "tool_call"]
    assert isinstance(call_part.arguments, str) and call_part.arguments.startswith('{"city": ')
    json.dumps(state)
    restored = agent.session_from_state(state, allow_unsigned=True)
    assert len(restored.messages) == len(session_messages)
    # The model was told why, and the next request is plain JSON.
    second = srv.requests[1].body
    assert isinstance(second, dict)
    assert reason in json.dumps(second["messages"][-1])
