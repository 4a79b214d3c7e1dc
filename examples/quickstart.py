"""Quickstart: a typed tool, an agent and a scripted test model.

Run with `python examples/quickstart.py` after `pip install .`.
"""

import asyncio

from starweaver import ToolContext, create_agent, tool
from starweaver.testing import TestModel


@tool
async def add(left: int, right: int) -> dict[str, int]:
    """Add two integers.

    Args:
        left: The first addend.
        right: The second addend.
    """
    return {"total": left + right}


@tool(timeout_ms=5_000)
def greet(ctx: ToolContext, name: str) -> str:
    """Greet someone (a sync tool: it runs in a worker thread)."""
    return f"hello {name} from run {ctx.run_id[:8]}"


async def main() -> None:
    # The model asks for both tools in one response; they run in parallel.
    model = TestModel.responses(
        [
            TestModel.tool_call_response(
                [
                    {"id": "call_add", "name": "add", "arguments": {"left": 2, "right": 3}},
                    {"id": "call_greet", "name": "greet", "arguments": {"name": "Ada"}},
                ]
            ),
            "2 + 3 = 5",
        ]
    )
    agent = create_agent(model=model, tools=[add, greet], instructions="Answer briefly.")
    result = await agent.run("What is 2 + 3? Also greet Ada.")
    print("output:", result.output)
    for ret in result.tool_returns():
        print(f"  {ret['name']}: {ret['content']}")
    print("tool schema sent:", model.captured_params()[0]["tools"][0]["parameters"])


if __name__ == "__main__":
    asyncio.run(main())
