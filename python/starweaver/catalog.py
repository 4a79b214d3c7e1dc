"""Large tool catalogues: a tool search and a tool proxy over many toolsets.

``ToolSearchToolset`` shows the model only ``tool_search{query}``; the tools a
search matches are listed from the next model turn on (the session records
them, and keeps them across ``export_state``). ``ToolProxyToolset`` shows the
model exactly ``search_tools{query}`` and ``call_tool{name, arguments}`` and
keeps every other tool hidden; ``call_tool`` runs the hidden tool like any
call (validation, hooks, timeouts, retries, approval). Both index their
toolsets by name, namespace (the toolset id), description and parameter
names; the runtime (core/catalog) does the work, this module describes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from starweaver import _capi
from starweaver._catalog import Catalog
from starweaver._prepare import Preparer
from starweaver.tools import _optional_int
from starweaver.toolsets import CombinedToolset, Toolset

__all__ = [
    "ToolLibrary",
    "ToolProxyToolset",
    "ToolSearchRefreshBinding",
    "ToolSearchToolset",
    "ToolsetIdIssue",
    "ToolsetIdValidation",
]


@dataclass(frozen=True)
class ToolsetIdIssue:
    """One problem of a library's toolset ids. ``code`` is ``empty_name``,
    ``duplicate_name`` (a warning), ``missing_id``, ``empty_id`` or
    ``duplicate_id``."""

    code: str
    toolset: str
    message: str


@dataclass(frozen=True)
class ToolsetIdValidation:
    """What ``ToolLibrary.validate_ids`` found: errors make ids unusable as
    namespaces and durable identities; warnings do not."""

    errors: tuple[ToolsetIdIssue, ...] = ()
    warnings: tuple[ToolsetIdIssue, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.errors

    def raise_for_errors(self) -> None:
        """Raise ``ValueError`` listing every error, if there is one."""
        if self.errors:
            raise ValueError("invalid toolset ids: " + "; ".join(e.message for e in self.errors))

    def to_dict(self) -> dict[str, Any]:
        def issues(items: tuple[ToolsetIdIssue, ...]) -> list[dict[str, str]]:
            return [{"code": i.code, "toolset": i.toolset, "message": i.message} for i in items]

        return {"ok": self.ok, "errors": issues(self.errors), "warnings": issues(self.warnings)}


class ToolLibrary:
    """The toolsets a catalogue indexes. Each toolset's ``id`` is its
    namespace: give every toolset one (``validate_ids`` checks); a toolset
    without one contributes "loose" tools, searchable only by their own
    names and descriptions."""

    def __init__(self, toolsets: Iterable[Toolset]) -> None:
        self.toolsets: list[Toolset] = list(toolsets)
        for ts in self.toolsets:
            if not isinstance(ts, Toolset):
                raise TypeError(f"ToolLibrary holds Toolset instances, got {type(ts).__name__}")

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The definitions of every toolset's own tools, in order."""
        return [d for ts in self.toolsets for d in ts.tool_definitions()]

    def validate_ids(self, *, require_ids: bool = True) -> ToolsetIdValidation:
        """Check the toolsets' names and ids: a blank name, a blank id, a
        duplicate id and (with ``require_ids``) a missing id are errors; a
        duplicate name is a warning."""
        errors: list[ToolsetIdIssue] = []
        warnings: list[ToolsetIdIssue] = []
        names: set[str] = set()
        ids: set[str] = set()
        for ts in self.toolsets:
            if not ts.name.strip():
                errors.append(ToolsetIdIssue("empty_name", ts.name, "a toolset has an empty name"))
            elif ts.name in names:
                warnings.append(ToolsetIdIssue("duplicate_name", ts.name, f"toolset name {ts.name!r} is used twice"))
            names.add(ts.name)
            if ts.id is None:
                if require_ids:
                    errors.append(ToolsetIdIssue("missing_id", ts.name, f"toolset {ts.name!r} has no id"))
            elif not ts.id.strip():
                errors.append(ToolsetIdIssue("empty_id", ts.name, f"toolset {ts.name!r} has an empty id"))
            elif ts.id in ids:
                errors.append(ToolsetIdIssue("duplicate_id", ts.name, f"toolset id {ts.id!r} is used twice"))
            else:
                ids.add(ts.id)
        return ToolsetIdValidation(tuple(errors), tuple(warnings))

    def __repr__(self) -> str:
        return f"ToolLibrary({[ts.name for ts in self.toolsets]!r})"


