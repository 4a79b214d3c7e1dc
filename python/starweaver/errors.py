"""Starweaver exceptions and how a tool's exception becomes a tool outcome.

Tools raise the control-flow exceptions below (``ModelRetry``, ``Feedback``,
``ApprovalRequired`` ...) to choose how the runtime and the model react. Every
class corresponds to one stable Go error slug (``ERROR_KINDS``); anything else a
tool raises is an unexpected ``execution`` failure.

Classification is by ``isinstance`` against *these* classes only: a user class
that merely shares a name (``class ModelRetry(Exception)``) is an execution
failure.
"""

from __future__ import annotations

import json
import math
import sys
import traceback
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from starweaver._deprecated import forwarding

if TYPE_CHECKING:
    from pydantic import ValidationError

    from starweaver.messages import ModelMessage

__all__ = (
    "ERROR_KINDS",
    "ERROR_SLUGS",
    "AgentError",
    "ApprovalRequired",
    "ArtifactConflict",
    "ArtifactError",
    "ArtifactExpired",
    "ArtifactIntegrityError",
    "ArtifactInvalid",
    "ArtifactNotFound",
    "CallDeferred",
    "Cancelled",
    "Execution",
    "Feedback",
    "HandoffError",
    "InvalidArguments",
    "ModelError",
    "ModelRetry",
    "OutputRetryLimitExceeded",
    "SessionNotFoundError",
    "StarweaverError",
    "StateError",
    "StoreUnavailableError",
    "Timeout",
    "ToolError",
    "ToolFailed",
    "ToolIntentBudgetRefused",
    "ToolIntentDuplicateIdentity",
    "ToolIntentForeignExecutionScope",
    "ToolIntentForeignSession",
    "ToolIntentIdentityBoundToDifferentIntent",
    "ToolIntentInvalid",
    "ToolIntentMalformedKey",
    "ToolIntentRecordedOutcomeOutsideProtocol",
    "ToolIntentRefused",
    "ToolIntentSessionMismatch",
    "ToolOutputNotVisible",
    "ToolRetryLimitExceeded",
    "UsageLimitExceeded",
    "UserError",
    "describe_validation_error",
    "exception_to_outcome",
)

# Old names, for one release (see CHANGELOG.md).
if not TYPE_CHECKING:
    __getattr__ = forwarding(
        __name__,
        {
            "StoreUnavailable": "starweaver.errors:StoreUnavailableError",
        },
    )


class StarweaverError(Exception):
    """Base class of every exception Starweaver raises.

    An exception that failed a run carries the run's conversation up to the
    failure in ``messages`` (typed messages, as ``RunResult.messages``); the
    session keeps them too, so the next run continues after them. It is
    empty for other exceptions.
    """

    messages: Sequence[ModelMessage] = ()


class AgentError(StarweaverError):
    """An agent could not be built or a run failed."""


class UsageLimitExceeded(AgentError):
    """A run would have passed one of its usage limits (see ``UsageLimits``;
    ``max_steps`` is the request limit); the run fails. pydantic-ai raises an
    exception of the same name.

    Arguments:
        message: The runtime's description, naming the limit.
        limit: The limit's name (``"request_limit"``, ``"tool_calls_limit"``,
            ``"input_tokens_limit"``, ``"output_tokens_limit"``,
            ``"total_tokens_limit"``).
        value: The limit that was passed.
    """

    def __init__(self, message: str, *, limit: str | None = None, value: int | None = None) -> None:
        super().__init__(message)
        self.limit = limit
        self.value = value

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), (str(self),), {"limit": self.limit, "value": self.value}))


class ToolOutputNotVisible(AgentError):
    """A tool returned host-only output (``ToolOutput.host_only``) where
    the run's model would have read it: the run fails closed, whatever the
    tool's error handling. The call ran; its return in history says only
    that its output was withheld.

    Arguments:
        message: The runtime's description.
        tool: The tool's name.
        tool_call_id: The call's id.
    """

    def __init__(self, message: str, *, tool: str | None = None, tool_call_id: str | None = None) -> None:
        super().__init__(message)
        self.tool = tool
        self.tool_call_id = tool_call_id

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), (str(self),), {"tool": self.tool, "tool_call_id": self.tool_call_id}))


class HandoffError(AgentError):
    """A handoff could not take place: its ``on_handoff`` or
    ``input_filter`` raised (or the filter returned something other than a
    list of messages), and the run failed. The message names the transfer
    tool and carries the callback's error."""


