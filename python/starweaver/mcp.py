"""MCP toolsets: the tools of a Model Context Protocol server, as a toolset.

The runtime (core/mcp, on the official MCP Go SDK) starts or connects to the
server, lists its tools, validates each call against the server's input
schema and calls the server itself; Python only describes the toolset.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, final

from starweaver._deprecated import forwarding
from starweaver._prepare import Preparer
from starweaver.tools import _optional_int
from starweaver.toolsets import Toolset

__all__ = ["MCPToolset", "MCPTransport"]

# Old names, for one release (see CHANGELOG.md).
if not TYPE_CHECKING:
    __getattr__ = forwarding(
        __name__,
        {
            "McpToolset": "starweaver.mcp:MCPToolset",
            "McpTransport": "starweaver.mcp:MCPTransport",
        },
    )

TransportKind = Literal["stdio", "streamable_http"]
"""The kinds of transport: a child process, or a streamable HTTP endpoint."""


@final
class MCPTransport:
    """How to reach an MCP server; build it with :meth:`stdio` or
    :meth:`streamable_http`."""

    __slots__ = ("_spec",)

    def __init__(self, spec: dict[str, Any]) -> None:
        self._spec = spec

    @classmethod
    def stdio(
        cls,
        cmd: str,
        *,
        args: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> MCPTransport:
        """A server started as the child process ``cmd args...``, speaking
        MCP on its stdin and stdout. ``env`` is added to the environment it
        inherits; ``cwd`` is its working directory.

        Raises:
            TypeError: an argument of the wrong type.
            ValueError: an empty command.
        """
        if not isinstance(cmd, str):
            raise TypeError(f"cmd must be a string, got {type(cmd).__name__}")
        if not cmd.strip():
            raise ValueError("cmd must be a non-empty string")
        spec: dict[str, Any] = {"kind": "stdio", "command": cmd}
        if args is not None:
            if isinstance(args, str) or not all(isinstance(a, str) for a in args):
                raise TypeError("args must be a sequence of strings")
            spec["args"] = list(args)
        if env is not None:
            spec["env"] = _strings(env, "env")
        if cwd is not None:
            spec["cwd"] = os.fspath(cwd)
        return cls(spec)

    @classmethod
    def streamable_http(cls, url: str, *, headers: Mapping[str, str] | None = None) -> MCPTransport:
        """A server at the streamable HTTP endpoint ``url``; ``headers`` are
        sent with every request (an ``Authorization`` header, say).

        Raises:
            TypeError: an argument of the wrong type.
        """
        if not isinstance(url, str):
            raise TypeError(f"url must be a string, got {type(url).__name__}")
        spec: dict[str, Any] = {"kind": "streamable_http", "url": url}
        if headers is not None:
            spec["headers"] = _strings(headers, "headers")
        return cls(spec)

    @property
    def kind(self) -> TransportKind:
        """``"stdio"`` or ``"streamable_http"``."""
        kind: TransportKind = self._spec["kind"]
        return kind

    def _to_spec(self) -> dict[str, Any]:
        """A copy of the transport's spec (capi/internal/bridge/mcp.go's mcpTransportSpec)."""
        return copy.deepcopy(self._spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MCPTransport) and self._spec == other._spec

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        # Header and environment values may be secrets: only their names.
        if self.kind == "stdio":
            cmd = " ".join([self._spec["command"], *self._spec.get("args", [])])
            return f"MCPTransport.stdio({cmd!r})"
        return f"MCPTransport.streamable_http({self._spec['url']!r}, headers={sorted(self._spec.get('headers', {}))!r})"


class MCPToolset(Toolset):
    """The tools of an MCP server, usable wherever a :class:`Toolset` is.

    The runtime starts the server (``MCPTransport.stdio``) or connects to it
    (``MCPTransport.streamable_http``) when a run first needs its tools,
    lists them, and stops or disconnects when that run ends (the toolset
    lifecycle; building the agent starts nothing). A server that does not
    start or answer within ``init_timeout_ms`` (30 s by default) fails the
    run with an ``AgentError`` naming the toolset and its command or URL
    (and a ``toolset_unavailable`` event). With ``optional=True`` the run
    goes on without its tools instead: the ``toolset_unavailable`` event
    still reports it, and a WARNING is logged on the ``starweaver`` logger
    whether or not the run has an ``on_event`` callback (``optional`` wins
    over ``unavailable_tools="fail"``).

    Each tool is named ``{tool_prefix}_{name}`` (its server name without a
    prefix) and keeps the server's description and input schema, which
    every call is validated against before it is sent. Its definition's
    metadata has ``mcp_server_id`` (``id``), ``mcp_transport``,
    ``mcp_tool_name`` (the server's name) and ``mcp_task`` (False: the
    runtime waits for each call's result). The list is cached unless
    ``cache_tools`` is False, and listed again when the server sends
    ``notifications/tools/list_changed``; ``read_timeout_ms`` bounds each
    listing. Calls are bounded by ``timeout_ms`` (a tool timeout, as for any
    toolset); when one times out or its run is cancelled the request is
    cancelled on the server. A result that is all text reads as a string;
    images, audio, embedded resources and resource links become content
    ``parts``; a result the server marks ``isError`` is a return with
    ``is_error`` set, read by the model without any retry. With
    ``include_instructions`` the server's instructions join the prompt.
    ``headers`` are added to a streamable HTTP transport's.

    Raises:
        TypeError: an argument of the wrong type.
        ValueError: an empty id or tool prefix, or headers with a stdio
            transport.
    """

    def __init__(
        self,
        id: str,  # noqa: A002
        *,
        transport: MCPTransport,
        headers: Mapping[str, str] | None = None,
        tool_prefix: str | None = None,
        cache_tools: bool = True,
        read_timeout_ms: int | None = None,
        init_timeout_ms: int | None = None,
        include_instructions: bool = False,
        optional: bool = False,
        max_retries: int | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        if not isinstance(id, str):
            raise TypeError(f"id must be a string, got {type(id).__name__}")
        super().__init__(id, id=id, max_retries=max_retries, timeout_ms=timeout_ms)
        if not isinstance(transport, MCPTransport):
            raise TypeError(f"transport must be an MCPTransport, got {type(transport).__name__}")
        if headers is not None:
            if transport.kind != "streamable_http":
                raise ValueError("headers apply to a streamable_http transport only")
            spec = transport._to_spec()  # noqa: SLF001 - MCPTransport is this module's: its spec
            spec["headers"] = {**spec.get("headers", {}), **_strings(headers, "headers")}
            transport = MCPTransport(spec)
        if tool_prefix is not None:
            if not isinstance(tool_prefix, str):
                raise TypeError(f"tool_prefix must be a string or None, got {type(tool_prefix).__name__}")
            if not tool_prefix:
                raise ValueError("tool_prefix must be a non-empty string or None")
        for label, flag in (
            ("cache_tools", cache_tools),
            ("include_instructions", include_instructions),
            ("optional", optional),
        ):
            if not isinstance(flag, bool):
                raise TypeError(f"{label} must be a bool, got {type(flag).__name__}")
        self.transport = transport
        self.tool_prefix = tool_prefix
        self.cache_tools = cache_tools
        self.read_timeout_ms = _optional_int(read_timeout_ms, "read_timeout_ms")
        self.init_timeout_ms = _optional_int(init_timeout_ms, "init_timeout_ms")
        self.include_instructions = include_instructions
        self.optional = optional

    def _mcp_spec(self) -> dict[str, Any]:
        """The spec's "mcp" object (capi/internal/bridge/mcp.go), without defaults."""
        spec: dict[str, Any] = {"transport": self.transport._to_spec()}  # noqa: SLF001 - MCPTransport is this module's: its spec
        if self.tool_prefix is not None:
            spec["tool_prefix"] = self.tool_prefix
        if not self.cache_tools:
            spec["cache_tools"] = False
        if self.read_timeout_ms is not None:
            spec["read_timeout_ms"] = self.read_timeout_ms
        if self.init_timeout_ms is not None:
            spec["init_timeout_ms"] = self.init_timeout_ms
        if self.include_instructions:
            spec["include_instructions"] = True
        if self.optional:
            spec["optional"] = True
        return spec

    def _extra_spec(self, keep: Callable[[Preparer], None]) -> dict[str, Any]:
        return {**super()._extra_spec(keep), "kind": "mcp", "mcp": self._mcp_spec()}

    def tool_definitions(self) -> list[dict[str, Any]]:
        """Empty: the server's tools are listed by the runtime when a run
        starts (``captured_params()`` of a ``TestModel`` shows them)."""
        return []

    def __repr__(self) -> str:
        return f"MCPToolset({self.name!r}, transport={self.transport!r})"


def _strings(value: Mapping[str, str], label: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise TypeError(f"{label} must be a mapping of strings to strings")
    return dict(value)
