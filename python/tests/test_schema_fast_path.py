"""The primitive fast path of schema inference against the pydantic path.

Functions whose parameters are ints, strs, floats, bools, lists and dicts of
them, Optional and Literal get their schema assembled from cached per-type
fragments, and their pydantic model only when a call needs it. Here every
signature of a generated corpus builds both ways: the schemas must be equal,
and every argument set of a corpus must bind to the same values, or fail with
the same message, on both."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable
from datetime import date
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from pydantic import BaseModel, Field
from starweaver import ToolContext, _schema
from starweaver._schema import FunctionSchema, function_schema
from starweaver.errors import InvalidArguments

ANNOTATIONS: list[Any] = [
    int,
    str,
    float,
    bool,
    list[int],
    list[str],
    list[float],
    dict[str, int],
    dict[str, list[float]],
    Optional[int],  # noqa: UP045 - both spellings are in the grammar
    int | None,
    str | None,
    int | str,
    Union[float, bool],  # noqa: UP007
    Literal["a", "b"],
    Literal[1, 2, 3],
    Literal["only"],
    Literal[True],
    list[Literal["x", "y"]],
    dict[str, bool | None],
    list[dict[str, int]] | None,
]

DEFAULTS: dict[Any, list[Any]] = {
    int: [0, 7],
    str: ["", "x"],
    float: [0.5, 2],
    bool: [False, True],
    list[int]: [[1, 2]],
    int | None: [None, 3],
    str | None: [None],
    Literal["a", "b"]: ["b"],
    Literal[1, 2, 3]: [2],
    dict[str, int]: [{"k": 1}],
}

VALUES: list[Any] = [
    0,
    1,
    -5,
    1.5,
    2.0,
    "a",
    "x",
    "",
    True,
    False,
    None,
    [1, 2],
    ["a"],
    [1.5],
    {"k": 1},
    {"k": [1.0]},
    {"k": None},
    ["x", "z"],
    "only",
    2,
]


def make(params: list[tuple[str, Any, Any]], doc: str | None) -> Callable[..., Any]:
    """A function with these (name, annotation, default) parameters."""

    def f(**kwargs: Any) -> dict[str, Any]:
        return kwargs

    f.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=a, default=d) for n, a, d in params]
    )
    f.__annotations__ = {n: a for n, a, _ in params}
    f.__doc__ = doc
    f.__qualname__ = f.__name__ = "corpus_tool"
    return f


def corpus() -> list[tuple[str, Callable[..., Any]]]:
    out = []
    for i, ann in enumerate(ANNOTATIONS):
        out.append((f"{i}-required", make([("value", ann, inspect.Parameter.empty)], None)))
        for j, d in enumerate(DEFAULTS.get(ann, [])):
            out.append((f"{i}-default{j}", make([("value", ann, d)], "Set it.\n\nArgs:\n    value: the value.\n")))
    for k, (a, b) in enumerate(itertools.combinations(ANNOTATIONS[:12], 2)):
        params = [
            ("first", a, inspect.Parameter.empty),
            ("second", b, DEFAULTS.get(b, [None])[0] if b in DEFAULTS else inspect.Parameter.empty),
        ]
        out.append((f"pair{k}", make(params, "A pair.\n\nArgs:\n    first: the first one.\n")))
    out.append(("none", make([], "Nothing.")))
    return out


CORPUS = corpus()


def real(func: Callable[..., Any], future: bool) -> Callable[..., Any]:
    """The corpus function as source code: a plain function (no
    ``__signature__``) that the quick reader takes from its code object,
    defaults and annotations (string ones with ``future``)."""
    params = list(inspect.signature(func).parameters.values())
    ns: dict[str, Any] = {}
    parts = []
    for i, p in enumerate(params):
        ns[f"T{i}"] = p.annotation
        part = f"{p.name}: T{i}"
        if p.default is not inspect.Parameter.empty:
            ns[f"D{i}"] = p.default
            part += f" = D{i}"
        parts.append(part)
    head = "from __future__ import annotations\n" if future else ""
    exec(compile(f"{head}def corpus_tool({', '.join(parts)}):\n    return 0\n", "<corpus>", "exec"), ns)  # noqa: S102
    out: Callable[..., Any] = ns["corpus_tool"]
    out.__doc__ = func.__doc__
    return out


REAL_CORPUS = [(f"{n}-{'str' if future else 'obj'}", real(f, future)) for n, f in CORPUS for future in (False, True)]


def slow(func: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> FunctionSchema:
    with monkeypatch.context() as m:
        m.setattr(_schema, "_primitive_schema", lambda *a, **k: None)
        return function_schema(func)


def outcome(fs: FunctionSchema, arguments: dict[str, Any]) -> Any:
    try:
        return ("ok", fs.bind(None, arguments))
    except InvalidArguments as e:
        return ("invalid", str(e))


def test_corpus_is_large() -> None:
    assert len(CORPUS) >= 90


@pytest.mark.parametrize(("name", "func"), CORPUS, ids=[n for n, _ in CORPUS])
def test_fast_path_matches_pydantic(name: str, func: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = function_schema(func)
    assert fast.model is None and fast.model_factory is not None, "the corpus is in the fast path's grammar"
    reference = slow(func, monkeypatch)
    assert reference.model is not None
    assert fast.json_schema == reference.json_schema
    names = list(inspect.signature(func).parameters)
    argument_sets: list[dict[str, Any]] = [{}, {"unknown": 1}]
    for values in (
        itertools.product(VALUES, repeat=len(names)) if len(names) < 2 else zip(VALUES, reversed(VALUES), strict=True)
    ):
        argument_sets.append(dict(zip(names, values, strict=False)))
    for arguments in argument_sets:
        assert outcome(fast, arguments) == outcome(reference, arguments), arguments
    # The model was built on the first call that needed one.
    assert not names or fast.model is not None


@pytest.mark.parametrize(("name", "func"), REAL_CORPUS, ids=[n for n, _ in REAL_CORPUS])
def test_quick_reader_matches_pydantic(name: str, func: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain functions skip inspect.signature and get_type_hints; the schema
    and every binding still equal the create_model path's."""
    fast = _schema._quick_function_schema(func)  # pyright: ignore[reportPrivateUsage]
    assert fast is not None, "the quick reader takes every plain function of the corpus"
    reference = slow(func, monkeypatch)
    assert reference.model is not None
    assert fast.json_schema == reference.json_schema
    assert (fast.description, fast.takes_ctx, fast.is_async) == (reference.description, False, False)
    names = list(inspect.signature(func).parameters)
    arguments_sets: list[dict[str, Any]] = [{}, {"unknown": 1}]
    arguments_sets += [dict(zip(names, values, strict=False)) for values in zip(VALUES, reversed(VALUES), strict=True)]
    arguments_sets += [dict(zip(names, (v, v), strict=False)) for v in VALUES]
    for arguments in arguments_sets:
        assert outcome(fast, arguments) == outcome(reference, arguments), arguments


