"""Phase 2b, how the pass visits each node type: the handler table, the nodes and fields the walk
skips, and the handlers of statements and expressions that bind names (those of functions, lambdas
and classes are in :mod:`.definitions`)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dispatchguard.lint.definitions import _class, _function, _lambda, _qualname
from dispatchguard.lint.index import import_bindings
from dispatchguard.lint.scopes import Scope

if TYPE_CHECKING:
    from dispatchguard.lint.analysis import Context


def _call(ctx: Context, node: ast.Call) -> None:
    for rule in ctx._call_rules:
        rule(ctx, node)
    ctx.generic_visit(node)


def bind(ctx: Context, target: ast.AST, kind: str | None, value: ast.AST | None) -> None:
    scope = ctx.scopes[-1]
    if isinstance(target, ast.Name):
        if scope.kind == "function":
            scope.names[target.id] = kind
            scope.quals.pop(target.id, None)
            if scope.fn is not None:
                scope.fn.assigns.setdefault(target.id, []).append(value)
        elif scope.kind == "class":
            scope.attrs[target.id] = kind if kind is not None else scope.attrs.get(target.id)
    elif isinstance(target, ast.Attribute):
        if (
            isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and kind is not None
        ):
            cls = ctx.class_scope()
            if cls is not None:
                cls.attrs[target.attr] = kind
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            bind(ctx, elt, None, None)
    elif isinstance(target, ast.Starred):
        bind(ctx, target.value, None, None)


def _assign(ctx: Context, node: ast.Assign) -> None:
    ctx.visit(node.value)
    kind = ctx.expr_kind(node.value)
    for target in node.targets:
        if not isinstance(target, ast.Name):
            ctx.visit(target)
        bind(ctx, target, kind, node.value)


def _ann_assign(ctx: Context, node: ast.AnnAssign) -> None:
    if node.value is not None:
        ctx.visit(node.value)
    ctx.visit(node.annotation)
    if not isinstance(node.target, ast.Name):
        ctx.visit(node.target)
    kind = ctx.annotation_kind(node.annotation)
    if kind is None and node.value is not None:
        kind = ctx.expr_kind(node.value)
    if node.value is not None or ctx.scopes[-1].kind != "function":
        bind(ctx, node.target, kind, node.value)
    elif isinstance(node.target, ast.Name):
        ctx.scopes[-1].names[node.target.id] = kind


def _aug_assign(ctx: Context, node: ast.AugAssign) -> None:
    ctx.visit(node.value)
    if not isinstance(node.target, ast.Name):
        ctx.visit(node.target)
    bind(ctx, node.target, None, None)


def _for(ctx: Context, node: ast.For | ast.AsyncFor) -> None:
    ctx.visit(node.iter)
    element, second = ctx.element_kind(node.iter)
    _bind_loop_target(ctx, node.target, element, second)
    ctx._body(node.body)
    ctx._body(node.orelse)


def _bind_loop_target(ctx: Context, target: ast.AST, element: str | None, second: str | None) -> None:
    if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 and second is not None:
        bind(ctx, target.elts[0], None, None)
        bind(ctx, target.elts[1], second, None)
    else:
        if not isinstance(target, (ast.Name, ast.Tuple, ast.List)):
            ctx.visit(target)
        bind(ctx, target, element, None)


def _with(ctx: Context, node: ast.With | ast.AsyncWith) -> None:
    for item in node.items:
        ctx.visit(item.context_expr)
        if item.optional_vars is not None:
            if not isinstance(item.optional_vars, ast.Name):
                ctx.visit(item.optional_vars)
            bind(ctx, item.optional_vars, None, None)
    ctx._body(node.body)


def _import(ctx: Context, node: ast.Import | ast.ImportFrom) -> None:
    scope = ctx.scopes[-1]
    if scope.kind != "function":
        return  # module-level imports are in the summary; class-level ones are rare
    from_import = isinstance(node, ast.ImportFrom)
    for local, target in import_bindings(node):
        if from_import:
            target = ctx.resolver.absolute(ctx.info, target)
            scope.names[local] = ctx.kind(target)
        else:
            scope.names[local] = None
        scope.quals[local] = target


def _attribute(ctx: Context, node: ast.Attribute) -> None:
    value = node.value
    while type(value) is ast.Attribute:
        value = value.value  # type: ignore[attr-defined]
    if type(value) is not ast.Name:  # a.b.c needs no visit; f().b does
        ctx.visit(value)


def _keyword_or_expr(ctx: Context, node: ast.keyword | ast.Expr) -> None:
    value = node.value
    if type(value) not in _LEAVES:
        ctx.visit(value)


def _return(ctx: Context, node: ast.Return) -> None:
    fn = ctx.function
    if fn is not None:
        fn.returns.append(node)
    if node.value is not None:
        ctx.visit(node.value)


def _yield(ctx: Context, node: ast.Yield | ast.YieldFrom) -> None:
    fn = ctx.function
    if fn is not None:
        fn.is_generator = True
    if node.value is not None:
        ctx.visit(node.value)


def _named_expr(ctx: Context, node: ast.NamedExpr) -> None:
    ctx.visit(node.value)
    bind(ctx, node.target, ctx.expr_kind(node.value), node.value)


def _except(ctx: Context, node: ast.ExceptHandler) -> None:
    if node.type is not None:
        ctx.visit(node.type)
    if node.name and ctx.scopes[-1].kind == "function":
        ctx.scopes[-1].names[node.name] = None
    ctx._body(node.body)


def _comprehension(ctx: Context, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
    scope = Scope("function", _qualname(ctx, "<comprehension>"))
    for index, generator in enumerate(node.generators):
        if index == 0:
            ctx.visit(generator.iter)
            ctx.scopes.append(scope)
        else:
            ctx.visit(generator.iter)
        element, second = ctx.element_kind(generator.iter)
        _bind_loop_target(ctx, generator.target, element, second)
        for condition in generator.ifs:
            ctx.visit(condition)
    if isinstance(node, ast.DictComp):
        ctx.visit(node.key)
        ctx.visit(node.value)
    else:
        ctx.visit(node.elt)
    ctx.scopes.pop()


_LEAVES = frozenset(
    {ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del, ast.Pass, ast.Break, ast.Continue, ast.Global,
     ast.Nonlocal, ast.alias, str, int, type(None), bool, bytes, float, complex, type(Ellipsis)}
    | {cls for base in (ast.operator, ast.unaryop, ast.cmpop, ast.boolop) for cls in base.__subclasses__()}
)  # fmt: skip
_NOT_CHILDREN = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "module", "level", "asname",
                           "type_comment", "kind", "conversion", "is_async", "names", "kwd_attrs"})  # fmt: skip
_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(node_type: type) -> tuple[str, ...]:
    fields = _FIELDS.get(node_type)
    if fields is None:
        names = getattr(node_type, "_fields", ())  # not a node (a constant's value): no children
        fields = _FIELDS[node_type] = tuple(f for f in names if f not in _NOT_CHILDREN)
    return fields


def _all_node_types(base: type = ast.AST) -> list[type]:
    out = []
    for sub in base.__subclasses__():
        out.append(sub)
        out.extend(_all_node_types(sub))
    return out


for _type in _all_node_types():  # filled once: the walk then looks fields up without a call
    _child_fields(_type)

# unbound functions: a table of bound methods would make every Context a reference cycle
_HANDLERS: dict[type, Callable[[Context, Any], None]] = {
    ast.Attribute: _attribute,
    ast.keyword: _keyword_or_expr,
    ast.Expr: _keyword_or_expr,
    ast.Call: _call,
    ast.FunctionDef: _function,
    ast.AsyncFunctionDef: _function,
    ast.Lambda: _lambda,
    ast.ClassDef: _class,
    ast.Assign: _assign,
    ast.AnnAssign: _ann_assign,
    ast.AugAssign: _aug_assign,
    ast.For: _for,
    ast.AsyncFor: _for,
    ast.With: _with,
    ast.AsyncWith: _with,
    ast.Import: _import,
    ast.ImportFrom: _import,
    ast.Return: _return,
    ast.Yield: _yield,
    ast.YieldFrom: _yield,
    ast.NamedExpr: _named_expr,
    ast.ExceptHandler: _except,
    ast.ListComp: _comprehension,
    ast.SetComp: _comprehension,
    ast.GeneratorExp: _comprehension,
    ast.DictComp: _comprehension,
}
