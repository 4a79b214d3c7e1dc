"""The models for tests: scripted ``TestModel`` and callback ``FunctionModel``
(``starweaver.testing`` re-exports them, with ``call_tool``, which runs a
tool through an agent).

``TestModel`` runs inside the Go runtime and records every request it gets;
``captured_messages()`` and ``captured_params()`` read them back. Messages
are typed (``starweaver.messages``) and still read like their dicts.
"""

from __future__ import annotations

import inspect
import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

from starweaver import _capi

if TYPE_CHECKING:
    from starweaver.messages import ModelMessage

__all__ = ["FunctionModel", "FunctionModelCallback", "ModelResponse", "TestModel"]

ModelResponse = Union[str, Mapping[str, Any]]
"""A scripted response: text, ``{"text": ...}``, ``{"refusal": ...}`` or
``{"tool_calls": [...]}``, any mapping optionally with ``"usage"``."""


#: The strings that describe a response, and the finish reasons.
_INFO_KEYS = ("model_name", "finish_reason", "provider", "response_id")
_FINISH_REASONS = ("stop", "length", "tool_calls", "content_filter", "error")
#: The token counts a response's ``"usage"`` may give.
_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


def _response_message(item: object) -> dict[str, Any]:
    """Convert a response item into the runtime's response message; a
    mapping may add ``"usage"``: ``{"input_tokens": n, "output_tokens": n,
    ...}`` (also ``cache_read_tokens``, ``cache_write_tokens``,
    ``reasoning_tokens``), the usage the response reports, and the strings
    ``model_name``, ``finish_reason`` (``stop``, ``length``,
    ``tool_calls``, ``content_filter``, ``error``), ``provider`` and
    ``response_id`` that describe it (in the history, events and traces)."""
    message = _response_parts(item)
    if isinstance(item, Mapping):
        for key in _INFO_KEYS:
            value = item.get(key)
            if value is None:
                continue
            if not isinstance(value, str):
                raise ValueError(f"{key} must be a string, got {value!r}")
            if key == "finish_reason" and value not in _FINISH_REASONS:
                raise ValueError(f"unknown finish_reason {value!r} (known: {', '.join(_FINISH_REASONS)})")
            message[key] = value
    if isinstance(item, Mapping) and item.get("usage") is not None:
        usage = item["usage"]
        if not isinstance(usage, Mapping):
            raise ValueError(f"usage must be a dict of token counts, got {usage!r}")
        out = {"requests": 1}
        for key, value in usage.items():
            if key not in _USAGE_KEYS:
                raise ValueError(f"unknown usage key {key!r} (known: {', '.join(_USAGE_KEYS)})")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"usage {key} must be a non-negative int, got {value!r}")
            out[key] = value
        message["usage"] = out
    return message


def _response_parts(item: object) -> dict[str, Any]:
    if isinstance(item, str):
        return {"kind": "response", "parts": [{"kind": "text", "text": item}]}
    if isinstance(item, Mapping):
        if "tool_calls" in item:
            calls = item["tool_calls"]
            if not isinstance(calls, Sequence) or isinstance(calls, (str, bytes)) or not calls:
                raise ValueError("tool_calls must be a non-empty list of calls")
            parts: list[dict[str, Any]] = []
            if isinstance(item.get("text"), str) and item["text"]:
                parts.append({"kind": "text", "text": item["text"]})
            for call in calls:
                if not isinstance(call, Mapping) or not isinstance(call.get("name"), str) or not call["name"]:
                    raise ValueError(f"each tool call needs a name: {call!r}")
                call_id = call.get("id", "")
                if not isinstance(call_id, str):
                    raise ValueError(f"tool call id must be a string: {call!r}")
                arguments = call.get("arguments", {})
                if arguments is None:
                    arguments = {}
                try:
                    json.dumps(arguments, allow_nan=False)
                except (TypeError, ValueError) as exc:
                    raise ValueError(f"tool call arguments must be JSON: {exc}") from None
                parts.append({"kind": "tool_call", "id": call_id, "name": call["name"], "arguments": arguments})
            return {"kind": "response", "parts": parts}
        if isinstance(item.get("text"), str):
            return {"kind": "response", "parts": [{"kind": "text", "text": item["text"]}]}
        if isinstance(item.get("refusal"), str):
            return {"kind": "response", "parts": [{"kind": "refusal", "text": item["refusal"]}]}
    raise ValueError(
        "a model response must be a string, {'text': str}, {'refusal': str} or {'tool_calls': [...]}, "
        f"got {item!r}"
    )


def _typed_messages(raw: Sequence[Any]) -> list[ModelMessage]:
    # The message models load on first use, not with this module.
    from starweaver.messages import typed_messages  # noqa: PLC0415

    return typed_messages(raw)


class TestModel:
    """A model for tests, inside the Go runtime; it records every request.

    ``TestModel()`` needs no script: the first request of a run calls every
    tool offered once, with arguments generated from its schema (required
    fields only, at their lower bounds, first choices), and the next
    answers with a summary: the structured answer generated from the output
    type's schema, or a JSON object of each tool's returned content by
    name (``"ok"`` when no tool was offered). ``TestModel("text")`` answers
    once with text, ``TestModel.responses([...])`` with a script in order;
    running past a script fails the run with
    ``ModelError("test model script exhausted ...")``.
    """

    __test__ = False  # not a pytest test class

    def __init__(self, text: str | None = None, *, responses: Sequence[ModelResponse] | None = None) -> None:
        if text is not None and responses is not None:
            raise ValueError("pass either text or responses, not both")
        self._auto = text is None and responses is None
        items: Sequence[ModelResponse] = responses if responses is not None else [text] if text is not None else []
        self._responses = [_response_message(r) for r in items]
        spec: dict[str, Any] = (
            {"kind": "test", "auto": True} if self._auto else {"kind": "test", "responses": self._responses}
        )
        self._handle = _capi.model_new(spec)
        weakref.finalize(self, _capi.release, self._handle)

    @classmethod
    def text(cls, text: str) -> TestModel:
        """A model answering once with ``text``."""
        return cls(text)

    @classmethod
    def responses(cls, responses: Sequence[ModelResponse]) -> TestModel:
        """A model answering with ``responses`` in call order."""
        return cls(responses=responses)

    @staticmethod
    def tool_call_response(calls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """A response asking for tool calls: ``[{"id", "name", "arguments"}]``."""
        return {"tool_calls": [dict(c) for c in calls]}

    @staticmethod
    def output_response(value: Any, *, name: str = "final_result", id: str = "") -> dict[str, Any]:  # noqa: A002
        """A response calling the output tool (``create_agent(output_type=...)``)
        with value: a pydantic model or a dataclass as its JSON form, a dict
        as the tool's arguments themselves, anything else (a scalar, a list)
        as ``{"response": value}``, the form of non-object output types."""
        from starweaver.output import test_arguments

        return {"tool_calls": [{"id": id, "name": name, "arguments": test_arguments(value)}]}

    output_call = output_response

    def captured_messages(self) -> list[list[ModelMessage]]:
        """The messages of each request received, one list per request: the
        model-visible projection (tool returns without ``app_value``,
        ``user_content`` and ``private_metadata``; read those from the
        ``RunResult``)."""
        return [_typed_messages(r["messages"]) for r in _capi.model_captured(self._handle)]

    def captured_params(self) -> list[dict[str, Any]]:
        """The parameters of each request: ``tools`` (definitions),
        ``settings`` (the merged model settings, left out when none are set)
        and ``output`` (the structured output asked for, if any)."""
        return [r["params"] for r in _capi.model_captured(self._handle)]

    def _native_handle(self) -> int:
        return self._handle

    def __repr__(self) -> str:
        return "TestModel(auto)" if self._auto else f"TestModel(responses={len(self._responses)})"


FunctionModelCallback = Callable[[list[Any], dict[str, Any]], Union[ModelResponse, Awaitable[ModelResponse]]]
"""``callback(messages, info)``: messages is a ``list[ModelMessage]`` (typed
as ``list[Any]`` so that callbacks annotated with the older
``list[dict[str, Any]]`` still type-check; the messages read like dicts)."""


async def _await(value: Awaitable[ModelResponse]) -> ModelResponse:
    return await value


class FunctionModel:
    """A model answered by ``callback(messages, info)``.

    ``messages`` is the conversation so far as typed messages
    (``list[ModelMessage]``, see ``starweaver.messages``); ``info`` is
    ``{"params": {"tools": [...], "settings": {...}, "output": {...}},
    "model_name": ...}`` (``settings`` and ``output`` only when set). The
    callback may be sync or async and returns a response item as for
    ``TestModel``. Async callbacks run on the loop; sync ones in the worker
    threads of sync tools, so a slow one never blocks the loop. Its exceptions
    fail the run with ``ModelError`` (``KeyboardInterrupt`` and ``SystemExit``
    end the run and are re-raised in the caller).

    The messages of one conversation are decoded once and shared by every
    request (and ``captured_messages()``) that shows them, so a session of
    n runs costs memory and time linear in n: treat them as read-only. The
    list handed to the callback is its own.
    """

    def __init__(self, callback: FunctionModelCallback, *, model_name: str | None = None) -> None:
        if not callable(callback):
            raise TypeError("FunctionModel needs a callable")
        self._callback = callback
        self.model_name = model_name or "function"
        # Each request: the transcript's shared message list and how many of
        # its messages the request showed, and its parameters.
        self._captured: list[tuple[list[ModelMessage], int, dict[str, Any]]] = []
        # The messages fetched so far of the transcripts used last (ids of
        # sw_model_messages), most recent last; bounded like the runtime's.
        self._transcripts: OrderedDict[int, list[ModelMessage]] = OrderedDict()
        self._lock = threading.Lock()
        self._handle = _capi.model_new({"kind": "function"})
        weakref.finalize(self, _capi.release, self._handle)

    @property
    def _is_async(self) -> bool:
        """Whether the callback runs on the loop; sync callbacks run in the
        worker threads of sync tools, so they never block the loop."""
        return inspect.iscoroutinefunction(self._callback) or inspect.iscoroutinefunction(
            getattr(self._callback, "__call__", None)  # noqa: B004 - async callable objects
        )

    def _request(self, transcript: int, length: int, params: dict[str, Any]) -> list[ModelMessage]:
        """The messages of a request (the first ``length`` of ``transcript``),
        fetching from the runtime only those not fetched before, and records
        the request."""
        with self._lock:
            shown = self._transcripts.pop(transcript, None)
            if shown is None:
                shown = []
            if len(shown) < length:
                shown.extend(_typed_messages(_capi.model_messages(self._handle, transcript, len(shown), length)))
            self._transcripts[transcript] = shown
            while len(self._transcripts) > _MAX_TRANSCRIPTS:
                self._transcripts.popitem(last=False)
            if self._captured and self._captured[-1][2] == params:
                params = self._captured[-1][2]  # one copy of unchanged parameters
            self._captured.append((shown, length, params))
            return shown[:length]

    async def _respond(self, transcript: int, length: int, params: dict[str, Any]) -> dict[str, Any]:
        messages = self._request(transcript, length, params)
        value = self._callback(messages, {"params": params, "model_name": self.model_name})
        if inspect.isawaitable(value):
            value = await value
        return _response_message(value)

    def _respond_sync(self, transcript: int, length: int, params: dict[str, Any]) -> dict[str, Any]:
        messages = self._request(transcript, length, params)
        value = self._callback(messages, {"params": params, "model_name": self.model_name})
        if inspect.isawaitable(value):
            import asyncio  # noqa: PLC0415 - loaded with the first run

            value = asyncio.run(_await(value))
        return _response_message(value)

    def captured_messages(self) -> list[list[ModelMessage]]:
        """The messages of each request received, one list per request (the
        message objects are shared between requests: read-only)."""
        with self._lock:
            return [shown[:length] for shown, length, _ in self._captured]

    def captured_params(self) -> list[dict[str, Any]]:
        """The parameters of each request."""
        with self._lock:
            return [params for _, _, params in self._captured]

    def _native_handle(self) -> int:
        return self._handle

    def __repr__(self) -> str:
        name = getattr(self._callback, "__qualname__", None) or type(self._callback).__name__
        return f"FunctionModel({name})"


#: How many transcripts a FunctionModel keeps decoded messages of, besides
#: those its captured requests hold (capi/internal/bridge/transcripts.go keeps 64).
_MAX_TRANSCRIPTS = 64
