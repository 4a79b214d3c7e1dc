"""Load starweaver's native runtime library, once per process.

``load()`` returns ``(ffi, lib)``: the cffi out-of-line ABI module
``starweaver._cffi`` (generated at build time from capi/starweaver.h) and the
Go c-shared library ``libstarweaver`` that sits next to it in the package.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

__all__ = ["library_path", "load", "loaded"]

if sys.platform == "darwin":
    _LIBNAME = "libstarweaver.dylib"
elif sys.platform == "win32":
    _LIBNAME = "libstarweaver.dll"
else:
    _LIBNAME = "libstarweaver.so"

_HINT = "reinstall with `pip install .` (needs Go >= 1.24 and a C compiler), or run `make build` in a source checkout"

_lock = threading.Lock()
_loaded: tuple[Any, Any] | None = None


def library_path() -> str:
    """Where the native library is expected: next to this module."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), _LIBNAME)


def loaded() -> bool:
    """Whether ``load()`` has loaded the library in this process (or in the
    parent it was forked from)."""
    return _loaded is not None


def load() -> tuple[Any, Any]:
    """Return ``(ffi, lib)``, dlopening the library on the first call only.

    Raises ImportError when the generated cffi module or the library is
    missing or cannot be loaded.
    """
    global _loaded
    loaded = _loaded
    if loaded is not None:
        return loaded
    with _lock:
        if _loaded is None:
            _loaded = _load()
        return _loaded


def _load() -> tuple[Any, Any]:
    try:
        from starweaver._cffi import ffi
    except ImportError as exc:
        raise ImportError(
            f"starweaver's native bindings (starweaver._cffi) are missing; {_HINT}",
            name="starweaver._cffi",
        ) from exc

    path = library_path()
    if not os.path.exists(path):
        raise ImportError(
            f"starweaver's native library is missing ({path}); {_HINT}",
            path=path,
        )
    try:
        lib = ffi.dlopen(path)
    except OSError as exc:
        raise ImportError(
            f"starweaver's native library could not be loaded ({path}): {exc}; {_HINT}",
            path=path,
        ) from exc
    return ffi, lib
