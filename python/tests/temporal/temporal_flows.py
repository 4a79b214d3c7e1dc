"""A user's own workflow around the shop agent (the tests' "user
workflow"), and the same workflow changed so that it no longer replays."""

from __future__ import annotations

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from starweaver import ModelError, UsageLimits
    from starweaver.temporal import AgentRunOutcome
    from temporal_shop import City, cities, shop, shop_renamed, unreachable


@workflow.defn(name="ShopWorkflow")
class ShopWorkflow:
    """Runs a prompt; a run that waits gets its decisions from the
    ``decide`` update, however long that takes."""

    def __init__(self) -> None:
        self.pending: list[dict[str, Any]] = []
        self.decisions: list[dict[str, Any]] | None = None

    @workflow.run
    async def run(self, prompt: str, folder: str) -> AgentRunOutcome:
        result = await shop.run(prompt, deps={"dir": folder})
        while result.status == "waiting":
            self.pending, self.decisions = result.pending, None
            await workflow.wait_condition(lambda: self.decisions is not None)
            assert self.decisions is not None
            result = await shop.resume(result, approvals=self.decisions, deps={"dir": folder})
        return AgentRunOutcome.from_result(result)

    @workflow.query
    def waiting_for(self) -> list[dict[str, Any]]:
        return self.pending if self.decisions is None else []

    @workflow.update
    def decide(self, approved: bool) -> None:
        self.decisions = [{"id": p["id"], "approved": approved} for p in self.pending if p.get("kind") == "approval"]


@workflow.defn(name="ShopWorkflow")
class ShopWorkflowChanged:
    """ShopWorkflow after an incompatible change: its run's activities have
    other types."""

    @workflow.run
    async def run(self, prompt: str, folder: str) -> AgentRunOutcome:
        result = await shop_renamed.run(prompt, deps={"dir": folder})
        return AgentRunOutcome.from_result(result)


@workflow.defn(name="CityWorkflow")
class CityWorkflow:
    """Returns a structured output as itself (the pydantic converter)."""

    @workflow.run
    async def run(self, prompt: str) -> City:
        result = await cities.run(prompt)
        assert isinstance(result.output, City)
        return result.output


@workflow.defn(name="LimitedWorkflow")
class LimitedWorkflow:
    """A run past its usage limit: the workflow fails with the run's error."""

    @workflow.run
    async def run(self, prompt: str) -> str:
        result = await shop.run(prompt, usage_limits=UsageLimits(request_limit=1))
        return str(result.output)


@workflow.defn(name="FallbackWorkflow")
class FallbackWorkflow:
    """A run every model of a fallback fails: what the workflow's code
    sees of the failure and of the events."""

    @workflow.run
    async def run(self, prompt: str) -> dict[str, Any]:
        events: list[dict[str, Any]] = []
        try:
            await unreachable.run(prompt, on_event=events.append)
        except ModelError as exc:
            fallbacks = [e["attempt"]["model"] for e in events if e["kind"] == "model_fallback"]
            kinds = [e["kind"] for e in events]
            return {
                "code": exc.code,
                "attempts": exc.attempts,
                "message": str(exc),
                "fallbacks": fallbacks,
                "kinds": kinds,
            }
        return {}
