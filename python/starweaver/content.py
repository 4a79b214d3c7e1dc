"""Content parts of rich tool outputs, and the artifact references they use.

A rich output (``ToolOutput.rich``) is an ordered list of parts: ``Text``,
``Image``, ``Audio``, ``Document`` and ``ResourceLink``. A media part's bytes
come from a source: ``URLSource`` (the provider fetches it), ``Base64Source``
(inline) or ``ArtifactSource`` (an ``ArtifactRef`` to an artifact store; the
runtime reads the bytes just before the model request, and conversations
keep the reference).

Every class is a frozen pydantic model whose ``model_dump(mode="json")`` is
the runtime's JSON form (``{"kind": ...}``, unset optional fields left out). Python
checks types only; the runtime checks the rest (valid base64, a media type
of the part's family, a reference of the run's scope) and ends a call whose
output breaks a rule with the error kind ``invalid_output``.
"""

from __future__ import annotations

import base64 as _base64
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer
from typing_extensions import Self

from starweaver._deprecated import forwarding

__all__ = (
    "ArtifactRef",
    "ArtifactSource",
    "Audio",
    "Base64Source",
    "ContentPart",
    "Document",
    "Image",
    "MediaSource",
    "ResourceLink",
    "Text",
    "URLSource",
    "dump_parts",
)

# Old names, for one release (see CHANGELOG.md).
if not TYPE_CHECKING:
    __getattr__ = forwarding(
        __name__,
        {
            "UrlSource": "starweaver.content:URLSource",
        },
    )


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", protected_namespaces=())

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Unset optional fields are left out, as the runtime writes them.
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None}


class ArtifactRef(_Frozen):
    """A stored artifact, as a conversation keeps it instead of its bytes.

    Attributes:
        scope: The scope (tenant, user, session) the artifact lives in.
        artifact_id: ``"sha256:"`` and the hex digest of the media type, a
            zero byte and the bytes: the content address.
        media_type: The media type, lower case.
        size_bytes: The size.
        sha256: The hex SHA-256 of the bytes alone.
        name: A display name, or None.
        created_at_unix_ms: When the store first stored it.
        expires_at_unix_ms: When it expires, or None for never.

    Every field is fixed when the artifact is stored; a store returns the
    bytes only for a reference equal to the stored one.
    """

    scope: str
    artifact_id: str
    media_type: str
    size_bytes: int
    sha256: str
    name: str | None = None
    created_at_unix_ms: int
    expires_at_unix_ms: int | None = None


class URLSource(_Frozen):
    """Media the provider fetches from an http(s) URL."""

    kind: Literal["url"] = "url"
    url: str
    media_type: str | None = None


class Base64Source(_Frozen):
    """Media carried inline, base64-encoded (standard alphabet)."""

    kind: Literal["base64"] = "base64"
    media_type: str
    data: str

    @classmethod
    def from_bytes(cls, data: bytes, media_type: str) -> Base64Source:
        """The source holding ``data`` (encoded here)."""
        return cls(media_type=media_type, data=_base64.b64encode(data).decode("ascii"))


class ArtifactSource(_Frozen):
    """Media kept in an artifact store; conversations keep ``reference``."""

    kind: Literal["artifact"] = "artifact"
    reference: ArtifactRef


MediaSource = Annotated[Union[URLSource, Base64Source, ArtifactSource], Field(discriminator="kind")]
"""Where a media part's bytes are, by ``kind``."""


class _Media(_Frozen):
    """The constructors shared by images and audio."""

    @classmethod
    def from_bytes(cls, data: bytes, media_type: str) -> Self:
        """The part holding ``data`` inline (base64-encoded here)."""
        return cls.model_validate({"source": Base64Source.from_bytes(data, media_type)})

    @classmethod
    def from_url(cls, url: str, media_type: str | None = None) -> Self:
        """The part the provider fetches from ``url``."""
        return cls.model_validate({"source": URLSource(url=url, media_type=media_type)})

    @classmethod
    def from_artifact(cls, reference: ArtifactRef) -> Self:
        """The part whose bytes an artifact store keeps."""
        return cls.model_validate({"source": ArtifactSource(reference=reference)})


class Text(_Frozen):
    """Text the model reads."""

    kind: Literal["text"] = "text"
    text: str


class Image(_Media):
    """An image (providers read JPEG, PNG, GIF and WebP)."""

    kind: Literal["image"] = "image"
    source: MediaSource


class Audio(_Media):
    """Audio. Providers that take no audio in tool results refuse it."""

    kind: Literal["audio"] = "audio"
    source: MediaSource


class Document(_Frozen):
    """A document (a PDF, plain text ...), with an optional file name."""

    kind: Literal["document"] = "document"
    source: MediaSource
    name: str | None = None

    @classmethod
    def from_bytes(cls, data: bytes, media_type: str, *, name: str | None = None) -> Document:
        """The document holding ``data`` inline (base64-encoded here)."""
        return cls(source=Base64Source.from_bytes(data, media_type), name=name)

    @classmethod
    def from_url(cls, url: str, media_type: str | None = None, *, name: str | None = None) -> Document:
        """The document the provider fetches from ``url``."""
        return cls(source=URLSource(url=url, media_type=media_type), name=name)

    @classmethod
    def from_artifact(cls, reference: ArtifactRef, *, name: str | None = None) -> Document:
        """The document an artifact store keeps (named as stored unless
        ``name`` is given)."""
        return cls(source=ArtifactSource(reference=reference), name=name)


class ResourceLink(_Frozen):
    """A link to a resource the model may mention or fetch (an MCP resource
    link); providers read it as text."""

    kind: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    media_type: str | None = None
    size: int | None = None


ContentPart = Annotated[Union[Text, Image, Audio, Document, ResourceLink], Field(discriminator="kind")]
"""One part of a rich tool output, by ``kind``."""

Part = Union[Text, Image, Audio, Document, ResourceLink]
"""The part classes, for ``isinstance`` checks and annotations."""

_PART_TYPES = (Text, Image, Audio, Document, ResourceLink)


def dump_parts(parts: Any) -> list[dict[str, Any]]:
    """The JSON form of a sequence of parts; a plain ``str`` is a ``Text``.

    Raises:
        TypeError: parts is not a list or tuple, or holds something that is
            neither a part nor a string.
    """
    if isinstance(parts, (str, bytes)) or not isinstance(parts, (list, tuple)):
        raise TypeError(f"parts must be a list of content parts, got {type(parts).__name__}")
    out: list[dict[str, Any]] = []
    for i, p in enumerate(parts):
        if isinstance(p, str):
            out.append({"kind": "text", "text": p})
        elif isinstance(p, _PART_TYPES):
            out.append(p.model_dump(mode="json"))
        else:
            raise TypeError(f"part {i} must be a content part (Text, Image, ...) or a str, got {type(p).__name__}")
    return out
