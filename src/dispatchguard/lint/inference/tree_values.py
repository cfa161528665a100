"""Where a value in a module's tree comes from, read from that tree alone (``ast``, no project
knowledge): the statements around a node, the values a local name or a ``self`` attribute is
bound to, a module's single instance of a class, a registry entry's value. The fixes' project
facts (:mod:`dispatchguard.lint.tool_facts`) build on them."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable
from typing import Any

from dispatchguard.lint.index import dotted


def parents(tree: ast.AST) -> dict[int, ast.AST]:
    """``id(child)`` -> parent node for every node of ``tree`` (one full walk: callers cache it)."""
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def scope_of(tree: ast.Module, node: ast.AST) -> ast.AST:
    """The innermost function holding ``node``, else the module."""
    functions = [s for s in enclosing(tree, node) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return functions[-1] if functions else tree


def top_function(tree: ast.Module | ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function named ``name`` defined directly in the module or class body (the first), or None."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            return stmt
    return None


def registered_value(stmt: ast.stmt, registry: str, name: str) -> ast.expr | None:
    """The value ``stmt`` registers under ``name`` in ``registry``: ``REG = {"name": v}``,
    ``REG["name"] = v`` or ``REG.register("name", v)``."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        return _assigned_entry(stmt.targets[0], stmt.value, registry, name)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return _registered_entry(stmt.value, registry, name)
    return None


def _assigned_entry(target: ast.expr, value: ast.expr, registry: str, name: str) -> ast.expr | None:
    if isinstance(target, ast.Name) and target.id == registry and isinstance(value, ast.Dict):
        return next((v for k, v in zip(value.keys, value.values, strict=True) if _is_constant(k, name)), None)
    if isinstance(target, ast.Subscript) and dotted(target.value) == registry:
        return value if _is_constant(target.slice, name) else None
    return None


def _registered_entry(call: ast.Call, registry: str, name: str) -> ast.expr | None:
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "register" and dotted(func.value) == registry):
        return None
    return call.args[1] if len(call.args) >= 2 and _is_constant(call.args[0], name) else None


def _is_constant(node: ast.AST, value: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == value


def single_instance(tree: ast.Module, class_name: str) -> ast.Assign | None:
    """The one module-level ``NAME = ClassName(...)`` of a module, if there is exactly one."""
    found = [
        s
        for s in tree.body
        if isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], ast.Name)
        and isinstance(s.value, ast.Call)
        and dotted(s.value.func) == class_name
    ]
    return found[0] if len(found) == 1 else None


def name_expressions(scope: ast.AST, name_key: tuple[str, str | None]) -> list[str]:
    """How the tool's name is spelled in a dispatcher: its parameter (``name``), the action's field
    (``action.name``), and the locals assigned one of those."""
    param, field = name_key
    spelled = [param if field is None else f"{param}.{field}"]
    for node in ast.walk(scope):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and dotted(node.value) in spelled
        ):
            spelled.append(node.targets[0].id)
    return spelled


def lookup_container(node: ast.AST, keys: list[str]) -> ast.expr | None:
    """The container of ``container[key]`` or ``container.get(key, ...)`` when ``key`` is the name."""
    if isinstance(node, ast.Subscript) and dotted(node.slice) in keys:
        return node.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("get", "__getitem__")
        and node.args
        and dotted(node.args[0]) in keys
    ):
        return node.func.value
    return None


def argument_for(cls: ast.ClassDef, call: ast.Call, param: str) -> ast.expr | None:
    """The argument ``call`` (an instance's construction) passes for ``__init__``'s ``param``."""
    init = top_function(cls, "__init__")  # type: ignore[arg-type]
    if init is None:
        return None
    names = [a.arg for a in (*init.args.posonlyargs, *init.args.args)][1:]
    for keyword in call.keywords:
        if keyword.arg == param:
            return keyword.value
    if param in names and names.index(param) < len(call.args):
        return call.args[names.index(param)]
    return None


def enclosing(tree: ast.Module, node: ast.AST) -> list[ast.AST]:
    """The classes and functions around ``node``, outermost first."""
    line, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
    chain: list[ast.AST] = []
    body: list[ast.stmt] = tree.body
    while True:
        stmt = statement_at(body, line, col)
        if stmt is None:
            return chain
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            chain.append(stmt)
            body = stmt.body
            continue
        nested = [block for block in _compound_bodies([stmt]) if _within(block, line, col)]
        if not nested:
            return chain
        body = nested[0]


def statement_at(body: list[ast.stmt], line: int, col: int) -> ast.stmt | None:
    """The statement of ``body`` whose span holds the position (``col`` in bytes, as ``ast`` has
    it), found by halving: a body's statements follow each other in the source, so finding one
    costs the logarithm of a module's length, not the length (a fix per tool of a generated 5 MB
    module asks thousands of times)."""
    index = bisect.bisect_right(body, (line, col), key=_start) - 1
    if index < 0:
        return None
    stmt = body[index]
    return stmt if (line, col) <= (stmt.end_lineno or 0, stmt.end_col_offset or 0) else None


def _start(stmt: ast.stmt) -> tuple[int, int]:
    return stmt.lineno, stmt.col_offset


def _compound_bodies(body: list[ast.stmt]) -> list[list[ast.stmt]]:
    """The statement lists inside if/for/while/with/try statements (where a def may sit)."""
    out = []
    for stmt in body:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if (
                isinstance(block, list)
                and block
                and not isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            ):
                out.append(block)
        for handler in getattr(stmt, "handlers", ()):
            out.append(handler.body)
    return out


