"""Model settings of an agent or a run (pydantic-ai's ``ModelSettings``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypedDict

__all__ = ["ModelSettings"]


class ModelSettings(TypedDict, total=False):
    """Settings sent with every model request; a key left out is unset and
    the provider's default applies.

    Pass them to ``create_agent(model_settings=...)`` for every run, or to
    ``run(..., model_settings=...)`` for one run: the run's keys replace the
    agent's, and ``extra_headers``/``extra_body`` are merged key by key. The
    runtime checks the ranges (``ValueError`` naming every problem at once).

    Keys:
        temperature: Sampling temperature, 0 to 2.
        top_p: Nucleus sampling, 0 to 1.
        max_tokens: The most tokens one response may have (positive).
        stop: Sequences that end a response.
        seed: Seed for sampling, where the provider supports it.
        parallel_tool_calls: Whether the model may ask for several calls at once.
        tool_choice: ``"auto"``, ``"none"``, ``"required"`` or a tool name.
        timeout: Seconds one request may take (its retries included).
        extra_headers: HTTP headers added to each request.
        extra_body: Keys merged into each request body.
    """

    temperature: float
    top_p: float
    max_tokens: int
    stop: list[str]
    seed: int
    parallel_tool_calls: bool
    tool_choice: str
    timeout: float
    extra_headers: dict[str, str]
    extra_body: dict[str, Any]


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_str_list(v: object) -> bool:
    return isinstance(v, (list, tuple)) and all(isinstance(s, str) for s in v)


def _is_str_map(v: object) -> bool:
    return isinstance(v, Mapping) and all(isinstance(k, str) and isinstance(x, str) for k, x in v.items())


def _is_json_map(v: object) -> bool:
    return isinstance(v, Mapping) and all(isinstance(k, str) for k in v)


_CHECKS: dict[str, tuple[Any, str]] = {
    "temperature": (_is_number, "a number"),
    "top_p": (_is_number, "a number"),
    "max_tokens": (_is_int, "an int"),
    "stop": (_is_str_list, "a list of strings"),
    "seed": (_is_int, "an int"),
    "parallel_tool_calls": (lambda v: isinstance(v, bool), "a bool"),
    "tool_choice": (lambda v: isinstance(v, str), "a str"),
    "timeout": (_is_number, "a number of seconds"),
    "extra_headers": (_is_str_map, "a dict of str to str"),
    "extra_body": (_is_json_map, "a dict with str keys"),
}


def settings_spec(value: object) -> dict[str, Any] | None:
    """The runtime's form of an optional ``model_settings`` argument.

    Only types are checked here; the runtime checks ranges. ``timeout``
    becomes ``timeout_ms`` (rounded up; a timeout of 0 or less is sent as a
    negative one, which the runtime refuses, since 0 means unset there).

    Raises:
        TypeError: not a mapping, an unknown key, or a value of the wrong type.
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"model_settings must be a dict (ModelSettings), got {type(value).__name__}")
    problems = []
    for key, v in value.items():
        check = _CHECKS.get(key)
        if check is None:
            problems.append(f"unknown key {key!r} (known: {', '.join(_CHECKS)})")
        elif not check[0](v):
            problems.append(f"{key} must be {check[1]}, got {type(v).__name__}")
    if problems:
        raise TypeError("model_settings: " + "; ".join(problems))
    spec: dict[str, Any] = {}
    for key, v in value.items():
        if key == "timeout":
            spec["timeout_ms"] = math.ceil(v * 1000) if v > 0 else min(-1, math.floor(v * 1000))
        elif key == "stop":
            spec["stop"] = list(v)
        elif key in ("extra_headers", "extra_body"):
            spec[key] = dict(v)
        else:
            spec[key] = v
    return spec
