"""Starweaver: agents and tools in Python over a Go runtime core.

Names are loaded on first use (PEP 562), so ``import starweaver`` stays
cheap; ``from starweaver import tool`` loads only what ``tool`` needs.
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

__version__ = "0.1.0"

# Public name -> module that defines it.
_EXPORTS: dict[str, str] = {
    "AgentError": "errors",
    "ApprovalRequired": "errors",
    "CallDeferred": "errors",
    "Cancelled": "errors",
    "Feedback": "errors",
    "InvalidArguments": "errors",
    "ModelError": "errors",
    "ModelRetry": "errors",
    "OutputRetryLimitExceeded": "errors",
    "StarweaverError": "errors",
    "StateError": "errors",
    "Timeout": "errors",
    "ToolError": "errors",
    "ToolRetryLimitExceeded": "errors",
    "UsageLimitExceeded": "errors",
    "UserError": "errors",
    "ToolContext": "context",
    "ToolResult": "result",
    "BaseTool": "tools",
    "Tool": "tools",
    "ensure_tool": "tools",
    "tool": "tools",
    "ClientTool": "toolsets",
    "CombinedToolset": "toolsets",
    "FunctionToolset": "toolsets",
    "Toolset": "toolsets",
    "ToolsetContext": "toolsets",
    "user_input_tools": "toolsets",
    "Agent": "agent",
    "AgentSession": "agent",
    "RunResult": "agent",
    "SessionHitl": "agent",
    "create_agent": "agent",
    "ApprovalDecision": "hitl",
    "DeferredResult": "hitl",
    "HitlSnapshot": "hitl",
    "PendingApproval": "hitl",
    "PendingDeferred": "hitl",
    "TestModel": "testing",
    "FunctionModel": "testing",
    "UsageLimits": "usage",
    "ModelSettings": "settings",
}

__all__ = [
    "Agent",
    "AgentError",
    "AgentSession",
    "ApprovalDecision",
    "ApprovalRequired",
    "BaseTool",
    "CallDeferred",
    "Cancelled",
    "ClientTool",
    "CombinedToolset",
    "DeferredResult",
    "Feedback",
    "FunctionModel",
    "FunctionToolset",
    "HitlSnapshot",
    "InvalidArguments",
    "ModelError",
    "ModelRetry",
    "ModelSettings",
    "OutputRetryLimitExceeded",
    "PendingApproval",
    "PendingDeferred",
    "RunResult",
    "SessionHitl",
    "StarweaverError",
    "StateError",
    "TestModel",
    "Timeout",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolRetryLimitExceeded",
    "Toolset",
    "ToolsetContext",
    "UsageLimitExceeded",
    "UsageLimits",
    "UserError",
    "__version__",
    "create_agent",
    "ensure_tool",
    "tool",
    "user_input_tools",
]


def __getattr__(name: str) -> _Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'starweaver' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"starweaver.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if _TYPE_CHECKING:
    from starweaver.agent import (
        Agent,
        AgentSession,
        RunResult,
        SessionHitl,
        create_agent,
    )
    from starweaver.context import ToolContext
    from starweaver.errors import (
        AgentError,
        ApprovalRequired,
        CallDeferred,
        Cancelled,
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
        UsageLimitExceeded,
        UserError,
    )
    from starweaver.hitl import (
        ApprovalDecision,
        DeferredResult,
        HitlSnapshot,
        PendingApproval,
        PendingDeferred,
    )
    from starweaver.result import ToolResult
    from starweaver.settings import ModelSettings
    from starweaver.testing import FunctionModel, TestModel
    from starweaver.tools import BaseTool, Tool, ensure_tool, tool
    from starweaver.toolsets import (
        ClientTool,
        CombinedToolset,
        FunctionToolset,
        Toolset,
        ToolsetContext,
        user_input_tools,
    )
    from starweaver.usage import UsageLimits
