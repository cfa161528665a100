"""Tables of functions: a call of a function looked up in a dict display (``VENDORS[name](...)``,
``VENDOR_METHODS[method][vendor](...)``, ``TABLE.get(key)(...)``, or ``impl = TABLE[key]`` then
``impl(...)``) gives what one of the table's functions returns. This module finds the functions;
:class:`.returns.Classifier` takes the union of their verdicts."""

from __future__ import annotations

import ast
from typing import Protocol

#: How many lookups deep a table of tables is followed.
_MAX_KEYS = 4


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
        if len(bound) != 1 or not isinstance(bound[0], (ast.Subscript, ast.Call)):
            return None
        func = bound[0]
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
