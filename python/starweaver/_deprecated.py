"""Names kept for one release after a rename or a move: a module's
``__getattr__`` that finds an old name's new home and warns."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["forwarding"]


def forwarding(owner: str, moved: Mapping[str, str], *, stacklevel: int = 2) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``owner``: an old name of ``moved``
    (old name -> ``"module:NewName"``, or ``"module"`` when only the module
    changed) resolves to its new home with a ``DeprecationWarning`` naming
    it; any other name raises ``AttributeError``. ``stacklevel`` points the
    warning at the import (3 when another ``__getattr__`` calls this one)."""

    def __getattr__(name: str) -> Any:
        target = moved.get(name)
        if target is None:
            raise AttributeError(f"module {owner!r} has no attribute {name!r}")
        module, _, new = target.partition(":")
        new = new or name
        warnings.warn(
            f"{owner}.{name} is deprecated and goes in the next release: use {module}.{new}",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
        return getattr(importlib.import_module(module), new)

    return __getattr__
