"""DG104 fix: make a tool *function*'s return value JSON text (``@tool`` functions of LangChain
and CrewAI, ``StructuredTool.from_function(func=...)``/``Tool(func=..., coroutine=...)`` targets,
``tool(f)``). The rewrite is DG103's (:mod:`.json_return`): ``model_dump_json()`` on proven
pydantic models, else the flagged value wrapped in ``ensure_json_str(...)`` when the project
depends on dispatchguard at run time, or ``json.dumps(...)``; with
``response_format="content_and_artifact"`` only the content element, never the whole tuple.

Fix safety (ruff's sense: a safe fix cannot change what any caller observes). The
``ensure_json_str(v)`` wrap is **safe** only when all of these hold, which together leave
dispatchguard's ``dispatch_tool`` as the tool's only caller, and it returns the same text as before
(it returns ``ensure_json_str(result)`` already, and ``ensure_json_str`` returns its own output
unchanged):

* the project configures no dispatcher of its own (its tools run through ``dispatch_tool``);
* the function is a top-level function registered in dispatchguard's registry
  (``TOOL_REGISTRY.register("search", search)``, or into a ``ToolRegistry`` of the project);
* every other mention of its name in the project is such a registration (into a registry the
  dispatcher reads, not any ``.register``): it is not called
  (``search(...)``, the undecorated ``func=`` target called by name), not ``.invoke``d or ``.run``
  on (``search.invoke({...})``), not handed to a framework's agent (``tools=[search]``,
  ``bind_tools([search])``, ``Tool(func=search)``), not imported under another name;
* no file calls a tool method directly anywhere (``.run(``, ``._run(``, ``.arun(``, ``._arun(``,
  ``.invoke(``, ``.ainvoke(``, ``.func(``, ``.coroutine(``; a registry lookup then ``.invoke``
  reaches the tool by another name).

**Unsafe** otherwise: the function's return type changes (a dict, list or ``None`` becomes a
``str``), so a direct caller, a test asserting on the dict, or a framework that passes a list on
as content blocks sees a difference; a project dispatcher that serialises the result itself would
encode it twice; ``json.dumps`` and ``model_dump_json()`` produce other whitespace than
``ensure_json_str``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from dispatchguard.fix.base import FileContext, Fix, NoFix
from dispatchguard.fix.json_return import enclosing_function, fix_json_return, runtime_dispatcher_only
from dispatchguard.lint.index import dotted
from dispatchguard.lint.tool_facts import Dispatcher, Unknown


def _safe_wrap(ctx: FileContext, ret: ast.Return) -> bool:
    function = enclosing_function(ctx, ret)
    if function is None or function not in ctx.tree.body:
        return False
    dispatcher = ctx.facts.dispatcher
    if isinstance(dispatcher, Unknown) or not runtime_dispatcher_only(ctx, "func"):
        return False
    if ctx.facts.calls_tool_methods("coroutine"):
        return False
    if not ctx.facts.registered_names(None, f"{ctx.facts.module_name(ctx.key)}.{function.name}", dispatcher):
        return False
    return _only_registered(ctx, function.name, dispatcher)


def _only_registered(ctx: FileContext, name: str, dispatcher: Dispatcher) -> bool:
    """Whether every mention of ``name`` in the project's files (other than its ``def`` and plain
    imports) is the tool argument of a ``<registry>.register("key", name)`` call on a registry
    ``dispatcher`` reads."""
    word = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
    for key, file in ctx.facts.project.files.items():
        if key == ctx.key:
            tree = ctx.tree
        else:
            try:
                data = file.path.read_bytes()
            except OSError:
                return False
            if not word.search(data):
                continue
            try:
                tree = ast.parse(data)
            except (SyntaxError, ValueError):
                return False

        def read_by_dispatcher(registry: ast.expr, key: str = key) -> bool:
            spelled = dotted(registry)
            qual = ctx.facts.qualify(key, spelled) if spelled else None
            return qual is not None and ctx.facts.reads(dispatcher, ctx.facts.canonical(qual))

        if not _mentions_are_registrations(tree, name, read_by_dispatcher):
            return False
    return True


def _registered_arguments(tree: ast.Module, read_by_dispatcher: Callable[[ast.expr], bool]) -> set[int]:
    """The ``name`` nodes of ``<registry>.register("key", name)`` calls on registries the dispatcher reads."""
    registered: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "register"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Name)
            and read_by_dispatcher(node.func.value)
        ):
            registered.add(id(node.args[1]))
    return registered


def _other_use(tree: ast.Module, node: ast.AST, name: str, registered: set[int]) -> bool:
    """Whether ``node`` uses ``name`` otherwise than as a registration's argument."""
    if isinstance(node, ast.Name):
        return node.id == name and id(node) not in registered
    if isinstance(node, ast.Attribute):
        return node.attr == name  # module.search(...): a use under its module's name
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any(alias.asname and alias.name.rsplit(".", 1)[-1] == name for alias in node.names)  # another name
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name and node not in tree.body  # a nested namesake: which one a mention means is unknown
    return False


def _mentions_are_registrations(tree: ast.Module, name: str, read_by_dispatcher: Callable[[ast.expr], bool]) -> bool:
    registered = _registered_arguments(tree, read_by_dispatcher)
    return not any(_other_use(tree, node, name, registered) for node in ast.walk(tree))


def fix(finding: Any, ctx: FileContext) -> Fix | NoFix:
    """Return the rewrite making the tool function's flagged return value JSON text, or NoFix and
    why; safe only for an ``ensure_json_str`` wrap when ``dispatch_tool`` is its only caller."""
    return fix_json_return(finding, ctx, _safe_wrap)
