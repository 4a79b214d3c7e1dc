"""Usage limits of a run (pydantic-ai's ``UsageLimits``)."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["USAGE_KEYS", "RunUsage", "UsageLimits", "usage_dict"]

#: The keys of a usage dict (``RunResult.usage``, ``AgentSession.usage``,
#: the ``usage`` of ``model_response`` and ``run_complete`` events).
USAGE_KEYS = (
    "requests",
    "input_tokens",
    "output_tokens",
    "tool_calls",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


class RunUsage(dict[str, int]):
    """What a run (or a session) consumed: typed attributes
    (``usage.input_tokens``, ``usage.total_tokens``) over a plain dict, so
    ``usage["requests"]``, ``dict(usage)`` and JSON keep working. Input
    tokens include the cached ones; output tokens the reasoning ones."""

    @property
    def requests(self) -> int:
        """Model requests made."""
        return self.get("requests", 0)

    @property
    def input_tokens(self) -> int:
        return self.get("input_tokens", 0)

    @property
    def output_tokens(self) -> int:
        return self.get("output_tokens", 0)

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    @property
    def tool_calls(self) -> int:
        """Successful tool calls."""
        return self.get("tool_calls", 0)

    @property
    def cache_read_tokens(self) -> int:
        return self.get("cache_read_tokens", 0)

    @property
    def cache_write_tokens(self) -> int:
        return self.get("cache_write_tokens", 0)

    @property
    def reasoning_tokens(self) -> int:
        return self.get("reasoning_tokens", 0)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v}" for k, v in self.items() if v)
        return f"RunUsage({fields})"


def usage_dict(raw: object) -> RunUsage:
    """A usage from the runtime's, every key present (0 when unset)."""
    src = raw if isinstance(raw, dict) else {}
    out = RunUsage({k: int(src.get(k) or 0) for k in USAGE_KEYS})
    for k, v in src.items():
        out.setdefault(k, v)
    return out


@dataclasses.dataclass(frozen=True)
class UsageLimits:
    """Bounds on what one run may consume.

    Pass it to ``create_agent(usage_limits=...)`` for every run, or to
    ``run(..., usage_limits=...)`` for one run, whose set fields replace the
    agent's. A field left ``None`` is unset: the request limit then falls back
    to the agent's (``max_steps``, else the runtime default of 50 model
    requests) and the other limits do not apply. A limit of 0 or less is
    refused with ``ValueError``.

    As in pydantic-ai, the request limit is checked before each model request,
    the tool-call limit before each batch of calls runs (counting the batch),
    and the token limits after each response; passing one fails the run with
    ``UsageLimitExceeded``.

    Arguments:
        request_limit: Model requests per run (resumed runs included).
        tool_calls_limit: Successful tool calls per run.
        input_tokens_limit: Input tokens the model reported for the run.
        output_tokens_limit: Output tokens the model reported for the run.
        total_tokens_limit: Input plus output tokens.
    """

    request_limit: int | None = None
    tool_calls_limit: int | None = None
    input_tokens_limit: int | None = None
    output_tokens_limit: int | None = None
    total_tokens_limit: int | None = None

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"UsageLimits.{f.name} must be an int or None, got {type(value).__name__}")


def usage_limits_spec(value: object) -> dict[str, Any] | None:
    """The spec of an optional ``usage_limits`` argument, or TypeError."""
    if value is None:
        return None
    if not isinstance(value, UsageLimits):
        raise TypeError(f"usage_limits must be a UsageLimits, got {type(value).__name__}")
    # The set limits as the runtime reads them (the runtime checks values).
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if getattr(value, f.name) is not None}
