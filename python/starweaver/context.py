"""ToolContext: the per-call view of the run a tool executes in."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, cast

from typing_extensions import TypeVar

from .dependencies import narrow
from .errors import UserError

if TYPE_CHECKING:
    import asyncio

    from .agent_context import AgentContext, ContextHandle
    from .artifacts import ToolArtifacts

__all__ = ("ToolContext", "ToolRuntimeSnapshot")

DepsT = TypeVar("DepsT", default=Any)
"""The type of a run's ``deps=`` object as a tool sees it (``ToolContext[MyDeps]``)."""

_EMPTY: Mapping[str, Any] = MappingProxyType({})
_MISSING: Any = object()


@dataclasses.dataclass(frozen=True)
class ToolRuntimeSnapshot:
    """The read-only view of the runtime a call receives
    (``ctx.runtime``), copied when the call starts: what a tool gets
    instead of the whole agent context.

    Attributes:
        limits: The run's usage limits (``request_limit``,
            ``tool_calls_limit``, ``input_tokens_limit``,
            ``output_tokens_limit``, ``total_tokens_limit``; a limit not set
            is absent, except the request limit, always the effective one).
        max_retries: The tool's effective retry budget.
        timeout_ms: The tool's effective timeout, or None for none.
        shell_environment: The configured shell environment for a Legacy
            tool; None for Filtered and Strict tools, whose snapshot never
            holds shell values (they read ``ctx.shell_environment`` when
            they declare it), and when none is configured.
    """

    limits: Mapping[str, int]
    max_retries: int
    timeout_ms: int | None
    shell_environment: Mapping[str, str] | None

    @classmethod
    def from_wire(cls, data: Mapping[str, Any] | None) -> ToolRuntimeSnapshot:
        """The snapshot from the runtime's JSON (empty for none)."""
        data = data or {}
        env = data.get("shell_environment")
        return cls(
            limits=MappingProxyType({str(k): int(v) for k, v in (data.get("limits") or {}).items()}),
            max_retries=int(data.get("max_retries") or 0),
            timeout_ms=int(data["timeout_ms"]) if data.get("timeout_ms") else None,
            shell_environment=MappingProxyType(dict(env)) if env is not None else None,
        )


def _resolve(fut: asyncio.Future[bool]) -> None:
    if not fut.done():
        fut.set_result(True)


