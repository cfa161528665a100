"""Tables of functions: a call of a function looked up in a dict display (``VENDORS[name](...)``,
``VENDOR_METHODS[method][vendor](...)``, ``TABLE.get(key)(...)``, or ``impl = TABLE[key]`` then
``impl(...)``) gives what one of the table's functions returns. This module finds the functions;
:class:`.returns.Classifier` takes the union of their verdicts (:func:`union`).

A module's summary is judged from its file alone, so a table of functions it imports cannot be
judged there: the summary records the table instead (:func:`deferred`: its name and the functions
as written), and the walker, which reads the other modules' summaries, takes the union when it
asks for that function's verdict (:func:`parse_deferred`)."""

from __future__ import annotations

import ast
import re
from typing import Protocol

#: How many lookups deep a table of tables is followed.
_MAX_KEYS = 4
#: How a summary records a call through a table of functions it cannot judge alone (no
#: description of a value starts with a NUL).
DEFERRED = "\x00table:"
JSON = "json"
NEVER = "never"


class Function(Protocol):
    """A function as :mod:`.returns` sees it (the part read here)."""

    @property
    def assigns(self) -> dict[str, list[ast.AST | None]]:
        """Local name -> the values bound to it (None: a binding whose value is unknown)."""

    def shadows(self, name: str) -> bool:
        """Whether ``name`` is bound locally."""


class Knowledge(Protocol):
    """The part of :class:`.returns.Knowledge` read here."""

    def module_literal(self, name: str) -> ast.expr | None:
        """The literal a module-level name is bound to (its only binding), else None."""


def function_table(ctx: Knowledge, func: ast.expr, fn: Function) -> tuple[str, list[ast.expr]] | None:
    """``(table name, the function references it holds)`` when ``func`` (what a call calls) is a
    lookup in a dict display of functions, bound once in ``fn`` or at module level; nested tables
    are read as deep as the lookups go. None when it is not, or when an entry is not a name of a
    function (a lambda, a list, a call)."""
    if isinstance(func, ast.Name):  # ``impl = TABLE[key]``, then ``impl(...)``
        bound = fn.assigns.get(func.id) or []
        if len(bound) != 1 or not isinstance(bound[0], (ast.Subscript, ast.Call, ast.IfExp, ast.Name)):
            return None
        func = bound[0]
        if isinstance(func, (ast.IfExp, ast.Name)):  # ``impl = entry[0] if isinstance(entry, list) else entry``
            return _branches(ctx, func, fn)
    keys: list[ast.expr] = []  # innermost first
    node = func
    while len(keys) <= _MAX_KEYS:
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            keys.append(node.slice)
            node = node.value
        elif _is_get(node):
            keys.append(node.args[0])  # type: ignore[attr-defined]
            node = node.func.value  # type: ignore[attr-defined]
        else:
            break
    if not keys or not isinstance(node, ast.Name):
        return None
    values: list[ast.expr] = [node]
    for key in reversed(keys):
        inner: list[ast.expr] = []
        for value in values:
            table = _dict_display(ctx, value, fn)
            if table is None:
                return None
            inner.extend(_entries(table, key))
        values = inner
    if not values or not all(isinstance(v, (ast.Name, ast.Attribute)) for v in values):
        return None
    return node.id, values


def _branches(ctx: Knowledge, node: ast.expr, fn: Function, hops: int = 0) -> tuple[str, list[ast.expr]] | None:
    """The functions of the branches of ``a if c else b`` (or of a name bound to a lookup) that are
    lookups in one table: a branch that is not (``entry[0]`` of an entry that is a function,
    never taken) adds nothing."""
    if hops > _MAX_KEYS:
        return None
    branches = [node.body, node.orelse] if isinstance(node, ast.IfExp) else [node]
    found = []
    for branch in branches:
        if isinstance(branch, ast.Name):
            bound = fn.assigns.get(branch.id) or []
            branch = bound[0] if len(bound) == 1 and isinstance(bound[0], ast.expr) else branch
        if isinstance(branch, ast.IfExp):
            table = _branches(ctx, branch, fn, hops + 1)
        elif isinstance(branch, (ast.Subscript, ast.Call)):
            table = function_table(ctx, branch, fn)
        else:
            table = None
        if table is not None:
            found.append(table)
    if not found or len({name for name, _ in found}) != 1:
        return None
    return found[0][0], [f for _, functions in found for f in functions]


def deferred(table: str, functions: list[str]) -> str:
    """The summary's record of a call through ``table`` of the functions written ``functions``."""
    return f"{DEFERRED}{table}:{','.join(functions)}"


def parse_deferred(verdict: str) -> tuple[str, list[str]] | None:
    """``(table, functions as written)`` of a :func:`deferred` record, else None."""
    if not verdict.startswith(DEFERRED):
        return None
    table, _, functions = verdict[len(DEFERRED) :].partition(":")
    return table, functions.split(",")


def union(table: str, verdicts: list[str | None], textual: tuple[str, ...]) -> str | None:
    """What a call through ``table`` gives when its functions give ``verdicts``: JSON when every one
    does (a function that only raises adds nothing); when none does, their one kind, else text
    when each is text of some kind (``textual``), else values that are not JSON text; None when one
    is unknown or some give JSON and some do not."""
    kinds = set()
    for verdict in verdicts:
        if verdict is None or verdict.startswith(DEFERRED):
            return None
        if verdict != NEVER:
            kinds.add(verdict if verdict == JSON else _FROM.sub("", verdict))
    if not kinds or kinds == {JSON}:
        return JSON
    if JSON in kinds:
        return None
    where = f"(from the functions of `{table}`)"
    if len(kinds) == 1:
        return f"{kinds.pop()} {where}"
    if all(v.startswith(textual) for v in kinds):
        return f"text {where}"
    return f"values that are not JSON text {where}"


# the helper a verdict was learnt from (``... (from `fetch`)``): left out when verdicts are compared
_FROM = re.compile(r" \(from `[^`]*`\)$")


def _entries(table: ast.Dict, key: ast.expr) -> list[ast.expr]:
    """The values a lookup by ``key`` may give: the one entry of a constant key the table has, else all."""
    if isinstance(key, ast.Constant):
        chosen = [
            v
            for k, v in zip(table.keys, table.values, strict=True)
            if isinstance(k, ast.Constant) and k.value == key.value
        ]
        if chosen:
            return chosen
    return list(table.values)


def _is_get(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and len(node.args) == 1
        and not node.keywords
    )


def _dict_display(ctx: Knowledge, node: ast.expr, fn: Function) -> ast.Dict | None:
    """The dict display a name stands for (its one binding in ``fn``, else at module level), or
    the display itself; None for anything else, or a display with ``**`` entries."""
    if isinstance(node, ast.Name):
        bound = fn.assigns.get(node.id)
        if bound:
            node = bound[0] if len(bound) == 1 and isinstance(bound[0], ast.expr) else None  # type: ignore[assignment]
        else:
            node = None if fn.shadows(node.id) else ctx.module_literal(node.id)  # type: ignore[assignment]
    if not isinstance(node, ast.Dict) or not node.values or None in node.keys:
        return None
    return node
