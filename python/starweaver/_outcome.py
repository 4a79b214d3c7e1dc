"""How an exception raised by user code becomes an outcome, in one place.

Tools, preprocessors, hooks and the run driver all run user code and turn
what it raises into the outcome Go receives. A few exceptions are not the
call's failure and must propagate instead (``escapes``):

- ``KeyboardInterrupt`` and ``SystemExit`` end the run and reach its caller,
  as asyncio lets them escape a task;
- on the loop, an ``asyncio.CancelledError`` while the task is being
  cancelled from outside (Go stopped waiting: a timeout or a run cancel);
- on the loop, a ``GeneratorExit`` while the coroutine is being closed
  (its loop was closed).

Every other exception becomes the call's outcome (``failure_outcome``).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Union

from .errors import UserError, exception_to_outcome, instance_of_loaded
from .result import ResultEncodingError, result_to_outcome

Runner = Union[Coroutine[Any, Any, dict[str, Any]], Callable[[], dict[str, Any]]]
"""How the run driver runs one call of user code (``Tool._runner``,
``hooks._runner``): a coroutine to run as a task on the run's loop, or a
function to call in a worker thread. Either gives the call's outcome and
raises only what ``escapes``."""

#: Raised by user code, these end the run and reach the caller.
PASS_THROUGH = (KeyboardInterrupt, SystemExit)


def cancelled_from_outside() -> bool:
    """Whether the current task is being cancelled by someone else (Go, a
    timeout, the host). Python 3.10 cannot tell, so it assumes so."""
    import asyncio  # noqa: PLC0415 - loaded: a task is running

    task = asyncio.current_task()
    if task is None:
        return False
    cancelling = getattr(task, "cancelling", None)
    return True if cancelling is None else cancelling() > 0


def closing() -> bool:
    """Whether a GeneratorExit means the coroutine is being closed (its loop
    was closed and no loop runs it) rather than raised by user code."""
    asyncio = sys.modules.get("asyncio")
    # The one probe for a running loop that does not raise without one.
    return asyncio is None or asyncio._get_running_loop() is None  # noqa: SLF001


def escapes(exc: BaseException, *, on_loop: bool) -> bool:
    """Whether exc, raised by user code, is not the call's failure and must
    propagate (see the module docstring). on_loop says whether the code ran
    as a task on the event loop (True) or in a worker thread (False)."""
    if isinstance(exc, PASS_THROUGH):
        return True
    if not on_loop:
        return False
    if instance_of_loaded(exc, "asyncio", "CancelledError"):
        return cancelled_from_outside()
    return isinstance(exc, GeneratorExit) and closing()


def failure_outcome(exc: BaseException, *, timeout_ms: int | None) -> dict[str, Any]:
    """The outcome of a call that raised exc; a return that cannot be encoded
    (ResultEncodingError, e.g. from building a ToolResult) is a user_error."""
    if isinstance(exc, ResultEncodingError):
        return exception_to_outcome(UserError(str(exc)), timeout_ms=timeout_ms)
    return exception_to_outcome(exc, timeout_ms=timeout_ms)


def outcome_of_failure(exc: BaseException, *, on_loop: bool, timeout_ms: int | None) -> dict[str, Any]:
    """The outcome of exc raised by user code, or exc raised again when it
    escapes (``escapes``)."""
    if escapes(exc, on_loop=on_loop):
        raise exc
    return failure_outcome(exc, timeout_ms=timeout_ms)


def encode_outcome(value: Any) -> dict[str, Any]:
    """The success outcome of value, or, when value cannot be encoded, a
    user_error outcome: encoding a tool's own return fails the same way on
    every attempt, so it is not retried."""
    # intents is imported by whoever builds a Done.
    if instance_of_loaded(value, "starweaver.intents", "Done"):
        done: Any = value
        # A Done (starweaver.intents, a layer above) encodes itself.
        out: dict[str, Any] = done._outcome(encode_outcome)  # noqa: SLF001
        return out
    if instance_of_loaded(value, "starweaver.intents", "Pending"):
        pending: Any = value
        # A Pending (starweaver.intents, a layer above) encodes itself.
        encoded: dict[str, Any] = pending._outcome()  # noqa: SLF001
        return encoded
    try:
        return result_to_outcome(value)
    except (TypeError, ValueError, RecursionError) as exc:
        return failure_outcome(ResultEncodingError(str(exc)), timeout_ms=None)


def run_awaitable(awaitable: Awaitable[Any]) -> Any:
    """The value of awaitable, run to completion on a new event loop in this
    (worker) thread."""
    import asyncio  # noqa: PLC0415 - a sync tool's awaitable needs a loop

    return asyncio.run(_await(awaitable))


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable
