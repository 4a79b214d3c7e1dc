"""Print the lowest versions pyproject.toml allows for the runtime
dependencies, as pip requirements (``pydantic==2.6``), one per line.

`make py-test-min` installs them in a virtual environment, so the declared
lower bounds are tested, not only the newest releases.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def lower_bounds(text: str) -> list[str]:
    block = re.search(r"^dependencies = \[(.*?)^\]", text, flags=re.S | re.M)
    if block is None:
        raise SystemExit(f"{PYPROJECT}: no [project] dependencies list")
    pins = []
    for name, version in re.findall(r'"([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9.]*)', block.group(1)):
        pins.append(f"{name}=={version}")
    if not pins:
        raise SystemExit(f"{PYPROJECT}: no dependency with a >= lower bound")
    return pins


if __name__ == "__main__":
    sys.stdout.write("\n".join(lower_bounds(PYPROJECT.read_text())) + "\n")
