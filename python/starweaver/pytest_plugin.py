"""starweaver's pytest plugin, loaded by pytest when starweaver is installed
(the ``pytest11`` entry point): fixtures for testing tools and agents.

- ``call_tool``: ``call_tool(tool, arguments, deps=..., metadata=...)`` calls
  one tool as a run does and returns its ``ToolReturnPart``
  (``starweaver.testing.call_tool_sync``).
- ``test_model``: a fresh ``TestModel()`` (no script: it calls each tool
  once, then sums up); it records every request
  (``test_model.captured_messages()``, ``captured_params()``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

# pytest loads this plugin in every session of an environment that has
# starweaver: the runtime is imported by the fixtures, when a test uses one.
if TYPE_CHECKING:
    from starweaver.testing import TestModel

__all__ = ["call_tool", "test_model"]


@pytest.fixture
def call_tool() -> Callable[..., object]:
    """Calls one tool through validation and a ToolContext (see
    ``starweaver.testing.call_tool``)."""
    from starweaver.testing import call_tool_sync  # noqa: PLC0415 - see above

    return call_tool_sync


@pytest.fixture
def test_model() -> TestModel:
    """A TestModel without a script (see TestModel) that records what it is sent."""
    from starweaver.testing import TestModel  # noqa: PLC0415 - see above

    return TestModel()