def _within(body: list[ast.stmt], line: int, col: int) -> bool:
    first, last = body[0], body[-1]
    return (first.lineno, first.col_offset) <= (line, col) <= (last.end_lineno or 0, last.end_col_offset or 0)


def _readable(value: ast.expr, lookups: bool) -> bool:
    """A call, a dotted name (an annotation), or with ``lookups`` a subscript (a registry lookup)."""
    return isinstance(value, ast.Call) or dotted(value) is not None or (lookups and isinstance(value, ast.Subscript))


def local_values(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, lookups: bool = False
) -> list[ast.expr] | None:
    """What ``name`` is bound to in ``function``: call values and annotations; [] when it is bound
    in a way that proves nothing (a loop, ``with``, augmented assignment); None when the function
    does not bind it."""
    values = _parameter_values(function.args, name)
    if values is _OPAQUE:
        return []
    bound = values is not None
    found: list[ast.expr] = list(values or ())  # type: ignore[arg-type]
    for node in own_nodes(function):
        reader = _BINDINGS.get(type(node))
        given = reader(node, name) if reader is not None else None
        if given is _OPAQUE:
            return []
        if given is not None:
            bound = True
            found.extend(given)  # type: ignore[arg-type]
    if not bound:
        return None
    return found if all(_readable(v, lookups) for v in found) else []


#: A binding that proves nothing of the value (a loop variable, ``with ... as``, ``global``).
_OPAQUE: Any = object()


def _parameter_values(args: ast.arguments, name: str) -> Any:
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if arg is not None and arg.arg == name:
            if arg.annotation is None or arg in (args.vararg, args.kwarg):
                return _OPAQUE
            return [arg.annotation]
    return None


def _assign_values(node: ast.Assign, name: str) -> Any:
    values = []
    for target in node.targets:
        if isinstance(target, ast.Name) and target.id == name:
            values.append(node.value)
        elif _binds(target, name):
            return _OPAQUE
    return values or None


def _annotated_values(node: ast.AnnAssign, name: str) -> Any:
    if isinstance(node.target, ast.Name) and node.target.id == name:
        return [node.value if node.value is not None else node.annotation]
    return None


def _target_rebinds(node: ast.AugAssign | ast.For | ast.AsyncFor | ast.NamedExpr | ast.comprehension, name: str) -> Any:
    return _OPAQUE if _binds(node.target, name) else None


def _with_binds(node: ast.With | ast.AsyncWith, name: str) -> Any:
    for item in node.items:
        if item.optional_vars is not None and any(
            isinstance(n, ast.Name) and n.id == name for n in ast.walk(item.optional_vars)
        ):
            return _OPAQUE
    return None


def _declares(node: ast.Global | ast.Nonlocal, name: str) -> Any:
    return _OPAQUE if name in node.names else None


def _imports(node: ast.Import | ast.ImportFrom, name: str) -> Any:
    return _OPAQUE if any((a.asname or a.name.split(".")[0]) == name for a in node.names) else None


#: How each kind of node binds a name: None (it does not), the values it binds, or ``_OPAQUE``.
_BINDINGS: dict[type, Callable[[Any, str], Any]] = {
    ast.Assign: _assign_values,
    ast.AnnAssign: _annotated_values,
    ast.AugAssign: _target_rebinds,
    ast.For: _target_rebinds,
    ast.AsyncFor: _target_rebinds,
    ast.NamedExpr: _target_rebinds,
    ast.comprehension: _target_rebinds,
    ast.With: _with_binds,
    ast.AsyncWith: _with_binds,
    ast.Global: _declares,
    ast.Nonlocal: _declares,
    ast.Import: _imports,
    ast.ImportFrom: _imports,
}


def _binds(target: ast.AST, name: str) -> bool:
    """Whether an assignment target rebinds ``name`` (``report.html = ...`` only reads it)."""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(target))


def own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body, not those of nested functions or classes."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def self_attribute_values(cls: ast.ClassDef, attr: str, lookups: bool = False) -> list[ast.expr]:
    """``self.attr = value`` in the class's methods and class-level ``attr: T [= value]`` (not a
    ``= None`` placeholder)."""
    values: list[ast.expr] = []
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            values.extend(_class_field_value(stmt, lookups))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            values.extend(_self_assignments(stmt, attr))
    if not all(_readable(v, lookups) for v in values):
        return [ast.Constant(None)]  # something we cannot read: no agreement
    return values


def _class_field_value(stmt: ast.AnnAssign, lookups: bool) -> list[ast.expr]:
    value = stmt.value
    if isinstance(value, ast.Constant) and value.value is None:
        return []  # ``_tool: Any = None``: a placeholder until a method sets it; None has no tool method
    # ``tool: T = Field(default_factory=T)``: pydantic builds a T, the annotation says which
    field = isinstance(value, ast.Call) and dotted(value.func) in ("Field", "pydantic.Field")
    readable = value is not None and not field and _readable(value, lookups)
    return [value if readable else stmt.annotation]  # type: ignore[list-item]


def _self_assignments(method: ast.FunctionDef | ast.AsyncFunctionDef, attr: str) -> list[ast.expr]:
    """The values a method assigns to ``self.attr`` (an annotation when there is no value)."""
    values = []
    for node in own_nodes(method):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        if any(_is_self_attribute(target, attr) for target in targets):
            value = node.value
            values.append(value if value is not None else node.annotation)  # type: ignore[union-attr]
    return values


def _is_self_attribute(target: ast.AST, attr: str) -> bool:
    return (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
        and target.attr == attr
    )
