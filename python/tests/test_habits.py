"""What pydantic-ai users reach for first: ``agent.run_sync``,
``@agent.tool`` / ``@agent.tool_plain``, ``agent.override`` in tests and a
typed ``result.usage``."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from starweaver import ToolContext, create_agent
from starweaver.testing import TestModel
from starweaver.usage import RunUsage


def calls(*names_and_args: tuple[str, dict[str, Any]], final: str = "done") -> TestModel:
    batch = [{"id": f"c{i}", "name": n, "arguments": a} for i, (n, a) in enumerate(names_and_args)]
    return TestModel.responses([TestModel.tool_call_response(batch), final])


def test_run_sync_runs_without_a_loop() -> None:
    result = create_agent(model=TestModel("hello")).run_sync("hi")
    assert result.output == "hello"
    assert result.status == "completed"


def test_run_sync_takes_run_options() -> None:
    agent = create_agent(model=TestModel("x"))
    result = agent.run_sync("hi", metadata={"k": "v"}, deps={"a": 1})
    assert result.output == "x"


def test_run_sync_inside_a_running_loop_says_to_await() -> None:
    agent = create_agent(model=TestModel("x"))

    async def main() -> None:
        with pytest.raises(RuntimeError, match=r"await agent\.run"):
            agent.run_sync("hi")

    asyncio.run(main())


def test_agent_tool_and_tool_plain_add_tools_the_model_calls() -> None:
    model = calls(("greet", {"name": "Ada"}), ("double", {"n": 21}))
    agent = create_agent(model=model, deps={"greeting": "Hello"})

    @agent.tool
    async def greet(ctx: ToolContext, name: str) -> str:
        """Greets name."""
        return f"{ctx.deps['greeting']}, {name}"

    @agent.tool_plain(description="Doubles n.")
    def double(n: int) -> int:
        return n * 2

    # The decorators return the Tool, still callable like the function.
    assert double(2) == 4
    assert greet.name == "greet" and greet.takes_ctx
    result = agent.run_sync("go")
    assert result.output == "done"
    contents = {r.name: r.content for r in result.tool_returns()}
    assert contents == {"greet": "Hello, Ada", "double": 42}
    offered = {t["name"]: t for t in model.captured_params()[0]["tools"]}
    assert set(offered) == {"greet", "double"}
    assert offered["double"]["description"] == "Doubles n."
    # The context is not part of the model-facing schema.
    assert set(offered["greet"]["parameters"]["properties"]) == {"name"}


def test_agent_tool_refuses_the_wrong_kind_of_function() -> None:
    agent = create_agent(model=TestModel("ok"))
    with pytest.raises(TypeError, match=r"tool_plain"):

        @agent.tool
        def plain(n: int) -> int:
            return n

    with pytest.raises(TypeError, match=r"@agent\.tool\b"):

        @agent.tool_plain
        def with_ctx(ctx: ToolContext, n: int) -> int:
            return n


def test_override_swaps_model_and_deps_for_the_block_only() -> None:
    agent = create_agent(model=TestModel("real"), deps={"who": "prod"})

    @agent.tool_plain
    def noop() -> str:
        return "x"

    test_model = calls(("whoami", {}), final="overridden")

    @agent.tool
    def whoami(ctx: ToolContext) -> str:
        return str(ctx.deps["who"])

    with agent.override(model=test_model, deps={"who": "test"}) as same:
        assert same is agent
        result = agent.run_sync("x")
        session = agent.session()
    assert result.output == "overridden"
    assert {r.name: r.content for r in result.tool_returns()} == {"whoami": "test"}
    # Back to the agent's own model and deps after the block.
    assert agent.run_sync("x").output == "real"
    assert agent.deps == {"who": "prod"}
    session.close()


def test_override_restores_when_the_block_raises() -> None:
    agent = create_agent(model=TestModel("real"))
    with pytest.raises(KeyError), agent.override(model=TestModel("fake")):
        assert agent.run_sync("x").output == "fake"
        raise KeyError("boom")
    assert agent.run_sync("x").output == "real"


def test_override_refuses_what_is_not_a_model() -> None:
    agent = create_agent(model=TestModel("real"))
    with pytest.raises(TypeError, match="model must be"), agent.override(model=42):  # type: ignore[arg-type]
        pass
    assert agent.run_sync("x").output == "real"


def test_usage_is_typed_and_still_a_dict() -> None:
    model = calls(("noop", {}))
    agent = create_agent(model=model)

    @agent.tool_plain
    def noop() -> str:
        return "x"

    result = agent.run_sync("x")
    usage = result.usage
    assert isinstance(usage, RunUsage)
    assert usage.requests == usage["requests"] == 2
    assert usage.tool_calls == 1
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens
    assert json.loads(json.dumps(usage)) == dict(usage)
    assert "requests=2" in repr(usage)


def test_call_tool_validates_and_builds_the_context() -> None:
    from starweaver import ModelRetry
    from starweaver.testing import call_tool_sync

    seen: list[Any] = []

    def scale(ctx: ToolContext, n: int) -> int:
        """Scales n by the factor the deps give."""
        seen.append((ctx.tool_name, ctx.metadata.get("tenant")))
        if n < 0:
            raise ModelRetry("n must be >= 0")
        return n * ctx.deps["factor"]

    ok = call_tool_sync(scale, {"n": 4}, deps={"factor": 3}, metadata={"tenant": "acme"})
    assert (ok.content, ok.is_error) == (12, False)
    assert seen == [("scale", "acme")]
    # The runtime's schema check runs before the function.
    bad = call_tool_sync(scale, {"n": "four"}, deps={"factor": 3})
    assert bad.is_error and bad.error_kind == "invalid_arguments"
    assert len(seen) == 1
    raw = call_tool_sync(scale, '{"n": 2}', deps={"factor": 5})
    assert raw.content == 10
    retry = call_tool_sync(scale, {"n": -1}, deps={"factor": 1})
    assert retry.is_error and retry.error_kind == "model_retry"


def test_call_tool_awaits_in_async_tests() -> None:
    from starweaver.testing import call_tool

    async def echo(text: str) -> str:
        return text

    part = asyncio.run(call_tool(echo, {"text": "hi"}))
    assert part.content == "hi" and part.name == "echo"


def test_the_pytest_plugin_gives_call_tool_and_test_model(tmp_path: Any) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "test_user.py").write_text(
        "from starweaver import create_agent\n"
        "def double(n: int) -> int:\n"
        "    return 2 * n\n"
        "def test_tool(call_tool):\n"
        "    assert call_tool(double, {'n': 21}).content == 42\n"
        "def test_agent(test_model):\n"
        "    assert create_agent(model=test_model).run_sync('hi').output == 'ok'\n"
        "    assert len(test_model.captured_messages()) == 1\n"
    )
    import starweaver

    package_root = str(Path(starweaver.__file__).resolve().parents[1])
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONPATH=package_root)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "starweaver.pytest_plugin",
            "-p",
            "no:cacheprovider",
            "test_user.py",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


def test_public_objects_have_useful_reprs() -> None:
    from pydantic import BaseModel
    from starweaver.testing import FunctionModel
    from starweaver.toolsets import filesystem_toolset

    class City(BaseModel):
        name: str

    def lookup(q: str) -> str:
        return q

    agent = create_agent(
        model=TestModel("ok"), tools=[lookup], name="bot", output_type=City, toolsets=[filesystem_toolset()]
    )
    assert (
        repr(agent) == "Agent(name='bot', model=TestModel(responses=1), tools=['lookup'], toolsets=1, output_type=City)"
    )
    assert (
        repr(FunctionModel(lambda messages, info: "x"))
        == "FunctionModel(test_public_objects_have_useful_reprs.<locals>.<lambda>)"
    )
    assert repr(filesystem_toolset()) == "Toolset('filesystem', runtime bundle 'filesystem')"
    session = agent.session()
    assert repr(session) == f"AgentSession(id={session.id!r})"
    session.close()
    assert repr(session) == "AgentSession(closed)"


def test_log_lines_do_not_repeat_the_logger_name(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    with caplog.at_level(logging.DEBUG, logger="starweaver"):
        create_agent(model=TestModel("x")).run_sync("hi")
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("starweaver")]
    assert lines, "a run logs at DEBUG"
    assert not [line for line in lines if line.startswith("starweaver:")]


def test_a_test_model_without_a_script_calls_every_tool_then_sums_up() -> None:
    from pydantic import BaseModel

    class Forecast(BaseModel):
        city: str
        celsius: float

    seen: list[tuple[str, int]] = []

    def weather(city: str, days: int = 1) -> str:
        seen.append((city, days))
        return f"sunny in {city}"

    def shout(text: str) -> str:
        return text.upper()

    model = TestModel()
    result = create_agent(model=model, tools=[weather, shout]).run_sync("go")
    assert json.loads(result.output) == {"weather": "sunny in a", "shout": "A"}
    assert seen == [("a", 1)]
    assert len(model.captured_messages()) == 2
    structured = create_agent(model=TestModel(), tools=[weather], output_type=Forecast).run_sync("go")
    assert structured.output == Forecast(city="a", celsius=0)
    assert create_agent(model=TestModel()).run_sync("hi").output == "ok"
    assert repr(TestModel()) == "TestModel(auto)"


TYPED_OUTPUT = """
from typing import Union

from pydantic import BaseModel
from starweaver import create_agent
from starweaver.testing import TestModel


class City(BaseModel):
    name: str


city: City = create_agent(model=TestModel(), output_type=City).run_sync("x").output
text: str = create_agent(model=TestModel()).run_sync("x").output
either = create_agent(model=TestModel(), output_type=Union[City, int]).run_sync("x").output
reveal_type(city)
reveal_type(either)
wrong: int = create_agent(model=TestModel()).run_sync("x").output
"""


def test_result_output_is_typed_from_output_type(tmp_path: Any) -> None:
    import importlib.util
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    package = Path(__file__).resolve().parents[1]
    f = tmp_path / "typed_output.py"
    f.write_text(textwrap.dedent(TYPED_OUTPUT))
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "c"), str(f)],
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(package)},
        check=False,
        cwd=package.parent,  # the project's mypy configuration
        timeout=300,
    )
    out = proc.stdout
    assert 'Revealed type is "typed_output.City"' in out, out
    # A union is not a class: its runs' output is Any to the checker.
    assert 'Revealed type is "Any"' in out, out
    # A text agent's output is a str: assigning it to an int is an error,
    # and the only one.
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 1 and 'expression has type "str", variable has type "int"' in errors[0], out
