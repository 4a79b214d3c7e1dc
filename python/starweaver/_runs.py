"""What a run gives back and what it runs in: the ``RunResult`` of a run,
the native session handle (``SessionRef``) that a session, its live runs and
the run launcher share, and the type variables of an agent's dependencies and
output. The session, the live run and the launcher all build on this module."""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Union

from typing_extensions import TypeVar

from starweaver import _capi
from starweaver.output import Output
from starweaver.usage import RunUsage, usage_dict

# Messages, human in the loop and the bridge are loaded where first needed,
# so ``from starweaver import create_agent`` stays cheap.
if TYPE_CHECKING:
    from starweaver import _bridge
    from starweaver.hitl import HITLSnapshot, PendingApproval, PendingDeferred
    from starweaver.messages import ModelMessage, ToolReturnPart

__all__ = ["DepsT", "MessageHistory", "OutputT", "RunResult", "SessionRef", "as_typed_messages", "settle_runs"]

MessageHistory = Sequence[Union["ModelMessage", Mapping[str, Any]]]
"""Earlier messages to continue from: typed messages or their dicts."""

#: The type of an agent's dependencies and of its runs' ``output``
#: (``create_agent(output_type=City)`` gives ``Agent[Any, City]``, whose
#: ``run(...).output`` is a ``City`` to type checkers).
DepsT = TypeVar("DepsT", default=Any)
OutputT = TypeVar("OutputT", default=Any)


def as_typed_messages(raw: Sequence[Any]) -> list[ModelMessage]:
    from starweaver.messages import typed_messages  # noqa: PLC0415 - see the imports above

    return typed_messages(raw)


class SessionRef:
    """Owns a native session handle; released when the last owner goes."""

    def __init__(self, handle: int) -> None:
        self.handle = handle
        # Named dependencies inserted through session.context: Python
        # objects, so they live here, not in the runtime's context.
        self.named_deps: dict[str, Any] = {}
        # The run in progress, for steer and interrupt at the session level;
        # weak, so a run whose loop was dropped is still collected (and
        # cancelled by its finalizer).
        self._active: weakref.ref[_bridge.RunDriver] | None = None
        weakref.finalize(self, _capi.release, handle)

    @property
    def active(self) -> _bridge.RunDriver | None:
        driver = self._active() if self._active is not None else None
        return driver if driver is not None and not driver.ended else None

    @active.setter
    def active(self, driver: _bridge.RunDriver | None) -> None:
        self._active = weakref.ref(driver) if driver is not None else None


