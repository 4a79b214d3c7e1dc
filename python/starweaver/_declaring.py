"""Which tool calls declared intents, tracked per call in a contextvar.

A tool declares intents by building a ``Done`` with intents
(``starweaver.intents``); a call that then pauses (``ApprovalRequired``,
``CallDeferred``) fails with a ``user_error`` instead. The bridge wraps every
call in this tracking, so it lives apart from the intent classes: running a
tool never imports them.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable
from typing import Any

__all__ = ["current", "declaring", "guard", "paused_after_declaring"]


class _Declared:
    """What the running call declared (one per call, in a contextvar)."""

    __slots__ = ("declared",)

    def __init__(self) -> None:
        self.declared = False


current: contextvars.ContextVar[_Declared | None] = contextvars.ContextVar("starweaver_intents", default=None)


_PAUSES = ("approval_required", "call_deferred")


def paused_after_declaring(outcome: dict[str, Any], d: _Declared) -> dict[str, Any]:
    """outcome, or a user_error when the call paused after declaring intents."""
    if d.declared and not outcome.get("ok") and outcome.get("kind") in _PAUSES:
        return {
            "ok": False,
            "kind": "user_error",
            "message": f"the tool declared intents and then paused ({outcome.get('kind')}): a call that pauses "
            "cannot declare intents; return them with the final result (Done(value, intents=[...]))",
        }
    return outcome


def declaring() -> _Declared:
    """Start tracking the declarations of the call running in the current
    context (a task's own); ``paused_after_declaring`` reads them."""
    d = _Declared()
    current.set(d)
    return d


def guard(run: Any) -> Any:
    """Wrap a tool call's runner (a coroutine or a function, see
    ``_outcome.Runner``) so that the call's declarations are tracked: a pause
    after declaring intents becomes a user_error."""
    if isinstance(run, Awaitable):

        async def guarded() -> dict[str, Any]:
            d = declaring()
            outcome: dict[str, Any] = await run
            return paused_after_declaring(outcome, d)

        return guarded()

    def guarded_sync() -> dict[str, Any]:
        d = _Declared()
        token = current.set(d)
        try:
            outcome: dict[str, Any] = run()
        finally:
            current.reset(token)
        return paused_after_declaring(outcome, d)

    return guarded_sync
