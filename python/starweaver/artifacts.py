"""Artifact stores: where tools keep binary outputs, so that conversations
carry references instead of bytes.

Give an agent a store and a scope (``create_agent(artifact_store=...,
artifact_scope="tenant.acme")``); tools then reach it as ``ctx.artifacts``
(bound to that scope), return ``Image.from_artifact(ref)`` and the like, and
the runtime reads the bytes just before each model request. Returns larger
than the agent's output budget are spilled to the store too, and the model
pages through them with the ``read_artifact`` tool.

A store is a native object (the Go runtime's ``artifact.Store``): every
kind is created from a spec and reached through the same handle, so the
durable stores plug in beside ``MemoryArtifactStore`` as new subclasses.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import weakref
from datetime import datetime
from typing import Any

from . import _capi
from .content import ArtifactRef

__all__ = ("ArtifactStore", "MemoryArtifactStore", "OutputBudget", "ToolArtifacts", "artifacts_spec")


class ArtifactStore:
    """An artifact store owned by the runtime. Use a subclass
    (``MemoryArtifactStore``).

    ``put`` and ``get`` block while the store works: use them from
    application code, and ``ctx.artifacts`` (which runs them in a thread)
    from tools.
    """

    __slots__ = ("__weakref__", "_handle", "_release")

    def __init__(self, spec: dict[str, Any]) -> None:
        self._handle = _capi.artifact_store_new(spec)
        self._release = weakref.finalize(self, _capi.release, self._handle)

    def _native_handle(self) -> int:
        return self._handle

    def put(
        self,
        scope: str,
        data: bytes,
        media_type: str,
        *,
        name: str | None = None,
        idempotency_key: str | None = None,
        expires_at: datetime | None = None,
    ) -> ArtifactRef:
        """Store ``data`` in ``scope`` and return its reference. Without an
        ``idempotency_key`` the key is derived from the content, the media
        type, the name and the expiry, so storing the same thing twice
        returns the same reference.

        Raises:
            TypeError: data is not bytes, or expires_at is naive.
            ArtifactInvalid: a rule of the write is broken (the scope, the
                key, the media type, content that is not of its media type,
                the store's size limit).
            ArtifactConflict: the key already names other content.
            StoreUnavailable: the store failed.
        """
        spec = _put_spec(scope, data, media_type, name, idempotency_key, expires_at)
        return ArtifactRef.model_validate(_capi.artifact_put(self._handle, spec, bytes(data)))

    def get(self, reference: ArtifactRef) -> bytes:
        """The bytes of the artifact ``reference`` names.

        Raises:
            TypeError: reference is not an ArtifactRef.
            ArtifactNotFound, ArtifactIntegrityError, ArtifactExpired,
            ArtifactInvalid, StoreUnavailable: as the store reports.
        """
        if not isinstance(reference, ArtifactRef):
            raise TypeError(f"reference must be an ArtifactRef, got {type(reference).__name__}")
        return _capi.artifact_get(self._handle, reference._wire())

    def close(self) -> None:
        """Release the native store now (agents built with it keep it)."""
        self._release()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(handle={self._handle})"


class MemoryArtifactStore(ArtifactStore):
    """An artifact store in process memory, for tests and single runs.

    Arguments:
        max_bytes: The largest artifact it accepts (16 MiB by default).
    """

    __slots__ = ()

    def __init__(self, *, max_bytes: int | None = None) -> None:
        spec: dict[str, Any] = {"kind": "memory"}
        if max_bytes is not None:
            spec["max_bytes"] = max_bytes
        super().__init__(spec)


def _unix_ms(at: datetime) -> int:
    if not isinstance(at, datetime):
        raise TypeError(f"expires_at must be a datetime, got {type(at).__name__}")
    if at.tzinfo is None:
        raise TypeError("expires_at must be timezone-aware (a naive datetime names no instant)")
    return int(at.timestamp() * 1000)


def _put_spec(
    scope: str,
    data: bytes,
    media_type: str,
    name: str | None,
    idempotency_key: str | None,
    expires_at: datetime | None,
) -> dict[str, Any]:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    spec: dict[str, Any] = {"scope": scope, "media_type": media_type}
    if name is not None:
        spec["name"] = name
    if expires_at is not None:
        spec["expires_at_unix_ms"] = _unix_ms(expires_at)
    if idempotency_key is None:
        h = hashlib.sha256()
        expiry = str(spec.get("expires_at_unix_ms", ""))
        for piece in (media_type.encode(), bytes(data), (name or "").encode(), expiry.encode()):
            h.update(piece)
            h.update(b"\0")
        idempotency_key = "content:" + h.hexdigest()
    spec["idempotency_key"] = idempotency_key
    return spec


class ToolArtifacts:
    """The agent's artifact store as a tool sees it (``ctx.artifacts``):
    bound to the agent's scope, so a tool neither writes into nor reads from
    another. ``put`` and ``get`` run the store's work in a thread, so a slow
    store never blocks the event loop; ``put_sync`` and ``get_sync`` block,
    for sync tools (which run in worker threads).
    """

    __slots__ = ("_scope", "_store")

    def __init__(self, store: ArtifactStore, scope: str) -> None:
        self._store = store
        self._scope = scope

    @property
    def scope(self) -> str:
        """The scope every artifact of the run lives in."""
        return self._scope

    async def put(
        self,
        data: bytes,
        mime: str,
        *,
        name: str | None = None,
        idempotency_key: str | None = None,
        expires_at: datetime | None = None,
    ) -> ArtifactRef:
        """Store ``data`` (of media type ``mime``) and return its reference
        (see ``ArtifactStore.put``; pass a stable ``idempotency_key`` when a
        retried call may produce other bytes for the same thing).

        Raises:
            As ``ArtifactStore.put``.
        """
        spec = _put_spec(self._scope, data, mime, name, idempotency_key, expires_at)
        raw = await asyncio.to_thread(_capi.artifact_put, self._store._native_handle(), spec, bytes(data))
        return ArtifactRef.model_validate(raw)

    async def get(self, ref: ArtifactRef) -> bytes:
        """The bytes of ``ref``, which must be of the run's scope.

        Raises:
            ArtifactInvalid: a reference of another scope; otherwise as
                ``ArtifactStore.get``.
        """
        if not isinstance(ref, ArtifactRef):
            raise TypeError(f"ref must be an ArtifactRef, got {type(ref).__name__}")
        return await asyncio.to_thread(_capi.artifact_get, self._store._native_handle(), ref._wire(), self._scope)

    def put_sync(
        self,
        data: bytes,
        mime: str,
        *,
        name: str | None = None,
        idempotency_key: str | None = None,
        expires_at: datetime | None = None,
    ) -> ArtifactRef:
        """``put`` for sync tools: blocks the calling (worker) thread.

        Raises:
            As ``ArtifactStore.put``.
        """
        spec = _put_spec(self._scope, data, mime, name, idempotency_key, expires_at)
        return ArtifactRef.model_validate(_capi.artifact_put(self._store._native_handle(), spec, bytes(data)))

    def get_sync(self, ref: ArtifactRef) -> bytes:
        """``get`` for sync tools: blocks the calling (worker) thread.

        Raises:
            As ``get``.
        """
        if not isinstance(ref, ArtifactRef):
            raise TypeError(f"ref must be an ArtifactRef, got {type(ref).__name__}")
        return _capi.artifact_get(self._store._native_handle(), ref._wire(), self._scope)

    def __repr__(self) -> str:
        return f"ToolArtifacts(scope={self._scope!r})"


@dataclasses.dataclass(frozen=True)
class OutputBudget:
    """How much of one tool return a conversation keeps. With an artifact
    store, a return whose model-visible text is longer than ``max_bytes``
    (32 KiB unless set) is stored in it: the model reads the first
    ``head_bytes`` (4 KiB unless set), the size and the artifact's id, and
    pages through the rest with the ``read_artifact`` tool, which the agent
    then offers. ``disabled=True`` keeps every return whole.
    """

    max_bytes: int | None = None
    head_bytes: int | None = None
    disabled: bool = False

    def _spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {}
        if self.max_bytes is not None:
            spec["max_bytes"] = self.max_bytes
        if self.head_bytes is not None:
            spec["head_bytes"] = self.head_bytes
        if self.disabled:
            spec["disabled"] = True
        return spec


def artifacts_spec(
    store: ArtifactStore | None,
    scope: str | None,
    resolve_limit: int | None,
    max_tool_output_bytes: int | None,
    output_budget: OutputBudget | None,
) -> dict[str, Any]:
    """The agent spec keys of these options (only those set).

    Raises:
        TypeError: a store without a scope or the other way round, or an
            option of the wrong type.
    """
    spec: dict[str, Any] = {}
    if (store is None) != (scope is None):
        raise TypeError("artifact_store and artifact_scope go together")
    if store is not None:
        if not isinstance(store, ArtifactStore):
            raise TypeError(f"artifact_store must be an ArtifactStore, got {type(store).__name__}")
        if not isinstance(scope, str):
            raise TypeError(f"artifact_scope must be a string, got {type(scope).__name__}")
        art: dict[str, Any] = {"store": store._native_handle(), "scope": scope}
        if resolve_limit is not None:
            art["resolve_limit"] = resolve_limit
        spec["artifacts"] = art
    elif resolve_limit is not None:
        raise TypeError("artifact_resolve_limit needs an artifact_store")
    if max_tool_output_bytes is not None:
        spec["max_tool_output_bytes"] = max_tool_output_bytes
    if output_budget is not None:
        if not isinstance(output_budget, OutputBudget):
            raise TypeError(f"output_budget must be an OutputBudget, got {type(output_budget).__name__}")
        spec["output_budget"] = output_budget._spec()
    return spec