class ToolFailed(AgentError):
    """A tool call failed under ``tool_error_policy="fail_fast"`` and ended
    the run (see ``create_agent``). The message is the runtime's, with the
    failure's full text, unredacted: the model never read it. The failed
    call's return is in ``messages``, as the model would have read it.

    Arguments:
        message: The runtime's description, ending with the full error.
        tool: The tool's name.
        tool_call_id: The call's id.
        kind: The error kind (``"execution"``, ``"timeout"``,
            ``"user_error"``, ``"invalid_output"``, ``"deferred_failed"``).
    """

    def __init__(
        self, message: str, *, tool: str | None = None, tool_call_id: str | None = None, kind: str | None = None
    ) -> None:
        super().__init__(message)
        self.tool = tool
        self.tool_call_id = tool_call_id
        self.kind = kind

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _rebuild,
            (type(self), (str(self),), {"tool": self.tool, "tool_call_id": self.tool_call_id, "kind": self.kind}),
        )


class ArtifactError(StarweaverError):
    """An artifact store refused an operation; ``type`` is the runtime's
    slug (``"artifact_not_found"`` ...)."""

    type = "artifact_error"


class ArtifactInvalid(ArtifactError, ValueError):
    """A scope, write or reference breaks an artifact rule (a malformed
    reference, content that is not its media type, a reference of another
    scope, an artifact over a size limit)."""

    type = "artifact_invalid"


class ArtifactNotFound(ArtifactError, LookupError):
    """The scope holds no artifact with that id."""

    type = "artifact_not_found"


class ArtifactConflict(ArtifactError, ValueError):
    """The idempotency key already names other content (or the same content
    with another name or expiry)."""

    type = "artifact_conflict"


class ArtifactIntegrityError(ArtifactError, ValueError):
    """The stored bytes no longer match their reference, or the reference
    presented differs from the stored one."""

    type = "artifact_integrity"


class ArtifactExpired(ArtifactError, LookupError):
    """The artifact's expiry has passed."""

    type = "artifact_expired"


class ModelError(StarweaverError):
    """A model failed or returned something the runtime cannot use.

    Arguments:
        message: What went wrong (never an API key).
        provider: The provider that reported the failure, if one did.
        status_code: Its HTTP status (401, 429, ...), if any.
        code: Its error type or code (``"invalid_api_key"``), if any;
            ``"fallback_failed"`` when every model of a ``FallbackModel``
            failed.
        attempts: For ``"fallback_failed"``, each model's failure in order
            (``model``, ``provider``, ``status_code``, ``code``, ``error``).
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status_code: int | None = None,
        code: str | None = None,
        attempts: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status_code = status_code
        self.code = code
        self.attempts: list[dict[str, Any]] = list(attempts or [])


class StateError(StarweaverError):
    """An operation is not valid in the current state (a busy session, a run
    that is not waiting, an unknown approval id).

    Arguments:
        message: What went wrong.
        code: An optional stable slug for programmatic handling.
    """

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.args, {"code": self.code}))


class SessionNotFoundError(StateError, LookupError):
    """The session store holds no session with the id asked for (see
    ``AgentRuntime.open_session``). A ``LookupError`` too; ``code`` is
    ``"session_not_found"``."""

    def __init__(self, message: str, *, code: str | None = "session_not_found") -> None:
        super().__init__(message, code=code)


class StoreUnavailableError(StarweaverError, ConnectionError):
    """A durable store (``starweaver.stores``, an artifact store) could not
    be opened, reached or written: an unreachable PostgreSQL server, an
    SQLite file that cannot be opened. A run whose end could not be saved
    raises it with the run's ``messages``; the session then refuses to run
    until opened again."""

    type = "store_unavailable"


#: The same class under its shorter name.


class ToolIntentRefused(StateError):
    """A host ingress refused a submitted intent (``ToolIntents.submit``);
    ``code`` is the library's slug (``"intent_session_mismatch"``, ...), or,
    for ``ToolIntentBudgetRefused``, the refusal's code. Nothing was
    recorded."""


class ToolIntentMalformedKey(ToolIntentRefused):
    """The key was not made by ``ToolIntents.key``."""


class ToolIntentForeignSession(ToolIntentRefused):
    """The key belongs to another session's ingress."""


class ToolIntentForeignExecutionScope(ToolIntentRefused):
    """The key belongs to another scope's ingress."""


class ToolIntentSessionMismatch(ToolIntentRefused):
    """The intent names another session than the ingress's."""


class ToolIntentIdentityBoundToDifferentIntent(ToolIntentRefused):
    """The key was submitted before with another intent."""