@dataclass
class ToolSearchRefreshBinding:
    """When a host's catalogue is due for a refresh: an inventory change is
    due once pending for ``debounce_ms`` (reason ``inventory_changed``),
    otherwise a refresh is due every ``interval_ms`` (``interval_elapsed``;
    0 means never). Every decision depends only on these fields and the
    ``now_ms`` given, so it is deterministic; the runtime makes it and
    updates the fields."""

    interval_ms: int = 0
    debounce_ms: int = 0
    last_refresh_ms: int = 0
    inventory_version: int = 0
    pending_inventory_version: int = 0
    pending_since_ms: int = 0

    def inventory_changed(self, version: int, now_ms: int) -> None:
        """Record that the inventory is now at ``version``."""
        request = {"op": "inventory_changed", "toolset": _NO_TOOLSET, "binding": self._wire()}
        out = _capi.catalog_host(0, {**request, "version": version, "now_ms": now_ms})
        self._update(out)

    def _wire(self) -> dict[str, int]:
        return {
            "interval_ms": self.interval_ms,
            "debounce_ms": self.debounce_ms,
            "last_refresh_ms": self.last_refresh_ms,
            "inventory_version": self.inventory_version,
            "pending_inventory_version": self.pending_inventory_version,
            "pending_since_ms": self.pending_since_ms,
        }

    def _update(self, wire: Mapping[str, Any]) -> None:
        for key in self._wire():
            setattr(self, key, int(wire.get(key, 0)))


# The operations that use only the binding still name a catalogue.
_NO_TOOLSET: dict[str, Any] = {"name": "tool_search", "catalog": {"kind": "tool_search"}}


def _as_library(library: ToolLibrary | Iterable[Toolset]) -> ToolLibrary:
    return library if isinstance(library, ToolLibrary) else ToolLibrary(library)


class _Catalogue(CombinedToolset):
    """What both catalogues share: the spec and the host operations."""

    _kind: Literal["tool_search", "tool_proxy"]

    def __init__(self, name: str, library: ToolLibrary | Iterable[Toolset], max_results: int | None) -> None:
        self.library = _as_library(library)
        super().__init__(name, self.library.toolsets)
        self.max_results = _optional_int(max_results, "max_results")

    def _catalog_spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {"kind": self._kind}
        if self.max_results is not None:
            spec["max_results"] = self.max_results
        return spec

    def _extra_spec(self, keep: Callable[[Preparer], None]) -> dict[str, Any]:
        return {**super()._extra_spec(keep), "catalog": self._catalog_spec()}

    def _host(self, op: str, session: _capi.NativeOwner | None, **extra: Any) -> Any:
        spec = Catalog().toolset_spec(self)
        spec.pop("layers", None)  # the operations address the catalogue itself
        handle = 0 if session is None else session._native_handle()
        return _capi.catalog_host(handle, {"toolset": spec, "op": op, **extra})

    # ------------------------------------------------------------ host APIs

    def initialization_report(self) -> dict[str, Any]:
        """The indexed tools and namespaces, availability unchecked:
        ``{"toolset_name", "search_tool_name", "total_tools",
        "total_namespaces", "loose_tools", "namespaces": [{"namespace",
        "status", "tools", "total_tools", "available_tools",
        "unavailable_tools"}], "available_tools", "unavailable_tools",
        "availability_checked", "max_results"}``."""
        result: dict[str, Any] = self._host("initialization_report", None)
        return result

    def refresh_report(self, session: _capi.NativeOwner | None = None) -> dict[str, Any]:
        """``initialization_report`` with each tool's availability checked.
        Checks that call back into Python (a tool's ``available`` or
        ``prepare``) run only during a run; outside one such tools count as
        available."""
        result: dict[str, Any] = self._host("refresh_report", session)
        return result

    def publish_initialization_report(self, session: _capi.NativeOwner) -> dict[str, Any]:
        """``initialization_report``, also published on ``session`` as a
        ``tool_search_initialized`` event (delivered at its next run)."""
        result: dict[str, Any] = self._host("publish_initialization_report", session)
        return result

    def publish_refresh_report(self, session: _capi.NativeOwner) -> dict[str, Any]:
        """``refresh_report``, also published on ``session`` as a
        ``tool_search_refreshed`` event, without changing its loaded state."""
        result: dict[str, Any] = self._host("publish_refresh_report", session)
        return result

    def preload_namespace(self, session: _capi.NativeOwner, namespace: str) -> dict[str, Any]:
        """Load ``namespace`` and all its tools in ``session``, as a search
        matching it would (event ``tool_search_loaded`` at the next run).

        Raises:
            ValueError: an unknown namespace.
        """
        result: dict[str, Any] = self._host("preload_namespace", session, namespace=namespace)
        return result

    def refresh_loaded_state(self, session: _capi.NativeOwner) -> dict[str, Any]:
        """Re-read the toolsets and drop from ``session``'s loaded state the
        tools and namespaces that are gone or unavailable (event
        ``tool_search_refreshed``). Returns ``{"report",
        "removed_loaded_tools", "removed_loaded_namespaces",
        "retained_loaded_tools", "retained_loaded_namespaces"}``."""
        result: dict[str, Any] = self._host("refresh", session)
        return result

    def invalidate_loaded_state(self, session: _capi.NativeOwner, reason: str) -> dict[str, Any]:
        """Forget this catalogue's loaded tools and namespaces in
        ``session`` (event ``tool_search_invalidated`` with ``reason``)."""
        result: dict[str, Any] = self._host("invalidate", session, reason=reason)
        return result

    def refresh_loaded_state_if_due(
        self, session: _capi.NativeOwner, binding: ToolSearchRefreshBinding, now_ms: int
    ) -> dict[str, Any] | None:
        """``refresh_loaded_state`` when ``binding`` says one is due at
        ``now_ms`` (``binding`` is updated), else None."""
        out = self._host("refresh_if_due", session, binding=binding._wire(), now_ms=now_ms)  # noqa: SLF001 - the binding is this module's: the host op reads and updates it
        binding._update(out["binding"])  # noqa: SLF001 - the binding is this module's: the host op reads and updates it
        result: dict[str, Any] | None = out["result"]
        return result


