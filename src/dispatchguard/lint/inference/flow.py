"""Where a value comes from, as far as the rules ask: the class outside the project a value is an
instance of (for declared method types), and whether a tool is taken out of a registry by a key
the function gets from its caller (the mark of a dispatch point). Both are asked through the
walker's ``Context``, whose bindings they read."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TYPE_CHECKING

from dispatchguard.lint.index import ITEM_METHODS
from dispatchguard.lint.kinds import REGISTRY

if TYPE_CHECKING:
    from dispatchguard.lint.scopes import FunctionInfo
    from dispatchguard.lint.walker import Context


def parameter_annotation(node: ast.AST, name: str) -> ast.expr | None:
    """The annotation of the parameter ``name`` of a function node, if it has one."""
    args = getattr(node, "args", None)
    if args is None:
        return None
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name:
            return arg.annotation
    return None


def optional_inner(node: ast.expr) -> ast.expr:
    """``X`` of ``Optional[X]`` and ``X | None``; a subscripted generic's origin (``Stream[T]``)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        if isinstance(node.right, ast.Constant) and node.right.value is None:
            return optional_inner(node.left)
        if isinstance(node.left, ast.Constant) and node.left.value is None:
            return optional_inner(node.right)
        return node
    if isinstance(node, ast.Subscript):
        if isinstance(node.value, ast.Name) and node.value.id == "Optional":
            return optional_inner(node.slice)
        return node.value
    return node


MODEL_CALLS = "tool_calls"


