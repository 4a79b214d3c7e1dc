"""Runs whose model requests and tool batches are carried out elsewhere,
and the other end that carries them out: what a durable engine needs
(``starweaver.temporal``).

``run_stepped`` and ``resume_stepped`` drive an agent's loop here with an
executor (Go's ``agent.Executor``): every model request and every batch
of tool calls goes to ``StepHandlers`` (a workflow's activities), and
the loop decides the rest (output validation, limits, budgets, approvals)
from the answers alone. Given ids, the same answers give the same
requests, so a replayed workflow makes the same commands.
``request_model`` and ``run_batch`` are what a worker does with them: the
agent's model answers, the agent's tools run (hooks, validation,
timeouts, retries as in a local run).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from starweaver import _capi
from starweaver._bridge import EventCallback, StepHandlers
from starweaver._runs import RunResult, SessionRef

if TYPE_CHECKING:
    from starweaver._runs import MessageHistory
    from starweaver.agent import Agent
    from starweaver.hitl import ApprovalsInput, DeferredInput
    from starweaver.settings import ModelSettings
    from starweaver.usage import UsageLimits

__all__ = ["StepHandlers", "request_model", "resume_stepped", "run_batch", "run_stepped"]


def _export(result: RunResult[Any], session: SessionRef) -> RunResult[Any]:
    """A waiting result carries its session's state (``raw["state"]``), so
    that the run resumes from the result alone."""
    if result.status == "waiting":
        result.raw["state"] = json.loads(_capi.session_export(session.handle))
    return result


async def run_stepped(
    agent: Agent[Any, Any],
    prompt: str,
    *,
    conversation_id: str,
    run_id: str,
    handlers: StepHandlers,
    message_history: MessageHistory | None = None,
    usage_limits: UsageLimits | None = None,
    deps: Any = None,
    metadata: Mapping[str, Any] | None = None,
    model_settings: ModelSettings | None = None,
    on_event: EventCallback | None = None,
    grants: Sequence[str] | None = None,
) -> RunResult[Any]:
    """Run ``prompt`` in a new session with the id ``conversation_id``, as
    the run ``run_id``, handing its steps to ``handlers``; a waiting
    result's ``raw["state"]`` resumes it (``resume_stepped``). ``grants``,
    when given, are the only tools the run may call."""
    session = agent._new_session(message_history, conversation_id)  # noqa: SLF001 - a stepped run is one of the agent's runs
    result = await agent._launcher.run(  # noqa: SLF001 - as above
        session,
        prompt,
        tools=None,
        toolsets=None,
        instructions=None,
        metadata=metadata,
        on_event=on_event,
        usage_limits=usage_limits,
        model_settings=model_settings,
        deps=deps,
        grants=grants,
        steps=handlers,
        run_id=run_id,
    )
    # Messages are read while the session is here (the result may travel).
    _ = result.messages
    return _export(result, session)


async def resume_stepped(
    agent: Agent[Any, Any],
    state: Mapping[str, Any],
    *,
    handlers: StepHandlers,
    approvals: ApprovalsInput = None,
    deferred_results: DeferredInput = None,
    deps: Any = None,
    on_event: EventCallback | None = None,
) -> RunResult[Any]:
    """Answer the waiting run saved in ``state`` (a waiting result's
    ``raw["state"]``) and continue it, handing its steps to ``handlers``."""
    # The state comes back from where the waiting result went (a workflow's
    # own history); a signed one is still verified.
    session = SessionRef(_capi.session_restore(agent._handle, json.dumps(state).encode(), allow_unsigned=True))  # noqa: SLF001 - as above
    result = await agent._launcher.resume(  # noqa: SLF001 - as above
        session, approvals, deferred_results, on_event, deps, steps=handlers
    )
    _ = result.messages
    return _export(result, session)


async def request_model(agent: Agent[Any, Any], request: Mapping[str, Any]) -> dict[str, Any]:
    """Make a model request a stepped run handed out (``StepHandlers.model``)
    with ``agent``'s model; the response message's JSON.

    Raises:
        ModelError: the model failed.
    """
    session = agent._new_session(None)  # noqa: SLF001 - as above
    done = await agent._launcher.step(session, {"model_request": dict(request)})  # noqa: SLF001 - as above
    response: dict[str, Any] = done["response"]
    return response


async def run_batch(agent: Agent[Any, Any], batch: Mapping[str, Any], deps: Any = None) -> list[dict[str, Any]]:
    """Run a batch a stepped run handed out (``StepHandlers.batch``) on
    ``agent``'s tools in this process: one return (JSON) per call."""
    session = agent._new_session(None)  # noqa: SLF001 - as above
    done = await agent._launcher.step(session, {"run_batch": dict(batch)}, deps)  # noqa: SLF001 - as above
    returns: list[dict[str, Any]] = done.get("returns") or []
    return returns