def test_quick_reader_context_and_keyword_only(monkeypatch: pytest.MonkeyPatch) -> None:
    async def lookup(ctx: ToolContext, city: str, *, days: int = 3, units: Literal["c", "f"] = "c") -> str:
        """Look up.

        Args:
            city: The city.
            days: Days ahead.
        """
        return city

    fast = _schema._quick_function_schema(lookup)  # pyright: ignore[reportPrivateUsage]
    assert fast is not None
    reference = slow(lookup, monkeypatch)
    assert fast.json_schema == reference.json_schema
    for attr in (
        "description",
        "is_async",
        "takes_ctx",
        "ctx_param",
        "ctx_positional",
        "plain_types",
        "plain_required",
    ):
        assert getattr(fast, attr) == getattr(reference, attr), attr
    assert fast.bind("CTX", {"city": "x", "days": 2}) == reference.bind("CTX", {"city": "x", "days": 2})  # type: ignore[arg-type]
    assert fast.bind("CTX", {"city": "x", "days": 2.0}) == (["CTX"], {"city": "x", "days": 2})  # type: ignore[arg-type]


def wrapped_tool(n: int) -> int:
    return n


wrapped_tool.__wrapped__ = len  # type: ignore[attr-defined]


def star_args(*values: int) -> None: ...


def posonly(n: int, /) -> None: ...


def raw_args(args: dict[str, int]) -> None: ...


def local_names() -> Callable[..., Any]:
    class Local:
        pass

    def uses_local(x: Local) -> None: ...

    return uses_local


@pytest.mark.parametrize("func", [wrapped_tool, star_args, posonly, raw_args, local_names()])
def test_quick_reader_leaves_the_rest_to_the_general_path(func: Any) -> None:
    assert _schema._quick_function_schema(func) is None  # pyright: ignore[reportPrivateUsage]


