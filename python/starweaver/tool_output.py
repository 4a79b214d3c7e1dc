"""ToolOutput: a tool's output, built for the boundary it must cross."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from .content import Part, dump_parts
from .result import ResultEncodingError

__all__ = ("ToolOutput",)


def _json_value(value: Any, field: str) -> Any:
    """value as plain JSON data (the form Go receives), or TypeError."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as e:
        raise ResultEncodingError(f"ToolOutput {field} is not JSON serializable: {e}") from None


def _plain(value: Any) -> Any:
    """value as the JSON a plain tool return would send: a pydantic model
    dumped, a dataclass converted, anything else as is."""
    try:
        if isinstance(value, BaseModel):
            return value.model_dump(mode="json")
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return to_jsonable_python(value)
    except ValueError as e:  # PydanticSerializationError is a ValueError
        raise ResultEncodingError(f"ToolOutput value is not JSON serializable: {e}") from None
    return value


class ToolOutput:
    """A tool's output, built with the constructor that names its boundary.

    ============================  ==========================================
    ``ToolOutput.model_visible(v)``  ordinary JSON or text: the model reads
                                     it as text, hosts keep the value
    ``ToolOutput.rich(parts)``       ordered text, image, audio, document
                                     and resource-link parts
    ``ToolOutput.model_error(parts)``  the tool ran but the application
                                     rejected the request; the model reads
                                     an error (no retry, no budget spent)
    ``ToolOutput.host_only(parts)``  for the application only: a run that
                                     would show it to a model fails with
                                     ``ToolOutputNotVisible``
    ============================  ==========================================

    ``with_structured_content(v)`` attaches a separately validated value and
    ``with_metadata(key, v)`` a metadata entry (namespace your keys,
    ``"app.key"``); both return a new output. Raising a ``ToolError`` still
    means the tool itself failed.

    Parts are ``starweaver.content`` parts; a plain ``str`` is a text part.
    Every value must be JSON-serialisable (``TypeError`` otherwise) and is
    kept in its JSON form. The runtime checks the rest: a call whose output
    is malformed, or larger than the agent's ``max_tool_output_bytes``,
    ends with the error kind ``invalid_output``.
    """

    __slots__ = ("_content", "_host_only", "_is_error", "_metadata", "_parts", "_structured")

    _content: Any
    _parts: list[dict[str, Any]] | None
    _structured: Any
    _metadata: dict[str, Any]
    _is_error: bool
    _host_only: bool

    def __init__(self) -> None:
        raise TypeError("build a ToolOutput with model_visible, rich, model_error or host_only")

    @classmethod
    def _make(
        cls,
        *,
        content: Any = None,
        parts: list[dict[str, Any]] | None = None,
        structured: Any = None,
        is_error: bool = False,
        host_only: bool = False,
    ) -> ToolOutput:
        out = object.__new__(cls)
        out._content = content
        out._parts = parts
        out._structured = structured
        out._metadata = {}
        out._is_error = is_error
        out._host_only = host_only
        return out

    @classmethod
    def model_visible(cls, value: Any) -> ToolOutput:
        """Ordinary output: ``value`` (JSON; a pydantic model or dataclass is
        converted) is the structured content, and the model reads it as
        text (a string as is, anything else as JSON).

        Raises:
            TypeError: value is not JSON-serialisable.
        """
        v = _json_value(_plain(value), "value")
        return cls._make(content=v, structured=v)

    @classmethod
    def rich(cls, parts: Sequence[Part | str]) -> ToolOutput:
        """Ordered content parts, sent natively where the provider can and
        refused (never flattened) where it cannot.

        Raises:
            TypeError: parts is not a list of parts and strings.
        """
        return cls._make(parts=dump_parts(parts))

    @classmethod
    def model_error(cls, parts: Sequence[Part | str]) -> ToolOutput:
        """A completed call whose application rejected the request, for the
        model to read and recover from.

        Raises:
            TypeError: parts is not a list of parts and strings.
        """
        return cls._make(parts=dump_parts(parts), is_error=True)

    @classmethod
    def host_only(cls, parts: Sequence[Part | str]) -> ToolOutput:
        """Output for the application only. Calling the tool directly
        returns it; a run that would show it to its model fails with
        ``ToolOutputNotVisible`` (the call's effects are done).

        Raises:
            TypeError: parts is not a list of parts and strings.
        """
        return cls._make(parts=dump_parts(parts), host_only=True)

    def _copy(self) -> ToolOutput:
        out: ToolOutput = ToolOutput._make(
            content=self._content,
            parts=self._parts,
            structured=self._structured,
            is_error=self._is_error,
            host_only=self._host_only,
        )
        out._metadata = dict(self._metadata)
        return out

    def with_structured_content(self, value: Any) -> ToolOutput:
        """A copy with ``value`` (JSON) as the structured content.

        Raises:
            TypeError: value is not JSON-serialisable.
        """
        out: ToolOutput = self._copy()
        out._structured = _json_value(_plain(value), "structured_content")
        return out

    def with_metadata(self, key: str, value: Any) -> ToolOutput:
        """A copy with metadata ``key`` set to ``value`` (JSON). Metadata
        travels with the return in history; models never read it as text.

        Raises:
            TypeError: key is not a string, or value is not JSON-serialisable.
        """
        if not isinstance(key, str):
            raise TypeError(f"metadata keys must be strings, got {type(key).__name__}")
        out: ToolOutput = self._copy()
        out._metadata[key] = _json_value(value, "metadata")
        return out

    @property
    def parts(self) -> list[dict[str, Any]] | None:
        """The parts in their JSON form (None for ``model_visible``)."""
        return None if self._parts is None else list(self._parts)

    @property
    def value(self) -> Any:
        """The value of ``model_visible`` (None for the other kinds)."""
        return self._content

    @property
    def structured_content(self) -> Any:
        return self._structured

    @property
    def metadata(self) -> dict[str, Any]:
        return dict(self._metadata)

    @property
    def is_error(self) -> bool:
        return self._is_error

    @property
    def is_model_visible(self) -> bool:
        """False for ``host_only`` output."""
        return not self._host_only

    def _outcome(self) -> dict[str, Any]:
        """The success outcome the runtime reads (see starweaver.h)."""
        out: dict[str, Any] = {"ok": True}
        if self._parts is None:
            out["content"] = self._content
        else:
            out["parts"] = self._parts
        if self._structured is not None:
            out["structured_content"] = self._structured
        if self._metadata:
            out["metadata"] = self._metadata
        if self._is_error:
            out["is_error"] = True
        if self._host_only:
            out["host_only"] = True
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolOutput):
            return NotImplemented
        return self._outcome() == other._outcome()

    __hash__ = None  # type: ignore[assignment]  # mutable JSON values

    def __repr__(self) -> str:
        if self._parts is None:
            kind, body = "model_visible", repr(self._content)
        else:
            kind = "host_only" if self._host_only else "model_error" if self._is_error else "rich"
            body = "[" + ", ".join(str(p.get("kind")) for p in self._parts) + "]"
        extra = ""
        if self._structured is not None and self._parts is not None:
            extra += f", structured_content={self._structured!r}"
        if self._metadata:
            extra += f", metadata={self._metadata!r}"
        return f"ToolOutput.{kind}({body}{extra})"