class ToolContext(Generic[DepsT]):
    """The run state a tool sees during one call. Read-only.

    Add a first parameter annotated ``ToolContext`` (or an unannotated one
    named ``ctx``) to a tool to receive it.

    Attributes:
        run_id: The run's id.
        conversation_id: The conversation the run belongs to.
        run_step: The model step that requested the call.
        tool_call_id: The id of this call.
        tool_name: The called tool's name.
        retry: Earlier attempts of this tool in the run (model corrections
            plus internal re-executions); 0 on the first attempt.
        max_retries: The tool's effective retry budget.
        approval: None on a first call; the person's decision once the call
            was approved (``{"status": "approved", "metadata": {...},
            "arguments": {...}, ...}``; ``arguments`` are the call's
            arguments as the model sent them).
        metadata: Per-run metadata.
        deps: The run's ``deps=`` value as this tool may see it, typed as
            ``DepsT`` (``ToolContext[MyDeps]``): the object itself, or, for
            a mapping of named dependencies, a read-only view of the names
            the tool's dependency profile grants (empty when none).

    ``dependency(name)`` returns one named dependency the tool may use, and
    ``artifacts`` the agent's artifact store, bound to its scope (see
    ``starweaver.artifacts``).

    Cancellation is cooperative: ``is_cancelled()`` checks it, ``await
    cancelled()`` waits for it (on any event loop), and ``wait_cancelled()``
    blocks a worker thread until it happens.
    """

    __slots__ = (
        "_approval",
        "_artifacts",
        "_authority",
        "_session",
        "_cancel_event",
        "_cancelled",
        "_completion_key",
        "_conversation_id",
        "_deps",
        "_idempotency_key",
        "_lock",
        "_max_retries",
        "_metadata",
        "_retry",
        "_run_id",
        "_run_step",
        "_runtime",
        "_tool_call_id",
        "_tool_name",
        "_waiters",
    )

    def __init__(
        self,
        *,
        run_id: str = "",
        conversation_id: str = "",
        run_step: int = 0,
        tool_call_id: str = "",
        tool_name: str = "",
        retry: int = 0,
        max_retries: int = 0,
        idempotency_key: str = "",
        completion_key: str | None = None,
        approval: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        deps: Any = None,
        artifacts: ToolArtifacts | None = None,
        authority: Mapping[str, Any] | None = None,
        session: int | None = None,
        runtime: Mapping[str, Any] | None = None,
    ) -> None:
        self._run_id = run_id
        self._authority = authority
        # The runtime's JSON; ``runtime`` builds the snapshot when read.
        self._runtime = runtime
        self._session = session
        deps = narrow(deps, authority)
        self._artifacts = artifacts
        self._conversation_id = conversation_id
        self._run_step = run_step
        self._tool_call_id = tool_call_id
        self._tool_name = tool_name
        self._retry = retry
        self._max_retries = max_retries
        self._idempotency_key = idempotency_key
        self._completion_key = completion_key or None
        self._approval = dict(approval) if approval is not None else None
        self._metadata = dict(metadata or {})
        if deps is None:
            deps = _EMPTY
        elif isinstance(deps, Mapping) and not isinstance(deps, MappingProxyType):
            deps = MappingProxyType(dict(deps))
        self._deps: Any = deps
        self._lock = threading.Lock()
        self._cancelled = False
        # Created only when a sync tool blocks on it: most calls never do,
        # and an Event costs more than the rest of the context together.
        self._cancel_event: threading.Event | None = None
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[bool]]] = []

    @property
    def profile(self) -> str:
        """The call's effective dependency profile: ``"legacy"``,
        ``"filtered"`` or ``"strict"``."""
        return str((self._authority or {}).get("profile") or "legacy")

    @property
    def context_capabilities(self) -> tuple[str, ...]:
        """The context capabilities the runtime authorised for this call."""
        return tuple((self._authority or {}).get("context_capabilities") or ())

    @property
    def shell_environment(self) -> Mapping[str, str] | None:
        """The configured shell environment, when this call may see it
        (``AgentContext.set_shell_environment``); None otherwise."""
        env = (self._authority or {}).get("shell_environment")
        return MappingProxyType(dict(env)) if env is not None else None

    def context_handle(self, capability: str) -> ContextHandle | None:
        """The narrow handle of a context capability the runtime authorised
        for this call (``starweaver.context.tool_search``, ``.tasks``,
        ``.usage``, ``.handoff``), or None: declared ones for Legacy and
        Filtered tools, declared and granted ones for Strict tools."""
        if self._session is None or capability not in self.context_capabilities:
            return None
        from .agent_context import handle_for

        return handle_for(capability, self._session)

    @property
    def agent_context(self) -> AgentContext | None:
        """The session's agent context, for Legacy calls only (Filtered and
        Strict calls never receive the broad context); None outside a
        session-backed run."""
        if self._session is None or self.profile != "legacy":
            return None
        from .agent_context import AgentContext

        return AgentContext(self._session)

    @property
    def runtime(self) -> ToolRuntimeSnapshot:
        """The call's read-only snapshot of the run's limits, its budgets
        and, for a Legacy tool, the shell configuration (see
        ``ToolRuntimeSnapshot``)."""
        return ToolRuntimeSnapshot.from_wire(self._runtime)

    @property
    def run_id(self) -> str:
        return self._run_id

    @property
    def idempotency_key(self) -> str:
        """The call's stable key, from the conversation, the run, the step
        and the call's position in the model's response: the same for every
        attempt of the call and after a crash. Hand it to the service a
        write goes to (an ``effect="idempotent_write"`` tool is one whose
        service deduplicates by it)."""
        return self._idempotency_key

    @property
    def completion_key(self) -> str | None:
        """The completion key the runtime reserved for this call, for a tool
        declared ``@tool(attempt_may_defer=True)`` (None for any other):
        hand it to whatever produces the result later; the host completes
        the call's ``Pending`` with it. It is the same in every attempt,
        replay and recovery of the call."""
        return self._completion_key

    @property
    def conversation_id(self) -> str:
        return self._conversation_id

    @property
    def run_step(self) -> int:
        return self._run_step

    @property
    def tool_call_id(self) -> str:
        return self._tool_call_id

    @property
    def tool_name(self) -> str:
        return self._tool_name

    @property
    def retry(self) -> int:
        return self._retry

    @property
    def max_retries(self) -> int:
        return self._max_retries

    @property
    def approval(self) -> dict[str, Any] | None:
        return self._approval

    @property
    def metadata(self) -> dict[str, Any]:
        return self._metadata

    @property
    def deps(self) -> DepsT:
        return cast(DepsT, self._deps)

    @property
    def artifacts(self) -> ToolArtifacts:
        """The agent's artifact store, bound to its scope: ``await
        ctx.artifacts.put(data, "image/png")`` stores bytes and returns an
        ``ArtifactRef`` to return in an output (``Image.from_artifact``).

        Raises:
            UserError: the agent has no artifact store.
        """
        if self._artifacts is None:
            raise UserError(
                "no artifact store is configured for this agent (create_agent(artifact_store=..., artifact_scope=...))"
            )
        return self._artifacts

    def dependency(self, name: str, default: Any = _MISSING) -> Any:
        """The named dependency ``name`` (a key of a mapping passed as
        ``deps=``) if this tool's dependency profile grants it.

        Raises:
            UserError: the run has no such dependency, or the tool's profile
                does not grant it, and no default was given.
        """
        named = self._deps if isinstance(self._deps, Mapping) else _EMPTY
        if name in named:
            return named[name]
        if default is not _MISSING:
            return default
        raise UserError(f"dependency {name!r} is not available to tool {self._tool_name!r}")

    def is_cancelled(self) -> bool:
        """Whether cancellation of this call has been requested."""
        return self._cancelled

    async def cancelled(self) -> bool:
        """Waits until cancellation is requested, then returns True.

        Works on any event loop, including one a sync tool starts in its
        worker thread.
        """
        import asyncio  # noqa: PLC0415 - loaded: a loop runs this

        loop = asyncio.get_running_loop()
        with self._lock:
            if self._cancelled:
                return True
            fut: asyncio.Future[bool] = loop.create_future()
            entry = (loop, fut)
            self._waiters.append(entry)
        try:
            return await fut
        finally:
            with self._lock:
                if entry in self._waiters:
                    self._waiters.remove(entry)

    def wait_cancelled(self, timeout: float | None = None) -> bool:
        """Blocks the calling thread until cancellation is requested or timeout
        seconds pass; returns whether it was requested. For sync tools only:
        never call it on an event loop."""
        with self._lock:
            if self._cancelled:
                return True
            if self._cancel_event is None:
                self._cancel_event = threading.Event()
            event = self._cancel_event
        return event.wait(timeout)

    def _request_cancel(self) -> None:
        """Requests cancellation. Safe from any thread; idempotent. Wakes every
        ``cancelled()`` awaiter through its own loop."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            if self._cancel_event is not None:
                self._cancel_event.set()
            waiters, self._waiters = self._waiters, []
        for loop, fut in waiters:
            # RuntimeError: the waiter's loop is closed, so nobody is left to wake.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_resolve, fut)

    def __repr__(self) -> str:
        return (
            f"ToolContext(run_id={self._run_id!r}, tool_name={self._tool_name!r}, "
            f"tool_call_id={self._tool_call_id!r}, retry={self._retry}, cancelled={self.is_cancelled()})"
        )


def tool_context_from_wire(
    data: Mapping[str, Any],
    deps: Any = None,
    artifacts: ToolArtifacts | None = None,
    session: int | None = None,
) -> ToolContext[Any]:
    """Builds the context from the JSON object Go sends with a call.

    Keys: run_id, conversation_id, run_step, tool_call_id, tool_name,
    retry, max_retries, approval, metadata, authority; missing keys take
    defaults. ``deps`` are the run's, narrowed here by the authority.
    """
    approval = data.get("approval")
    return ToolContext(
        run_id=str(data.get("run_id") or ""),
        conversation_id=str(data.get("conversation_id") or ""),
        run_step=int(data.get("run_step") or 0),
        tool_call_id=str(data.get("tool_call_id") or ""),
        tool_name=str(data.get("tool_name") or ""),
        retry=int(data.get("retry") or 0),
        max_retries=int(data.get("max_retries") or 0),
        idempotency_key=str(data.get("idempotency_key") or ""),
        completion_key=data.get("completion_key") or None,
        approval=approval if isinstance(approval, Mapping) else None,
        metadata=data.get("metadata") or {},
        deps=deps,
        artifacts=artifacts,
        authority=data.get("authority"),
        session=session,
        runtime=data.get("runtime"),
    )
