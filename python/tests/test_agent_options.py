"""``AgentOptions`` is the one list of agent options: every option either
goes to the agent spec under its own name (a plain option, no code of its
own), has a converter, or is read by the agent itself; and the native
runtime accepts every plain option (its spec decoder refuses unknown fields)."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any, get_args

import pytest
import starweaver.agent as agent_module
from starweaver.agent import AGENT_OPTIONS, AgentOptions, create_agent
from starweaver.runtime import create_agent_runtime
from starweaver.testing import TestModel

# Values the native runtime checks: a sample it accepts, where the type
# alone does not give one.
SAMPLES: dict[str, Any] = {"unavailable_tools": "fail"}

# The agent spec's fields, from the schema the native runtime's spec types
# export (capi/spec.schema.json).
SPEC_FIELDS = set(
    json.loads((Path(__file__).resolve().parents[2] / "capi" / "spec.schema.json").read_text())["$defs"]["agentSpec"][
        "properties"
    ]
)

# Spec fields the agent writes from other options: the model handle, the
# output spec (output_type, output_mode), the artifacts spec
# (artifact_store, artifact_scope, artifact_resolve_limit) and the host
# function of a callable destructive_policy.
WRITTEN_FIELDS = {"model", "output", "artifacts", "destructive_decider"}


def plain_options() -> list[str]:
    special = set(agent_module._SPEC_FIELDS) | agent_module._HOST_OPTIONS
    return sorted(AGENT_OPTIONS - special)


def sample(option: str) -> Any:
    if option in SAMPLES:
        return SAMPLES[option]
    annotation = AgentOptions.__annotations__[option]
    # A string or a ForwardRef (the annotations are postponed).
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__forward_arg__", None)
    assert isinstance(text, str), f"give {option!r} a sample in SAMPLES"
    first = text.split("|")[0].strip()
    if first == "int":
        return 2
    if first == "str":
        return "sample"
    if first == "bool":
        return True
    literal = getattr(agent_module, first)
    assert typing.get_origin(literal) is typing.Literal, f"give {option!r} a sample in SAMPLES"
    return get_args(literal)[0]


def test_the_option_tables_name_only_agent_options() -> None:
    assert set(agent_module._SPEC_FIELDS) <= AGENT_OPTIONS
    assert agent_module._HOST_OPTIONS <= AGENT_OPTIONS
    assert not set(agent_module._SPEC_FIELDS) & agent_module._HOST_OPTIONS
    assert set(agent_module._DEFAULTS) <= AGENT_OPTIONS
    assert AGENT_OPTIONS == set(AgentOptions.__annotations__)


def test_there_are_plain_options() -> None:
    # The generic path is exercised: plain options exist and need no code.
    assert {"name", "max_retries", "max_steps", "default_effect"} <= set(plain_options())


@pytest.mark.parametrize("option", plain_options())
def test_every_plain_option_reaches_the_spec(option: str) -> None:
    value = sample(option)
    # The native runtime builds the agent from the spec: an unknown field fails here.
    agent = create_agent(model=TestModel(), **{option: value})  # type: ignore[misc]
    assert agent._spec[option] == value


def test_every_converted_option_has_a_spec_field() -> None:
    for option, (field, convert) in agent_module._SPEC_FIELDS.items():
        assert isinstance(field, str) and field, option
        assert callable(convert), option


def test_an_unknown_option_is_refused() -> None:
    with pytest.raises(TypeError, match="unknown agent option"):
        create_agent(model=TestModel(), max_retry=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unknown agent option"):
        create_agent_runtime(model=TestModel(), max_retry=3)  # type: ignore[call-arg]


def test_the_runtime_takes_the_agent_options() -> None:
    runtime = create_agent_runtime(model=TestModel(), name="typed", max_steps=4)
    assert runtime.agent.name == "typed"
    assert runtime.agent._spec["max_steps"] == 4


def test_every_plain_option_is_a_spec_field() -> None:
    assert set(plain_options()) <= SPEC_FIELDS


def test_every_spec_field_has_an_option() -> None:
    # A native agent option on the wire (a field of the native agent
    # options with a wire name) fails here until AgentOptions names it.
    converted = {field for field, _ in agent_module._SPEC_FIELDS.values()}
    missing = SPEC_FIELDS - AGENT_OPTIONS - converted - WRITTEN_FIELDS
    assert not missing, f"agent spec fields without an AgentOptions entry: {sorted(missing)}"