class ToolIntentDuplicateIdentity(ToolIntentRefused):
    """A tool call realised the key's identity; a host cannot submit it."""


class ToolIntentRecordedOutcomeOutsideProtocol(ToolIntentRefused):
    """The outcome recorded under the key is not one this protocol writes."""


class ToolIntentBudgetRefused(ToolIntentRefused):
    """Admission refused the intent (``code``: e.g.
    ``"canonical_byte_budget_exceeded"``)."""


class ToolIntentInvalid(ToolIntentRefused, ValueError):
    """A malformed intent, scope or key (no call id, an index outside
    0..2**32-1)."""


class ToolError(StarweaverError):
    """A tool failed, or a run failed because of a tool."""


class InvalidArguments(ToolError):
    """The model must call the tool again with corrected arguments."""


class ModelRetry(ToolError):
    """Asks the model to call the tool again, following the message."""


class Feedback(ToolError):
    """Agent-readable guidance for an expected condition (a missing file, an
    HTTP 404, a policy denial). Not an error for the model; spends no budget."""


class UserError(ToolError):
    """The application used or wired the tool incorrectly. Never retried."""


class Cancelled(ToolError):
    """The tool call was cancelled."""


class Timeout(ToolError):
    """The tool call took too long."""


class Execution(ToolError):
    """An unexpected failure of the tool (the ``execution`` kind), raised
    explicitly: the same outcome as any other exception a tool raises. The
    runtime re-runs the call at once, up to the tool's ``max_retries``
    more times, without the model seeing the failed attempts; the last
    failure reaches the model as an error return."""


class _HumanInTheLoop(ToolError):
    """Shared shape of the two exceptions that suspend a run."""

    _default_message = ""

    def __init__(self, reason: str | None = None, *, metadata: Mapping[str, Any] | None = None) -> None:
        if metadata is not None and not isinstance(metadata, Mapping):
            raise TypeError(f"{type(self).__name__} metadata must be a mapping, got {type(metadata).__name__}")
        super().__init__(reason or self._default_message)
        self.reason = reason
        self.metadata: dict[str, Any] = dict(metadata or {})

    def __str__(self) -> str:
        return self.reason or self._default_message

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), (self.reason,), {"metadata": self.metadata}))

    def request_metadata(self) -> dict[str, Any]:
        """The metadata sent with the request: ``metadata`` plus ``reason`` when given."""
        md = dict(self.metadata)
        if self.reason:
            md["reason"] = self.reason
        return md


class ApprovalRequired(_HumanInTheLoop):
    """Suspends the run until a person approves or denies the call.

    Arguments:
        reason: Why approval is needed; shown to the approver.
        metadata: Extra request metadata (for example ``{"risk": "high"}``).
    """

    _default_message = "approval required"


class CallDeferred(_HumanInTheLoop):
    """Suspends the run until an external result for the call is supplied.

    Arguments:
        reason: Why the call is deferred.
        metadata: Extra request metadata.
    """

    _default_message = "call deferred"


class ToolRetryLimitExceeded(ToolError):
    """A tool used up its model-correction budget; the run fails.

    Arguments:
        tool: The tool name.
        max_retries: The budget that was exceeded.
        message: Overrides the default message.
    """

    def __init__(self, tool: str, max_retries: int, message: str | None = None) -> None:
        super().__init__(message or f'tool "{tool}" exceeded max retries count of {max_retries}')
        self.tool = tool
        self.max_retries = max_retries

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.tool, self.max_retries, str(self)))


class OutputRetryLimitExceeded(ToolRetryLimitExceeded):
    """The model's structured answers kept failing validation (the output
    schema, pydantic, or an output validator's ``ModelRetry``) past the
    output-retry budget; the run fails. ``tool`` names the output tool."""


def _rebuild(cls: type[BaseException], args: tuple[Any, ...], kwargs: dict[str, Any]) -> BaseException:
    return cls(*args, **kwargs)


ERROR_SLUGS: tuple[str, ...] = (
    "not_found",
    "invalid_arguments",
    "model_retry",
    "feedback",
    "user_error",
    "execution",
    "timeout",
    "cancelled",
    "approval_required",
    "call_deferred",
    "approval_denied",
    "deferred_failed",
    "deferred_cancelled",
    "invalid_output",
)
"""Every Go tool error slug, in Go's order (``core/tool.ErrorKinds``, exported
by ``sw_error_kinds``)."""

