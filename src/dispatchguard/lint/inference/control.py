"""Control flow, as far as returned values go: whether a block always ends in ``return`` or
``raise`` (a tool method that can fall off its end returns None), and whether it only raises."""

from __future__ import annotations

import ast
from collections.abc import Iterator


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


_PARSE_ERRORS = frozenset({"JSONDecodeError", "ValueError"})


def failed_json_parses(node: ast.AST) -> dict[int, str]:
    """The returns of a function that hand back text the function just failed to parse as JSON:
    ``try: json.loads(text) ... except json.JSONDecodeError: return text``. Maps ``id`` of each
    such ``return`` to the name returned (that text is known not to be JSON)."""
    found: dict[int, str] = {}
    for stmt in _own_nodes(node):
        if not isinstance(stmt, ast.Try):
            continue
        parsed = {name for body_stmt in stmt.body for name in _json_parsed_names(body_stmt)}
        if not parsed:
            continue
        for handler in stmt.handlers:
            if not _catches_parse_error(handler.type):
                continue
            assigned = {t.id for n in _own_nodes(handler) for t in _targets(n)}
            for inner in _own_nodes(handler):
                if isinstance(inner, ast.Return) and isinstance(inner.value, ast.Name):
                    name = inner.value.id
                    if name in parsed and name not in assigned:
                        found[id(inner)] = name
    return found


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function or block, not those of the functions and classes defined in it."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        current = stack.pop()
        yield current
        if not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(current))


def _json_parsed_names(stmt: ast.stmt) -> set[str]:
    names: set[str] = set()
    for inner in [stmt, *_own_nodes(stmt)]:
        if isinstance(inner, ast.Call) and inner.args and isinstance(inner.args[0], ast.Name):
            func = inner.func
            last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if last == "loads":
                names.add(inner.args[0].id)
    return names


def _catches_parse_error(kind: ast.expr | None) -> bool:
    if isinstance(kind, ast.Tuple):
        return any(_catches_parse_error(e) for e in kind.elts)
    name = kind.attr if isinstance(kind, ast.Attribute) else getattr(kind, "id", None)
    return name in _PARSE_ERRORS


def _targets(node: ast.AST) -> list[ast.Name]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
        targets = [node.target]
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        targets = [node.target]
    else:
        return []
    return [n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
