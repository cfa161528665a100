"""Control flow, as far as returned values go: whether a block always ends in ``return`` or
``raise`` (a tool method that can fall off its end returns None), and whether it only raises."""

from __future__ import annotations

import ast


def only_raises(body: list[ast.stmt]) -> bool:
    """A body that ends by raising on every path and returns nothing (``ends`` holds)."""
    return not any(isinstance(n, ast.Return) for stmt in body for n in ast.walk(stmt))


def ends(body: list[ast.stmt]) -> bool:
    """Whether a block always ends in return/raise (never falls off its end): its last statement
    decides (``_ENDINGS``, by statement kind)."""
    if not body:
        return False
    last = body[-1]
    judge = _ENDINGS.get(type(last))
    return judge(last) if judge is not None else False


def _try_ends(stmt: ast.Try) -> bool:
    if stmt.finalbody and ends(stmt.finalbody):
        return True
    main = ends(stmt.orelse) if stmt.orelse else ends(stmt.body)
    return main and all(ends(h.body) for h in stmt.handlers)


def _match_ends(stmt: ast.Match) -> bool:
    cases = stmt.cases
    wildcard = any(isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None for c in cases)
    return wildcard and all(ends(c.body) for c in stmt.cases)


def _exit_call(stmt: ast.Expr) -> bool:
    """``sys.exit(...)``, ``os._exit(...)``, ``pytest.fail(...)``: calls that never return."""
    if not isinstance(stmt.value, ast.Call):
        return False
    name = getattr(stmt.value.func, "attr", None) or getattr(stmt.value.func, "id", None)
    return name in ("exit", "_exit", "abort", "fail", "skip")


_ENDINGS = {
    ast.Return: lambda stmt: True,
    ast.Raise: lambda stmt: True,
    ast.If: lambda stmt: ends(stmt.body) and ends(stmt.orelse),
    ast.With: lambda stmt: ends(stmt.body),
    ast.AsyncWith: lambda stmt: ends(stmt.body),
    ast.Try: _try_ends,
    getattr(ast, "TryStar", ast.Try): _try_ends,
    ast.While: lambda stmt: isinstance(stmt.test, ast.Constant) and bool(stmt.test.value) and not _has_break(stmt.body),
    ast.Match: _match_ends,
    ast.Expr: _exit_call,
    ast.Assert: lambda stmt: isinstance(stmt.test, ast.Constant) and not stmt.test.value,
}


def _has_break(body: list[ast.stmt]) -> bool:
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Break):
                return True
    return False
