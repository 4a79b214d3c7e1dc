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
    "ArtifactConflict": "errors",
    "ArtifactError": "errors",
    "ArtifactExpired": "errors",
    "ArtifactIntegrityError": "errors",
    "ArtifactInvalid": "errors",
    "ArtifactNotFound": "errors",
    "StoreUnavailable": "errors",
    "ToolOutputNotVisible": "errors",
    "ToolFailed": "errors",
    "ToolErrorPolicy": "_policy",
    "CallDeferred": "errors",
    "Cancelled": "errors",
    "Execution": "errors",
    "Feedback": "errors",
    "InvalidArguments": "errors",
    "ModelError": "errors",
    "ModelRetry": "errors",
    "OutputRetryLimitExceeded": "errors",
    "StarweaverError": "errors",
    "StateError": "errors",
    "SessionNotFoundError": "errors",
    "StoreUnavailableError": "errors",
    "Timeout": "errors",
    "ToolError": "errors",
    "ToolRetryLimitExceeded": "errors",
    "UsageLimitExceeded": "errors",
    "UserError": "errors",
    "ToolContext": "context",
    "ToolResult": "result",
    "ToolOutput": "tool_output",
    "ArtifactRef": "content",
    "ArtifactPage": "artifacts",
    "ArtifactStore": "artifacts",
    "MemoryArtifactStore": "artifacts",
    "OutputBudget": "artifacts",
    "PostgresArtifactStore": "artifacts",
    "SqliteArtifactStore": "artifacts",
    "ToolArtifacts": "artifacts",
    "BaseTool": "tools",
    "Tool": "tools",
    "ensure_tool": "tools",
    "tool": "tools",
    "ClientTool": "toolsets",
    "CombinedToolset": "toolsets",
    "FunctionToolset": "toolsets",
    "Toolset": "toolsets",
    "ToolsetContext": "toolsets",
    "AbstractToolset": "dynamic",
    "PythonDynamicToolset": "dynamic",
    "ToolsetFactory": "dynamic",
    "ToolsetLifecyclePolicy": "dynamic",
    "ToolsetLifecycleStatus": "dynamic",
    "ToolsetPreparation": "dynamic",
    "toolset_factory": "dynamic",
    "user_input_tools": "toolsets",
    "Agent": "agent",
    "AgentSession": "agent",
    "RunResult": "agent",
    "SessionHitl": "agent",
    "create_agent": "agent",
    "AgentRuntime": "runtime",
    "RuntimeSession": "runtime",
    "create_agent_runtime": "runtime",
    "ModelMessage": "messages",
    "ModelRequest": "messages",
    "ModelResponse": "messages",
    "ApprovalDecision": "hitl",
    "DeferredResult": "hitl",
    "HitlSnapshot": "hitl",
    "PendingApproval": "hitl",
    "PendingDeferred": "hitl",
    "TestModel": "testing",
    "FunctionModel": "testing",
    "UsageLimits": "usage",
    "AgentRun": "streaming",
    "AgentStream": "streaming",
    "RunHitl": "streaming",
    "RunStatus": "streaming",
    "StreamEvent": "streaming",
    "StreamRunResult": "streaming",
    "ModelSettings": "settings",
    "Hook": "hooks",
    "ToolOutcome": "hooks",
    "ToolDependencies": "dependencies",
    "ClaimedResume": "stores",
    "EffectRecovery": "stores",
    "InFlightRun": "stores",
    "PostgresSessionStore": "stores",
    "PostgresStore": "stores",
    "SessionStore": "stores",
    "SqliteSessionStore": "stores",
    "SqliteStore": "stores",
    "Store": "stores",
}

