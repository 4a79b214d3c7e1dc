"""The Anthropic Messages API wire format for test_model_conformance.py, from
Anthropic's API reference (https://docs.anthropic.com/en/api/messages,
.../messages-streaming, .../errors): the message object, its streamed
events and the error body."""

from __future__ import annotations

import json
from typing import Any

from fixture_server import Recorded
from model_wire import Call, Result, Seen, Turn, pieces, sse
from starweaver.models import AnthropicModel, ProviderModel

SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"


def usage(turn: Turn) -> dict[str, Any]:
    """input_tokens counts the input not read from the cache."""
    return {
        "input_tokens": turn.input_tokens - turn.cache_read_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": turn.cache_read_tokens,
        "output_tokens": turn.output_tokens,
        "output_tokens_details": {"thinking_tokens": turn.reasoning_tokens},
    }


def blocks(turn: Turn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if turn.thinking:
        out.append({"type": "thinking", "thinking": turn.thinking, "signature": SIGNATURE})
    if turn.text:
        out.append({"type": "text", "text": turn.text})
    out += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in turn.calls]
    return out


def result(block: dict[str, Any]) -> Result:
    content = block.get("content", "")
    if isinstance(content, str):
        kinds, text = ["text"], content
    else:
        kinds = [str(b["type"]) for b in content]
        text = "".join(str(b.get("text", "")) for b in content)
    return Result(call_id=block["tool_use_id"], kinds=kinds, text=text, is_error=bool(block.get("is_error")))


class MessagesWire:
    prefix = "anthropic"
    provider = "anthropic"
    native_output = True
    carries = frozenset({"text", "image", "document"})
    thinking = True
    usage = frozenset({"input_tokens", "output_tokens", "cache_read_tokens", "reasoning_tokens"})

    def model(self, base_url: str, *, stream: bool, api_key: str, max_retries: int = 0) -> ProviderModel:
        return AnthropicModel(
            "claude-sonnet-4-5", base_url=base_url, api_key=api_key, max_retries=max_retries, stream=stream
        )

    def reply(self, turn: Turn, *, stream: bool) -> dict[str, Any]:
        stop = "tool_use" if turn.calls else "end_turn"
        content = blocks(turn)
        message = {
            "id": "msg_conformance",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage(turn),
        }
        if not stream:
            return {"status": 200, "body": message}
        chunks: list[str] = []

        def event(kind: str, **fields: Any) -> None:
            chunks.append(sse({"type": kind, **fields}, kind))

        start_usage = {**usage(turn), "output_tokens": 1}
        del start_usage["output_tokens_details"]
        event("message_start", message={**message, "content": [], "stop_reason": None, "usage": start_usage})
        event("ping")
        for i, b in enumerate(content):
            if b["type"] == "thinking":
                event(
                    "content_block_start", index=i, content_block={"type": "thinking", "thinking": "", "signature": ""}
                )
                for p in pieces(turn.thinking, 9):
                    event("content_block_delta", index=i, delta={"type": "thinking_delta", "thinking": p})
                event("content_block_delta", index=i, delta={"type": "signature_delta", "signature": SIGNATURE})
            elif b["type"] == "text":
                event("content_block_start", index=i, content_block={"type": "text", "text": ""})
                for p in pieces(turn.text, 7):
                    event("content_block_delta", index=i, delta={"type": "text_delta", "text": p})
            else:
                event("content_block_start", index=i, content_block={**b, "input": {}})
                for p in pieces(json.dumps(b["input"]), 5):
                    event("content_block_delta", index=i, delta={"type": "input_json_delta", "partial_json": p})
            event("content_block_stop", index=i)
        event("message_delta", delta={"stop_reason": stop, "stop_sequence": None}, usage=usage(turn))
        event("message_stop")
        return {"chunks": chunks}

    def error(self, status: int, code: str, message: str) -> dict[str, Any]:
        return {"status": status, "body": {"type": "error", "error": {"type": code, "message": message}}}

    def seen(self, request: Recorded) -> Seen:
        assert request.path == "/v1/messages", request.path
        body: dict[str, Any] = request.body
        calls: list[Call] = []
        results: list[Result] = []
        for m in body["messages"]:
            content = m["content"]
            if isinstance(content, str):
                continue
            for b in content:
                if b["type"] == "tool_use":
                    calls.append(Call(id=b["id"], name=b["name"], arguments=b["input"]))
                elif b["type"] == "tool_result":
                    results.append(result(b))
        config = body.get("output_config") or {}
        return Seen(
            model=body["model"],
            stream=bool(body.get("stream")),
            tools=[t["name"] for t in body.get("tools") or []],
            native_output=(config.get("format") or {}).get("type") == "json_schema",
            calls=calls,
            results=results,
        )


WIRE = MessagesWire()
