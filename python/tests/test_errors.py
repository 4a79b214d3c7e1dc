"""The exception hierarchy, the slug table and exception -> failure outcome."""

from __future__ import annotations

import asyncio
import json
import pickle
from typing import Any

import pytest
import starweaver
from pydantic import BaseModel, ValidationError
from starweaver import _capi
from starweaver.errors import (
    ERROR_KINDS,
    ERROR_SLUGS,
    AgentError,
    ApprovalRequired,
    CallDeferred,
    Cancelled,
    Execution,
    Feedback,
    InvalidArguments,
    ModelError,
    ModelRetry,
    OutputRetryLimitExceeded,
    StarweaverError,
    StateError,
    Timeout,
    ToolError,
    ToolRetryLimitExceeded,
    UserError,
    exception_to_outcome,
)


def raised(exc: BaseException) -> BaseException:
    """exc with a real traceback attached."""
    try:
        raise exc
    except BaseException as e:  # noqa: BLE001 - the point is to capture any kind
        return e


def test_hierarchy() -> None:
    for cls in (AgentError, ModelError, StateError, ToolError):
        assert issubclass(cls, StarweaverError)
    tool_errors: tuple[type[ToolError], ...] = (
        InvalidArguments,
        ModelRetry,
        Feedback,
        UserError,
        Execution,
        Cancelled,
        Timeout,
        ApprovalRequired,
        CallDeferred,
        ToolRetryLimitExceeded,
    )
    for sub in tool_errors:
        assert issubclass(sub, ToolError)
    assert issubclass(StarweaverError, Exception)


def test_state_error_code() -> None:
    e = StateError("session is busy", code="busy")
    assert (str(e), e.code) == ("session is busy", "busy")
    assert StateError("x").code is None


@pytest.mark.parametrize(("cls", "default"), [(ApprovalRequired, "approval required"), (CallDeferred, "call deferred")])
def test_human_in_the_loop_shape(cls: type[ApprovalRequired], default: str) -> None:
    bare = cls()
    assert (bare.reason, bare.metadata, str(bare)) == (None, {}, default)
    full = cls("deploy production", metadata={"risk": "high"})
    assert (full.reason, full.metadata, str(full)) == ("deploy production", {"risk": "high"}, "deploy production")
    with pytest.raises(TypeError, match="metadata"):
        cls("x", metadata=["not", "a", "mapping"])  # type: ignore[arg-type]


def test_retry_limit_exceeded() -> None:
    e = ToolRetryLimitExceeded("lookup", 2)
    assert (e.tool, e.max_retries) == ("lookup", 2)
    assert str(e) == 'tool "lookup" exceeded max retries count of 2'


@pytest.mark.parametrize(
    "exc",
    [
        StateError("busy", code="busy"),
        ApprovalRequired("why", metadata={"a": 1}),
        CallDeferred(metadata={"b": 2}),
        ToolRetryLimitExceeded("t", 3),
        ModelRetry("again"),
    ],
)
def test_exceptions_pickle(exc: Exception) -> None:
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc) and str(back) == str(exc)
    assert back.__dict__ == exc.__dict__


def test_error_kinds_table() -> None:
    assert ERROR_KINDS == {
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
    assert set(ERROR_KINDS) <= set(ERROR_SLUGS)
    # The runtime's own kinds: no tool raises them.
    assert set(ERROR_SLUGS) - set(ERROR_KINDS) == {
        "not_found",
        "approval_denied",
        "deferred_failed",
        "deferred_cancelled",
        "invalid_output",
    }


def test_error_kinds_match_the_library() -> None:
    """Parity: Python knows exactly the library's tool error kinds, in Go's
    order, and maps every error object slug it can return to an exception."""
    exported = _capi.error_kinds()
    assert tuple(exported["error_kinds"]) == ERROR_SLUGS
    assert list(_capi.ERROR_TYPES) == exported["error_types"]


@pytest.mark.parametrize("slug", list(_capi.ERROR_TYPES))
def test_every_error_type_maps_to_its_exception(slug: str) -> None:
    exc = _capi.error_from({"type": slug, "message": "m"})
    assert type(exc) is _capi.ERROR_TYPES[slug]


def test_output_retry_limit_has_its_own_exception() -> None:
    exc = _capi.error_from({"type": "retry_limit", "output": True, "message": "m"})
    assert isinstance(exc, OutputRetryLimitExceeded)


def test_unknown_error_type_is_a_native_error() -> None:
    exc = _capi.error_from({"type": "no_such_slug", "message": "m"})
    assert isinstance(exc, _capi.NativeError) and exc.type == "no_such_slug"


class _Ticket(BaseModel):
    id: int


def _validation_error() -> ValidationError:
    try:
        _Ticket.model_validate({"id": "secret-value"})
    except ValidationError as e:
        return e
    raise AssertionError("unreachable")


class _ModelRetryLookalike(Exception):
    pass


_ModelRetryLookalike.__name__ = "ModelRetry"


class _SubRetry(ModelRetry):
    pass


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (InvalidArguments("bad"), "invalid_arguments"),
        (ModelRetry("again"), "model_retry"),
        (_SubRetry("again"), "model_retry"),
        (Feedback("404"), "feedback"),
        (UserError("wiring"), "user_error"),
        (ApprovalRequired("why"), "approval_required"),
        (CallDeferred("later"), "call_deferred"),
        (Cancelled("stop"), "cancelled"),
        (Timeout("slow"), "timeout"),
        (_validation_error(), "invalid_arguments"),
        (asyncio.CancelledError(), "cancelled"),
        (TimeoutError("slow"), "timeout"),
        (RuntimeError("boom"), "execution"),
        (ToolError("generic"), "execution"),
        (_ModelRetryLookalike("looks like one"), "execution"),
    ],
)
def test_every_exception_maps_to_its_kind(exc: BaseException, kind: str) -> None:
    outcome = exception_to_outcome(raised(exc), timeout_ms=250)
    assert outcome["ok"] is False
    assert outcome["kind"] == kind
    json.dumps(outcome, allow_nan=False)


