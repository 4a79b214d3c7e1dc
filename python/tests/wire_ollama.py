"""The wire format of Ollama's OpenAI-compatible API for
test_model_conformance.py (https://github.com/ollama/ollama,
docs/api/openai-compatibility), in the dialect the "ollama" profile
exists for: tool-call arguments sent as JSON objects rather than strings,
no usage in any reply, each streamed call whole in one chunk. Requests
carrying what the profile leaves out (``strict``, ``parallel_tool_calls``)
fail the scenario."""

from __future__ import annotations

import json
from typing import Any

from fixture_server import Recorded
from model_wire import Call, Result, Seen, Turn
from starweaver.models import OllamaModel, ProviderModel

ID = "chatcmpl-ollama"
CREATED = 1767225600


def event(data: Any) -> str:
    """One server-sent event."""
    return f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"


def split(text: str, size: int) -> list[str]:
    """text in pieces of size characters."""
    return [text[i : i + size] for i in range(0, len(text), size)]


class OllamaWire:
    prefix = "ollama"
    provider = "ollama"
    native_output = True
    #: Tool messages carry text only, as Chat Completions' do.
    carries = frozenset({"text"})
    #: Reasoning arrives in a "reasoning" field.
    thinking = True
    #: No reply reports usage: the runs' token counts stay zero.
    usage: frozenset[str] = frozenset()

    def model(self, base_url: str, *, stream: bool, api_key: str, max_retries: int = 0) -> ProviderModel:
        # A bare host, as OLLAMA_BASE_URL is often written: the profile adds /v1.
        return OllamaModel("llama3.2", base_url=base_url, api_key=api_key, max_retries=max_retries, stream=stream)

    def reply(self, turn: Turn, *, stream: bool) -> dict[str, Any]:
        finish = "tool_calls" if turn.calls else "stop"
        calls = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in turn.calls
        ]
        if not stream:
            message: dict[str, Any] = {"role": "assistant", "content": turn.text}
            if turn.thinking:
                message["reasoning"] = turn.thinking
            if calls:
                message["tool_calls"] = calls
            body = {
                "id": ID,
                "object": "chat.completion",
                "created": CREATED,
                "model": "llama3.2",
                "system_fingerprint": "fp_ollama",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            }
            return {"status": 200, "body": body}

        def chunk(delta: dict[str, Any], reason: str | None = None) -> str:
            return event(
                {
                    "id": ID,
                    "object": "chat.completion.chunk",
                    "created": CREATED,
                    "model": "llama3.2",
                    "system_fingerprint": "fp_ollama",
                    "choices": [{"index": 0, "delta": {"role": "assistant", **delta}, "finish_reason": reason}],
                }
            )

        chunks = [chunk({"content": "", "reasoning": p}) for p in split(turn.thinking, 9)]
        chunks += [chunk({"content": p}) for p in split(turn.text, 7)]
        chunks += [chunk({"content": "", "tool_calls": [{"index": i, **c}]}) for i, c in enumerate(calls)]
        chunks += [chunk({"content": ""}, finish), event("[DONE]")]
        return {"chunks": chunks}

    def error(self, status: int, code: str, message: str) -> dict[str, Any]:
        return {"status": status, "body": {"error": {"message": message, "type": code, "param": None, "code": code}}}

    def seen(self, request: Recorded) -> Seen:
        assert request.path == "/v1/chat/completions", request.path
        body: dict[str, Any] = request.body
        assert "parallel_tool_calls" not in body, "parallel_tool_calls sent to Ollama"
        for t in body.get("tools") or []:
            assert "strict" not in t["function"], f"strict sent on tool {t['function']['name']}"
        response_format = body.get("response_format") or {}
        assert "strict" not in (response_format.get("json_schema") or {}), "strict sent on the response format"
        calls: list[Call] = []
        results: list[Result] = []
        for m in body["messages"]:
            if m["role"] == "assistant":
                for c in m.get("tool_calls") or []:
                    fn = c["function"]
                    # Sent back as the API documents them: a string.
                    calls.append(Call(id=c["id"], name=fn["name"], arguments=json.loads(fn["arguments"])))
            elif m["role"] == "tool":
                content = m["content"]
                if isinstance(content, str):
                    kinds, text = ["text"], content
                else:
                    kinds = [str(p.get("type")) for p in content]
                    text = "".join(str(p.get("text", "")) for p in content)
                is_error = text.startswith("Error: ")
                results.append(
                    Result(call_id=m["tool_call_id"], kinds=kinds, text=text.removeprefix("Error: "), is_error=is_error)
                )
        return Seen(
            model=body["model"],
            stream=bool(body.get("stream")),
            tools=[t["function"]["name"] for t in body.get("tools") or []],
            native_output=response_format.get("type") == "json_schema",
            calls=calls,
            results=results,
        )


WIRE = OllamaWire()
