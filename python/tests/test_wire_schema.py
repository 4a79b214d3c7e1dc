"""The specs the package sends through the C ABI match the JSON Schema Go's
spec types export (capi/spec.schema.json, kept current by a Go test): a key
Python sends that Go does not know fails here, not in a user's run."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from starweaver import (
    ClientTool,
    Hook,
    ModelSettings,
    UsageLimits,
    _capi,
    create_agent,
    tool,
)
from starweaver.agent_context import ToolCapabilityGrant
from starweaver.artifacts import MemoryArtifactStore, OutputBudget
from starweaver.catalog import ToolProxyToolset, ToolSearchToolset
from starweaver.environment import VirtualEnvironment
from starweaver.models import AnthropicModel, OpenAIModel
from starweaver.stores import SqliteStore
from starweaver.testing import FunctionModel, TestModel
from starweaver.toolsets import CombinedToolset, Toolset, user_input_tools

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "capi" / "spec.schema.json").read_text())

# The C functions whose JSON the package builds, and which argument of the
# _capi function carries it.
SPEC_ARGS = {
    "model_new": ("sw_model_new", 0),
    "agent_new": ("sw_agent_new", 0),
    "run_start": ("sw_run_start", 1),
    "store_open": ("sw_store_open", 0),
    "artifact_store_new": ("sw_artifact_store_new", 0),
    "session_set_environment": ("sw_session_set_environment", 1),
    "skills_scan": ("sw_skills_scan", 0),
    "skills_activate": ("sw_skills_activate", 0),
    "catalog_host": ("sw_catalog_host", 1),
}


def validator(function: str) -> jsonschema.protocols.Validator:
    """The validator of the spec of one C function."""
    ref = SCHEMA["$defs"]["wireSpecs"]["properties"][function]
    schema = {"$schema": SCHEMA["$schema"], "$defs": SCHEMA["$defs"], **ref}
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, list[Any]]]:
    """Every spec the package hands to the C functions, by function; each
    is checked against the schema when the test ends."""
    specs: dict[str, list[Any]] = {function: [] for function, _ in SPEC_ARGS.values()}
    for name, (function, index) in SPEC_ARGS.items():
        original = getattr(_capi, name)

        def record(*args: Any, _original: Any = original, _function: str = function, _index: int = index) -> Any:
            spec = args[_index]
            if spec is not None:
                specs[_function].append(json.loads(json.dumps(spec)))
            return _original(*args)

        monkeypatch.setattr(_capi, name, record)
    yield specs
    for function, values in specs.items():
        v = validator(function)
        for spec in values:
            errors = sorted(v.iter_errors(spec), key=lambda e: list(e.absolute_path))
            assert not errors, f"{function}: " + "; ".join(
                f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors
            )


@dataclass
class Answer:
    text: str
    score: int


@tool(effect="read_only", timeout_ms=5000, max_retries=2, max_concurrency=2, tags=["t"], metadata={"m": 1})
def lookup(key: str) -> str:
    """Look a key up."""
    return key


@tool(sequential=True, strict=True, hooks=[Hook(before_call=lambda ctx, args: args)])
async def write(path: str, text: str) -> str:
    """Write a file."""
    return path


def test_an_agent_with_every_option(sent: dict[str, list[Any]], tmp_path: Path) -> None:
    picker = ClientTool("pick_file", description="Ask the user to pick a file")
    git = Toolset("git", tools=[write], instructions="Be careful.", id="git_v1", max_retries=1, timeout_ms=1000)
    library = [Toolset("docs", tools=[lookup.replace(name="doc_lookup")], id="docs_v1")]
    with SqliteStore(str(tmp_path / "db.sqlite")) as store:
        agent = create_agent(
            model=TestModel.responses(
                [
                    TestModel.tool_call_response(
                        [{"id": "o", "name": "final_result", "arguments": {"text": "x", "score": 1}}]
                    )
                ]
            ),
            output_type=Answer,
            tools=[lookup, picker],
            toolsets=[
                git.approval_required("write").prefixed("g"),
                CombinedToolset("both", [Toolset("a", tools=[lookup.replace(name="a")])]).deferred("*"),
                ToolSearchToolset(library),
                ToolProxyToolset([Toolset("proxied", tools=[lookup.replace(name="p")], id="proxied_v1")]),
                user_input_tools(),
            ],
            instructions=["Answer briefly.", "Use tools."],
            system_prompt="You are a test.",
            name="everything",
            max_retries=2,
            timeout_ms=10_000,
            default_effect="unknown",
            sequential=False,
            max_concurrency=4,
            unavailable_tools="skip",
            active_tags=["t"],
            max_steps=9,
            usage_limits=UsageLimits(request_limit=5, tool_calls_limit=10, total_tokens_limit=1000),
            metadata={"tenant": "acme"},
            approval_required_tools=["pick_*"],
            state_key="k" * 32,
            model_settings=ModelSettings(temperature=0.5, max_tokens=100),
            output_mode="tool",
            output_retries=2,
            hooks=[Hook(before_call=lambda ctx, args: args, after_call=lambda ctx, outcome: outcome)],
            eager_dispatch=False,
            trace_content=True,
            session_store=store,
            artifact_store=MemoryArtifactStore(),
            artifact_scope="tenant.acme",
            artifact_resolve_limit=4,
            max_tool_output_bytes=4096,
            output_budget=OutputBudget(max_bytes=300 * 1024),
            tool_error_policy="fail_fast",
            effect_journal=store,
            effect_recovery="retry_safe",
            tool_capability_grants={"lookup": ToolCapabilityGrant(host_capabilities=("db",))},
            environment=VirtualEnvironment(),
            batch_tool=True,
            intent_journal=store,
        )
        session = agent.session()
        session.set_environment(VirtualEnvironment())
        result = asyncio.run(
            session.run(
                "go",
                tools=[lookup.replace(name="extra")],
                toolsets=[Toolset("run_only", tools=[lookup.replace(name="r")])],
                instructions="Run instructions.",
                metadata={"run": 1},
                usage_limits=UsageLimits(request_limit=3),
                model_settings=ModelSettings(top_p=0.9),
                active_tags=["u"],
                grants=["lookup"],
                tool_error_policy="return_to_model",
            )
        )
        assert result.output == Answer(text="x", score=1)
    for function in ("sw_model_new", "sw_agent_new", "sw_run_start", "sw_store_open", "sw_artifact_store_new"):
        assert sent[function], f"nothing sent to {function}"


def test_models(sent: dict[str, list[Any]]) -> None:
    FunctionModel(lambda messages, info: "ok")
    TestModel.responses([TestModel.tool_call_response([{"id": "c", "name": "lookup", "arguments": {"key": "k"}}]), "x"])
    OpenAIModel("gpt-4o-mini", api_key="sk-test", base_url="http://localhost:1/v1")
    AnthropicModel("claude-test", api_key="sk-test")
    assert len(sent["sw_model_new"]) == 4


def test_an_unknown_key_fails_the_schema() -> None:
    v = validator("sw_agent_new")
    assert v.is_valid({"model": 1, "tools": [{"id": 1, "definition": {"name": "t"}}]})
    assert not v.is_valid({"model": 1, "modle": 2})
    assert not v.is_valid({"model": 1, "tools": [{"id": 1, "definition": {"name": "t"}, "timeout": 3}]})
    assert not validator("sw_run_start").is_valid({"prompt": "x", "usage_limit": {}})
