"""Phase 2b, the handlers of nodes that open a scope: functions, lambdas and classes (called by
:class:`~dispatchguard.lint.analysis.Context` through the table in :mod:`.handlers`)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from dispatchguard.lint.index import dotted
from dispatchguard.lint.resolve import CLASS, DECORATOR, REGISTRY, TOOL
from dispatchguard.lint.scopes import FunctionInfo, Scope

if TYPE_CHECKING:
    from dispatchguard.lint.analysis import Context


def _function(ctx: Context, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    for decorator in node.decorator_list:
        ctx.visit(decorator)
    _arguments_outside(ctx, node.args)
    if node.returns is not None:
        ctx.visit(node.returns)
    enclosing = ctx.scopes[-1]
    if enclosing.kind == "function":
        enclosing.names[node.name] = TOOL if _is_tool_function(ctx, node) else None
    qualname = _qualname(ctx, node.name)
    scope = Scope("function", qualname)
    class_scope = enclosing if enclosing.kind == "class" else None
    fn = FunctionInfo(node, qualname, class_scope, [])
    ctx._created.append(fn)
    scope.fn = fn
    if enclosing.kind == "module":
        fn.key = node.name
        ctx.functions.setdefault(node.name, fn)
    elif class_scope is not None and len(ctx.scopes) >= 2 and ctx.scopes[-2].kind == "module":
        fn.key = f"{class_scope.name}.{node.name}"
        ctx.functions.setdefault(fn.key, fn)
        if class_scope.is_tool and node.name in ("run", "_run", "arun", "_arun"):
            ctx.tool_methods.append(fn)
    elif class_scope is not None and class_scope.is_tool and node.name in ("run", "_run", "arun", "_arun"):
        ctx.tool_methods.append(fn)
    _bind_params(ctx, scope, node.args)
    is_dispatcher = _is_dispatcher(ctx, qualname)
    ctx.scopes.append(scope)
    fn.scopes = list(ctx.scopes)
    ctx._dispatcher_depth += is_dispatcher
    try:
        ctx._body(node.body)
    finally:
        ctx._dispatcher_depth -= is_dispatcher
        ctx.scopes.pop()


def _is_tool_function(ctx: Context, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        qual = ctx.qual_of(target) or dotted(target)
        if qual and (ctx.kind(qual) == DECORATOR or ctx.resolver.is_tool_decorator(qual)):
            return True
    return False


def _lambda(ctx: Context, node: ast.Lambda) -> None:
    _arguments_outside(ctx, node.args)
    scope = Scope("function", _qualname(ctx, "<lambda>"))
    for arg in _all_args(node.args):
        scope.names[arg.arg] = None
    ctx.scopes.append(scope)
    ctx.visit(node.body)
    ctx.scopes.pop()


def _arguments_outside(ctx: Context, args: ast.arguments) -> None:
    for default in (*args.defaults, *args.kw_defaults):
        if default is not None:
            ctx.visit(default)
    for arg in _all_args(args):
        if arg.annotation is not None:
            ctx.visit(arg.annotation)


def _bind_params(ctx: Context, scope: Scope, args: ast.arguments) -> None:
    for arg in _all_args(args):
        scope.names[arg.arg] = ctx.annotation_kind(arg.annotation) if arg.annotation is not None else None
    if args.vararg is not None:
        scope.names[args.vararg.arg] = None
        if args.vararg.annotation is not None and ctx.annotation_kind(args.vararg.annotation) == TOOL:
            scope.names[args.vararg.arg] = REGISTRY
    if args.kwarg is not None:
        scope.names[args.kwarg.arg] = None


def _qualname(ctx: Context, name: str) -> str:
    parts = [s.name for s in ctx.scopes[1:]]
    return ".".join([*parts, name])


def _is_dispatcher(ctx: Context, qualname: str) -> bool:
    if qualname.rpartition(".")[2] not in ctx.dispatcher_names:  # a match ends in the same name
        return False
    for module in (ctx.info.name, *ctx.info.aliases):
        full = f"{module}.{qualname}" if module else qualname
        if any(full == d or full.endswith("." + d) for d in ctx.dispatchers):
            return True
    return False


def _class(ctx: Context, node: ast.ClassDef) -> None:
    for decorator in node.decorator_list:
        ctx.visit(decorator)
    for base in node.bases:
        ctx.visit(base)
    for keyword in node.keywords:
        ctx.visit(keyword.value)
    enclosing = ctx.scopes[-1]
    scope = Scope("class", node.name)
    if enclosing.kind == "module":
        prefix = f"{ctx.info.name}." if ctx.info.name else ""
        scope.is_tool = ctx.kind(prefix + node.name) == CLASS
    else:
        scope.is_tool = any(
            ctx.expr_kind(b.value if isinstance(b, ast.Subscript) else b) == CLASS for b in node.bases
        )
    # class-level declarations are visible as self.<attr> in every method, whatever the order
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            scope.attrs[stmt.target.id] = ctx.annotation_kind(stmt.annotation) or (
                ctx.expr_kind(stmt.value) if stmt.value is not None else None
            )
    if enclosing.kind == "function":
        enclosing.names[node.name] = CLASS if scope.is_tool else None
    ctx.scopes.append(scope)
    try:
        ctx._body(node.body)
    finally:
        ctx.scopes.pop()


def _all_args(args: ast.arguments) -> list[ast.arg]:
    out = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return out