def iterates_model_calls(node: ast.AST) -> bool:
    """Whether a loop runs over a model reply's tool calls: ``reply.tool_calls``,
    ``message["tool_calls"]``, ``msg.get("tool_calls", [])``, ``enumerate(...)`` of one."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("enumerate", "reversed"):
        return bool(node.args) and iterates_model_calls(node.args[0])
    if isinstance(node, ast.BoolOp):  # ``reply.tool_calls or []``
        return iterates_model_calls(node.values[0])
    if isinstance(node, ast.Attribute):
        return node.attr == MODEL_CALLS
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == MODEL_CALLS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        first = node.args[0] if node.args else None
        return isinstance(first, ast.Constant) and first.value == MODEL_CALLS
    return False


def model_call_target(loop: ast.For | ast.AsyncFor | ast.comprehension) -> str | None:
    """The name a loop over a model reply's tool calls binds each call to (the second of an
    ``enumerate``), or None for any other loop."""
    if not iterates_model_calls(loop.iter):
        return None
    target = loop.target
    if isinstance(target, ast.Tuple) and len(target.elts) == 2:
        target = target.elts[1]
    return target.id if isinstance(target, ast.Name) else None


def rooted_in(node: ast.AST, names: Sequence[str]) -> bool:
    """Whether ``node`` is one of ``names`` or a part of one (``call["args"]``, ``call.name``,
    ``**call["args"]``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return isinstance(node, ast.Name) and node.id in names


def run_time_key(key: ast.AST, fn: FunctionInfo | None, model_calls: Sequence[str] = ()) -> bool:
    """A key known only at run time: a part of the model's tool call being looped over
    (``tools[call["name"]]``), or, in a function, a parameter, a part of one (``action.name``,
    ``call["name"]``), or a local bound only to such values; not a constant, and not a variable of
    another loop or comprehension (running every tool of a registry is no dispatch)."""
    if rooted_in(key, model_calls):
        return True
    while isinstance(key, (ast.Attribute, ast.Subscript)):
        key = key.value
    if fn is None:
        return False
    if isinstance(key, ast.Call):
        return True
    if not isinstance(key, ast.Name):
        return False
    values = fn.assigns.get(key.id)
    if values:
        return all(v is not None and not isinstance(v, ast.Constant) for v in values)
    return key.id in _parameters(fn.node)


def from_caller_or_loop(name: str, fn: FunctionInfo) -> bool:
    """Whether ``name`` is a parameter of ``fn`` or bound by one of its loops or unpackings (a
    binding whose value is unknown)."""
    return name in _parameters(fn.node) or None in fn.assigns.get(name, ())


def _parameters(node: ast.AST) -> set[str]:
    args = node.args  # type: ignore[attr-defined]
    return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


def registry_lookup_by_caller(ctx: Context, node: ast.AST, fn: FunctionInfo | None, model_calls: Sequence[str]) -> bool:
    """``tools[name]``, ``tools.get(action.name)`` of a registry of tools, with a key known only at
    run time (:func:`run_time_key`), or a local name bound only to such lookups."""
    if isinstance(node, ast.Name):
        values = fn.assigns.get(node.id) if fn is not None else None
        return bool(values) and all(v is not None and _registry_lookup(ctx, v, fn, model_calls) for v in values)
    return _registry_lookup(ctx, node, fn, model_calls)


def _registry_lookup(ctx: Context, node: ast.AST, fn: FunctionInfo | None, model_calls: Sequence[str]) -> bool:
    if isinstance(node, ast.Subscript):
        container, key = node.value, node.slice
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ITEM_METHODS:
        if not node.args:
            return False
        container, key = node.func.value, node.args[0]
    else:
        return False
    return run_time_key(key, fn, model_calls) and ctx.kind_of(container) == REGISTRY


def outside_instance_class(ctx: Context, node: ast.AST, fn: FunctionInfo) -> str | None:
    """The class outside the project that ``node`` is an instance of: a call of it, a local or
    module-level name bound only to such calls, a parameter or a ``self`` attribute annotated
    with it (``exa: Exa``), or built from it in a method (``self.llm = ChatOpenAI()``)."""
    if isinstance(node, ast.Call):
        return _outside_class(ctx, node.func, fn)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return _attribute_class(ctx, node.attr, fn)
    return _name_class(ctx, node.id, fn) if isinstance(node, ast.Name) else None


def _attribute_class(ctx: Context, attr: str, fn: FunctionInfo) -> str | None:
    cls = next((s for s in reversed(fn.scopes) if s.kind == "class"), None)
    typed = cls.attr_types.get(attr) if cls is not None else None
    return _class_of_type(ctx, typed, fn) if typed is not None else None


def _name_class(ctx: Context, name: str, fn: FunctionInfo) -> str | None:
    values = fn.assigns.get(name)
    if values:
        found = {outside_instance_class(ctx, v, fn) if isinstance(v, ast.Call) else None for v in values}
        return found.pop() if len(found) == 1 else None
    annotation = parameter_annotation(fn.node, name)
    if annotation is not None:
        return _class_of_type(ctx, annotation, fn)
    return None if fn.shadows(name) else _module_name_class(ctx, name)


def _module_name_class(ctx: Context, name: str) -> str | None:
    """A module-level name bound once, to a call of an outside class (``MODEL = ChatOpenAI()``)."""
    info = ctx.info
    descs = info.defs.get(name) or []
    if len(descs) != 1 or descs[0][0] != "call" or name in info.imports:
        return None
    qual = ctx.resolver.local_qual(info, descs[0][1])
    return qual if qual is not None and _is_outside_class(ctx, qual) else None


def _class_of_type(ctx: Context, node: ast.expr, fn: FunctionInfo) -> str | None:
    if isinstance(node, ast.Call):
        return _outside_class(ctx, node.func, fn)
    return _outside_class(ctx, optional_inner(node), fn)


def _outside_class(ctx: Context, node: ast.AST, fn: FunctionInfo) -> str | None:
    qual = ctx.qualified_name(node, fn) if isinstance(node, (ast.Name, ast.Attribute)) else None
    return qual if qual is not None and _is_outside_class(ctx, qual) else None


def _is_outside_class(ctx: Context, qual: str) -> bool:
    return ctx.resolver.outside(qual) and ctx.resolver.declared.is_class(qual)


def parameter_position(node: ast.AST, name: str, *, is_method: bool) -> int | None:
    """The position of parameter ``name`` in a call of the function (``self``/``cls`` not
    counted for a method), or None when it is not a positional parameter."""
    args = node.args  # type: ignore[attr-defined]
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if is_method and positional:
        positional = positional[1:]
    return positional.index(name) if name in positional else None


def calls_by_callee(tree: ast.Module) -> dict[str, list[ast.Call]]:
    """The module's calls by the name they call: ``f(...)`` under ``f``, ``self.m(...)`` under ``m``."""
    found: dict[str, list[ast.Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                found.setdefault(func.id, []).append(node)
            elif isinstance(func, ast.Attribute) and _is_self_name(func.value):
                found.setdefault(func.attr, []).append(node)
    return found


def calls_same_function(call: ast.Call, is_method: bool) -> bool:
    """A call of a method through ``self``/``cls``, or of a function by its bare name."""
    return isinstance(call.func, ast.Attribute) if is_method else isinstance(call.func, ast.Name)


def argument_at(call: ast.Call, position: int, name: str) -> ast.expr | None:
    """The argument a call passes for the parameter at ``position`` named ``name``."""
    if any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return None
    if position < len(call.args):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _is_self_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def constructor_parameter(
    cls: ast.ClassDef, attr: str
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, str] | None:
    """``(__init__, parameter)`` when the class's ``__init__`` sets ``self.attr = parameter``."""
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None:
        return None
    for stmt in init.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Attribute) and _is_self_name(target.value) and target.attr == attr:
                return init, stmt.value.id
    return None
