"""Models for tests: scripted ``TestModel`` and callback ``FunctionModel``,
and ``call_tool`` to call one tool as a run does.

``TestModel`` runs inside the Go runtime and records every request it gets;
``captured_messages()`` and ``captured_params()`` read them back. Messages
are typed (``starweaver.messages``) and still read like their dicts. The
models are defined in ``starweaver._testmodels``, below the agent that runs
them; this module re-exports them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from starweaver._testmodels import FunctionModel, ModelResponse, TestModel
from starweaver._testmodels import FunctionModelCallback as FunctionModelCallback

if TYPE_CHECKING:
    from starweaver._catalog import ToolLike
    from starweaver.messages import ToolReturnPart

__all__ = ["FunctionModel", "ModelResponse", "TestModel", "call_tool", "call_tool_sync"]


async def call_tool(
    tool: ToolLike,
    arguments: Mapping[str, Any] | str | None = None,
    /,
    *,
    deps: Any = None,
    metadata: Mapping[str, Any] | None = None,
) -> ToolReturnPart:
    """Calls ``tool`` once as a run does, for a unit test: the runtime checks
    ``arguments`` (a mapping, or the JSON text a model would send)
    against the tool's schema, builds its ``ToolContext`` (``deps``,
    ``metadata``), applies its hooks, timeout and retries, and the result is
    the ``ToolReturnPart`` the model would see: ``.content``, and for a
    failed call ``.is_error`` with ``.error_kind`` (``"invalid_arguments"``,
    ``"model_retry"``, ``"execution"``, ``"timeout"``, ...).

    Raises ``RuntimeError`` when the call does not return (it waits for
    approval, or is deferred): test those through an agent.
    """
    # The agent sits above the models of this module: imported when used.
    from starweaver._catalog import as_tool  # noqa: PLC0415
    from starweaver.agent import create_agent  # noqa: PLC0415

    t = as_tool(tool)
    try:
        args: Any = json.loads(arguments) if isinstance(arguments, str) else dict(arguments or {})
    except json.JSONDecodeError as exc:
        raise ValueError(f"call_tool: arguments is not JSON: {exc}") from None
    model = TestModel.responses(
        [TestModel.tool_call_response([{"id": "call_tool", "name": t.name, "arguments": args}]), "done"]
    )
    result = await create_agent(model=model, tools=[t], deps=deps).run(
        f"call {t.name}", metadata=dict(metadata) if metadata else None
    )
    returns = result.tool_returns()
    if not returns:
        raise RuntimeError(f"call_tool: {t.name} did not return (the run is {result.status}); test it through an agent")
    return returns[0]


def call_tool_sync(
    tool: ToolLike,
    arguments: Mapping[str, Any] | str | None = None,
    /,
    *,
    deps: Any = None,
    metadata: Mapping[str, Any] | None = None,
) -> ToolReturnPart:
    """``call_tool`` for tests without an event loop."""
    import asyncio  # noqa: PLC0415 - only this helper runs a loop

    return asyncio.run(call_tool(tool, arguments, deps=deps, metadata=metadata))
