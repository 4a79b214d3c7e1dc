"""Tool, @tool, BaseTool, ensure_tool, ToolResult and the outcome contract
(``_run_async`` / ``_run_sync``; the driver runs them through ``Tool._runner``), including the seed's tool examples."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import threading
from typing import Any

import pytest
from conftest import make_ctx, run_tool
from pydantic import BaseModel
from seed_tools import (
    DeployTool,
    add,
    append_audit_line,
    deploy,
    deploy_with_approval,
    fetch_status,
    fetch_ticket,
    inspect_payload,
    inspect_release,
    lookup,
)
from starweaver import (
    ApprovalRequired,
    BaseTool,
    CallDeferred,
    Cancelled,
    Feedback,
    InvalidArguments,
    ModelRetry,
    Timeout,
    Tool,
    ToolContext,
    ToolResult,
    UserError,
    ensure_tool,
    tool,
)


def test_seed_add() -> None:
    assert isinstance(add, Tool) and add.is_async
    assert add.definition() == {
        "name": "add",
        "parameters": {
            "additionalProperties": False,
            "properties": {"left": {"type": "integer"}, "right": {"type": "integer"}},
            "required": ["left", "right"],
            "type": "object",
        },
    }
    assert asyncio.run(add(2, 3)) == {"total": 5}  # still callable like the function
    assert run_tool(add, {"left": 2, "right": 3}) == {"ok": True, "content": {"total": 5}}


def test_seed_lookup() -> None:
    assert lookup.definition() == {
        "name": "lookup",
        "parameters": {
            "additionalProperties": False,
            "properties": {
                "ticket_id": {"type": "string"},
                "include_history": {"default": False, "type": "boolean"},
            },
            "required": ["ticket_id"],
            "type": "object",
        },
    }
    assert run_tool(lookup, {"ticket_id": "T-1"})["content"] == {"ticket_id": "T-1", "include_history": False}


def test_seed_fetch_ticket() -> None:
    assert fetch_ticket.definition() == {
        "name": "fetch_ticket",
        "parameters": {
            "properties": {
                "ticket_id": {"type": "string"},
                "include_history": {"default": False, "type": "boolean"},
            },
            "required": ["ticket_id"],
            "type": "object",
        },
    }
    outcome = run_tool(fetch_ticket, {"ticket_id": "T-2", "include_history": True})
    assert outcome == {"ok": True, "content": {"ticket_id": "T-2", "include_history": True}}


def test_seed_inspect_payload() -> None:
    assert inspect_payload.definition() == {
        "name": "inspect_payload",
        "parameters": {"type": "object", "additionalProperties": True},
    }
    assert run_tool(inspect_payload, {"b": 1, "a": 2})["content"] == {"keys": ["a", "b"]}


def test_seed_deploy_with_context() -> None:
    assert deploy.takes_ctx
    assert deploy.definition() == {"name": "deploy", "parameters": {"type": "object", "properties": {}}}
    assert run_tool(deploy)["content"] == {"ok": True}
    cancelled = make_ctx()
    cancelled._request_cancel()
    assert run_tool(deploy, ctx=cancelled)["content"] == {"ok": False}


def test_seed_deploy_tool_class() -> None:
    t = ensure_tool(DeployTool())
    assert t.definition() == {
        "name": "deploy",
        "description": "Deploy the current release.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    }
    assert t.takes_ctx and t.is_async
    assert run_tool(t)["content"] == {"ok": True}


def test_seed_append_audit_line_sequential() -> None:
    assert append_audit_line.sequential is True
    assert append_audit_line.definition() == {
        "name": "append_audit_line",
        "parameters": {
            "additionalProperties": False,
            "properties": {"line": {"type": "string"}},
            "required": ["line"],
            "type": "object",
        },
        "sequential": True,
    }


def test_seed_inspect_release_tool_result() -> None:
    assert run_tool(inspect_release) == {
        "ok": True,
        "content": {"raw": "application record"},
        "metadata": {"audit": "release"},
        "app_value": {"release_id": 42},
        "model_content": {"summary": "release is ready"},
        "user_content": {"markdown": "**Ready**"},
        "private_metadata": {"trace_id": "host-only"},
    }


def test_seed_approval() -> None:
    waiting = run_tool(deploy_with_approval)
    assert (waiting["ok"], waiting["kind"], waiting["message"]) == (False, "approval_required", "deploy production")
    assert waiting["metadata"] == {"risk": "high", "reason": "deploy production"}
    approved = make_ctx(approval={"status": "approved", "metadata": {"decided_by": "ui"}})
    assert run_tool(deploy_with_approval, ctx=approved) == {"ok": True, "content": {"approved": True}}


def test_seed_fetch_status_policy() -> None:
    assert (fetch_status.timeout_ms, fetch_status.max_retries) == (5_000, 1)
    assert fetch_status.metadata == {"risk": "network"}
    assert fetch_status.definition() == {
        "name": "fetch_status",
        "parameters": {
            "additionalProperties": False,
            "properties": {"url": {"type": "string"}},
            "required": ["url"],
            "type": "object",
        },
        "metadata": {"risk": "network"},
    }


# ------------------------------------------------------------------ Tool and @tool


def test_tool_bare_called_and_functional_forms() -> None:
    def double(x: int) -> int:
        """Double x."""
        return 2 * x

    bare = tool(double)
    named = tool(name="twice", description="Two times.")(double)
    direct = Tool(double, strict=True)
    assert (bare.name, bare.description, bare(4)) == ("double", "Double x.", 8)
    assert (named.name, named.description) == ("twice", "Two times.")
    assert direct.definition()["strict"] is True
    assert bare.func is double and bare.__wrapped__ is double and bare.__doc__ == "Double x."
    assert not bare.is_async and not bare.takes_ctx
    assert "double" in repr(bare)


def test_definition_options() -> None:
    def f(x: int) -> int:
        return x

    t = Tool(
        f,
        description="D.",
        return_schema={"type": "integer"},
        metadata={"bundle": "math"},
        strict=False,
        sequential=True,
    )
    assert t.definition() == {
        "name": "f",
        "description": "D.",
        "parameters": t.parameters_schema,
        "return_schema": {"type": "integer"},
        "strict": False,
        "sequential": True,
        "metadata": {"bundle": "math"},
    }
    d = t.definition()
    d["metadata"]["bundle"] = "changed"
    d["parameters"]["properties"]["x"]["type"] = "string"
    assert t.definition()["metadata"] == {"bundle": "math"}
    assert t.parameters_schema["properties"]["x"] == {"type": "integer"}


def test_strict_requires_a_description() -> None:
    def undocumented(x: int) -> int:
        return x

    with pytest.raises(ValueError, match="strict tool 'undocumented' requires a description"):
        Tool(undocumented, strict=True)
    with pytest.raises(ValueError, match="requires a description"):
        tool(strict=True)(undocumented)
    assert Tool(undocumented, strict=True, description="Echo.").strict is True


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"name": ""}, ValueError, "tool name must not be empty"),
        ({"name": 3}, TypeError, "tool name"),
        # Ranges (timeout_ms > 0, max_retries >= 0) are the runtime's: see
        # test_outcome_rules.test_tool_ranges_are_checked_once_by_the_runtime.
        ({"timeout_ms": 1.5}, TypeError, "timeout_ms"),
        ({"max_retries": True}, TypeError, "max_retries"),
        ({"strict": "yes"}, TypeError, "strict"),
        ({"sequential": None}, TypeError, "sequential"),
        ({"metadata": ["x"]}, TypeError, "metadata"),
        ({"metadata": {"x": object()}}, ValueError, "metadata"),
        ({"return_schema": {1: "x"}}, TypeError, "return_schema"),
    ],
)
def test_option_validation(options: dict[str, Any], error: type[Exception], match: str) -> None:
    def f(x: int) -> int:
        return x

    with pytest.raises(error, match=match):
        Tool(f, **options)


def test_replace_keeps_the_function_and_revalidates() -> None:
    renamed = lookup.replace(name="ws_lookup", metadata={"bundle": "ws"})
    assert (renamed.name, renamed.metadata, renamed.func) == ("ws_lookup", {"bundle": "ws"}, lookup.func)
    assert renamed.parameters_schema == lookup.parameters_schema
    assert lookup.name == "lookup"
    with pytest.raises(ValueError, match="requires a description"):
        lookup.replace(strict=True)
    with pytest.raises(TypeError, match="unknown Tool option"):
        lookup.replace(colour="red")


def _local_model_tool() -> Tool:
    class Local(BaseModel):  # local: `args: Local` is a string resolved from this frame
        n: int

    def read(args: Local) -> int:
        """Read n."""
        return args.n

    return Tool(read)


def test_local_classes_resolve_and_replace_reuses_the_schema() -> None:
    t = _local_model_tool()
    assert t.parameters_schema == {"properties": {"n": {"type": "integer"}}, "required": ["n"], "type": "object"}
    r = t.replace(name="other", description=None)  # no re-inference: Local is out of scope here
    assert (r.name, r.description, r.parameters_schema) == ("other", "Read n.", t.parameters_schema)
    assert run_tool(r, {"n": 4})["content"] == 4
    explicit = t.replace(parameters_schema={"type": "object", "properties": {"n": {"type": "integer"}}})
    assert explicit.parameters_schema == {"type": "object", "properties": {"n": {"type": "integer"}}}


def test_not_callable() -> None:
    with pytest.raises(TypeError, match="callable"):
        Tool(42)  # type: ignore[arg-type]


# ------------------------------------------------------------------ BaseTool and ensure_tool


class MultiplyTool(BaseTool):
    """Multiply two numbers."""

    async def call(self, ctx: ToolContext, args: dict[str, Any]) -> int:
        return int(args["a"]) * int(args["b"])


class HTTPFetchTool(BaseTool):
    sequential = True
    timeout_ms = 100

    def call(self, ctx: ToolContext, args: dict[str, Any]) -> str:
        """Fetch a URL."""
        return "fetched"


def test_base_tool_defaults() -> None:
    m = MultiplyTool()
    assert m.name == "multiply"
    t = m.to_tool()
    assert t.definition() == {
        "name": "multiply",
        "description": "Multiply two numbers.",
        "parameters": {"type": "object", "additionalProperties": True},
    }
    assert run_tool(t, {"a": 6, "b": 7})["content"] == 42


def test_base_tool_class_attributes_and_overrides() -> None:
    h = HTTPFetchTool()
    assert h.name == "http_fetch"
    t = h.to_tool()
    assert (t.description, t.sequential, t.timeout_ms, t.is_async) == ("Fetch a URL.", True, 100, False)
    assert run_tool(t)["content"] == "fetched"  # a sync call runs in a worker thread

    o = HTTPFetchTool(
        name="get", description="Get.", sequential=False, timeout_ms=5, max_retries=2, strict=True, metadata={"m": 1}
    )
    ot = o.to_tool()
    assert (ot.name, ot.description, ot.sequential, ot.timeout_ms, ot.max_retries, ot.strict, ot.metadata) == (
        "get",
        "Get.",
        False,
        5,
        2,
        True,
        {"m": 1},
    )
    assert HTTPFetchTool.name is None  # the class attribute is untouched


def test_base_tool_without_any_docstring_has_no_description() -> None:
    class BareTool(BaseTool):
        async def call(self, ctx: ToolContext, args: dict[str, Any]) -> None:
            return None

    assert BareTool().to_tool().definition() == {
        "name": "bare",
        "parameters": {"type": "object", "additionalProperties": True},
    }
    with pytest.raises(ValueError, match="requires a description"):
        BareTool(strict=True).to_tool()


def test_base_tool_default_name_rules() -> None:
    from starweaver.tools import default_tool_name

    class Tool_(BaseTool):
        pass

    assert default_tool_name(type("SearchDocsTool", (), {})) == "search_docs"
    assert default_tool_name(type("Tool", (), {})) == "tool"
    assert default_tool_name(type("Plain", (), {})) == "plain"
    with pytest.raises(TypeError, match="must implement call"):
        Tool_().to_tool()


def test_ensure_tool() -> None:
    def add_one(x: int) -> int:
        return x + 1

    assert ensure_tool(add) is add
    assert ensure_tool(MultiplyTool()).name == "multiply"
    wrapped = ensure_tool(add_one)
    assert isinstance(wrapped, Tool) and wrapped.name == "add_one"
    assert run_tool(wrapped, {"x": 1})["content"] == 2
    with pytest.raises(TypeError, match="instance"):
        ensure_tool(MultiplyTool)
    with pytest.raises(TypeError, match="callable"):
        ensure_tool("not a tool")  # type: ignore[arg-type]


def test_tool_of_a_tool_reads_the_inner_function() -> None:
    again = Tool(add, name="add_again")
    assert (again.is_async, again.parameters_schema) == (True, add.parameters_schema)
    assert run_tool(again, {"left": 1, "right": 1})["content"] == {"total": 2}


def test_callable_object_and_async_detection() -> None:
    class Counter:
        async def __call__(self, n: int) -> int:
            return n + 1

    t = ensure_tool(Counter())
    assert (t.name, t.is_async) == ("Counter", True)
    assert run_tool(t, {"n": 1})["content"] == 2


# ------------------------------------------------------------------ outcomes


@dataclasses.dataclass
class Point:
    x: int
    label: str


class Report(BaseModel):
    title: str
    point: Point


def test_pydantic_and_dataclass_returns() -> None:
    @tool
    def report() -> Report:
        return Report(title="t", point=Point(1, "a"))

    @tool
    async def point() -> Point:
        return Point(2, "b")

    assert run_tool(report) == {"ok": True, "content": {"title": "t", "point": {"x": 1, "label": "a"}}}
    assert run_tool(point) == {"ok": True, "content": {"x": 2, "label": "b"}}


@pytest.mark.parametrize("value", [object(), {"x": {1, 2}}, float("nan")])
def test_non_serialisable_return_is_user_error(value: Any) -> None:
    @tool
    def bad() -> Any:
        return value

    outcome = run_tool(bad)
    assert (outcome["ok"], outcome["kind"]) == (False, "user_error")
    assert "JSON serializable" in outcome["message"]


def test_none_and_scalar_returns() -> None:
    @tool
    def nothing() -> None:
        return None

    assert run_tool(nothing) == {"ok": True, "content": None}


def test_tool_result_surfaces_and_validation() -> None:
    r = ToolResult((1, 2))
    assert (r.content, r.metadata, r.private_metadata, r.app_value) == ([1, 2], {}, {}, None)
    assert r == ToolResult([1, 2]) and r != ToolResult([1])
    with pytest.raises(AttributeError):
        r.content = 3  # type: ignore[misc]
    with pytest.raises(TypeError, match="metadata must be a dict"):
        ToolResult(1, metadata=["x"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="private_metadata keys"):
        ToolResult(1, private_metadata={1: "x"})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="app_value is not JSON serializable"):
        ToolResult(1, app_value=object())
    assert "content=1" in repr(ToolResult(1, metadata={"a": 1}))


def test_tool_result_minimal_outcome_omits_unset_surfaces() -> None:
    @tool
    def minimal() -> ToolResult:
        return ToolResult("text", app_value=0, model_content={})

    assert run_tool(minimal) == {"ok": True, "content": "text", "app_value": 0, "model_content": {}}


def _raiser(exc: BaseException) -> Tool[..., Any]:
    async def fail() -> None:
        raise exc

    return Tool(fail)


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (InvalidArguments("fix x"), "invalid_arguments"),
        (ModelRetry("try again"), "model_retry"),
        (Feedback("file not found"), "feedback"),
        (UserError("missing dependency"), "user_error"),
        (ApprovalRequired("why"), "approval_required"),
        (CallDeferred("later"), "call_deferred"),
        (Cancelled("stop"), "cancelled"),
        (Timeout("slow"), "timeout"),
        (TimeoutError("slow"), "timeout"),
        (RuntimeError("boom"), "execution"),
    ],
)
@pytest.mark.parametrize("sync", [False, True])
def test_exceptions_become_outcomes(exc: BaseException, kind: str, sync: bool) -> None:
    if sync:

        def fail() -> None:
            raise exc

        t = Tool(fail, timeout_ms=250)
    else:
        t = _raiser(exc).replace(timeout_ms=250)
    outcome = run_tool(t)
    assert (outcome["ok"], outcome["kind"], outcome["message"]) == (False, kind, str(exc))
    assert outcome["private_metadata"]["python_exception_type"] == type(exc).__name__
    if kind == "timeout":
        assert outcome["timeout_ms"] == 250


def test_traceback_is_private_only() -> None:
    @tool
    async def explode() -> None:
        raise RuntimeError("kaboom")

    outcome = run_tool(explode)
    assert outcome["private_metadata"]["python_exception"] == "RuntimeError: kaboom"
    assert "in explode" in outcome["private_metadata"]["python_traceback"]
    public = json.dumps({k: v for k, v in outcome.items() if k != "private_metadata"})
    assert "Traceback" not in public and "explode" not in public


def test_user_class_named_model_retry_is_execution() -> None:
    class ModelRetry(Exception):  # noqa: N818 - deliberately shadows the real one
        pass

    outcome = run_tool(_raiser(ModelRetry("fake")))
    assert outcome["kind"] == "execution"


def test_bad_argument_json() -> None:
    assert run_tool(add, b"[1, 2]")["message"] == "tool arguments must be a JSON object, got list"
    assert run_tool(add, b"{not json")["kind"] == "invalid_arguments"
    assert run_tool(lookup, b"")["message"] == "ticket_id: missing required argument"
    assert run_tool(inspect_payload, b"null")["content"] == {"keys": []}
    ctx = make_ctx()
    assert asyncio.run(inspect_payload._run_async(ctx, bytearray(b'{"k": 1}')))["content"] == {"keys": ["k"]}
    assert asyncio.run(inspect_payload._run_async(ctx, '{"k": 1}'))["content"] == {"keys": ["k"]}


def test_sync_run_in_worker_threads_overlaps() -> None:
    """_run_sync is thread-safe: two calls in two threads run at the same time."""
    barrier = threading.Barrier(2, timeout=2)

    @tool
    def meet(n: int) -> int:
        barrier.wait()
        return n

    async def main() -> list[dict[str, Any]]:
        return list(
            await asyncio.gather(
                asyncio.to_thread(meet._run_sync, make_ctx(), b'{"n": 1}'),
                asyncio.to_thread(meet._run_sync, make_ctx(), b'{"n": 2}'),
            )
        )

    assert [o["content"] for o in asyncio.run(main())] == [1, 2]


def test_sync_function_returning_a_coroutine() -> None:
    async def inner(n: int) -> int:
        return n * 10

    def wrapper(n: int) -> Any:
        return inner(n)

    t = Tool(wrapper)
    assert not t.is_async
    assert run_tool(t, {"n": 2})["content"] == 20


def test_sync_tool_observes_cancellation_in_its_thread() -> None:
    started = threading.Event()

    @tool
    def patient(ctx: ToolContext) -> str:
        started.set()
        return "cancelled" if ctx.wait_cancelled(2) else "timed out"

    ctx = make_ctx()

    async def main() -> dict[str, Any]:
        job = asyncio.create_task(asyncio.to_thread(patient._run_sync, ctx, b"{}"))
        await asyncio.to_thread(started.wait, 2)
        ctx._request_cancel()
        return await job

    assert asyncio.run(main())["content"] == "cancelled"


# ------------------------------------------------------------------ the CancelledError rule


def test_outside_cancellation_is_re_raised() -> None:
    @tool
    async def slow(ctx: ToolContext) -> str:
        await asyncio.sleep(10)
        return "finished"

    async def main() -> None:
        task = asyncio.create_task(slow._run_async(make_ctx(), b"{}"))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()

    asyncio.run(main())


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10 cannot tell an outside cancel (no Task.cancelling)")
def test_tool_raising_cancelled_error_itself_is_an_outcome() -> None:
    @tool
    async def gives_up() -> None:
        raise asyncio.CancelledError()

    outcome = run_tool(gives_up)
    assert (outcome["ok"], outcome["kind"]) == (False, "cancelled")
    assert outcome["private_metadata"]["python_exception_type"] == "CancelledError"


def test_tool_awaiting_cancelled_sees_the_request() -> None:
    @tool
    async def waits(ctx: ToolContext) -> bool:
        return await ctx.cancelled()

    ctx = make_ctx()

    async def main() -> dict[str, Any]:
        task = asyncio.create_task(waits._run_async(ctx, b"{}"))
        await asyncio.sleep(0.01)
        threading.Thread(target=ctx._request_cancel).start()
        return await asyncio.wait_for(task, 2)

    assert asyncio.run(main()) == {"ok": True, "content": True}