class RunResult(Generic[OutputT]):
    """The outcome of one run.

    ``status`` is ``"completed"``, ``"waiting"``, ``"failed"`` or
    ``"cancelled"``; ``messages`` is the whole conversation as typed
    messages (``starweaver.messages``: requests and responses whose parts
    are tagged by ``kind``; they still read like the dicts of their JSON
    form); ``output`` is the final answer (text, or the
    validated value of the agent's ``output_type``); ``usage`` sums the
    run's requests, tokens (input, output, cache read and write, reasoning)
    and successful tool calls.
    """

    def __init__(
        self,
        raw: Mapping[str, Any],
        session: SessionRef | None = None,
        output: Output | None = None,
        *,
        last_agent: Any = None,
    ) -> None:
        self.raw: dict[str, Any] = dict(raw)
        self.run_id: str = str(raw.get("run_id", ""))
        self.status: str = str(raw.get("status", ""))
        #: The final answer: the text for a text agent, the validated value
        #: of the output type (``output_type=``) otherwise (None unless the
        #: run completed).
        value: Any = str(raw.get("output", ""))
        if output is not None:
            answer = raw.get("output_value")
            value = output.value(answer) if answer is not None else None
        self.output: OutputT = value
        # The messages of a completed or waiting run are the first
        # message_count messages of its session; they are read on first use.
        self._session = session
        self._messages: list[ModelMessage] | None = as_typed_messages(raw["messages"]) if "messages" in raw else None
        self._new_start = int(raw.get("new_messages_start", 0))
        self.usage: RunUsage = usage_dict(raw.get("usage"))
        #: ``usage`` per agent when agents ran as tools of the run (empty
        #: otherwise): each child agent's (its own children's included)
        #: under its name, the rest under this run's agent's name ("" when
        #: it has none).
        self.usage_by_agent: dict[str, RunUsage] = {
            str(name): usage_dict(u) for name, u in (raw.get("usage_by_agent") or {}).items()
        }
        self.pending: list[dict[str, Any]] = list(raw.get("pending") or [])
        self.error: str | None = raw.get("error") or None
        #: The agent that answered last: the agent run, or the one it handed
        #: the run off to last (see ``handoffs=``); its name (a str) when it
        #: is not among the agents the run's agent reaches, None when unknown.
        self.last_agent: Any = last_agent

    @property
    def messages(self) -> list[ModelMessage]:
        """The whole conversation after the run (pass it as
        ``message_history=`` to continue it elsewhere)."""
        if self._messages is None:
            if self._session is None:
                self._messages = []
            else:
                count = int(self.raw.get("message_count", 0))
                self._messages = as_typed_messages(_capi.session_messages(self._session.handle)[:count])
                self._session = None
        return self._messages

    @property
    def new_messages(self) -> list[ModelMessage]:
        """The messages this run added."""
        return self.messages[self._new_start :]

    @property
    def is_waiting(self) -> bool:
        return self.status == "waiting"

    @property
    def needs_approval(self) -> bool:
        """True while any approval or deferred result is pending."""
        return bool(self.pending)

    @property
    def pending_approvals(self) -> list[dict[str, Any]]:
        return [p for p in self.pending if p.get("kind") == "approval"]

    @property
    def pending_deferred(self) -> list[dict[str, Any]]:
        return [p for p in self.pending if p.get("kind") == "deferred"]

    @property
    def hitl(self) -> HITLSnapshot:
        """Typed views of the pending approvals and deferred calls."""
        from starweaver.hitl import HITLSnapshot  # noqa: PLC0415 - see the imports above

        return HITLSnapshot.from_pending(self.pending)

    @property
    def approvals(self) -> list[PendingApproval]:
        return self.hitl.approvals

    @property
    def deferred(self) -> list[PendingDeferred]:
        return self.hitl.deferred

    @property
    def batch_returns(self) -> list[dict[str, Any]]:
        """For a waiting run: the paused batch's returns in model order."""
        return list(self.raw.get("batch") or [])

    def tool_returns(self) -> list[ToolReturnPart]:
        """The tool returns this run added to history, in order."""
        from starweaver.messages import ToolReturnPart  # noqa: PLC0415 - see the imports above

        return [part for message in self.new_messages for part in message.parts if isinstance(part, ToolReturnPart)]

    def __repr__(self) -> str:
        return f"RunResult(status={self.status!r}, output={self.output!r})"


async def settle_runs(drivers: list[_bridge.RunDriver], exc: BaseException | None, scope: str) -> None:
    """Interrupt the runs (when ``exc`` ended ``scope``) or wait for them.
    Only runs on the running loop are settled: a run on another loop is
    that loop's to finish."""
    import asyncio  # noqa: PLC0415 - loaded with the first run

    from starweaver import _bridge  # noqa: PLC0415 - loaded with the first run

    loop = asyncio.get_running_loop()
    mine = [d for d in drivers if d.loop is loop and not d.closed.done()]
    if not mine:
        return
    if exc is None:
        await asyncio.wait([d.closed for d in mine])
        return
    reason = f"{scope} exited with {type(exc).__name__}"
    for d in mine:
        d.cancel(reason)
    # The runtime winds a cancelled run down in milliseconds.
    await asyncio.wait([d.closed for d in mine], timeout=_bridge.CANCEL_GRACE)
