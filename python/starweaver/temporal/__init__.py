"""Durable agent runs on Temporal (``pip install 'starweaver[temporal]'``):
see docs/durable-execution.md.

- ``TemporalAgent(agent, name)``: ``await temporal_agent.run(prompt)`` inside
  a ``@workflow.defn``, with ``Agent.run``'s keywords and result; each model
  request and each tool call is an activity, the loop is workflow code.
- ``AgentPlugin(temporal_agent)`` for the worker, ``StarweaverPlugin()`` for
  the client.
- ``temporal_agent.workflow``: a ready-made workflow (approve / deny /
  complete updates, pending and events queries) returning an
  ``AgentRunOutcome``.
"""

from starweaver.temporal._agent import TemporalAgent
from starweaver.temporal._plugin import AgentPlugin, StarweaverPlugin
from starweaver.temporal._result import AgentRunOutcome, AgentWorkflowInput

__all__ = ["AgentPlugin", "AgentRunOutcome", "AgentWorkflowInput", "StarweaverPlugin", "TemporalAgent"]
