"""Starweaver: agents and tools in Python over a Go runtime core.

Names are loaded on first use (PEP 562), so ``import starweaver`` stays
cheap; ``from starweaver import tool`` loads only what ``tool`` needs. The
top level holds what most programs use; the rest lives in the submodules
(``starweaver.stores``, ``.artifacts``, ``.intents``, ``.skills``, ``.mcp``,
``.hitl``, ``.streaming``, ...).
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from starweaver._deprecated import forwarding as _forwarding

# Declared, not set: the first read goes through __getattr__ below.
__version__: str

# Public name -> the module that defines it: the one list of the top level.
_EXPORTS: dict[str, str] = {
    # Agents and runs
    "create_agent": "agent",
    "Agent": "agent",
    "handoff": "handoffs",
    "Handoff": "handoffs",
    "AgentSession": "session",
    "RunResult": "session",
    "AgentRun": "streaming",
    "create_agent_runtime": "runtime",
    "AgentRuntime": "runtime",
    "RuntimeSession": "runtime",
    "ModelSettings": "settings",
    "UsageLimits": "usage",
    "ToolErrorPolicy": "_policy",
    # Tools and toolsets
    "tool": "tools",
    "Tool": "tools",
    "BaseTool": "tools",
    "ensure_tool": "tools",
    "ToolContext": "context",
    "ToolDependencies": "dependencies",
    "ToolResult": "result",
    "ToolOutput": "tool_output",
    "Toolset": "toolsets",
    "FunctionToolset": "toolsets",
    "CombinedToolset": "toolsets",
    "ClientTool": "toolsets",
    "ToolsetContext": "toolsets",
    "Hook": "hooks",
    "ToolOutcome": "hooks",
    # Messages
    "ModelMessage": "messages",
    "ModelRequest": "messages",
    "ModelResponse": "messages",
    # Models
    "ProviderModel": "models",
    "OpenAIModel": "models",
    "OpenAIResponsesModel": "models",
    "AnthropicModel": "models",
    "TestModel": "testing",
    "FunctionModel": "testing",
    # Exceptions
    "StarweaverError": "errors",
    "AgentError": "errors",
    "ModelError": "errors",
    "StateError": "errors",
    "SessionNotFoundError": "errors",
    "StoreUnavailableError": "errors",
    "UsageLimitExceeded": "errors",
    "ToolFailed": "errors",
    "ToolOutputNotVisible": "errors",
    "ToolRetryLimitExceeded": "errors",
    "OutputRetryLimitExceeded": "errors",
    "ArtifactError": "errors",
    "ToolError": "errors",
    "ModelRetry": "errors",
    "ApprovalRequired": "errors",
    "CallDeferred": "errors",
    "Feedback": "errors",
    "UserError": "errors",
    "InvalidArguments": "errors",
    "Cancelled": "errors",
    "Timeout": "errors",
    "Execution": "errors",
}

__all__ = ["__version__"]
__all__ += list(_EXPORTS)

# Names the top level held before, for one release: old name -> its home
# ("module" or "module:NewName"); each use warns (DeprecationWarning).
_MOVED: dict[str, str] = {
    "AbstractToolset": "starweaver.dynamic",
    "Admitted": "starweaver.intents",
    "AgentContext": "starweaver.agent_context",
    "AgentStream": "starweaver.streaming",
    "ApprovalDecision": "starweaver.hitl",
    "ArtifactConflict": "starweaver.errors",
    "ArtifactExpired": "starweaver.errors",
    "ArtifactIntegrityError": "starweaver.errors",
    "ArtifactInvalid": "starweaver.errors",
    "ArtifactNotFound": "starweaver.errors",
    "ArtifactPage": "starweaver.artifacts",
    "ArtifactRef": "starweaver.content",
    "ArtifactStore": "starweaver.artifacts",
    "CancelProcess": "starweaver.intents",
    "ClaimedResume": "starweaver.stores",
    "ContextEvent": "starweaver.agent_context",
    "DeferredResult": "starweaver.hitl",
    "Done": "starweaver.intents",
    "EffectRecovery": "starweaver.stores",
    "EmitProcessEvent": "starweaver.intents",
    "EmitTrigger": "starweaver.intents",
    "HandoffHandle": "starweaver.agent_context",
    "HitlSnapshot": "starweaver.hitl:HITLSnapshot",
    "InFlightRun": "starweaver.stores",
    "IntentKey": "starweaver.intents",
    "LocalEnvironment": "starweaver.environment",
    "LocalShell": "starweaver.shell",
    "McpToolset": "starweaver.mcp:MCPToolset",
    "McpTransport": "starweaver.mcp:MCPTransport",
    "MemoryArtifactStore": "starweaver.artifacts",
    "OutputBudget": "starweaver.artifacts",
    "ParentEndOutcome": "starweaver.intents",
    "Pending": "starweaver.intents",
    "PendingApproval": "starweaver.hitl",
    "PendingDeferred": "starweaver.hitl",
    "PostgresArtifactStore": "starweaver.artifacts",
    "PostgresSessionStore": "starweaver.stores",
    "PostgresStore": "starweaver.stores",
    "ProcessParentEndPolicy": "starweaver.intents",
    "PythonDynamicToolset": "starweaver.dynamic",
    "RunHitl": "starweaver.streaming:RunHITL",
    "RunStatus": "starweaver.streaming",
    "SessionHitl": "starweaver.session:SessionHITL",
    "SessionStore": "starweaver.stores",
    "ShellOutput": "starweaver.environment",
    "ShellPolicy": "starweaver.shell",
    "SignalProcess": "starweaver.intents",
    "SkillPackage": "starweaver.skills",
    "SkillRegistry": "starweaver.skills",
    "SkillReloadBinding": "starweaver.skills",
    "SkillReloadChange": "starweaver.skills",
    "SkillReloadReport": "starweaver.skills",
    "SkillScanDiagnostic": "starweaver.skills",
    "SkillScanReport": "starweaver.skills",
    "SkillSourceScope": "starweaver.skills",
    "SkillToolset": "starweaver.skills",
    "SqliteArtifactStore": "starweaver.artifacts",
    "SqliteSessionStore": "starweaver.stores",
    "SqliteStore": "starweaver.stores",
    "StartProcess": "starweaver.intents",
    "Store": "starweaver.stores",
    "StoreUnavailable": "starweaver:StoreUnavailableError",
    "StreamEvent": "starweaver.streaming",
    "StreamRunResult": "starweaver.streaming",
    "TasksHandle": "starweaver.agent_context",
    "ToolArtifacts": "starweaver.artifacts",
    "ToolCapabilityGrant": "starweaver.agent_context",
    "ToolIntentBudgetRefused": "starweaver.errors",
    "ToolIntentDuplicateIdentity": "starweaver.errors",
    "ToolIntentForeignExecutionScope": "starweaver.errors",
    "ToolIntentForeignSession": "starweaver.errors",
    "ToolIntentIdentityBoundToDifferentIntent": "starweaver.errors",
    "ToolIntentInvalid": "starweaver.errors",
    "ToolIntentMalformedKey": "starweaver.errors",
    "ToolIntentRecordedOutcomeOutsideProtocol": "starweaver.errors",
    "ToolIntentRefused": "starweaver.errors",
    "ToolIntentSessionMismatch": "starweaver.errors",
    "ToolIntents": "starweaver.intents",
    "ToolLibrary": "starweaver.catalog",
    "ToolProxyToolset": "starweaver.catalog",
    "ToolSearchHandle": "starweaver.agent_context",
    "ToolSearchRefreshBinding": "starweaver.catalog",
    "ToolSearchToolset": "starweaver.catalog",
    "ToolsetFactory": "starweaver.dynamic",
    "ToolsetIdValidation": "starweaver.catalog",
    "ToolsetLifecyclePolicy": "starweaver.dynamic",
    "ToolsetLifecycleStatus": "starweaver.dynamic",
    "ToolsetPreparation": "starweaver.dynamic",
    "UsageHandle": "starweaver.agent_context",
    "VirtualEnvironment": "starweaver.environment",
    "filesystem_toolset": "starweaver.toolsets",
    "shell_toolset": "starweaver.shell",
    "skill_toolset": "starweaver.skills",
    "toolset_factory": "starweaver.dynamic",
    "user_input_tools": "starweaver.toolsets",
}

_moved = _forwarding(__name__, _MOVED, stacklevel=3)


def __getattr__(name: str) -> _Any:
    if name == "__version__":
        # Written once, in core/version/VERSION: the library reports it, so
        # the version is the one of the library that runs.
        from starweaver._capi import version

        globals()[name] = version()
        return globals()[name]
    module = _EXPORTS.get(name)
    if module is None:
        return _moved(name)
    value = getattr(_importlib.import_module(f"starweaver.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


# For type checkers: the same names, imported from where they are defined
# (tests/test_top_level.py checks the two lists agree).
if _TYPE_CHECKING:
    from starweaver._policy import (
        ToolErrorPolicy as ToolErrorPolicy,
    )
    from starweaver.agent import (
        Agent as Agent,
    )
    from starweaver.agent import (
        create_agent as create_agent,
    )
    from starweaver.context import (
        ToolContext as ToolContext,
    )
    from starweaver.dependencies import (
        ToolDependencies as ToolDependencies,
    )
    from starweaver.errors import (
        AgentError as AgentError,
    )
    from starweaver.errors import (
        ApprovalRequired as ApprovalRequired,
    )
    from starweaver.errors import (
        ArtifactError as ArtifactError,
    )
    from starweaver.errors import (
        CallDeferred as CallDeferred,
    )
    from starweaver.errors import (
        Cancelled as Cancelled,
    )
    from starweaver.errors import (
        Execution as Execution,
    )
    from starweaver.errors import (
        Feedback as Feedback,
    )
    from starweaver.errors import (
        InvalidArguments as InvalidArguments,
    )
    from starweaver.errors import (
        ModelError as ModelError,
    )
    from starweaver.errors import (
        ModelRetry as ModelRetry,
    )
    from starweaver.errors import (
        OutputRetryLimitExceeded as OutputRetryLimitExceeded,
    )
    from starweaver.errors import (
        SessionNotFoundError as SessionNotFoundError,
    )
    from starweaver.errors import (
        StarweaverError as StarweaverError,
    )
    from starweaver.errors import (
        StateError as StateError,
    )
    from starweaver.errors import (
        StoreUnavailableError as StoreUnavailableError,
    )
    from starweaver.errors import (
        Timeout as Timeout,
    )
    from starweaver.errors import (
        ToolError as ToolError,
    )
    from starweaver.errors import (
        ToolFailed as ToolFailed,
    )
    from starweaver.errors import (
        ToolOutputNotVisible as ToolOutputNotVisible,
    )
    from starweaver.errors import (
        ToolRetryLimitExceeded as ToolRetryLimitExceeded,
    )
    from starweaver.errors import (
        UsageLimitExceeded as UsageLimitExceeded,
    )
    from starweaver.errors import (
        UserError as UserError,
    )
    from starweaver.handoffs import (
        Handoff as Handoff,
    )
    from starweaver.handoffs import (
        handoff as handoff,
    )
    from starweaver.hooks import (
        Hook as Hook,
    )
    from starweaver.hooks import (
        ToolOutcome as ToolOutcome,
    )
    from starweaver.messages import (
        ModelMessage as ModelMessage,
    )
    from starweaver.messages import (
        ModelRequest as ModelRequest,
    )
    from starweaver.messages import (
        ModelResponse as ModelResponse,
    )
    from starweaver.models import (
        AnthropicModel as AnthropicModel,
    )
    from starweaver.models import (
        OpenAIModel as OpenAIModel,
    )
    from starweaver.models import (
        OpenAIResponsesModel as OpenAIResponsesModel,
    )
    from starweaver.models import (
        ProviderModel as ProviderModel,
    )
    from starweaver.result import (
        ToolResult as ToolResult,
    )
    from starweaver.runtime import (
        AgentRuntime as AgentRuntime,
    )
    from starweaver.runtime import (
        RuntimeSession as RuntimeSession,
    )
    from starweaver.runtime import (
        create_agent_runtime as create_agent_runtime,
    )
    from starweaver.session import (
        AgentSession as AgentSession,
    )
    from starweaver.session import (
        RunResult as RunResult,
    )
    from starweaver.settings import (
        ModelSettings as ModelSettings,
    )
    from starweaver.streaming import (
        AgentRun as AgentRun,
    )
    from starweaver.testing import (
        FunctionModel as FunctionModel,
    )
    from starweaver.testing import (
        TestModel as TestModel,
    )
    from starweaver.tool_output import (
        ToolOutput as ToolOutput,
    )
    from starweaver.tools import (
        BaseTool as BaseTool,
    )
    from starweaver.tools import (
        Tool as Tool,
    )
    from starweaver.tools import (
        ensure_tool as ensure_tool,
    )
    from starweaver.tools import (
        tool as tool,
    )
    from starweaver.toolsets import (
        ClientTool as ClientTool,
    )
    from starweaver.toolsets import (
        CombinedToolset as CombinedToolset,
    )
    from starweaver.toolsets import (
        FunctionToolset as FunctionToolset,
    )
    from starweaver.toolsets import (
        Toolset as Toolset,
    )
    from starweaver.toolsets import (
        ToolsetContext as ToolsetContext,
    )
    from starweaver.usage import (
        UsageLimits as UsageLimits,
    )