ERROR_KINDS: dict[str, type[BaseException]] = {
    "invalid_arguments": InvalidArguments,
    "model_retry": ModelRetry,
    "feedback": Feedback,
    "user_error": UserError,
    "execution": Execution,
    "timeout": Timeout,
    "cancelled": Cancelled,
    "approval_required": ApprovalRequired,
    "call_deferred": CallDeferred,
}
"""Go error slug -> exception class, for the slugs a tool may raise. The
runtime's own have none: ``not_found`` (a call of an unknown tool), the
outcomes of resolving a paused call (``approval_denied``, ``deferred_failed``,
``deferred_cancelled``) and ``invalid_output`` (an output the runtime refused:
too large, or with a malformed content part)."""

# Checked in this order; subclasses count.
_CLASSIFICATION: tuple[tuple[type[BaseException] | tuple[type[BaseException], ...], str], ...] = (
    (InvalidArguments, "invalid_arguments"),
    (ModelRetry, "model_retry"),
    (Feedback, "feedback"),
    (UserError, "user_error"),
    (ApprovalRequired, "approval_required"),
    (CallDeferred, "call_deferred"),
    (Cancelled, "cancelled"),
    (Timeout, "timeout"),
    (Execution, "execution"),
)
# Then a pydantic ValidationError (invalid_arguments), then the cancellations
# and timeouts of these modules (none exists before its module is imported,
# which this module leaves to the code that needs it), then TimeoutError.
_STDLIB_MODULES = ("asyncio", "concurrent.futures")


def instance_of_loaded(value: object, module: str, name: str) -> bool:
    """``isinstance(value, module.name)``, False while ``module`` is not
    imported: no instance of its classes can exist before, and importing it
    to check would cost every import of starweaver its load time."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(value, getattr(loaded, name))


def _kind_of(exc: BaseException) -> str:
    for cls, kind in _CLASSIFICATION:
        if isinstance(exc, cls):
            return kind
    if instance_of_loaded(exc, "pydantic_core", "ValidationError"):
        return "invalid_arguments"
    for module in _STDLIB_MODULES:
        if instance_of_loaded(exc, module, "CancelledError"):
            return "cancelled"
        # Distinct classes on 3.10, aliases of TimeoutError from 3.11.
        if instance_of_loaded(exc, module, "TimeoutError"):
            return "timeout"
    return "timeout" if isinstance(exc, TimeoutError) else "execution"


def describe_validation_error(err: ValidationError) -> str:
    """A readable one-line summary of a pydantic error that names the failing
    fields and never repeats the values that failed."""
    parts: list[str] = []
    for e in err.errors(include_url=False, include_context=False, include_input=False):
        loc = ".".join(str(p) for p in e["loc"])
        if e["type"] == "missing":
            msg = "missing required argument" if len(e["loc"]) == 1 else "field required"
        elif e["type"] == "extra_forbidden":
            msg = "unexpected argument" if len(e["loc"]) == 1 else "unexpected field"
        else:
            msg = e["msg"]
        parts.append(f"{loc or 'arguments'}: {msg}")
    return "; ".join(parts) or "invalid arguments"


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # a broken __str__ must not break the outcome
        return f"<unprintable {type(exc).__name__}>"


def _json_safe(value: Any) -> Any:
    """value, or a JSON-compatible approximation of it (non-JSON leaves become repr strings)."""
    try:
        json.dumps(value, allow_nan=False)
        return value
    except (TypeError, ValueError):
        pass
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return repr(value)


def exception_to_outcome(exc: BaseException, *, timeout_ms: int | None) -> dict[str, Any]:
    """The failure outcome of a tool call that raised exc.

    The result is always JSON-serialisable: ``{"ok": False, "kind", "message",
    "metadata"?, "timeout_ms"?, "private_metadata"}``. ``metadata`` is present
    only for approval_required / call_deferred (the request metadata plus
    ``reason``); ``timeout_ms`` only for timeout (timeout_ms or 0). The Python
    exception type, text and traceback go to ``private_metadata`` only.
    """
    kind = _kind_of(exc)
    text = _safe_str(exc)
    if instance_of_loaded(exc, "pydantic_core", "ValidationError"):
        message = describe_validation_error(exc)  # type: ignore[arg-type]
    else:
        message = text or type(exc).__name__
    outcome: dict[str, Any] = {"ok": False, "kind": kind, "message": message}
    if isinstance(exc, _HumanInTheLoop):
        outcome["metadata"] = _json_safe(exc.request_metadata())
    if kind == "timeout":
        outcome["timeout_ms"] = int(timeout_ms or 0)
    name = type(exc).__name__
    outcome["private_metadata"] = {
        "python_exception_type": name,
        "python_exception": f"{name}: {text}" if text else name,
        "python_traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    }
    return outcome
