"""The OpenAI Responses API wire format for test_model_conformance.py, from
OpenAI's API reference (https://platform.openai.com/docs/api-reference/responses):
the response object with reasoning, message and function_call output
items, its streamed events, and the error body."""

from __future__ import annotations

import json
from typing import Any

from fixture_server import Recorded
from model_wire import Call, Result, Seen, Turn, pieces, sse
from starweaver.models import OpenAIResponsesModel, ProviderModel
from wire_openai import openai_error, result_of, usage


def output(turn: Turn) -> list[dict[str, Any]]:
    """The output items of turn, whole."""
    items: list[dict[str, Any]] = []
    if turn.thinking:
        items.append(
            {
                "type": "reasoning",
                "id": "rs_1",
                "encrypted_content": "opaque",
                "summary": [{"type": "summary_text", "text": turn.thinking}],
            }
        )
    if turn.text:
        items.append(
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
            }
        )
    for i, c in enumerate(turn.calls):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_{i + 1}",
                "call_id": c.id,
                "name": c.name,
                "arguments": json.dumps(c.arguments),
                "status": "completed",
            }
        )
    return items


def response(turn: Turn, items: list[dict[str, Any]], status: str = "completed") -> dict[str, Any]:
    return {
        "id": "resp_conformance",
        "object": "response",
        "created_at": 1767225600,
        "model": "gpt-5-mini",
        "status": status,
        "error": None,
        "incomplete_details": None,
        "output": items,
        "usage": usage(turn, "input_tokens", "output_tokens") if status == "completed" else None,
    }


class ResponsesWire:
    prefix = "openai-responses"
    provider = "openai"
    native_output = True
    carries = frozenset({"text", "image", "document"})
    thinking = True
    usage = frozenset({"input_tokens", "output_tokens", "cache_read_tokens", "reasoning_tokens"})

    def model(self, base_url: str, *, stream: bool, api_key: str, max_retries: int = 0) -> ProviderModel:
        return OpenAIResponsesModel(
            "gpt-5-mini", base_url=base_url + "/v1", api_key=api_key, max_retries=max_retries, stream=stream
        )

    def reply(self, turn: Turn, *, stream: bool) -> dict[str, Any]:
        items = output(turn)
        if not stream:
            return {"status": 200, "body": response(turn, items)}
        chunks: list[str] = []

        def event(kind: str, **fields: Any) -> None:
            chunks.append(sse({"type": kind, "sequence_number": len(chunks), **fields}, kind))

        event("response.created", response=response(turn, [], "in_progress"))
        for i, it in enumerate(items):
            if it["type"] == "reasoning":
                event(
                    "response.output_item.added",
                    output_index=i,
                    item={"type": "reasoning", "id": "rs_1", "summary": []},
                )
                event(
                    "response.reasoning_summary_part.added",
                    output_index=i,
                    item_id="rs_1",
                    summary_index=0,
                    part={"type": "summary_text", "text": ""},
                )
                for p in pieces(turn.thinking, 9):
                    event(
                        "response.reasoning_summary_text.delta",
                        output_index=i,
                        item_id="rs_1",
                        summary_index=0,
                        delta=p,
                    )
                event(
                    "response.reasoning_summary_text.done",
                    output_index=i,
                    item_id="rs_1",
                    summary_index=0,
                    text=turn.thinking,
                )
            elif it["type"] == "message":
                added = {"type": "message", "id": "msg_1", "status": "in_progress", "role": "assistant", "content": []}
                event("response.output_item.added", output_index=i, item=added)
                event(
                    "response.content_part.added",
                    output_index=i,
                    item_id="msg_1",
                    content_index=0,
                    part={"type": "output_text", "text": "", "annotations": []},
                )
                for p in pieces(turn.text, 7):
                    event("response.output_text.delta", output_index=i, item_id="msg_1", content_index=0, delta=p)
                event("response.output_text.done", output_index=i, item_id="msg_1", content_index=0, text=turn.text)
            else:
                event(
                    "response.output_item.added", output_index=i, item={**it, "arguments": "", "status": "in_progress"}
                )
                for p in pieces(it["arguments"], 5):
                    event("response.function_call_arguments.delta", output_index=i, item_id=it["id"], delta=p)
                event(
                    "response.function_call_arguments.done", output_index=i, item_id=it["id"], arguments=it["arguments"]
                )
            event("response.output_item.done", output_index=i, item=it)
        event("response.completed", response=response(turn, items))
        return {"chunks": chunks}

    def error(self, status: int, code: str, message: str) -> dict[str, Any]:
        return openai_error(status, code, message)

    def seen(self, request: Recorded) -> Seen:
        assert request.path == "/v1/responses", request.path
        body: dict[str, Any] = request.body
        calls: list[Call] = []
        results: list[Result] = []
        kinds = {"input_text": "text", "input_image": "image", "input_file": "document"}
        for it in body["input"]:
            if it.get("type") == "function_call":
                calls.append(Call(id=it["call_id"], name=it["name"], arguments=json.loads(it["arguments"])))
            elif it.get("type") == "function_call_output":
                results.append(result_of(it["call_id"], it["output"], kinds))
        text = body.get("text") or {}
        return Seen(
            model=body["model"],
            stream=bool(body.get("stream")),
            tools=[t["name"] for t in body.get("tools") or []],
            native_output=(text.get("format") or {}).get("type") == "json_schema",
            calls=calls,
            results=results,
        )


WIRE = ResponsesWire()
