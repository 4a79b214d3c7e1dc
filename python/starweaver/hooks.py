"""Execution hooks and argument validators.

A ``Hook`` wraps tool execution: ``before_call(ctx, arguments)`` runs before
the arguments are validated and may rewrite them (in place, or by returning
a new mapping) and the call's ``ctx.metadata``; ``after_call(ctx, outcome)``
runs after each attempt and may replace an ordinary success or error
outcome, but only observes approval and deferral outcomes. Hooks given to
``create_agent(hooks=...)`` are global: on input they run before the tool's
own (``@tool(hooks=...)``, ``@my_tool.before_call``), on output after them.
Argument validators (``@my_tool.argument_validator``) run after every
before-hook. The runtime owns the order; every hook runs through the run's
pipe as a ``hook`` item (see ``capi/starweaver.h``), so global hooks also
see the calls of tools implemented in Go.

Sync hooks run in the worker pool, async ones on the run's loop. Raising a
``ToolError`` (``ModelRetry``, ``InvalidArguments``, ``UserError``, ...)
ends the call (before) or replaces its outcome (after) with that error; any
other exception becomes a ``user_error`` naming the hook.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any

from ._outcome import Runner, escapes, run_awaitable
from .context import ToolContext
from .errors import InvalidArguments, ToolError, exception_to_outcome
from .result import result_to_outcome

__all__ = ("AfterCallHook", "ArgumentValidator", "BeforeCallHook", "Hook", "ToolOutcome")

BeforeCallHook = Callable[
    [ToolContext[Any], dict[str, Any]], "Mapping[str, Any] | None | Awaitable[Mapping[str, Any] | None]"
]
"""``(ctx, arguments) -> None | new arguments`` (or an awaitable of it)."""

AfterCallHook = Callable[[ToolContext[Any], "ToolOutcome"], Any]
"""``(ctx, outcome) -> None`` (keep) or a replacement value (or an awaitable of it)."""

ArgumentValidator = Callable[[ToolContext[Any], dict[str, Any]], Any]
"""``(ctx, arguments) -> None | new arguments``; raise ``InvalidArguments`` to
ask the model to correct the call."""

_CONTROL = ("approval_required", "call_deferred")


@dataclasses.dataclass(frozen=True)
class Hook:
    """An execution hook: either phase may be left out.

    Arguments:
        before_call: ``(ctx, arguments)``, sync or async; may change the
            arguments dict in place or return a new mapping (validated
            against the tool's schema afterwards).
        after_call: ``(ctx, outcome)``, sync or async; returns None to keep
            the outcome, or a value (or ``ToolResult``) that replaces it.
        name: A name for error messages; defaults to the function's.
    """

    before_call: BeforeCallHook | None = None
    after_call: AfterCallHook | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if self.before_call is None and self.after_call is None:
            raise ValueError("a Hook needs before_call or after_call")
        for label, fn in (("before_call", self.before_call), ("after_call", self.after_call)):
            if fn is not None and not callable(fn):
                raise TypeError(f"{label} must be callable")

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        fn = self.before_call or self.after_call
        return str(getattr(fn, "__name__", type(fn).__name__))

    def _spec(self, hook_id: int) -> dict[str, Any]:
        spec: dict[str, Any] = {"id": hook_id, "name": self.label}
        if self.before_call is not None:
            spec["before"] = True
        if self.after_call is not None:
            spec["after"] = True
        return spec


@dataclasses.dataclass(frozen=True)
class ToolOutcome:
    """A call's outcome as an after-call hook sees it.

    Attributes:
        ok: Whether the call succeeded.
        content: The success content (None on failure).
        metadata: The result's metadata (or an approval/deferral's).
        error_kind: The error kind on failure (``"model_retry"``,
            ``"execution"``, ``"approval_required"``, ...), else None.
        message: The error message on failure, else None.
        is_error: Whether a success result is marked as an error.
        parts: The content parts of a rich output (``ToolOutput``), in
            their JSON form, else None.
        structured_content: A rich output's structured content, else None.
        host_only: Whether the output is ``ToolOutput.host_only``.
    """

    ok: bool
    content: Any = None
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    error_kind: str | None = None
    message: str | None = None
    is_error: bool = False
    parts: list[dict[str, Any]] | None = None
    structured_content: Any = None
    host_only: bool = False

    @property
    def is_control_flow(self) -> bool:
        """An approval or deferral: observed only, never replaced."""
        return self.error_kind in _CONTROL


def tool_outcome_from_wire(data: Mapping[str, Any]) -> ToolOutcome:
    if data.get("ok"):
        return ToolOutcome(
            ok=True,
            content=data.get("content"),
            metadata=dict(data.get("metadata") or {}),
            is_error=bool(data.get("is_error")),
            parts=data.get("parts"),
            structured_content=data.get("structured_content"),
            host_only=bool(data.get("host_only")),
        )
    return ToolOutcome(
        ok=False,
        metadata=dict(data.get("metadata") or {}),
        error_kind=str(data.get("kind") or "execution"),
        message=str(data.get("message") or ""),
    )


class _Phase:
    """One hook item: which function runs and how its value is answered."""

    def __init__(self, hook: Hook, item: Mapping[str, Any], ctx: ToolContext[Any]) -> None:
        self.hook = hook
        self.phase = item.get("phase")
        self.ctx = ctx
        self.metadata = json.dumps(ctx.metadata, sort_keys=True, default=repr)
        self.arg: Any
        if self.phase in ("before", "validate"):
            fn: Any = hook.before_call
            self.arguments: Any = dict(item.get("arguments") or {})
            self.arg = self.arguments
        elif self.phase == "after":
            fn = hook.after_call
            self.arg = tool_outcome_from_wire(item.get("outcome") or {})
        else:
            raise ValueError(f"unknown hook phase {self.phase!r}")
        if fn is None:
            raise ValueError(f"hook {hook.label!r} has no {self.phase} phase")
        self.fn: Callable[..., Any] = fn

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.fn)

    def call(self) -> Any:
        return self.fn(self.ctx, self.arg)

    def answer(self, value: Any) -> dict[str, Any]:
        if self.phase == "after":
            if value is None:
                return {"ok": True, "keep": True}
            try:
                return {"ok": True, "outcome": result_to_outcome(value)}
            except (TypeError, ValueError, RecursionError) as exc:
                return self._error(f"returned a value that cannot be encoded: {exc}")
        if value is not None:
            if not isinstance(value, Mapping):
                return self._error(f"must return None or a mapping of arguments, got {type(value).__name__}")
            self.arguments = dict(value)
        out: dict[str, Any] = {"ok": True, "arguments": self.arguments}
        if json.dumps(self.ctx.metadata, sort_keys=True, default=repr) != self.metadata:
            out["metadata"] = self.ctx.metadata
        return out

    def failure(self, exc: BaseException) -> dict[str, Any]:
        if isinstance(exc, ToolError):
            return exception_to_outcome(exc, timeout_ms=None)
        if self.phase == "validate" and isinstance(exc, ValueError):
            # As in core/tool: a validator's plain rejection asks the model
            # to correct the call (pydantic's ValidationError included).
            return exception_to_outcome(InvalidArguments(str(exc)), timeout_ms=None)
        return self._error(f"raised {type(exc).__name__}: {exc}")

    def _error(self, what: str) -> dict[str, Any]:
        kind = "argument validator" if self.phase == "validate" else f"{self.phase}_call hook"
        return {"ok": False, "kind": "user_error", "message": f"the {kind} {self.hook.label!r} {what}"}


def _runner(phase: _Phase) -> Runner:
    """How the run driver runs one hook phase (see ``_outcome.Runner``)."""
    return _run_async(phase) if phase.is_async else partial(_run_sync, phase)


async def _run_async(phase: _Phase) -> dict[str, Any]:
    try:
        value = phase.call()
        if inspect.isawaitable(value):
            value = await value
    except BaseException as exc:  # noqa: BLE001 - every outcome of user code is an outcome
        if escapes(exc, on_loop=True):
            raise
        return phase.failure(exc)
    return phase.answer(value)


def _run_sync(phase: _Phase) -> dict[str, Any]:
    try:
        value = phase.call()
        if inspect.isawaitable(value):
            value = run_awaitable(value)
    except BaseException as exc:  # noqa: BLE001
        if escapes(exc, on_loop=False):
            raise
        return phase.failure(exc)
    return phase.answer(value)
