"""Amazon Bedrock's Converse wire format for the model conformance suite:
POST /model/{modelId}/converse answers JSON, /converse-stream the binary AWS
event stream (frames built by fixture_server.eventstream_chunks), errors are
restJson1 (the exception name in X-Amzn-ErrorType, ``{"message"}`` as body).
Shapes from the Amazon Bedrock API reference (Converse, ConverseStream,
ConverseStreamOutput, ContentBlock, ToolResultBlock, TokenUsage)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from fixture_server import Recorded
from model_wire import Call, Result, Seen, Turn
from starweaver.models import BedrockModel, ProviderModel

SIGNATURE = "ErUBCkgIARABGAIiQJ0"


def _usage(turn: Turn) -> dict[str, Any]:
    # inputTokens leaves the cache reads out; the suite's input counts them.
    usage: dict[str, Any] = {
        "inputTokens": turn.input_tokens - turn.cache_read_tokens,
        "outputTokens": turn.output_tokens,
        "totalTokens": turn.input_tokens + turn.output_tokens,
    }
    if turn.cache_read_tokens:
        usage["cacheReadInputTokens"] = turn.cache_read_tokens
    return usage


def _pieces(text: str, n: int) -> list[str]:
    return [text[i : i + n] for i in range(0, len(text), n)]


class BedrockWire:
    prefix = "bedrock"
    provider = "bedrock"
    native_output = True  # outputConfig.textFormat (json_schema)
    usage = frozenset({"input_tokens", "output_tokens", "cache_read_tokens"})
    thinking = True  # reasoningContent, with its signature
    carries = frozenset({"text", "image", "document"})  # json too; media as bytes only

    def model(self, base_url: str, *, stream: bool, api_key: str, max_retries: int = 0) -> ProviderModel:
        # The suite's key is the secret access key, the one secret of SigV4.
        return BedrockModel(
            "anthropic.claude-sonnet-4-5-20250929-v1:0",
            region="us-east-1",
            endpoint_url=base_url,
            aws_access_key_id="AKIAIOSFODNN7EXAMPLE",
            aws_secret_access_key=api_key,
            stream=stream,
            max_retries=max_retries,
        )

    def reply(self, turn: Turn, *, stream: bool) -> dict[str, Any]:
        stop = "tool_use" if turn.calls else "end_turn"
        if not stream:
            content: list[dict[str, Any]] = []
            if turn.thinking:
                content.append({"reasoningContent": {"reasoningText": {"text": turn.thinking, "signature": SIGNATURE}}})
            if turn.text:
                content.append({"text": turn.text})
            for c in turn.calls:
                content.append({"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.arguments}})
            body = {
                "output": {"message": {"role": "assistant", "content": content}},
                "stopReason": stop,
                "usage": _usage(turn),
                "metrics": {"latencyMs": 12},
            }
            return {"status": 200, "body": body}
        events: list[dict[str, Any]] = [{"event": "messageStart", "payload": {"role": "assistant"}}]
        index = 0

        def delta(d: dict[str, Any]) -> None:
            events.append({"event": "contentBlockDelta", "payload": {"contentBlockIndex": index, "delta": d}})

        def stop_block() -> None:
            events.append({"event": "contentBlockStop", "payload": {"contentBlockIndex": index}})

        if turn.thinking:
            for p in _pieces(turn.thinking, 9):
                delta({"reasoningContent": {"text": p}})
            delta({"reasoningContent": {"signature": SIGNATURE}})
            stop_block()
            index += 1
        if turn.text:
            for p in _pieces(turn.text, 7):
                delta({"text": p})
            stop_block()
            index += 1
        for c in turn.calls:
            start = {"toolUse": {"toolUseId": c.id, "name": c.name}}
            events.append({"event": "contentBlockStart", "payload": {"contentBlockIndex": index, "start": start}})
            for p in _pieces(json.dumps(c.arguments), 5):
                delta({"toolUse": {"input": p}})
            stop_block()
            index += 1
        events.append({"event": "messageStop", "payload": {"stopReason": stop}})
        events.append({"event": "metadata", "payload": {"usage": _usage(turn), "metrics": {"latencyMs": 12}}})
        return {"eventstream": events}

    def error(self, status: int, code: str, message: str) -> dict[str, Any]:
        return {"status": status, "headers": {"X-Amzn-ErrorType": code}, "body": {"message": message}}

    def seen(self, request: Recorded) -> Seen:
        path = request.path
        head, _, op = path.rpartition("/")
        body: dict[str, Any] = request.body if isinstance(request.body, dict) else {}
        tools = [t["toolSpec"]["name"] for t in (body.get("toolConfig") or {}).get("tools", [])]
        calls: list[Call] = []
        results: list[Result] = []
        for m in body.get("messages", []):
            for block in m.get("content", []):
                if "toolUse" in block and m.get("role") == "assistant":
                    u = block["toolUse"]
                    calls.append(Call(u["toolUseId"], u["name"], u.get("input") or {}))
                if "toolResult" in block:
                    r = block["toolResult"]
                    kinds: list[str] = []
                    text = ""
                    for c in r.get("content", []):
                        if "text" in c:
                            kinds.append("text")
                            text += c["text"]
                        elif "json" in c:
                            kinds.append("json")
                            text += json.dumps(c["json"], separators=(",", ":"))
                        elif "image" in c:
                            kinds.append("image")
                        elif "document" in c:
                            kinds.append("document")
                        else:
                            kinds.append(next(iter(c), "unknown"))
                    results.append(Result(r["toolUseId"], kinds, text, r.get("status") == "error"))
        return Seen(
            model=unquote(head.removeprefix("/model/")),
            stream=op == "converse-stream",
            tools=tools,
            native_output=bool((body.get("outputConfig") or {}).get("textFormat")),
            calls=calls,
            results=results,
        )


WIRE = BedrockWire()
