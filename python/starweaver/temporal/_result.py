"""What crosses a workflow's boundary: ``AgentRunOutcome``, a run's result
as data (a workflow returns it, a client reads it), and
``AgentWorkflowInput``, what starts the ready-made workflow.

Both are dataclasses of JSON values, so Temporal's default data converter
carries them, and so does the pydantic one ``StarweaverPlugin`` sets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starweaver._runs import RunResult
    from starweaver.hitl import HITLSnapshot
    from starweaver.messages import ModelMessage

__all__ = ["AgentRunOutcome", "AgentWorkflowInput"]


@dataclass
class AgentWorkflowInput:
    """What the ready-made workflow runs: ``prompt``, optionally after
    ``message_history`` (an earlier outcome's ``messages``), with ``deps``
    (JSON data for the tools) and ``metadata``."""

    prompt: str
    message_history: list[dict[str, Any]] | None = None
    deps: Any = None
    metadata: dict[str, Any] | None = None


@dataclass
class AgentRunOutcome:
    """A run's result as data a workflow returns.

    ``status`` is ``"completed"`` or ``"waiting"`` (``"failed"`` and
    ``"cancelled"`` when a workflow chooses to return those rather than
    fail); ``output`` is the answer as JSON (a structured output's
    ``model_dump``); ``usage`` the run's counts; ``messages`` the whole
    conversation as JSON (``typed_messages()`` gives them typed; pass them as
    ``message_history=`` to continue); ``pending`` what a waiting run waits
    for (``hitl`` gives typed views); ``usage_by_agent`` the counts per
    agent when agents ran as tools (``RunResult.usage_by_agent``).
    """

    status: str
    output: Any = None
    usage: dict[str, int] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)
    run_id: str = ""
    error: str | None = None
    usage_by_agent: dict[str, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def from_result(cls, result: RunResult[Any]) -> AgentRunOutcome:
        """The outcome of ``result`` (a run's ``RunResult``)."""
        from pydantic_core import to_jsonable_python  # noqa: PLC0415 - pydantic is loaded with the messages

        from starweaver.messages import messages_to_json  # noqa: PLC0415 - loaded with the first outcome

        return cls(
            status=result.status,
            output=to_jsonable_python(result.output),
            usage=dict(result.usage),
            messages=messages_to_json(result.messages),
            pending=[dict(p) for p in result.pending],
            run_id=result.run_id,
            error=result.error,
            usage_by_agent={name: dict(u) for name, u in result.usage_by_agent.items()},
        )

    def typed_messages(self) -> list[ModelMessage]:
        """``messages`` as typed messages (``starweaver.messages``)."""
        from starweaver.messages import typed_messages  # noqa: PLC0415 - loaded when asked for

        return typed_messages(self.messages)

    @property
    def hitl(self) -> HITLSnapshot:
        """Typed views of the pending approvals and deferred calls."""
        from starweaver.hitl import HITLSnapshot  # noqa: PLC0415 - loaded when asked for

        return HITLSnapshot.from_pending(self.pending)
