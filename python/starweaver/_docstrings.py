"""Docstring parsing for tool descriptions (private).

Splits a docstring into the tool description and per-parameter descriptions.
Understands the parameter sections of the three common styles:

- Google: ``Args:`` (also Arguments, Parameters, Params, Keyword Args, Other
  Parameters ...) followed by indented ``name (type): text`` items;
- NumPy: a ``Parameters`` heading underlined with dashes, ``name : type`` items
  with indented text;
- Sphinx: ``:param [type] name: text`` fields (``:type name:`` fields are dropped).

The description is the docstring without those parameter parts; every other
section (Returns, Raises, Examples ...) is kept as written.
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass, field

__all__ = ("ParsedDocstring", "parse_docstring")

_PARAM_SECTIONS = frozenset(
    {
        "args",
        "arguments",
        "parameters",
        "params",
        "keyword args",
        "keyword arguments",
        "kwargs",
        "other args",
        "other arguments",
        "other parameters",
        "other params",
    }
)
_GOOGLE_HEADER = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*$")
_GOOGLE_ITEM = re.compile(r"^(\*{0,2}[A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:(?:\s+(.*))?$")
_NUMPY_UNDERLINE = re.compile(r"^-{3,}\s*$")
_NUMPY_ITEM = re.compile(r"^(\*{0,2}[A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::.*)?$")
_SPHINX_PARAM = re.compile(
    r"^:(?:param|parameter|arg|argument|key|keyword)\s+(?:[^:]*\s)?(\*{0,2}[A-Za-z_]\w*)\s*:(.*)$"
)
_SPHINX_TYPE = re.compile(r"^:type\s+\*{0,2}[A-Za-z_]\w*\s*:")


@dataclass(frozen=True)
class ParsedDocstring:
    """A docstring split into the tool description and parameter descriptions."""

    description: str | None
    params: dict[str, str] = field(default_factory=dict)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(parts: list[str]) -> str:
    return " ".join(p.strip() for p in parts if p.strip())


def _block_end(lines: list[str], start: int, base: int) -> int:
    """Index after the block of lines from start that are blank or indented deeper than base."""
    i = start
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > base):
        i += 1
    return i


def _is_numpy_heading(lines: list[str], i: int) -> bool:
    return i + 1 < len(lines) and bool(lines[i].strip()) and bool(_NUMPY_UNDERLINE.match(lines[i + 1].strip()))


def _items(body: list[str], pattern: re.Pattern[str], params: dict[str, str]) -> None:
    """Reads ``name: text`` items at the body's base indent; deeper lines continue an item."""
    base = min((_indent(ln) for ln in body if ln.strip()), default=0)
    names: list[str] = []
    text: list[str] = []

    def flush() -> None:
        for n in names:
            if desc := _join(text):
                params[n] = desc

    for line in body:
        if line.strip() and _indent(line) == base:
            m = pattern.match(line.strip())
            if m:
                flush()
                names = [n.strip().lstrip("*") for n in m.group(1).split(",")]
                text = [m.group(2) or ""] if pattern is _GOOGLE_ITEM else []
                continue
        text.append(line)
    flush()


@functools.lru_cache(maxsize=1024)
def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Parses a raw or cleaned docstring; None or blank gives an empty result.
    Cached by the text (tools made by one factory share a docstring): the
    result is shared and must not be modified."""
    if not doc or not doc.strip():
        return ParsedDocstring(None)
    lines = inspect.cleandoc(doc).splitlines()
    params: dict[str, str] = {}
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        indent = _indent(line)
        if _is_numpy_heading(lines, i) and stripped.lower() in _PARAM_SECTIONS:
            end = i + 2
            while end < len(lines) and not _is_numpy_heading(lines, end):
                end += 1
            _items(lines[i + 2 : end], _NUMPY_ITEM, params)
            i = end
            continue
        header = _GOOGLE_HEADER.match(stripped)
        if header and header.group(1).strip().lower() in _PARAM_SECTIONS:
            end = _block_end(lines, i + 1, indent)
            _items(lines[i + 1 : end], _GOOGLE_ITEM, params)
            if end < len(lines):
                kept.append("")
            i = end
            continue
        sphinx = _SPHINX_PARAM.match(stripped)
        if sphinx or _SPHINX_TYPE.match(stripped):
            end = _block_end(lines, i + 1, indent)
            while end > i + 1 and not lines[end - 1].strip():
                end -= 1  # trailing blank lines belong to the description
            if sphinx and (desc := _join([sphinx.group(2), *lines[i + 1 : end]])):
                params[sphinx.group(1).lstrip("*")] = desc
            i = end
            continue
        kept.append(line)
        i += 1
    description = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    return ParsedDocstring(description or None, params)