class ToolSearchToolset(_Catalogue):
    """The model first sees only ``tool_search{query}``; each search loads
    the tools it matches (a matched namespace loads all its tools), which the
    model can call directly from its next turn. The loaded state belongs to
    the session and survives ``export_state``/``session_from_state``.
    ``max_results`` bounds the index entries a search keeps (default 5)."""

    _kind = "tool_search"

    def __init__(self, library: ToolLibrary | Iterable[Toolset], *, max_results: int | None = None) -> None:
        super().__init__("tool_search", library, max_results)

    def __repr__(self) -> str:
        return f"ToolSearchToolset({[ts.name for ts in self.library.toolsets]!r})"


class ToolProxyToolset(_Catalogue):
    """The model sees exactly ``search_tools{query}`` and
    ``call_tool{name, arguments}`` (with ``prefix``: ``{prefix}_search_tool``
    and ``{prefix}_call_tool``); the library's tools are never listed and a
    direct call of one is not found. ``call_tool`` runs the named tool
    through the runtime like any call. ``namespace_descriptions`` describe
    toolset ids for search and for the instructions. A prefix that is not a
    name is refused when the agent is built (``ValueError``)."""

    _kind = "tool_proxy"

    def __init__(
        self,
        library: ToolLibrary | Iterable[Toolset],
        *,
        prefix: str | None = None,
        max_results: int | None = None,
        namespace_descriptions: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__("tool_proxy", library, max_results)
        if prefix is not None and not isinstance(prefix, str):
            raise TypeError(f"prefix must be a str or None, got {type(prefix).__name__}")
        self.prefix = prefix
        self.namespace_descriptions: dict[str, str] | None = (
            dict(namespace_descriptions) if namespace_descriptions is not None else None
        )

    def _catalog_spec(self) -> dict[str, Any]:
        spec = super()._catalog_spec()
        if self.prefix:
            spec["prefix"] = self.prefix
        if self.namespace_descriptions is not None:
            spec["namespace_descriptions"] = self.namespace_descriptions
        return spec

    def __repr__(self) -> str:
        return f"ToolProxyToolset({[ts.name for ts in self.library.toolsets]!r}, prefix={self.prefix!r})"
