"""Handoffs: an agent transfers the conversation to another agent.

``create_agent(handoffs=[billing, handoff(refunds, input_filter=...)])``
gives the agent's model one tool per handoff, ``transfer_to_<agent name>``
(lowercased, characters outside ``[a-z0-9_-]`` as ``_``), taking no
arguments, as the OpenAI Agents SDK does. When the model calls one, the
receiving agent continues the same run over the conversation so far (what
``input_filter`` keeps of it), with its own instructions, model, tools,
handoffs and output type; the first agent is not asked again, and
``result.last_agent`` is the agent that answered. The rules themselves
(which call wins, limits, events, sessions) live in the runtime and are
described in docs/agents.md.

``on_handoff`` and ``input_filter`` are called from the runtime like tools
(so a run's cancellation reaches them): sync functions in the worker pool,
async ones on the run's loop. An exception either raises fails the run
with ``HandoffError``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Union

from starweaver._pool import in_pool

# At run time: a tool body's context parameter is found by its annotation.
from starweaver.context import ToolContext

if TYPE_CHECKING:
    from starweaver.messages import ModelMessage

__all__ = ("Handoff", "HandoffAgent", "HandoffInputFilter", "OnHandoff", "handoff")


class HandoffAgent(Protocol):
    """What a handoff names: an ``Agent`` (this module sits below
    ``starweaver.agent``, which checks that it is one)."""

    @property
    def name(self) -> str | None: ...

    def _native_handle(self) -> int: ...


#: ``input_filter(messages) -> messages``, sync or async: receives the
#: conversation so far as typed messages (``starweaver.messages``; the
#: response with the transfer call and the request with its return come
#: last) and returns what the receiving agent's model reads (it should end
#: with a request). The run's messages and the session keep everything.
HandoffInputFilter = Callable[[list["ModelMessage"]], Union[Sequence[Any], Awaitable[Sequence[Any]]]]

#: ``on_handoff(ctx)`` or ``on_handoff()``, sync or async: runs when the
#: handoff takes place, before the receiving agent is asked; ``ctx`` is the
#: transfer call's ``ToolContext`` (run id, deps, metadata).
OnHandoff = Callable[..., Any]


@dataclass(frozen=True)
class Handoff:
    """A handoff to ``agent`` (see ``handoff``); ``create_agent(handoffs=)``
    takes these and plain agents."""

    agent: HandoffAgent
    tool_name_override: str | None = None
    tool_description_override: str | None = None
    input_filter: HandoffInputFilter | None = None
    on_handoff: OnHandoff | None = None


def handoff(
    agent: HandoffAgent,
    *,
    tool_name_override: str | None = None,
    tool_description_override: str | None = None,
    input_filter: HandoffInputFilter | None = None,
    on_handoff: OnHandoff | None = None,
) -> Handoff:
    """A handoff to ``agent`` for ``create_agent(handoffs=[...])``.

    Arguments:
        agent: The agent that receives the conversation.
        tool_name_override: The transfer tool's name (default
            ``transfer_to_<agent name>``; an agent without a name needs one).
        tool_description_override: The transfer tool's description
            (default "Handoff to the <name> agent to handle the request.").
        input_filter: What the receiving agent's model reads of the
            conversation (see ``HandoffInputFilter``).
        on_handoff: Called when the handoff takes place (see ``OnHandoff``).

    Raises:
        TypeError: agent is not an Agent, or a callback is not callable.
    """
    if not callable(getattr(agent, "_native_handle", None)):
        raise TypeError(f"handoff needs an Agent, got {type(agent).__name__}")
    for label, func in (("input_filter", input_filter), ("on_handoff", on_handoff)):
        if func is not None and not callable(func):
            raise TypeError(f"{label} must be callable, got {type(func).__name__}")
    return Handoff(agent, tool_name_override, tool_description_override, input_filter, on_handoff)


def _is_async(func: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(getattr(func, "__call__", None))  # noqa: B004


async def _call(func: Callable[..., Any], *args: Any) -> Any:
    """func(*args): awaited when async, in the worker pool otherwise (a sync
    function returning an awaitable has it awaited too)."""
    if _is_async(func):
        return await func(*args)
    result = await in_pool(functools.partial(func, *args))
    if inspect.isawaitable(result):
        result = await result
    return result


def _takes_ctx(func: Callable[..., Any]) -> bool:
    try:
        params = [
            p
            for p in inspect.signature(func).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.kind == p.VAR_POSITIONAL
        ]
    except (TypeError, ValueError):
        return True
    return len(params) >= 1


def on_handoff_host(func: OnHandoff) -> Callable[[ToolContext[Any]], Awaitable[None]]:
    """The host side of ``on_handoff``: a tool body the runtime calls with
    the transfer call's context and no arguments."""
    takes_ctx = _takes_ctx(func)

    async def run(ctx: ToolContext[Any]) -> None:
        await (_call(func, ctx) if takes_ctx else _call(func))

    return run


def input_filter_host(func: HandoffInputFilter) -> Callable[[ToolContext[Any], list[Any]], Awaitable[list[Any]]]:
    """The host side of ``input_filter``: a tool body the runtime calls with
    ``messages`` (the conversation as JSON); it returns the kept messages as
    JSON."""
    from starweaver.messages import messages_to_json, typed_messages  # noqa: PLC0415 - pydantic loads with the first filter

    async def run(ctx: ToolContext[Any], messages: list[Any]) -> list[Any]:
        del ctx  # the filter reads the messages only
        kept = await _call(func, typed_messages(messages))
        if isinstance(kept, (str, bytes)) or not isinstance(kept, Sequence):
            raise TypeError(f"an input_filter must return a list of messages, got {type(kept).__name__}")
        return messages_to_json(list(kept))

    return run
