"""The modules of starweaver form layers: a module imports only modules of
its own layer or of the layers below it, and the imports have no cycle.

Every import of a starweaver module counts: at module level, inside a
function (an import deferred to keep ``import starweaver`` cheap is still a
dependency) and under ``if TYPE_CHECKING:`` (an import only the type checker
runs is still a dependency a reader follows). ``__init__`` only re-exports
and sits above every layer.

The layers are the table under "The Python layers" in docs/contributing.md,
which this test reads."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import starweaver

PACKAGE = Path(starweaver.__file__).resolve().parent

#: The table of layers: the first Markdown table under this heading.
CONTRIBUTING = Path(__file__).resolve().parents[2] / "docs" / "contributing.md"
HEADING = "## The Python layers"


def layer_table(text: str) -> list[tuple[str, set[str]]]:
    """Each layer's modules, bottom first: the rows of the first table under
    ``HEADING`` (``| layer | modules |``, the modules as code spans)."""
    lines = text.splitlines()
    assert HEADING in lines, f"{CONTRIBUTING.name} has no {HEADING!r} section"
    rows: list[list[str]] = []
    for line in lines[lines.index(HEADING) + 1 :]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break  # the end of the first table
    assert len(rows) > 2, f"no table under {HEADING!r} in {CONTRIBUTING.name}"
    header, separator, *body = rows
    assert header == ["layer", "modules"], header
    assert all(set(cell) <= set("-: ") for cell in separator), separator
    return [(layer, set(re.findall(r"`([^`]+)`", modules))) for layer, modules in body]


#: Each layer's modules, bottom first, as docs/contributing.md lists them.
LAYERS: list[tuple[str, set[str]]] = layer_table(CONTRIBUTING.read_text(encoding="utf-8"))

LAYER_OF = {module: index for index, (_, modules) in enumerate(LAYERS) for module in modules}


def _imported(module: str, node: ast.AST, modules: set[str]) -> set[str]:
    """The starweaver modules ``node`` imports (``from . import x``,
    ``from .x import y``, ``from starweaver.x import y``, ``import starweaver.x``)."""
    found: set[str] = set()
    if isinstance(node, ast.ImportFrom):
        if node.level == 1 and node.module is None:
            found.update(alias.name for alias in node.names)
        elif node.level == 1 and node.module is not None:
            found.add(node.module.split(".")[0])
        elif node.level == 0 and node.module == "starweaver":
            found.update(alias.name for alias in node.names)
        elif node.level == 0 and node.module is not None and node.module.startswith("starweaver."):
            found.add(node.module.split(".")[1])
    elif isinstance(node, ast.Import):
        found.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("starweaver."))
    return {name for name in found if name in modules and name != module}


def _imports(module: str, tree: ast.AST, modules: set[str]) -> set[str]:
    """The starweaver modules imported anywhere in ``tree``."""
    out: set[str] = set()
    for node in ast.walk(tree):
        out.update(_imported(module, node, modules))
    return out


def _subpackages() -> list[Path]:
    """The packages inside starweaver (``starweaver.temporal``): each is one
    module of the table, its files' imports together."""
    return sorted(path.parent for path in PACKAGE.glob("*/__init__.py"))


def graph() -> dict[str, set[str]]:
    modules = ({path.stem for path in PACKAGE.glob("*.py")} - {"__init__"}) | {d.name for d in _subpackages()}
    out = {
        path.stem: _imports(path.stem, ast.parse(path.read_text(encoding="utf-8")), modules)
        for path in sorted(PACKAGE.glob("*.py"))
        if path.stem != "__init__"
    }
    for d in _subpackages():
        out[d.name] = set().union(
            *(_imports(d.name, ast.parse(f.read_text(encoding="utf-8")), modules) for f in sorted(d.glob("*.py")))
        )
    return out


def test_every_module_has_a_layer() -> None:
    twice = sorted({m for i, (_, a) in enumerate(LAYERS) for _, b in LAYERS[i + 1 :] for m in a & b})
    assert not twice, f"{CONTRIBUTING.name} lists these modules in two layers: {twice}"
    missing = sorted(set(graph()) - set(LAYER_OF))
    assert not missing, f"give these modules a layer in {CONTRIBUTING.name}: {missing}"
    gone = sorted(set(LAYER_OF) - set(graph()))
    assert not gone, f"{CONTRIBUTING.name} names modules that no longer exist: {gone}"


def test_no_module_imports_a_higher_layer() -> None:
    upward = [
        f"{module} ({LAYERS[LAYER_OF[module]][0]}) imports {target} ({LAYERS[LAYER_OF[target]][0]})"
        for module, targets in graph().items()
        for target in sorted(targets)
        if module in LAYER_OF and target in LAYER_OF and LAYER_OF[target] > LAYER_OF[module]
    ]
    assert not upward, "\n".join(upward)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, and the
    modules that import themselves (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return found


def test_the_imports_have_no_cycle() -> None:
    assert cycles(graph()) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    # The check itself: a cycle through three modules, and one without.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_lazy_relative_and_type_only_imports_count() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "import typing\n"
        "from . import errors\n"
        "from .tools import Tool\n"
        "if TYPE_CHECKING:\n"
        "    from starweaver.agent import Agent\n"
        "else:\n"
        "    from .hitl import HITLSnapshot\n"
        "if typing.TYPE_CHECKING:\n"
        "    from .streaming import AgentRun\n"
        "def f():\n"
        "    from starweaver.session import RunResult\n"
        "    import starweaver.models\n"
    )
    modules = {"errors", "tools", "agent", "hitl", "streaming", "session", "models", "runtime"}
    assert _imports("x", tree, modules) == {"errors", "tools", "agent", "hitl", "streaming", "session", "models"}


def test_the_layer_table_is_read_bottom_first() -> None:
    text = (
        "# Doc\n\n## The Python layers\n\nProse.\n\n"
        "| layer | modules |\n| --- | --- |\n| low | `a`, `b` |\n| high | `c` |\n\n"
        "| other | table |\n| --- | --- |\n| x | `d` |\n"
    )
    assert layer_table(text) == [("low", {"a", "b"}), ("high", {"c"})]