def test_fragments_keep_the_order_of_unions_and_literals() -> None:
    """typing compares unions and Literals as sets: a cache keyed by the
    annotation alone would hand int | str the schema of str | int."""

    def first(a: int | str, b: Literal["x", "y"], c: Literal[1, True]) -> None: ...

    def second(a: str | int, b: Literal["y", "x"], c: Literal[True, 1]) -> None: ...

    one, two = function_schema(first).json_schema["properties"], function_schema(second).json_schema["properties"]
    assert one["a"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert two["a"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert (one["b"]["enum"], two["b"]["enum"]) == (["x", "y"], ["y", "x"])
    assert [type(v) for v in one["c"]["enum"]] == [int, bool]
    assert [type(v) for v in two["c"]["enum"]] == [bool, int]


class Point(BaseModel):
    x: int


def with_model(p: Point, n: int) -> None: ...


def with_field(n: Annotated[int, Field(ge=0)]) -> None: ...


def with_date(d: date) -> None: ...


def with_odd_default(n: tuple[int, int] = (1, 2)) -> None: ...


@pytest.mark.parametrize("func", [with_model, with_field, with_date, with_odd_default])
def test_outside_the_grammar_builds_the_model_at_once(func: Callable[..., Any]) -> None:
    fs = function_schema(func)
    assert fs.model is not None and fs.model_factory is None


def test_plain_calls_never_build_the_model() -> None:
    def add(left: int, right: int = 1, label: str = "") -> int:
        return left + right

    fs = function_schema(add)
    assert fs.plain_call({"left": 1, "right": 2})
    assert fs.bind(None, {"left": 1, "right": 2}) == ([], {"left": 1, "right": 2})
    assert fs.model is None
    # A value that needs converting builds it once.
    with pytest.raises(InvalidArguments):
        fs.bind(None, {"left": "one"})
    assert fs.model is not None


def test_cached_fragments_are_not_shared() -> None:
    def one(n: list[int]) -> None: ...

    def two(n: list[int]) -> None: ...

    a, b = function_schema(one), function_schema(two)
    a.json_schema["properties"]["n"]["items"]["type"] = "mutated"
    assert b.json_schema["properties"]["n"]["items"]["type"] == "integer"
    assert function_schema(one).json_schema["properties"]["n"]["items"]["type"] == "integer"


# String annotations (this module has `from __future__ import annotations`):
# the cached evaluation gives what typing.get_type_hints gives, or defers to it.


def hinted_plain(a: int, b: str | None = None, c: list[dict[str, float]] | None = None) -> None: ...


def hinted_literal(mode: Literal["a", "b"] = "a", flag: Optional[bool] = None) -> None: ...  # noqa: UP045


def hinted_annotated(n: Annotated[int, Field(ge=0, description="count")], p: Point | None = None) -> None: ...


def hinted_later(x: DefinedLater) -> None: ...


def hinted_quoted(x: list[DefinedLater]) -> None: ...


def hinted_unknown(x: NoSuchName) -> None: ...  # type: ignore[name-defined]  # noqa: F821


class DefinedLater:
    pass


@pytest.mark.parametrize("func", [hinted_plain, hinted_literal, hinted_annotated, hinted_later, hinted_quoted])
def test_string_annotations_resolve_as_get_type_hints_does(func: Callable[..., Any]) -> None:
    import sys
    import typing

    quick = _schema._quick_string_hints(func)  # pyright: ignore[reportPrivateUsage]
    if sys.version_info < (3, 11):
        assert quick is None
        return
    # repr: a Field in an annotation is a new object on every evaluation.
    assert repr(quick) == repr(typing.get_type_hints(func, include_extras=True))


def test_unresolvable_string_annotations_defer_to_get_type_hints() -> None:
    assert _schema._quick_string_hints(hinted_unknown) is None  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(ValueError, match="NoSuchName"):
        function_schema(hinted_unknown)


def test_fragments_of_a_recurring_annotation_object_are_found_by_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """typing hands out one object for Optional[int] everywhere: its fragment
    is found without building and hashing its structure key again, and a
    distinct annotation that compares equal (a set-like union) still gets
    its own."""
    from typing import Optional, Union

    keys: list[Any] = []
    real = _schema._structure_key  # pyright: ignore[reportPrivateUsage]

    def counted(tp: Any, depth: int = 0) -> Any:
        if depth == 0:
            keys.append(tp)
        return real(tp, depth)

    monkeypatch.setattr(_schema, "_structure_key", counted)
    first = _schema._fragment(Optional[int])  # noqa: UP045 - typing's cached object is the point  # pyright: ignore[reportPrivateUsage]
    keys.clear()
    assert _schema._fragment(Optional[int]) == first  # noqa: UP045  # pyright: ignore[reportPrivateUsage]
    assert keys == []
    one = _schema._fragment(Union[int, str])  # noqa: UP007  # pyright: ignore[reportPrivateUsage]
    other = _schema._fragment(Union[str, int])  # noqa: UP007  # pyright: ignore[reportPrivateUsage]
    assert Union[int, str] == Union[str, int] and one != other  # noqa: UP007


def test_string_annotations_are_evaluated_once_while_their_names_stay_bound() -> None:
    """A string annotation's value is reused for the same text in the same
    globals while every name it reads is bound to the same object; a
    rebound name, other globals or an annotation that calls something are
    evaluated again."""
    evaluate = _schema._evaluate  # pyright: ignore[reportPrivateUsage]
    ns: dict[str, Any] = {"T": int, "Optional": Optional}
    first = evaluate("list[T] | None", ns)
    assert first == (list[int] | None)
    assert evaluate("list[T] | None", ns) is first  # eval would build a new object
    ns["T"] = str
    assert evaluate("list[T] | None", ns) == (list[str] | None)
    other: dict[str, Any] = {"T": str}
    assert evaluate("list[T] | None", other) is not evaluate("list[T] | None", ns)
    calls = [0]

    def make() -> type:
        calls[0] += 1
        return int

    ns["make"] = make
    assert evaluate("make()", ns) is int and evaluate("make()", ns) is int
    assert calls[0] == 2  # an annotation that calls is never reused
    with pytest.raises(NameError):
        evaluate("Missing | None", ns)
