"""Generate starweaver's cffi out-of-line ABI module from capi/starweaver.h.

The hand-written C header is the single source of the ABI: its text, minus the
include-guard preprocessor lines, is the cffi cdef. The generated module is
``starweaver._cffi`` (``ffi.set_source("starweaver._cffi", None)``): pure
Python, no C compiler needed, loaded with ``ffi.dlopen`` by
``starweaver._library``.

Used by setup.py during the build, and from the command line for development:

    python ffi_build.py python/starweaver/_cffi.py
"""

from __future__ import annotations

import os
import re
import sys

from cffi import FFI

ROOT = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(ROOT, "capi", "starweaver.h")
MODULE_NAME = "starweaver._cffi"

_GUARD = re.compile(r"^\s*#\s*(ifndef|define|endif)\b")


def read_cdef(header: str = HEADER) -> str:
    """Return the header text with the include-guard lines removed."""
    with open(header, encoding="utf-8") as f:
        lines = f.read().splitlines()
    kept = []
    for n, line in enumerate(lines, 1):
        if _GUARD.match(line):
            continue
        if line.lstrip().startswith("#"):
            raise ValueError(
                f"{header}:{n}: preprocessor line other than the include guard; "
                f"cffi's cdef cannot parse it: {line.strip()!r}"
            )
        kept.append(line)
    return "\n".join(kept) + "\n"


def make_ffi(header: str = HEADER) -> FFI:
    ffi = FFI()
    ffi.cdef(read_cdef(header))
    ffi.set_source(MODULE_NAME, None)
    return ffi


def generate(py_file: str, header: str = HEADER) -> bool:
    """Write the out-of-line ABI module to py_file; True if it changed."""
    from cffi import recompiler

    directory = os.path.dirname(os.path.abspath(py_file))
    os.makedirs(directory, exist_ok=True)
    return bool(recompiler.make_py_source(make_ffi(header), MODULE_NAME, py_file))


# For `cffi_modules=["ffi_build.py:ffi"]` style use and interactive inspection.
ffi = make_ffi()


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(f"usage: {argv[0]} OUTPUT.py", file=sys.stderr)
        return 2
    changed = generate(argv[1])
    print(f"{'wrote' if changed else 'up to date'}: {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
