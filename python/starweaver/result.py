"""ToolResult, and how a tool's return value becomes a success outcome."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping
from json.encoder import encode_basestring_ascii
from typing import Any

from starweaver.errors import instance_of_loaded

__all__ = ("ResultEncodingError", "ToolResult", "result_to_outcome")


class ResultEncodingError(TypeError):
    """A tool's return (or a ToolResult surface) is not JSON. It fails the
    same way on every attempt, so the call becomes a user_error that is not
    retried."""


def _json_value(value: Any, field: str) -> Any:
    """value as plain JSON data (the form Go receives), or TypeError."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as e:
        raise ResultEncodingError(f"ToolResult {field} is not JSON serializable: {e}") from None


def _json_object(value: Mapping[str, Any] | None, field: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"ToolResult {field} must be a dict, got {type(value).__name__}")
    if any(not isinstance(k, str) for k in value):
        raise TypeError(f"ToolResult {field} keys must be strings")
    out: dict[str, Any] = _json_value(dict(value), field)
    return out


class ToolResult:
    """A tool result with separate surfaces for each audience.

    Arguments:
        content: The raw result; the model sees it unless ``model_content`` is set.
        metadata: Public tool-return metadata (history and streams).
        app_value: A value for application code; never sent to the model.
        model_content: Replaces ``content`` in what the model sees.
        user_content: Content for user interfaces; never sent to the model.
        private_metadata: Host-only evidence; never reaches content or metadata.

    Every value must be JSON-serialisable (``TypeError`` otherwise) and is kept
    in its JSON form, so a tuple reads back as a list.
    """

    __slots__ = ("_app_value", "_content", "_metadata", "_model_content", "_private_metadata", "_user_content")

    def __init__(
        self,
        content: Any,
        metadata: Mapping[str, Any] | None = None,
        app_value: Any = None,
        model_content: Any = None,
        user_content: Any = None,
        private_metadata: Mapping[str, Any] | None = None,
    ) -> None:
        self._content = _json_value(content, "content")
        self._metadata = _json_object(metadata, "metadata")
        self._app_value = _json_value(app_value, "app_value")
        self._model_content = _json_value(model_content, "model_content")
        self._user_content = _json_value(user_content, "user_content")
        self._private_metadata = _json_object(private_metadata, "private_metadata")

    @property
    def content(self) -> Any:
        return self._content

    @property
    def metadata(self) -> dict[str, Any]:
        return self._metadata

    @property
    def app_value(self) -> Any:
        return self._app_value

    @property
    def model_content(self) -> Any:
        return self._model_content

    @property
    def user_content(self) -> Any:
        return self._user_content

    @property
    def private_metadata(self) -> dict[str, Any]:
        return self._private_metadata

    def _surfaces(self) -> dict[str, Any]:
        """All six surfaces, in constructor order."""
        return {
            "content": self._content,
            "metadata": self._metadata,
            "app_value": self._app_value,
            "model_content": self._model_content,
            "user_content": self._user_content,
            "private_metadata": self._private_metadata,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolResult):
            return NotImplemented
        return self._surfaces() == other._surfaces()

    __hash__ = None  # type: ignore[assignment]  # mutable JSON values

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in _present(self).items())
        return f"ToolResult({fields})"


def _present(result: ToolResult) -> dict[str, Any]:
    """content plus every other surface that is set (not None, not an empty metadata dict)."""
    surfaces = {
        "content": result.content,
        "metadata": result.metadata,
        "app_value": result.app_value,
        "model_content": result.model_content,
        "user_content": result.user_content,
        "private_metadata": result.private_metadata,
    }
    return {k: v for k, v in surfaces.items() if k == "content" or not _unset(k, v)}


def _unset(key: str, value: Any) -> bool:
    return value is None or (key in ("metadata", "private_metadata") and not value)


def result_to_outcome(value: Any) -> dict[str, Any]:
    """The success outcome of a tool that returned value.

    A ToolResult maps surface by surface (keys other than ``ok``/``content``
    are omitted when None or empty); a ToolOutput to its own outcome
    (``parts``, ``structured_content``, ``host_only``...); a pydantic model becomes
    ``model_dump(mode="json")``; a dataclass its JSON-compatible ``asdict``;
    anything else must already be JSON-serialisable. Raises TypeError with
    "not JSON serializable" otherwise.
    """
    if isinstance(value, ToolResult):
        return {"ok": True, **_present(value)}
    if type(value) in _JSON_TYPES:
        # The common case skips the model and dataclass checks.
        body = plain_outcome(value)
        if body is None:
            raise _not_serializable(value)
        return EncodedOutcome({"ok": True, "content": value}, body)
    to_outcome = getattr(value, "_outcome", None)
    if to_outcome is not None and _is_tool_output(value):
        out: dict[str, Any] = to_outcome()
        return out
    try:
        # No value is a pydantic model before pydantic is imported; this
        # module leaves that import to the code that needs it.
        if "pydantic" in sys.modules and _is_model(value):
            content = value.model_dump(mode="json")
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            from pydantic_core import to_jsonable_python

            content = to_jsonable_python(value)
        else:
            content = value
        encoded = _ENCODER.encode(content)
    except (TypeError, ValueError) as e:  # PydanticSerializationError is a ValueError
        raise ResultEncodingError(f"tool returned a value that is not JSON serializable: {e}") from None
    return EncodedOutcome({"ok": True, "content": content}, _ok_body(encoded))


def plain_outcome(value: Any) -> bytes | None:
    """The encoded success outcome of a value of a plain JSON type, the most
    common return, as ``result_to_outcome`` encodes it; None for any other
    value, or one that does not encode (``result_to_outcome`` says why)."""
    t = type(value)
    if t not in _JSON_TYPES:
        return None
    try:
        if t is int:
            return b'{"ok":true,"content":%d}' % value
        encoded = encode_basestring_ascii(value) if t is str else _ENCODER.encode(value)
    except (TypeError, ValueError, RecursionError):
        return None
    return _ok_body(encoded)


def _ok_body(encoded: str) -> bytes:
    """The success outcome's text around the JSON text of its content."""
    return b'{"ok":true,"content":' + encoded.encode() + b"}"


def _not_serializable(value: Any) -> ResultEncodingError:
    """Why value, which plain_outcome could not encode, is not JSON (a
    RecursionError propagates, as from encoding it)."""
    try:
        _ENCODER.encode(value)
    except (TypeError, ValueError) as e:
        return ResultEncodingError(f"tool returned a value that is not JSON serializable: {e}")
    return ResultEncodingError("tool returned a value that is not JSON serializable")


def _is_model(value: Any) -> bool:
    from pydantic import BaseModel

    return isinstance(value, BaseModel)


def _is_tool_output(value: Any) -> bool:
    # By name: tool_output builds on this module, and no ToolOutput exists
    # before it is imported.
    return instance_of_loaded(value, "starweaver.tool_output", "ToolOutput")


# One encoder for every outcome: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(allow_nan=False, separators=(",", ":"))
_JSON_TYPES = frozenset({dict, list, str, int, float, bool, type(None)})


class EncodedOutcome(dict):  # type: ignore[type-arg]
    """An outcome dict that also carries its JSON encoding, so the bridge
    does not encode the content a second time after checking it."""

    __slots__ = ("encoded",)

    def __init__(self, outcome: dict[str, Any], encoded: bytes) -> None:
        super().__init__(outcome)
        self.encoded = encoded
