"""The Temporal plugins: ``AgentPlugin`` for a worker (the agents'
activities and ready-made workflows, the sandbox's passthrough of
starweaver) and ``StarweaverPlugin`` for a client (the pydantic data
converter)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import DataConverter
from temporalio.plugin import SimplePlugin
from temporalio.worker import WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from starweaver.errors import StarweaverError
from starweaver.temporal._agent import TemporalAgent

__all__ = ["AgentPlugin", "StarweaverPlugin"]

#: Imported once, outside every workflow sandbox: starweaver drives a native
#: library (one per process), and pydantic builds its validators once.
PASSTHROUGH = ("starweaver", "pydantic", "pydantic_core", "annotated_types", "typing_extensions")


def _passthrough(runner: WorkflowRunner | None) -> WorkflowRunner:
    runner = runner or SandboxedWorkflowRunner()
    if isinstance(runner, SandboxedWorkflowRunner):
        return dataclasses.replace(runner, restrictions=runner.restrictions.with_passthrough_modules(*PASSTHROUGH))
    return runner


def _pydantic(existing: DataConverter | None) -> DataConverter:
    # A converter the application chose (a codec, its own payload converter)
    # is kept.
    if existing is None or existing == DataConverter.default:
        return pydantic_data_converter
    return existing


class StarweaverPlugin(SimplePlugin):
    """For ``Client.connect(..., plugins=[StarweaverPlugin()])``: sets
    Temporal's pydantic data converter (``temporalio.contrib.pydantic``), so
    pydantic models (structured outputs, typed messages, deps) travel as
    themselves. A worker built on that client inherits it.

    ``tracing=True`` adds Temporal's OpenTelemetry interceptor
    (``temporalio.contrib.opentelemetry``, needs ``opentelemetry-sdk``): a
    workflow started inside a span continues its trace, through the
    workflow's and the activities' spans down to the ``chat`` and
    ``execute_tool`` spans of the model requests and tool calls."""

    def __init__(self, *, tracing: bool = False) -> None:
        interceptors: list[Any] = []
        if tracing:
            from temporalio.contrib.opentelemetry import TracingInterceptor  # noqa: PLC0415 - needs opentelemetry, only with tracing

            interceptors.append(TracingInterceptor())
        super().__init__(
            "starweaver.StarweaverPlugin",
            data_converter=_pydantic,
            workflow_runner=_passthrough,
            interceptors=interceptors or None,
        )


class AgentPlugin(SimplePlugin):
    """For ``Worker(client, ..., plugins=[AgentPlugin(temporal_agent)])``:
    registers each agent's activities (``"<name>.model"``,
    ``"<name>.tool"``), ready-made workflow (``"<name>.run"``) and child
    workflow (``"<name>.child"``), and the activities and child workflows
    of the agents their runs start as children (``TemporalAgent.children``:
    ``as_tool`` tools and ``subagents``, all the way down), passes
    starweaver through the workflow sandbox (imported once, outside it),
    and lets a starweaver error raised in a workflow (a run that used up a
    budget or a limit) fail the workflow rather than retry its task.
    ``Replayer(..., plugins=[AgentPlugin(...)])`` replays with the same."""

    def __init__(self, *agents: TemporalAgent[Any, Any], workflows: bool = True) -> None:
        if not agents:
            raise ValueError("AgentPlugin needs at least one TemporalAgent")
        names = [a.name for a in agents]
        if len(set(names)) != len(names):
            raise ValueError(f"AgentPlugin: two agents share a name: {names}")
        # The agents their runs start as child workflows, one per name (a
        # child named like an agent given here is that agent).
        family: dict[str, TemporalAgent[Any, Any]] = {a.name: a for a in agents}
        for a in agents:
            for child in a.children():
                family.setdefault(child.name, child)
        activities: list[Callable[..., Any]] = [fn for a in family.values() for fn in a.activities()]
        flows: Sequence[type] | None = None
        if workflows:
            flows = [a.workflow for a in agents] + [a.child_workflow for a in family.values()]
        super().__init__(
            "starweaver.AgentPlugin",
            activities=activities,
            workflows=flows,
            workflow_runner=_passthrough,
            workflow_failure_exception_types=[StarweaverError],
        )
