"""The Python side of the model conformance suite (test_model_conformance.py):
each provider's wire module (``wire_<provider>.py``) says how its API's
replies look, so the same scenarios run through every provider model, over
the local fixture server (fixture_server.py), as core/model/modeltest does
in Go."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from fixture_server import Recorded
from starweaver.models import ProviderModel


@dataclass
class Call:
    """A tool call of a scripted response, or one a request sent back."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass
class Turn:
    """One scripted answer: its parts (thinking, text, calls, in that order)
    and its usage (every count the wire format has a field for)."""

    text: str = ""
    thinking: str = ""
    calls: list[Call] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass
class Result:
    """A tool result as a request carried it: the call it answers, its
    content blocks' kinds as sent ("text", "json", "image", "document",
    "audio"), and the text blocks joined."""

    call_id: str
    kinds: list[str]
    text: str
    is_error: bool = False


@dataclass
class Seen:
    """What a request held, decoded from the recorded body."""

    model: str
    stream: bool
    tools: list[str]
    native_output: bool
    calls: list[Call]
    results: list[Result]


class Wire(Protocol):
    """A provider's wire format, as the conformance scenarios need it.

    A wire may also define (the conformance test reads them with
    ``getattr``): ``usage``, the usage counts its replies carry, as names
    of ``result.usage`` (default :data:`BASE_USAGE`), and ``thinking``,
    whether it carries the model's thinking (a scripted ``Turn.thinking``
    streams as ``thinking_delta`` events; default False), and ``carries``,
    the content kinds of tool results it sends natively ("text", "image",
    "document", "audio"; without it the media scenarios are skipped)."""

    #: the prefix of its model string ("openai", "google", "bedrock"...)
    prefix: str
    #: what its responses say in ``messages[i]["provider"]`` and ModelError.provider
    provider: str
    #: whether native structured output (output_mode="native") is sent natively
    native_output: bool

    def model(self, base_url: str, *, stream: bool, api_key: str, max_retries: int = 0) -> ProviderModel:
        """The model under test, reaching the fixture server at base_url."""
        ...

    def reply(self, turn: Turn, *, stream: bool) -> dict[str, Any]:
        """The fixture server reply (see fixture_server.FixtureServer) for turn,
        a whole JSON response or its stream."""
        ...

    def error(self, status: int, code: str, message: str) -> dict[str, Any]:
        """The fixture server reply of a provider error."""
        ...

    def seen(self, request: Recorded) -> Seen:
        """What a recorded request held."""
        ...


#: The usage counts every wire format carries.
BASE_USAGE = frozenset({"input_tokens", "output_tokens"})


def sse(data: Any, event: str | None = None) -> str:
    """One server-sent event: ``data`` as JSON (a str as is), named
    ``event`` when given."""
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n"


def pieces(text: str, size: int) -> list[str]:
    """``text`` cut into pieces of at most ``size`` characters, as a stream
    sends it in several deltas."""
    return [text[i : i + size] for i in range(0, len(text), size)]
