"""What more than one rule uses: how a call is quoted in a message, and the DG103/DG104 check of
every value a tool gives the model."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from dispatchguard.lint.inference.control import ends, failed_json_parses
from dispatchguard.lint.inference.returns import JSON, Classifier

if TYPE_CHECKING:
    from dispatchguard.lint.rule import RuleContext
    from dispatchguard.lint.scopes import FunctionInfo


def describe(node: ast.AST, limit: int = 60) -> str:
    """The source of ``node`` as a message quotes it: cut to ``limit`` characters."""
    text = ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_returns(ctx: RuleContext, fn: FunctionInfo, code: str, message: str, name: str) -> None:
    """Report every way ``fn`` can give the model something other than a JSON string (DG103 for
    the run methods of tool classes, DG104 for tool functions). With ``fn.artifact``
    (``response_format="content_and_artifact"``) a returned tuple's first element is judged."""
    node = fn.node
    if fn.is_generator or _is_abstract(node):
        return
    body = node.body  # type: ignore[attr-defined]
    if not ends(body):
        what = "None (a body of only `pass`)" if _only_pass(body) else "None (it can end without a return)"
        ctx.report(node, code, message.format(method=name, what=what))
    classifier = Classifier(ctx)
    declared = classifier.declared(fn)
    failed_parses: dict[int, str] | None = None
    for ret in fn.returns:
        value = ret.value
        if value is None:
            ctx.report(ret, code, message.format(method=name, what="None (a bare `return`)"))
            continue
        if fn.artifact:
            if not isinstance(value, ast.Tuple) or not value.elts:
                continue  # (content, artifact) built elsewhere: the content is out of sight
            value = value.elts[0]
        verdict = classifier.classify(_straight_line_value(fn, ret, value), fn, 0)
        if verdict == JSON:
            continue
        if verdict is None and not fn.artifact:
            verdict = declared
        if verdict is None and isinstance(value, ast.Name):
            if failed_parses is None:
                failed_parses = failed_json_parses(node)
            if id(ret) in failed_parses:
                verdict = f"text that failed to parse as JSON (`{value.id}`, from its `except`)"
        if verdict is None:
            if not ctx.strict:
                continue
            verdict = "a value not known to be a JSON string (strict mode)"
        ctx.report(value, code, message.format(method=name, what=verdict))


def _straight_line_value(fn: FunctionInfo, ret: ast.Return, value: ast.expr) -> ast.expr:
    """For ``return name`` in the function's own body, when every binding of ``name`` is a plain
    assignment in that same body: the value of the last assignment before the return (straight-line
    code, so that is the one returned). Otherwise ``value`` itself."""
    if not isinstance(value, ast.Name):
        return value
    body = fn.node.body  # type: ignore[attr-defined]
    if ret not in body:
        return value
    bindings = fn.assigns.get(value.id) or []
    found = [
        stmt
        for stmt in body[: body.index(ret)]
        if isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == value.id
    ]
    every = [
        stmt
        for stmt in body
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == value.id for t in stmt.targets)
    ]
    if not found or len(every) != len(bindings) or any(b is None or isinstance(b, ast.AugAssign) for b in bindings):
        return value
    return found[-1].value


def _is_abstract(node: ast.AST) -> bool:
    for decorator in node.decorator_list:  # type: ignore[attr-defined]
        name = decorator.attr if isinstance(decorator, ast.Attribute) else getattr(decorator, "id", "")
        if name in ("abstractmethod", "overload"):
            return True
    return False


def _only_pass(body: list[ast.stmt]) -> bool:
    stmts = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return all(isinstance(s, ast.Pass) for s in stmts)
