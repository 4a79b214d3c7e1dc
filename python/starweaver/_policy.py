"""The run policy options of agents and runs: the tool error policy and
the grants, as the spec keys the runtime reads (``tool_error_policy`` and
``grants``). Only their types are checked here; the runtime checks their
values (an unknown policy raises ``ValueError``, a grant naming a tool the
run does not register ``AgentError``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

__all__ = ("ToolErrorPolicy", "grants_spec", "policy_spec")

ToolErrorPolicy = Literal["return_to_model", "fail_fast"]
"""What a run does when a tool call fails: ``"return_to_model"`` (the
default) lets the model read the call's (redacted) error return;
``"fail_fast"`` ends the run with ``ToolFailed``."""


def policy_spec(value: Any) -> str | None:
    """The ``tool_error_policy`` of a spec (None: left to the runtime).

    Raises:
        TypeError: value is not a string.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"tool_error_policy must be 'return_to_model' or 'fail_fast', got {type(value).__name__}")
    return value


def grants_spec(value: Iterable[str] | None) -> list[str] | None:
    """The ``grants`` of a run spec (None: every tool; [] none).

    Raises:
        TypeError: value is a str, or holds something other than strings.
    """
    if value is None:
        return None
    if isinstance(value, (str, bytes)):
        raise TypeError("grants must be a list of tool names, not a str")
    names = list(value)
    if not all(isinstance(n, str) for n in names):
        raise TypeError("grants must hold tool names (strings)")
    return names
