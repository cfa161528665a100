"""Registries keyed by each tool's own name, read from the syntax tree (``ast`` only).

Real projects rarely write ``TOOLS = {"search": SearchTool()}``; they build the registry from the
tools themselves, so the key is whatever each tool calls itself:

- ``TOOLS = {t.name: t for t in [SearchTool(), fetch]}`` (a dict comprehension keyed by ``.name``);
- ``TOOLS = {}`` then ``for t in ALL_TOOLS: TOOLS[t.name] = t`` at module level;
- a dispatcher that walks a list and compares: ``for t in TOOLS: if t.name == name: ...``,
  ``next(t for t in TOOLS if t.name == name)``, or looks up a comprehension it builds itself
  (``{t.name: t for t in TOOLS}[name]``).

These helpers find the *sources* of such registries (the expressions listing the tools) and the
name a tool gives itself: a ``name=`` keyword of its construction (``Tool(name="search", func=f)``,
``StructuredTool.from_function(func=f, name="search")``), ``@tool("search")`` or a bare ``@tool``
(the function's name) on a function, or a ``name: str = "search"`` field of its class (CrewAI's and
LangChain's ``BaseTool`` subclasses). :class:`~dispatchguard.lint.tool_facts.ToolFacts` follows
names across modules with them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from dispatchguard.lint.index import dotted

#: Decorators that make a function a tool named by their first argument, else by the function.
TOOL_DECORATORS = frozenset({"tool", "crewai.tools.tool", "langchain_core.tools.tool", "langchain.tools.tool"})


def _is_name_of(node: ast.AST, var: str) -> bool:
    """Whether ``node`` is ``<var>.name``."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "name"
        and isinstance(node.value, ast.Name)
        and node.value.id == var
    )


def name_keyed_source(node: ast.AST) -> ast.expr | None:
    """The iterated expression of ``{t.name: t for t in SOURCE}`` (one plain generator), else None."""
    if not isinstance(node, ast.DictComp) or len(node.generators) != 1:
        return None
    gen = node.generators[0]
    if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name):
        return None
    var = gen.target.id
    if _is_name_of(node.key, var) and isinstance(node.value, ast.Name) and node.value.id == var:
        return gen.iter
    return None


def loop_filled_source(stmt: ast.stmt, registry: str) -> ast.expr | None:
    """The iterated expression of ``for t in SOURCE: REGISTRY[t.name] = t`` (the loop's only
    statement), else None."""
    if not isinstance(stmt, ast.For) or not isinstance(stmt.target, ast.Name) or stmt.orelse or len(stmt.body) != 1:
        return None
    var = stmt.target.id
    body = stmt.body[0]
    if (
        isinstance(body, ast.Assign)
        and len(body.targets) == 1
        and isinstance(body.targets[0], ast.Subscript)
        and dotted(body.targets[0].value) == registry
        and _is_name_of(body.targets[0].slice, var)
        and isinstance(body.value, ast.Name)
        and body.value.id == var
    ):
        return stmt.iter
    return None


def compared_sources(scope: ast.AST, keys: list[str]) -> list[ast.expr]:
    """The iterated expressions a dispatcher picks a tool from by comparing its ``.name`` with the
    name it is given (``keys``: how that name is spelled in it): ``for t in SOURCE:`` whose body
    tests ``t.name == name``, and ``(t for t in SOURCE if t.name == name)``."""
    found: list[ast.expr] = []
    for node in ast.walk(scope):
        if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name):
            var = node.target.id
            if any(_compares(test, var, keys) for stmt in node.body for test in ast.walk(stmt)):
                found.append(node.iter)
        elif isinstance(node, (ast.GeneratorExp, ast.ListComp)) and len(node.generators) == 1:
            gen = node.generators[0]
            if isinstance(gen.target, ast.Name) and any(_compares(test, gen.target.id, keys) for test in gen.ifs):
                found.append(gen.iter)
    return found


def _compares(node: ast.AST, var: str, keys: list[str]) -> bool:
    """Whether ``node`` is ``<var>.name == <key>`` (either side)."""
    if not isinstance(node, ast.Compare) or len(node.ops) != 1 or not isinstance(node.ops[0], ast.Eq):
        return False
    left, right = node.left, node.comparators[0]
    return (_is_name_of(left, var) and dotted(right) in keys) or (_is_name_of(right, var) and dotted(left) in keys)


def module_value(tree: ast.Module, name: str) -> ast.expr | None:
    """The one value a module-level name is assigned (``TOOLS = ...``, annotated or not), else None."""
    values = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            values.append(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            values.append(stmt.value)
    return values[0] if len(values) == 1 else None


def listed(node: ast.expr | None) -> list[ast.expr] | None:
    """The elements of a list, tuple or set display (``[*A, b]``: ``Starred`` kept for the caller
    to follow), else None."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return list(node.elts)
    return None


def keyword_name(call: ast.Call) -> str | None:
    """The string literal of a call's ``name=`` keyword."""
    for keyword in call.keywords:
        if keyword.arg == "name" and isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str):
            return keyword.value.value
    return None


def class_name_field(cls: ast.ClassDef) -> str | None:
    """The string literal a class body gives its ``name`` field (``name: str = "search"``)."""
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == "name":
            value = stmt.value
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "name" for t in stmt.targets):
            value = stmt.value
        else:
            continue
        return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
    return None


def decorated_name(
    function: ast.FunctionDef | ast.AsyncFunctionDef, is_tool_decorator: Callable[[str], bool]
) -> str | None:
    """The name a tool decorator gives a function: ``@tool("search")``, ``@tool(name_or_callable=
    "search")``, else the function's own name (``@tool``, ``@tool(parse_docstring=True)``).
    ``is_tool_decorator(spelled)`` says whether a decorator's dotted spelling is a tool decorator."""
    for decorator in function.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        spelled = dotted(call.func if call is not None else decorator)
        if spelled is None or not is_tool_decorator(spelled):
            continue
        if call is None:
            return function.name
        first = (
            call.args[0]
            if call.args
            else next((k.value for k in call.keywords if k.arg in ("name_or_callable", "name")), None)
        )
        if first is None:
            return function.name
        return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
    return None


def self_name_keyed_sources(cls: ast.ClassDef, attr: str) -> list[ast.expr]:
    """The iterated expressions of ``self.<attr> = {t.name: t for t in SOURCE}`` in a class's methods."""
    found = []
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Attribute)
            and node.targets[0].attr == attr
            and isinstance(node.targets[0].value, ast.Name)
            and node.targets[0].value.id == "self"
        ):
            source = name_keyed_source(node.value)
            if source is not None:
                found.append(source)
    return found


def names_itself(call: ast.Call) -> bool:
    """Whether a construction passes ``name=`` (or ``**kwargs``, which may hold it)."""
    return any(keyword.arg in ("name", None) for keyword in call.keywords)


def only_returned(function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> ast.expr | None:
    """The list display a synchronous function's body only returns (a docstring aside)."""
    if not isinstance(function, ast.FunctionDef):
        return None
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) == 1 and isinstance(body[0], ast.Return) and listed(body[0].value) is not None:
        return body[0].value
    return None