__all__ = [
    "Agent",
    "AgentError",
    "AgentRun",
    "AgentRuntime",
    "AgentSession",
    "AgentStream",
    "ApprovalDecision",
    "ApprovalRequired",
    "ArtifactConflict",
    "ArtifactError",
    "ArtifactExpired",
    "ArtifactIntegrityError",
    "ArtifactInvalid",
    "ArtifactNotFound",
    "ArtifactPage",
    "ArtifactRef",
    "ArtifactStore",
    "BaseTool",
    "CallDeferred",
    "Cancelled",
    "ClaimedResume",
    "ClientTool",
    "CombinedToolset",
    "DeferredResult",
    "EffectRecovery",
    "Execution",
    "Feedback",
    "FunctionModel",
    "FunctionToolset",
    "HitlSnapshot",
    "Hook",
    "InFlightRun",
    "InvalidArguments",
    "MemoryArtifactStore",
    "ModelError",
    "ModelMessage",
    "ModelRequest",
    "ModelResponse",
    "ModelRetry",
    "ModelSettings",
    "OutputBudget",
    "OutputRetryLimitExceeded",
    "PendingApproval",
    "PendingDeferred",
    "PostgresArtifactStore",
    "PostgresSessionStore",
    "PostgresStore",
    "RunHitl",
    "RunResult",
    "RunStatus",
    "RuntimeSession",
    "SessionHitl",
    "SessionNotFoundError",
    "SessionStore",
    "SqliteArtifactStore",
    "SqliteSessionStore",
    "SqliteStore",
    "StarweaverError",
    "StateError",
    "Store",
    "StoreUnavailableError",
    "StoreUnavailable",
    "StreamEvent",
    "StreamRunResult",
    "TestModel",
    "Timeout",
    "Tool",
    "ToolArtifacts",
    "ToolContext",
    "ToolDependencies",
    "ToolError",
    "ToolErrorPolicy",
    "ToolFailed",
    "ToolOutcome",
    "ToolOutput",
    "ToolOutputNotVisible",
    "ToolResult",
    "ToolRetryLimitExceeded",
    "Toolset",
    "ToolsetContext",
    "AbstractToolset",
    "PythonDynamicToolset",
    "ToolsetFactory",
    "ToolsetLifecyclePolicy",
    "ToolsetLifecycleStatus",
    "ToolsetPreparation",
    "toolset_factory",
    "UsageLimitExceeded",
    "UsageLimits",
    "UserError",
    "__version__",
    "create_agent",
    "create_agent_runtime",
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
    from starweaver._policy import ToolErrorPolicy
    from starweaver.agent import (
        Agent,
        AgentSession,
        RunResult,
        SessionHitl,
        create_agent,
    )
    from starweaver.artifacts import (
        ArtifactPage,
        ArtifactStore,
        MemoryArtifactStore,
        OutputBudget,
        PostgresArtifactStore,
        SqliteArtifactStore,
        ToolArtifacts,
    )
    from starweaver.content import ArtifactRef
    from starweaver.context import ToolContext
    from starweaver.dependencies import ToolDependencies
    from starweaver.dynamic import (
        AbstractToolset,
        PythonDynamicToolset,
        ToolsetFactory,
        ToolsetLifecyclePolicy,
        ToolsetLifecycleStatus,
        ToolsetPreparation,
        toolset_factory,
    )
    from starweaver.errors import (
        AgentError,
        ApprovalRequired,
        ArtifactConflict,
        ArtifactError,
        ArtifactExpired,
        ArtifactIntegrityError,
        ArtifactInvalid,
        ArtifactNotFound,
        CallDeferred,
        Cancelled,
        Execution,
        Feedback,
        InvalidArguments,
        ModelError,
        ModelRetry,
        OutputRetryLimitExceeded,
        SessionNotFoundError,
        StarweaverError,
        StateError,
        StoreUnavailable,
        StoreUnavailableError,
        Timeout,
        ToolError,
        ToolFailed,
        ToolOutputNotVisible,
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
    from starweaver.hooks import Hook, ToolOutcome
    from starweaver.messages import ModelMessage, ModelRequest, ModelResponse
    from starweaver.result import ToolResult
    from starweaver.runtime import AgentRuntime, RuntimeSession, create_agent_runtime
    from starweaver.settings import ModelSettings
    from starweaver.stores import (
        ClaimedResume,
        EffectRecovery,
        InFlightRun,
        PostgresSessionStore,
        PostgresStore,
        SessionStore,
        SqliteSessionStore,
        SqliteStore,
        Store,
    )
    from starweaver.streaming import AgentRun, AgentStream, RunHitl, RunStatus, StreamEvent, StreamRunResult
    from starweaver.testing import FunctionModel, TestModel
    from starweaver.tool_output import ToolOutput
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
