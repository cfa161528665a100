"""How the project's own dispatcher turns a tool's result into text, read from its code (issue 35).

A team's router often serialises what a tool returns itself::

    def run_tool(name, args):
        result = TOOLS[name].run(**args)
        return result if isinstance(result, str) else json.dumps(result, default=str)

A fix that makes the tool return JSON text must then make *that* text, not its own
(``json.dumps(..., default=str)`` writes a ``datetime`` as ``2024-03-03 12:00:00``, pydantic's
``model_dump_json()`` as ``2024-03-03T12:00:00``): the dispatcher passes text through, so what it
answers stays byte for byte what it answered before. :func:`project_serializer` finds the
expression: a call whose first argument is the result (``json.dumps(result, default=str)``,
``to_text(result)``, ``to_text(result, indent=2)``), returned when the result is not text, by an
``if isinstance(result, str): return result`` before it, an ``x if isinstance(x, str) else ...``
around it, or inside the project function it calls when that function passes text through itself.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

from dispatchguard.lint.callers import TOOL_METHODS
from dispatchguard.lint.index import dotted
from dispatchguard.lint.inference.tree_values import top_function
from dispatchguard.lint.tool_facts import Dispatcher, ToolFacts, Unknown

_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class Serializer:
    """``opening + value + closing`` is the text the dispatcher makes of a non-text ``value``;
    ``root`` is the name it needs in the fixed module, bound by ``import_from``: ``(module, None)``
    for ``import module``, ``(module, name)`` for ``from module import name``."""

    opening: str
    closing: str
    root: str
    import_from: tuple[str, str | None]
    label: str  #: as the fix description names it (``run_tool``'s ``json.dumps(..., default=str)``)


def project_serializer(facts: ToolFacts, dispatcher: Dispatcher, tool_module: str) -> Serializer | Unknown | None:
    """The serialiser of ``dispatcher`` a fix in ``tool_module`` can call; None when the dispatcher
    makes no text of its own (it hands the result on as it is); Unknown when it does but the fix
    cannot write the same (why)."""
    key = facts.module_key(dispatcher.module)
    tree = facts.tree(key) if key is not None else None
    if tree is None or dispatcher.runtime:
        return None
    function = _function(tree, dispatcher)
    if function is None:
        return None
    found = _returned_serialisation(function)
    if found is None:
        return None
    call, passes_text = found
    source = facts.source_bytes(key).decode("utf-8", "replace")  # type: ignore[arg-type]
    lines = source.splitlines(keepends=True)
    text = _segment(lines, call)
    first = call.args[0]
    opening = text[: _offset(lines, first, call, start=True)]
    closing = text[_offset(lines, first, call, start=False) :]
    callee = dotted(call.func)
    if callee is None:
        return Unknown("the project's dispatcher serialises results with an expression the fix cannot name")
    root = callee.partition(".")[0]
    label = f"`{dispatcher.label}`'s `{opening}...{closing}`"
    if not passes_text and not _passes_text(facts, key, callee):  # type: ignore[arg-type]
        return Unknown(f"{label} encodes every result, text too: JSON text from the tool would be encoded twice")
    others = {n.id for part in (*call.args[1:], *(k.value for k in call.keywords)) for n in ast.walk(part)
              if isinstance(n, ast.Name)} - _BUILTINS  # fmt: skip
    if others:
        return Unknown(f"{label} names {', '.join(sorted(others))}, which the tool's module does not have")
    binding = _binding(tree, root, dispatcher.module)
    if binding is None:
        return Unknown(f"{label}: `{root}` is not imported or defined at the top of `{dispatcher.module}`")
    own = binding[1] is not None and binding[0] == dispatcher.module
    if own and facts.imports_module(dispatcher.module, tool_module):
        return Unknown(f"{label}: importing `{root}` from `{dispatcher.module}` would make an import cycle")
    return Serializer(opening, closing, root, binding, label)


def _function(tree: ast.Module, dispatcher: Dispatcher) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    if dispatcher.method is None:
        return top_function(tree, dispatcher.function)
    for stmt in tree.body:  # the method of the class of the module-level instance
        if isinstance(stmt, ast.ClassDef):
            method = top_function(stmt, dispatcher.method)
            if method is not None:
                return method
    return None


def _returned_serialisation(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[ast.Call, bool] | None:
    """(the call that makes text of the tool's result, whether text passes through untouched
    before it) for the first return of the dispatcher that serialises a tool run's result."""
    results = _tool_results(function)
    guarded = False
    for node in _in_order(function):
        if isinstance(node, ast.If) and _is_text_test(node.test, results) and _returns_name(node.body, results):
            guarded = True
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        value = node.value
        if isinstance(value, ast.IfExp) and _is_text_test(value.test, results) and _is_name(value.body, results):
            value, guarded = value.orelse, True
        if isinstance(value, ast.Call) and value.args and _is_result(value.args[0], results):
            return value, guarded
    return None


def _tool_results(function: ast.AST) -> set[str]:
    """The names the dispatcher binds to what a tool run returns (``result = tool.run(**args)``)."""
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value.value if isinstance(node.value, ast.Await) else node.value
            if _runs_a_tool(value):
                names.add(node.targets[0].id)
    return names


