"""Starweaver: agents and tools in Python over a Go runtime core."""

from .context import ToolContext
from .errors import (
    AgentError,
    ApprovalRequired,
    CallDeferred,
    Cancelled,
    Feedback,
    InvalidArguments,
    ModelError,
    ModelRetry,
    StarweaverError,
    StateError,
    Timeout,
    ToolError,
    ToolRetryLimitExceeded,
    UserError,
)
from .result import ToolResult
from .tools import BaseTool, Tool, ensure_tool, tool

__all__ = [
    "AgentError",
    "ApprovalRequired",
    "BaseTool",
    "CallDeferred",
    "Cancelled",
    "Feedback",
    "InvalidArguments",
    "ModelError",
    "ModelRetry",
    "StarweaverError",
    "StateError",
    "Timeout",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolRetryLimitExceeded",
    "UserError",
    "ensure_tool",
    "tool",
]
