"""Where a value in a module's tree comes from, read from that tree alone (``ast``, no project
knowledge): the statements around a node, the values a local name or a ``self`` attribute is
bound to, a module's single instance of a class, a registry entry's value. The fixes' project
facts (:mod:`dispatchguard.lint.tool_facts`) build on them."""

from __future__ import annotations

import ast

from dispatchguard.lint.index import dotted


def parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def scope_of(tree: ast.Module, node: ast.AST) -> ast.AST:
    """The innermost function holding ``node``, else the module."""
    functions = [s for s in enclosing(tree, node) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return functions[-1] if functions else tree


def top_function(tree: ast.Module | ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            return stmt
    return None


def registered_value(stmt: ast.stmt, registry: str, name: str) -> ast.expr | None:
    """The value ``stmt`` registers under ``name`` in ``registry``: ``REG = {"name": v}``,
    ``REG["name"] = v`` or ``REG.register("name", v)``."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if isinstance(target, ast.Name) and target.id == registry and isinstance(stmt.value, ast.Dict):
            for key, value in zip(stmt.value.keys, stmt.value.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == name:
                    return value
        if isinstance(target, ast.Subscript) and dotted(target.value) == registry:
            return stmt.value if isinstance(target.slice, ast.Constant) and target.slice.value == name else None
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "register"
        and dotted(call.func.value) == registry
        and len(call.args) >= 2
        and isinstance(call.args[0], ast.Constant)
        and call.args[0].value == name
    ):
        return call.args[1]
    return None


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
        for stmt in body:
            if not isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            end = (stmt.end_lineno or 0, stmt.end_col_offset or 0)
            if (stmt.lineno, stmt.col_offset) <= (line, col) <= end:
                chain.append(stmt)
                body = stmt.body
                break
        else:
            nested = [s for s in _compound_bodies(body) if _within(s, line, col)]
            if not nested:
                return chain
            body = nested[0]


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
    values: list[ast.expr] = []
    bound = False
    args = function.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if arg is not None and arg.arg == name:
            bound = True
            if arg.annotation is None or arg in (args.vararg, args.kwarg):
                return []
            values.append(arg.annotation)
    for node in own_nodes(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    bound = True
                    values.append(node.value)
                elif _binds(target, name):
                    return []
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            bound = True
            values.append(node.value if node.value is not None else node.annotation)
        elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr, ast.comprehension)):
            if _binds(node.target, name):
                return []
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None and any(
                    isinstance(n, ast.Name) and n.id == name for n in ast.walk(item.optional_vars)
                ):
                    return []
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return []
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                return []
    if not bound:
        return None
    return values if all(_readable(v, lookups) for v in values) else []


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
            if isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
                continue  # ``_tool: Any = None``: a placeholder until a method sets it; None has no tool method
            # ``tool: T = Field(default_factory=T)``: pydantic builds a T, the annotation says which
            field = isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) in ("Field", "pydantic.Field")
            readable = stmt.value is not None and not field and _readable(stmt.value, lookups)
            values.append(stmt.value if readable else stmt.annotation)  # type: ignore[arg-type]
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in own_nodes(stmt):
                targets = (
                    node.targets
                    if isinstance(node, ast.Assign)
                    else [node.target]
                    if isinstance(node, ast.AnnAssign)
                    else []
                )
                for target in targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                        and target.attr == attr
                    ):
                        value = getattr(node, "value", None)
                        values.append(value if value is not None else node.annotation)  # type: ignore[union-attr]
    if not all(_readable(v, lookups) for v in values):
        return [ast.Constant(None)]  # something we cannot read: no agreement
    return values
