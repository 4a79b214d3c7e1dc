"""The Gemini API wire format for test_model_conformance.py, from the Gemini
API reference (https://ai.google.dev/api/generate-content): the
GenerateContentRequest (contents of user and model turns, functionCall and
functionResponse parts, tools[].functionDeclarations, generationConfig),
the GenerateContentResponse, its streamed chunks (streamGenerateContent
with alt=sse) and the error body of Google APIs."""

from __future__ import annotations

import json
from typing import Any

from fixture_server import Recorded
from model_wire import Call, Result, Seen, Turn, pieces, sse
from starweaver.models import GoogleModel, ProviderModel

MODEL = "gemini-2.5-flash"
SIGNATURE = "c2lnbmF0dXJlLW9mLXRoZS1maXJzdC1jYWxs"


def usage(turn: Turn) -> dict[str, Any]:
    """promptTokenCount includes the cached tokens; candidatesTokenCount
    excludes the thoughts."""
    return {
        "promptTokenCount": turn.input_tokens,
        "cachedContentTokenCount": turn.cache_read_tokens,
        "candidatesTokenCount": turn.output_tokens - turn.reasoning_tokens,
        "thoughtsTokenCount": turn.reasoning_tokens,
        "totalTokenCount": turn.input_tokens + turn.output_tokens,
    }


def call_part(call: Call, first: bool) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}}
    if first:
        part["thoughtSignature"] = SIGNATURE
    return part


def response(parts: list[dict[str, Any]], finish: str | None, turn: Turn | None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [candidate], "modelVersion": MODEL, "responseId": "resp-conformance"}
    if turn is not None:
        body["usageMetadata"] = usage(turn)
    return body


def result(response: dict[str, Any]) -> Result:
    """A functionResponse: response.output (or .error) and its inline data."""
    payload = response.get("response") or {}
    is_error = "error" in payload
    value = payload.get("error") if is_error else payload.get("output")
    kinds: list[str] = []
    text = ""
    if isinstance(value, str):
        if value:
            kinds, text = ["text"], value
    else:
        kinds, text = ["json"], json.dumps(value)
    for part in response.get("parts") or []:
        mime = str(part["inlineData"]["mimeType"])
        kinds.append("image" if mime.startswith("image/") else "audio" if mime.startswith("audio/") else "document")
    return Result(call_id=str(response.get("id", "")), kinds=kinds, text=text, is_error=is_error)


class GeminiWire:
    prefix = "google"
    provider = "google"
    native_output = True
    thinking = True
    carries = frozenset({"text", "image", "document"})  # inline in functionResponse.parts; no audio
    usage = frozenset({"input_tokens", "output_tokens", "cache_read_tokens", "reasoning_tokens"})

    def model(self, base_url: str, *, stream: bool, api_key: str, max_retries: int = 0) -> ProviderModel:
        return GoogleModel(MODEL, base_url=base_url, api_key=api_key, max_retries=max_retries, stream=stream)

    def reply(self, turn: Turn, *, stream: bool) -> dict[str, Any]:
        finish = "STOP"  # a response with function calls stops with STOP too
        if not stream:
            parts: list[dict[str, Any]] = []
            if turn.thinking:
                parts.append({"text": turn.thinking, "thought": True})
            if turn.text:
                parts.append({"text": turn.text})
            parts += [call_part(c, i == 0) for i, c in enumerate(turn.calls)]
            return {"status": 200, "body": response(parts, finish, turn)}
        # One chunk per piece of thought and text, one per function call (the
        # API sends calls whole); the last carries the finish reason and usage.
        chunks: list[list[dict[str, Any]]] = [[{"text": p, "thought": True}] for p in pieces(turn.thinking, 9)]
        chunks += [[{"text": p}] for p in pieces(turn.text, 7)]
        chunks += [[call_part(c, i == 0)] for i, c in enumerate(turn.calls)]
        if not chunks:
            chunks = [[{"text": ""}]]
        last = len(chunks) - 1
        events = [
            sse(response(parts, finish if i == last else None, turn if i == last else None))
            for i, parts in enumerate(chunks)
        ]
        return {"chunks": events}

    def error(self, status: int, code: str, message: str) -> dict[str, Any]:
        return {"status": status, "body": {"error": {"code": status, "message": message, "status": code}}}

    def seen(self, request: Recorded) -> Seen:
        path, _, query = request.path.partition("?")
        prefix = "/v1beta/models/"
        assert path.startswith(prefix), request.path
        name, _, method = path[len(prefix) :].partition(":")
        assert method in ("generateContent", "streamGenerateContent"), request.path
        stream = method == "streamGenerateContent"
        assert not stream or query == "alt=sse", request.path
        assert request.headers.get("x-goog-api-key"), "no x-goog-api-key header"
        body: dict[str, Any] = request.body
        calls: list[Call] = []
        results: list[Result] = []
        for content in body["contents"]:
            for part in content.get("parts") or []:
                if "functionCall" in part:
                    assert content["role"] == "model", content
                    fc = part["functionCall"]
                    calls.append(Call(id=str(fc.get("id", "")), name=fc["name"], arguments=fc.get("args") or {}))
                elif "functionResponse" in part:
                    assert content["role"] == "user", content
                    results.append(result(part["functionResponse"]))
        config = body.get("generationConfig") or {}
        return Seen(
            model=name,
            stream=stream,
            tools=[d["name"] for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []],
            native_output=config.get("responseMimeType") == "application/json" and "responseJsonSchema" in config,
            calls=calls,
            results=results,
        )


WIRE = GeminiWire()
