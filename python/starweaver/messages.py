"""Typed messages: what a run's history, ``captured_messages()`` and a
``FunctionModel`` callback hold.

A conversation is a list of ``ModelMessage``: ``ModelRequest`` (what was
sent to the model) and ``ModelResponse`` (what it answered), each with
``parts`` tagged by ``kind``, as in pydantic-ai. Every class is a pydantic
model whose ``model_dump(mode="json")`` is the runtime's JSON form (the
dicts this package returned before messages were typed: optional fields
that are unset are left out), and which still reads like that dict:
``message["kind"]``, ``part.get("tool_call_id")``, ``"usage" in message``
and ``part == {...}`` work, so code written against the dicts keeps
working.

Fields the runtime adds later are kept (``extra="allow"``) and dumped back
unchanged, so a history read from one version continues in the next.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    field_validator,
    model_serializer,
)

from starweaver.content import ContentPart

__all__ = (
    "InstructionPart",
    "ModelMessage",
    "ModelMessagesTypeAdapter",
    "ModelRequest",
    "ModelRequestPart",
    "ModelResponse",
    "ModelResponsePart",
    "RefusalPart",
    "RetryPromptPart",
    "SystemPromptPart",
    "TextContent",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "ToolReturnPart",
    "UserPromptPart",
    "messages_from_json",
    "messages_to_json",
)

_MISSING = object()


class _Wire(BaseModel):
    """A JSON object of the runtime, typed, that still reads like a dict."""

    # ``model_name`` is a wire field; older pydantic warns about the prefix.
    model_config = ConfigDict(extra="allow", protected_namespaces=())

    #: Fields left out of the dump when None (the runtime omits them).
    _omit_none: ClassVar[frozenset[str]] = frozenset()
    #: Fields left out of the dump when empty or None.
    _omit_empty: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in self._omit_none:
            if key in data and data[key] is None:
                del data[key]
        for key in self._omit_empty:
            if key in data and not data[key]:
                del data[key]
        return data

    # -- the dict view: the keys of model_dump, values as attributes -------

    def keys(self) -> list[str]:
        """The keys of the JSON form (fields left out when unset are absent)."""
        out: list[str] = []
        for key in [*type(self).model_fields, *(self.model_extra or {})]:
            if self._present(key):
                out.append(key)
        return out

    def _present(self, key: str) -> bool:
        if key not in type(self).model_fields and key not in (self.model_extra or {}):
            return False
        value = getattr(self, key)
        if key in self._omit_none and value is None:
            return False
        return not (key in self._omit_empty and not value)

    def __getitem__(self, key: str) -> Any:
        if not isinstance(key, str) or not self._present(key):
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]``, or default when the JSON form lacks key."""
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._present(key)

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]  # dict-like: iterates keys
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def items(self) -> list[tuple[str, Any]]:
        return [(k, self[k]) for k in self.keys()]

    def values(self) -> list[Any]:
        return [self[k] for k in self.keys()]

    def __eq__(self, other: object) -> bool:
        mine: dict[str, Any] = self.model_dump(mode="json")
        if isinstance(other, _Wire):
            return type(self) is type(other) and mine == other.model_dump(mode="json")
        if isinstance(other, Mapping):
            theirs: dict[str, Any] = _plain(other)
            return mine == theirs
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dicts they replace


def _plain(value: Any) -> Any:
    """value with every typed message or part replaced by its JSON form."""
    if isinstance(value, _Wire):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# -- request parts ---------------------------------------------------------


class SystemPromptPart(_Wire):
    """The agent's system prompt (first request of a conversation only)."""

    kind: Literal["system_prompt"] = "system_prompt"
    text: str


class InstructionPart(_Wire):
    """An instruction sent with a request."""

    kind: Literal["instruction"] = "instruction"
    text: str


class TextContent(_Wire):
    """One item of a user prompt."""

    kind: Literal["text"] = "text"
    text: str


class UserPromptPart(_Wire):
    """What the user said; ``UserPromptPart(content="hi")`` is one text item."""

    kind: Literal["user_prompt"] = "user_prompt"
    content: list[TextContent]

    @field_validator("content", mode="before")
    @classmethod
    def _text_items(cls, value: Any) -> Any:
        return [{"kind": "text", "text": value}] if isinstance(value, str) else value

    @property
    def text(self) -> str:
        """The text items joined."""
        return "".join(item.text for item in self.content)


class ToolReturnPart(_Wire):
    """The result of a tool call. ``content`` is what the model sees, or,
    for a rich output (``ToolOutput``), ``parts`` are (``structured_content``
    rides along); ``app_value``, ``user_content`` and ``private_metadata``
    never reach the model (they are absent from what models and
    ``captured_messages()`` receive). Artifact sources in ``parts`` stay
    references in history; models receive the bytes."""

    _omit_none: ClassVar[frozenset[str]] = frozenset({"app_value", "user_content", "parts", "structured_content"})
    _omit_empty: ClassVar[frozenset[str]] = frozenset({"private_metadata"})

    kind: Literal["tool_return"] = "tool_return"
    tool_call_id: str
    name: str
    content: Any = None
    is_error: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)
    app_value: Any = None
    user_content: Any = None
    private_metadata: dict[str, Any] | None = None
    parts: list[ContentPart] | None = None
    structured_content: Any = None

    @property
    def error_kind(self) -> str | None:
        """The error kind of a failed call (``"execution"``, ``"timeout"`` ...), else None."""
        kind = self.metadata.get("error_kind")
        return kind if isinstance(kind, str) else None