def test_outcome_shape_for_execution() -> None:
    outcome = exception_to_outcome(raised(RuntimeError("boom")), timeout_ms=None)
    assert set(outcome) == {"ok", "kind", "message", "private_metadata"}
    assert outcome["message"] == "boom"
    private = outcome["private_metadata"]
    assert private["python_exception_type"] == "RuntimeError"
    assert private["python_exception"] == "RuntimeError: boom"
    assert private["python_traceback"].startswith("Traceback (most recent call last):")
    assert "raise exc" in private["python_traceback"]
    # The traceback is private only.
    public = {k: v for k, v in outcome.items() if k != "private_metadata"}
    assert "Traceback" not in json.dumps(public)


def test_timeout_outcome_carries_timeout_ms() -> None:
    assert exception_to_outcome(Timeout("slow"), timeout_ms=250)["timeout_ms"] == 250
    assert exception_to_outcome(TimeoutError(), timeout_ms=None)["timeout_ms"] == 0
    assert "timeout_ms" not in exception_to_outcome(RuntimeError(), timeout_ms=250)


def test_approval_metadata() -> None:
    outcome = exception_to_outcome(ApprovalRequired("deploy production", metadata={"risk": "high"}), timeout_ms=None)
    assert outcome["kind"] == "approval_required"
    assert outcome["message"] == "deploy production"
    assert outcome["metadata"] == {"risk": "high", "reason": "deploy production"}
    bare = exception_to_outcome(CallDeferred(metadata={"worker": "w1"}), timeout_ms=None)
    assert (bare["message"], bare["metadata"]) == ("call deferred", {"worker": "w1"})


def test_only_hitl_outcomes_have_metadata() -> None:
    for exc in (ModelRetry("x"), Feedback("x"), Timeout("x"), RuntimeError("x")):
        assert "metadata" not in exception_to_outcome(exc, timeout_ms=1)


def test_validation_error_message_names_fields_not_values() -> None:
    outcome = exception_to_outcome(_validation_error(), timeout_ms=None)
    assert outcome["kind"] == "invalid_arguments"
    assert outcome["message"] == "id: Input should be a valid integer, unable to parse string as an integer"
    assert "secret-value" not in outcome["message"]
    assert outcome["private_metadata"]["python_exception_type"] == "ValidationError"


def test_outcome_is_json_even_with_hostile_values() -> None:
    class BadStr(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    outcome = exception_to_outcome(raised(BadStr()), timeout_ms=None)
    assert outcome["message"] == "<unprintable BadStr>"
    hitl = exception_to_outcome(
        ApprovalRequired("r", metadata={"obj": object(), "nan": float("nan"), "nested": {1: {2, 3}}}), timeout_ms=None
    )
    text = json.dumps(hitl, allow_nan=False)
    assert hitl["metadata"]["nan"] == "nan" and "reason" in hitl["metadata"]
    assert '"1"' in text


def test_empty_message_falls_back_to_type_name() -> None:
    assert exception_to_outcome(asyncio.CancelledError(), timeout_ms=None)["message"] == "CancelledError"


def test_public_reexports() -> None:
    exported: dict[str, Any] = {name: getattr(starweaver, name) for name in starweaver.__all__}
    for name in ("StarweaverError", "ToolError", "ModelRetry", "ApprovalRequired", "ToolRetryLimitExceeded"):
        assert exported[name] is getattr(starweaver.errors, name)


def test_public_names_resolve() -> None:
    """Every lazily exported name loads and __all__ lists exactly them."""
    import starweaver

    assert all(hasattr(starweaver, name) for name in starweaver.__all__)
    assert set(starweaver.__all__) == set(starweaver._EXPORTS) | {"__version__"}


@pytest.mark.parametrize("suffix", [b" x", b"{}", b"]", b'{"kind":"test"}', b"\x00"])
def test_the_c_abi_refuses_a_spec_with_trailing_data(suffix: bytes) -> None:
    """A spec is one JSON value: what follows it (a spec cut or glued
    together wrongly) is refused as an invalid spec, whitespace aside."""
    from starweaver._library import load  # noqa: PLC0415 - the raw C ABI, as a C host sees it

    ffi, lib = load()

    def new(data: bytes) -> tuple[int, dict[str, Any] | None]:
        handle, err = ffi.new("sw_handle *"), ffi.new("char **")
        rc = lib.sw_model_new(data, len(data), handle, err)
        if rc == 0:
            lib.sw_release(handle[0], ffi.NULL)
            return rc, None
        detail = json.loads(ffi.string(err[0]))
        lib.sw_free(err[0])
        return rc, detail

    spec = json.dumps({"kind": "test", "responses": []}).encode()
    assert new(spec + b" \n\t") == (0, None)
    rc, detail = new(spec + suffix)
    assert rc != 0 and detail is not None
    assert detail["type"] == "invalid_spec" and "after the JSON value" in detail["message"], detail
