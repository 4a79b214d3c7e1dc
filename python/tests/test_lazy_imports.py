"""What importing starweaver and building a primitive-typed tool load.

pydantic is imported only by the code paths that need it (a pydantic
annotation, a rich annotation, the arguments model of a call that converts
values); ``from starweaver import tool`` and ``tool(f)`` of primitive
parameters need none of it. Each check runs in a fresh interpreter, as only
there is ``sys.modules`` clean."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import starweaver

PACKAGE_PARENT = str(Path(starweaver.__file__).resolve().parent.parent)


def run(code: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, check=False, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def test_building_a_primitive_tool_does_not_import_pydantic() -> None:
    out = run(
        """
        import json, sys
        from typing import Literal
        from starweaver import tool

        def lookup(city: str, days: int = 3, units: Literal["c", "f"] = "c", tags: list[str] | None = None) -> str:
            '''Look up.

            Args:
                city: The city.
            '''
            return city

        def add(a: int, b: int = 1) -> int:
            return a + b

        t = tool(lookup)
        before = "pydantic" in sys.modules
        plain = tool(add)._schema.bind(None, {"a": 1, "b": 2})
        after_plain = "pydantic" in sys.modules
        converted = t._schema.bind(None, {"city": "x", "tags": ["a"]})
        print(json.dumps({"before": before, "after_plain": after_plain, "schema": t.parameters_schema,
                          "converted": converted[1], "after": "pydantic" in sys.modules}))
        """
    )
    assert out["before"] is False
    assert out["after_plain"] is False
    # A call that needs the arguments model imports pydantic then, and converts.
    assert out["after"] is True
    assert out["converted"] == {"city": "x", "tags": ["a"]}
    assert out["schema"] == {
        "additionalProperties": False,
        "properties": {
            "city": {"type": "string", "description": "The city."},
            "days": {"type": "integer", "default": 3},
            "units": {"type": "string", "enum": ["c", "f"], "default": "c"},
            "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}], "default": None},
        },
        "required": ["city"],
        "type": "object",
    }


def test_a_pydantic_annotation_still_builds_its_model() -> None:
    out = run(
        """
        import json, sys
        from pydantic import BaseModel
        from starweaver import tool

        class Point(BaseModel):
            x: int

        def move(p: Point) -> int:
            return p.x

        t = tool(move)
        print(json.dumps({"style": t._schema.style, "schema": t.parameters_schema}))
        """
    )
    assert out["style"] == "model"
    assert out["schema"] == {"properties": {"x": {"type": "integer"}}, "required": ["x"], "type": "object"}


def test_errors_classify_pydantic_errors_once_pydantic_is_loaded() -> None:
    from pydantic import BaseModel, ValidationError
    from starweaver.errors import exception_to_outcome

    class M(BaseModel):
        n: int

    try:
        M.model_validate({"n": "x"})
    except ValidationError as e:
        outcome = exception_to_outcome(e, timeout_ms=None)
    assert outcome["kind"] == "invalid_arguments"
    assert outcome["message"].startswith("n:")


#: Modules only some agents use; building an agent and running it with a
#: tool call loads none of them (nor pydantic).
ON_FIRST_USE = (
    "asyncio",
    "pydantic",
    "starweaver.agent_context",
    "starweaver.artifacts",
    "starweaver.content",
    "starweaver.dynamic",
    "starweaver.environment",
    "starweaver.hitl",
    "starweaver.intents",
    "starweaver.messages",
    "starweaver.shell",
    "starweaver.stores",
    "starweaver.streaming",
)


def test_an_agent_run_loads_only_what_it_uses() -> None:
    out = run(
        f"""
        import json, sys
        from starweaver import _library, create_agent, tool
        from starweaver.testing import TestModel

        def loaded():
            return sorted(m for m in {ON_FIRST_USE!r} if m in sys.modules)

        imported = loaded()
        native_at_import = _library.loaded()
        import asyncio

        @tool
        async def add(left: int, right: int) -> int:
            return left + right

        calls = [{{"id": "a", "name": "add", "arguments": {{"left": 2, "right": 3}}}}]
        model = TestModel.responses([TestModel.tool_call_response(calls), "done"])
        result = asyncio.run(create_agent(model=model, tools=[add]).run("go"))
        after_run = [m for m in loaded() if m != "asyncio"]  # the run's own
        # Reading the messages loads their models then.
        returns = [(type(p).__name__, p.content) for p in result.tool_returns()]
        print(json.dumps({{"imported": imported, "native_at_import": native_at_import, "output": result.output,
                          "after_run": after_run, "returns": returns, "after_messages": loaded()}}))
        """
    )
    assert out["imported"] == [] and out["native_at_import"] is False
    assert out["output"] == "done"
    assert out["after_run"] == []
    assert out["returns"] == [["ToolReturnPart", 5]]
    after_messages = out["after_messages"]
    assert isinstance(after_messages, list)
    assert {"pydantic", "starweaver.messages", "starweaver.content"} <= set(after_messages)


def test_errors_classify_without_asyncio_loaded() -> None:
    out = run(
        """
        import json, sys
        from starweaver.errors import exception_to_outcome

        def kind(exc):
            return exception_to_outcome(exc, timeout_ms=None)["kind"]

        before = [kind(TimeoutError()), kind(ValueError()), "asyncio" in sys.modules]
        import asyncio, concurrent.futures
        after = [kind(asyncio.CancelledError()), kind(concurrent.futures.CancelledError()),
                 kind(asyncio.TimeoutError()), kind(concurrent.futures.TimeoutError())]
        print(json.dumps({"before": before, "after": after}))
        """
    )
    assert out == {"before": ["timeout", "execution", False], "after": ["cancelled", "cancelled", "timeout", "timeout"]}