class RetryPromptPart(_Wire):
    """Asks the model to try again (a tool's correction, an invalid answer)."""

    _omit_none: ClassVar[frozenset[str]] = frozenset({"tool_call_id"})

    kind: Literal["retry_prompt"] = "retry_prompt"
    text: str
    tool_call_id: str | None = None


ModelRequestPart = Annotated[
    Union[SystemPromptPart, InstructionPart, UserPromptPart, ToolReturnPart, RetryPromptPart],
    Field(discriminator="kind"),
]
"""A part of a request, by ``kind``."""


# -- response parts --------------------------------------------------------


class TextPart(_Wire):
    """Text the model answered."""

    kind: Literal["text"] = "text"
    text: str


class ToolCallPart(_Wire):
    """A call the model asks for; ``arguments`` is the decoded JSON."""

    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: Any = Field(default_factory=dict)


class ThinkingPart(_Wire):
    """The model's reasoning; ``provider``, ``id``, ``signature`` and
    ``encrypted`` let the provider that produced it recognise it."""

    _omit_none: ClassVar[frozenset[str]] = frozenset({"provider", "id", "signature", "encrypted"})

    kind: Literal["thinking"] = "thinking"
    text: str
    provider: str | None = None
    id: str | None = None
    signature: str | None = None
    encrypted: str | None = None


class RefusalPart(_Wire):
    """The model declined to answer."""

    kind: Literal["refusal"] = "refusal"
    text: str


ModelResponsePart = Annotated[
    Union[TextPart, ToolCallPart, ThinkingPart, RefusalPart],
    Field(discriminator="kind"),
]
"""A part of a response, by ``kind``."""


# -- messages --------------------------------------------------------------


class ModelRequest(_Wire):
    """A request sent to the model: prompts, instructions, tool returns."""

    _omit_none: ClassVar[frozenset[str]] = frozenset({"instructions", "run_id"})

    kind: Literal["request"] = "request"
    parts: list[ModelRequestPart]
    instructions: str | None = None
    run_id: str | None = None

    @classmethod
    def user_text_prompt(cls, text: str) -> ModelRequest:
        """A request holding one user prompt."""
        return cls(parts=[UserPromptPart(content=[TextContent(text=text)])])


class ModelResponse(_Wire):
    """What the model answered; ``usage`` is the response's token counts."""

    _omit_none: ClassVar[frozenset[str]] = frozenset(
        {"usage", "model_name", "finish_reason", "provider", "response_id", "run_id"}
    )

    kind: Literal["response"] = "response"
    parts: list[ModelResponsePart]
    usage: dict[str, int] | None = None
    model_name: str | None = None
    finish_reason: str | None = None
    provider: str | None = None
    response_id: str | None = None
    run_id: str | None = None

    @property
    def text(self) -> str:
        """The text parts joined."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.parts if isinstance(p, ToolCallPart)]


ModelMessage = Annotated[Union[ModelRequest, ModelResponse], Field(discriminator="kind")]
"""A message of a conversation: a ``ModelRequest`` or a ``ModelResponse``."""

ModelMessagesTypeAdapter: TypeAdapter[list[ModelMessage]] = TypeAdapter(list[ModelMessage])
"""Validates and dumps lists of messages (``.validate_json``, ``.dump_json``)."""


def typed_messages(raw: Sequence[Any]) -> list[ModelMessage]:
    """The typed form of message dicts in the runtime's JSON form.

    Raises:
        pydantic.ValidationError: a message or part of an unknown kind, or
            lacking a field.
    """
    return ModelMessagesTypeAdapter.validate_python(list(raw))


def messages_to_json(messages: Sequence[ModelMessage | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The JSON form of messages, typed or dicts (checked), as the runtime
    reads it.

    Raises:
        ValueError: a message is neither a message object nor a dict of one
            (pydantic's ValidationError is a ValueError).
    """
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TypeError(f"messages must be a list of messages, got {type(messages).__name__}")
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, (ModelRequest, ModelResponse)):
            out.append(m.model_dump(mode="json"))
        elif isinstance(m, Mapping):
            typed: ModelMessage = TypeAdapter(ModelMessage).validate_python(dict(m))
            out.append(typed.model_dump(mode="json"))
        else:
            raise TypeError(f"a message must be a ModelRequest, a ModelResponse or a dict, got {type(m).__name__}")
    return out


def messages_from_json(data: str | bytes) -> list[ModelMessage]:
    """Messages from JSON text (``json.dumps(messages_to_json(...))``)."""
    return ModelMessagesTypeAdapter.validate_json(data)