def _runs_a_tool(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TOOL_METHODS


def _is_result(node: ast.expr, results: set[str]) -> bool:
    value = node.value if isinstance(node, ast.Await) else node
    return _is_name(value, results) or _runs_a_tool(value)


def _is_name(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names


def _is_text_test(test: ast.expr, names: set[str]) -> bool:
    """``isinstance(x, str)`` for a result ``x``."""
    return (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
        and len(test.args) == 2
        and _is_name(test.args[0], names)
        and isinstance(test.args[1], ast.Name)
        and test.args[1].id == "str"
    )


def _returns_name(body: list[ast.stmt], names: set[str]) -> bool:
    first = body[0] if body else None
    return isinstance(first, ast.Return) and first.value is not None and _is_name(first.value, names)


def _in_order(function: ast.AST) -> list[ast.AST]:
    """The function's own nodes in source order (not those of nested functions)."""
    out: list[ast.AST] = []
    todo = list(reversed(getattr(function, "body", [])))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(reversed(list(ast.iter_child_nodes(node))))
    return out


def _passes_text(facts: ToolFacts, key: str, callee: str) -> bool:
    """Whether the project function the dispatcher calls (defined beside it or imported) passes
    text through untouched first (``def to_text(x): if isinstance(x, str): return x ...``)."""
    qual = facts.qualify(key, callee) if "." not in callee else None
    module, _, name = facts.canonical(qual).rpartition(".") if qual else ("", "", "")
    owner = facts.module_key(module) if module else None
    tree = facts.tree(owner) if owner is not None else None
    function = top_function(tree, name) if tree is not None else None
    if function is None:
        return False
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if not params:
        return False
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    first = body[0] if body else None
    return (
        isinstance(first, ast.If)
        and _is_text_test(first.test, {params[0]})
        and _returns_name(first.body, {params[0]})
    )


def _binding(tree: ast.Module, root: str, module: str) -> tuple[str, str | None] | None:
    """How the dispatcher's module binds ``root`` at top level, as the fixed module can bind it."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if (alias.asname or alias.name) == root and alias.asname is None and "." not in alias.name:
                    return (alias.name, None)
        elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
            for alias in stmt.names:
                if (alias.asname or alias.name) == root and alias.asname is None:
                    return (stmt.module, alias.name)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == root:
            return (module, root)
    return None


def _segment(lines: list[str], node: ast.expr) -> str:
    return ast.get_source_segment("".join(lines), node) or ""


def _offset(lines: list[str], inner: ast.expr, outer: ast.expr, *, start: bool) -> int:
    """The character offset of ``inner``'s start (or end) inside ``outer``'s source segment."""

    def absolute(line: int, col: int) -> int:
        before = lines[line - 1].encode()[:col].decode("utf-8", "replace")
        return sum(len(text) for text in lines[: line - 1]) + len(before)

    base = absolute(outer.lineno, outer.col_offset)
    if start:
        return absolute(inner.lineno, inner.col_offset) - base
    return absolute(inner.end_lineno or 0, inner.end_col_offset or 0) - base


#: dispatchguard's own error object: what ``dispatch_tool`` answers for a tool that raised
RUNTIME_ERROR_SHAPE: tuple[tuple[str, str], ...] = (("error", "text"), ("kind", "kind"), ("tool", "tool"))


def error_shape(facts: ToolFacts, dispatcher: Dispatcher | Unknown) -> tuple[tuple[str, str], ...]:
    """The keys of the error objects the project's dispatcher answers, each with what it holds:
    ``text`` (the message: the ``error`` key), ``tool`` (the tool's name: a key the dispatcher
    fills with its name parameter), ``kind`` (a ``kind`` key), or a constant's source (``"ok":
    False``). Read from the first ``json.dumps({"error": ...})`` the dispatcher returns;
    dispatchguard's shape when there is none (or dispatchguard is the dispatcher)."""
    if isinstance(dispatcher, Unknown) or dispatcher.runtime:
        return RUNTIME_ERROR_SHAPE
    key = facts.module_key(dispatcher.module)
    tree = facts.tree(key) if key is not None else None
    function = _function(tree, dispatcher) if tree is not None else None
    if function is None:
        return RUNTIME_ERROR_SHAPE
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    name_param = params[1] if dispatcher.method and len(params) > 1 else (params[0] if params else None)
    for node in _in_order(function):
        if not (isinstance(node, ast.Return) and isinstance(node.value, ast.Call) and node.value.args):
            continue
        made = node.value.args[0]
        keys = [k.value for k in made.keys if isinstance(k, ast.Constant)] if isinstance(made, ast.Dict) else []
        if "error" not in keys or len(keys) != len(made.keys):  # type: ignore[union-attr]
            continue
        shape = []
        for field, value in zip(keys, made.values, strict=True):  # type: ignore[union-attr]
            if field == "error":
                shape.append((field, "text"))
            elif isinstance(value, ast.Name) and value.id == name_param:
                shape.append((field, "tool"))
            elif field == "kind":
                shape.append((field, "kind"))
            elif isinstance(value, ast.Constant):
                shape.append((field, repr(value.value)))
        return tuple(shape)
    return RUNTIME_ERROR_SHAPE
