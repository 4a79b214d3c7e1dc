"""The top level of ``starweaver``: one list of about sixty names, the same
list for type checkers, and the names it held before still resolving (with a
``DeprecationWarning`` naming their new home) for one release."""

from __future__ import annotations

import ast
import importlib
import warnings
from pathlib import Path

import pytest
import starweaver

INIT = Path(starweaver.__file__)

# What the first examples import from the top level.
SEED_NAMES = {"ApprovalRequired", "BaseTool", "ToolContext", "ToolResult", "create_agent", "tool"}


def test_the_top_level_is_small_and_holds_the_common_names() -> None:
    assert len(starweaver._EXPORTS) <= 60
    assert SEED_NAMES <= set(starweaver.__all__)
    assert {"Agent", "TestModel", "FunctionModel", "OpenAIModel", "AnthropicModel", "StarweaverError"} <= set(
        starweaver.__all__
    )
    for name in starweaver._EXPORTS:
        assert not name.startswith("_")
        assert not starweaver._EXPORTS[name].startswith("_") or name == "ToolErrorPolicy"


def test_the_type_checking_imports_are_the_exports() -> None:
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "_TYPE_CHECKING"
    )
    imported: dict[str, str] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.module is not None
        for alias in node.names:
            # "X as X": an explicit re-export for type checkers.
            assert alias.asname == alias.name
            imported[alias.name] = node.module.removeprefix("starweaver.")
    assert imported == starweaver._EXPORTS


def test_every_export_is_defined_where_the_list_says() -> None:
    for name, module in starweaver._EXPORTS.items():
        assert getattr(starweaver, name) is getattr(importlib.import_module(f"starweaver.{module}"), name)


@pytest.mark.parametrize("old", sorted(starweaver._MOVED))
def test_an_old_top_level_name_warns_and_names_its_home(old: str) -> None:
    module, _, new = starweaver._MOVED[old].partition(":")
    new = new or old
    with pytest.warns(DeprecationWarning, match=rf"starweaver\.{old} is deprecated.*use {module}\.{new}$"):
        value = getattr(starweaver, old)
    assert value is getattr(importlib.import_module(module), new)
    assert old not in starweaver.__all__


def test_from_import_of_an_old_name_warns_at_the_import() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from starweaver import SqliteStore  # noqa: PLC0415
    from starweaver.stores import SqliteStore as moved  # noqa: PLC0415

    assert SqliteStore is moved
    # The import machinery looks the name up twice (hasattr, then the
    # import); the warning of the import itself points at this file.
    assert caught and {w.category for w in caught} == {DeprecationWarning}
    assert any(w.filename == __file__ for w in caught)
    assert all("use starweaver.stores.SqliteStore" in str(w.message) for w in caught)


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("starweaver.mcp", "McpToolset", "MCPToolset"),
        ("starweaver.mcp", "McpTransport", "MCPTransport"),
        ("starweaver.hitl", "HitlSnapshot", "HITLSnapshot"),
        ("starweaver.session", "SessionHitl", "SessionHITL"),
        ("starweaver.agent", "SessionHitl", "SessionHITL"),
        ("starweaver.streaming", "RunHitl", "RunHITL"),
        ("starweaver.content", "UrlSource", "URLSource"),
        ("starweaver.errors", "StoreUnavailable", "StoreUnavailableError"),
        ("starweaver", "McpToolset", "MCPToolset"),
        ("starweaver", "HitlSnapshot", "HITLSnapshot"),
        ("starweaver", "StoreUnavailable", "StoreUnavailableError"),
    ],
)
def test_a_renamed_name_keeps_its_old_spelling_for_a_release(module: str, old: str, new: str) -> None:
    owner = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=rf"\.{new}$"):
        value = getattr(owner, old)
    assert value.__name__ == new
    assert not hasattr(importlib.import_module(module), "__all__") or old not in owner.__all__


def test_one_exception_per_failure() -> None:
    with pytest.warns(DeprecationWarning):
        old = starweaver.errors.StoreUnavailable  # type: ignore[attr-defined]
    assert old is starweaver.StoreUnavailableError


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        starweaver.NoSuchName  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        starweaver.mcp.NoSuchName  # type: ignore[attr-defined]  # noqa: B018


def test_the_package_init_only_re_exports() -> None:
    # No class and no code of its own: the lazy lookup of names, and
    # nothing else, is defined there.
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    assert not [node for node in tree.body if isinstance(node, ast.ClassDef)]
    functions = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assert functions == {"__getattr__", "__dir__"}
