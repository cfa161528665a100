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
import json
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


class Table:
    """The functions a call through a table of functions may call: ``name``, the table looked up;
    ``functions``, every function reference it may give; ``key``, the name of the first lookup's
    key (``TABLE[method]...``), and ``by_key``, the functions under each constant key of that first
    lookup (a caller passing the key picks one entry)."""

    __slots__ = ("by_key", "functions", "key", "name")

    def __init__(
        self, name: str, functions: list[ast.expr], key: str | None = None,
        by_key: dict[str, list[ast.expr]] | None = None,
    ) -> None:  # fmt: skip
        self.name = name
        self.functions = functions
        self.key = key
        self.by_key = by_key


def function_table(ctx: Knowledge, func: ast.expr, fn: Function) -> Table | None:
    """The :class:`Table` when ``func`` (what a call calls) is a lookup in a dict display of
    functions, bound once in ``fn`` or at module level; nested tables are read as deep as the
    lookups go. None when it is not, or when an entry is not a name of a function (a lambda, a
    list, a call)."""
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
    values = _looked_up(ctx, [node], keys[::-1], fn)
    if values is None:
        return None
    first = keys[-1]
    if not isinstance(first, ast.Name):
        return Table(node.id, values)
    top = _dict_display(ctx, node, fn)
    by_key: dict[str, list[ast.expr]] = {}
    for k, v in zip(top.keys, top.values, strict=True):  # type: ignore[union-attr]
        under = _looked_up(ctx, [v], keys[-2::-1], fn) if isinstance(k, ast.Constant) else None
        if under is None or not isinstance(k.value, str) or k.value in by_key:  # type: ignore[union-attr]
            return Table(node.id, values)
        by_key[k.value] = under  # type: ignore[union-attr]
    return Table(node.id, values, first.id, by_key)


def _looked_up(ctx: Knowledge, values: list[ast.expr], keys: list[ast.expr], fn: Function) -> list[ast.expr] | None:
    """The function references ``values`` (tables) give when looked up by ``keys`` in turn; None
    when one is not a dict display, or a value found is not a name of a function."""
    for key in keys:
        inner: list[ast.expr] = []
        for value in values:
            table = _dict_display(ctx, value, fn)
            if table is None:
                return None
            inner.extend(_entries(table, key))
        values = inner
    if not values or not all(isinstance(v, (ast.Name, ast.Attribute)) for v in values):
        return None
    return values


def _branches(ctx: Knowledge, node: ast.expr, fn: Function, hops: int = 0) -> Table | None:
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
    if not found or len({t.name for t in found}) != 1:
        return None
    return _joined(found)


def _joined(found: list[Table]) -> Table:
    """One table of the lookups of several branches in the same table: their functions, and their
    entries by key when every branch is keyed by the same name."""
    functions = [f for t in found for f in t.functions]
    keyed = {t.key for t in found}
    if len(keyed) != 1 or None in keyed:
        return Table(found[0].name, functions)
    by_key: dict[str, list[ast.expr]] = {}
    for t in found:
        for key, under in (t.by_key or {}).items():
            by_key.setdefault(key, []).extend(under)
    return Table(found[0].name, functions, found[0].key, by_key)


class Deferred:
    """What a summary records of a function whose returns go through a table of functions its
    module cannot judge alone: the ``table`` and its ``functions`` as written, the verdicts of the
    function's other returns (``also``: a router's own sentinel text), and, when the table's first
    key is a parameter, its name (``param``), its ``position`` among the positional parameters and
    the functions under each constant key (``by_key``): a caller passing that key calls only those."""

    __slots__ = ("also", "by_key", "functions", "param", "position", "table")

    def __init__(
        self, table: str, functions: list[str], also: list[str] | None = None,
        position: int | None = None, by_key: dict[str, list[str]] | None = None, param: str | None = None,
    ) -> None:  # fmt: skip
        self.table = table
        self.functions = functions
        self.also = also or []
        self.position = position
        self.by_key = by_key
        self.param = param

    def record(self) -> str:
        """The summary's string."""
        data: dict = {"table": self.table, "functions": self.functions}
        if self.also:
            data["also"] = self.also
        if self.position is not None and self.by_key:
            data["position"], data["by_key"], data["param"] = self.position, self.by_key, self.param
        return DEFERRED + json.dumps(data, sort_keys=True, separators=(",", ":"))

    def chosen(self, constants: dict[int | str, str] | None) -> list[str]:
        """The functions a call passing ``constants`` (position or keyword -> a str constant) may reach."""
        key = None
        if constants and self.position is not None:
            key = constants.get(self.position, constants.get(self.param or ""))
        if key is not None and self.by_key and key in self.by_key:
            return self.by_key[key]
        return self.functions


def deferred(table: str, functions: list[str]) -> str:
    """The summary's record of a call through ``table`` of the functions written ``functions``."""
    return Deferred(table, functions).record()


def parse_deferred(verdict: str) -> Deferred | None:
    """The :class:`Deferred` of a summary's record, else None."""
    if not verdict.startswith(DEFERRED):
        return None
    try:
        data = json.loads(verdict[len(DEFERRED) :])
    except ValueError:
        return None
    return Deferred(
        data["table"], data["functions"], data.get("also"), data.get("position"), data.get("by_key"), data.get("param")
    )


def merged(verdicts: list[str]) -> str | None:
    """One record of returns some of which are :func:`deferred` records (a router returning what its
    table's functions return, or its own sentinel text): the first table's record with the other
    tables' functions and the other returns' verdicts added; None when two keyed tables differ."""
    records = [parse_deferred(v) for v in verdicts]
    tables = [r for r in records if r is not None]
    first = tables[0]
    out = Deferred(first.table, list(first.functions), list(first.also), first.position, first.by_key, first.param)
    for record, verdict in zip(records, verdicts, strict=True):
        if record is None:
            out.also.append(verdict)
        elif record is not first:
            if record.by_key != first.by_key or record.position != first.position:
                out.position, out.by_key = None, None
            out.functions += [f for f in record.functions if f not in out.functions]
            out.also += record.also
    return out.record()


def union(table: str, verdicts: list[str | None], textual: tuple[str, ...], where: str | None = None) -> str | None:
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
    where = where or f"(from the functions of `{table}`)"
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
