"""The OpenAI Chat Completions wire format for test_model_conformance.py,
from OpenAI's API reference (https://platform.openai.com/docs/api-reference/chat):
the chat.completion object, its chat.completion.chunk stream ending with a
usage chunk and ``[DONE]``, and the error body."""

from __future__ import annotations

import json
from typing import Any

from fixture_server import Recorded
from model_wire import Call, Result, Seen, Turn, pieces, sse
from starweaver.models import OpenAIModel, ProviderModel

ID = "chatcmpl-conformance"
CREATED = 1767225600


def openai_error(status: int, code: str, message: str) -> dict[str, Any]:
    """The error body of both OpenAI APIs."""
    return {"status": status, "body": {"error": {"message": message, "type": code, "param": None, "code": code}}}


def usage(turn: Turn, input_key: str, output_key: str) -> dict[str, Any]:
    """A usage object: ``prompt_tokens`` (Chat) or ``input_tokens``
    (Responses) and their details."""
    return {
        input_key: turn.input_tokens,
        output_key: turn.output_tokens,
        "total_tokens": turn.input_tokens + turn.output_tokens,
        f"{input_key}_details": {"cached_tokens": turn.cache_read_tokens},
        f"{output_key}_details": {"reasoning_tokens": turn.reasoning_tokens},
    }


def result_of(call_id: str, content: Any, kinds: dict[str, str]) -> Result:
    """A tool result's content, a string or a list of typed parts; "Error: "
    leading the text flags an error (neither API has an error flag)."""
    if isinstance(content, str):
        found, text = ["text"], content
    else:
        found = [kinds.get(str(p.get("type")), str(p.get("type"))) for p in content]
        text = "".join(str(p.get("text", "")) for p in content)
    is_error = text.startswith("Error: ")
    if is_error:
        text = text.removeprefix("Error: ")
    return Result(call_id=call_id, kinds=found, text=text, is_error=is_error)


class ChatWire:
    prefix = "openai"
    provider = "openai"
    native_output = True
    carries = frozenset({"text"})
    usage = frozenset({"input_tokens", "output_tokens", "cache_read_tokens", "reasoning_tokens"})

    def model(self, base_url: str, *, stream: bool, api_key: str, max_retries: int = 0) -> ProviderModel:
        return OpenAIModel(
            "gpt-4.1-mini", base_url=base_url + "/v1", api_key=api_key, max_retries=max_retries, stream=stream
        )

    def reply(self, turn: Turn, *, stream: bool) -> dict[str, Any]:
        finish = "tool_calls" if turn.calls else "stop"
        if not stream:
            message: dict[str, Any] = {"role": "assistant", "content": turn.text or None, "refusal": None}
            if turn.calls:
                message["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                    for c in turn.calls
                ]
            body = {
                "id": ID,
                "object": "chat.completion",
                "created": CREATED,
                "model": "gpt-4.1-mini",
                "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
                "usage": usage(turn, "prompt_tokens", "completion_tokens"),
            }
            return {"status": 200, "body": body}

        def chunk(delta: dict[str, Any], reason: str | None = None) -> str:
            return sse(
                {
                    "id": ID,
                    "object": "chat.completion.chunk",
                    "created": CREATED,
                    "model": "gpt-4.1-mini",
                    "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}],
                }
            )

        chunks = [chunk({"role": "assistant", "content": ""})]
        chunks += [chunk({"content": p}) for p in pieces(turn.text, 7)]
        for i, c in enumerate(turn.calls):
            head = {"index": i, "id": c.id, "type": "function", "function": {"name": c.name, "arguments": ""}}
            chunks.append(chunk({"tool_calls": [head]}))
            for p in pieces(json.dumps(c.arguments), 5):
                chunks.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": p}}]}))
        chunks.append(chunk({}, finish))
        last = {
            "id": ID,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": "gpt-4.1-mini",
            "choices": [],
            "usage": usage(turn, "prompt_tokens", "completion_tokens"),
        }
        chunks += [sse(last), sse("[DONE]")]
        return {"chunks": chunks}

    def error(self, status: int, code: str, message: str) -> dict[str, Any]:
        return openai_error(status, code, message)

    def seen(self, request: Recorded) -> Seen:
        assert request.path == "/v1/chat/completions", request.path
        body: dict[str, Any] = request.body
        calls: list[Call] = []
        results: list[Result] = []
        kinds = {"text": "text", "image_url": "image", "file": "document", "input_audio": "audio"}
        for m in body["messages"]:
            if m["role"] == "assistant":
                for c in m.get("tool_calls") or []:
                    fn = c["function"]
                    calls.append(Call(id=c["id"], name=fn["name"], arguments=json.loads(fn["arguments"])))
            elif m["role"] == "tool":
                results.append(result_of(m["tool_call_id"], m["content"], kinds))
        response_format = body.get("response_format") or {}
        return Seen(
            model=body["model"],
            stream=bool(body.get("stream")),
            tools=[t["function"]["name"] for t in body.get("tools") or []],
            native_output=response_format.get("type") == "json_schema",
            calls=calls,
            results=results,
        )


WIRE = ChatWire()
