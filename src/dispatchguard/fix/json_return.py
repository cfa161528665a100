"""The fix DG103 (tool methods) and DG104 (tool functions) share: make a returned value JSON
text, by what the value is proven to be. The rules differ only in when the wrap is safe, which
each decides (:mod:`.dg103`, :mod:`.dg104`) and passes in as ``safe_wrap``.

* ``return obj.model_dump(...)`` becomes ``return obj.model_dump_json(...)`` only when ``obj`` is
  proven to be a pydantic model (its class derives from ``pydantic.BaseModel`` or a known pydantic
  tool base, through the lint index); always unsafe (other whitespace than ``ensure_json_str``).
* Any other flagged value ``v`` becomes ``ensure_json_str(v)`` when the project depends on
  dispatchguard at run time, else ``json.dumps(v)``: a fix never adds a run-time dependency. A
  bare ``return`` becomes ``return ensure_json_str(None)`` / ``return json.dumps(None)``.
* Only the flagged expression is wrapped: for a ``(content, artifact)`` tool that is the content
  element, never the whole tuple.
* No fix: generator expressions and lambdas (no JSON for them), a finding outside a ``return``
  (a ``pass``-only body, a body that can end without one), ``.model_dump(mode=...)`` on a model
  (``model_dump_json`` has no ``mode``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from dispatchguard.fix.base import Edit, FileContext, Fix, Import, NoFix
from dispatchguard.lint.tool_facts import Unknown

#: Decides whether the ``ensure_json_str`` wrap of a value returned by this statement is safe.
SafeWrap = Callable[[FileContext, ast.Return], bool]

_NO_FIX = {
    ast.GeneratorExp: "a generator has no JSON form; return a list or json.dumps(list(...))",
    ast.Lambda: "a function has no JSON form",
}


def _wrapper(ctx: FileContext) -> tuple[str, Import]:
    """``ensure_json_str`` when the project depends on dispatchguard at run time, else ``json.dumps``."""
    if ctx.facts.runtime_dependency:
        return "ensure_json_str", Import("dispatchguard", "ensure_json_str")
    return "json.dumps", Import("json")


def runtime_dispatcher_only(ctx: FileContext, method: str | None) -> bool:
    """Whether tools run through dispatchguard's ``dispatch_tool`` (no dispatcher of the project's
    own configured) and no file calls a tool method directly (``.run(``, ``.invoke(``, ... or
    ``.<method>(``), on anything but ``self``."""
    dispatcher = ctx.facts.dispatcher
    return not isinstance(dispatcher, Unknown) and dispatcher.runtime and not ctx.facts.calls_tool_methods(method)


def enclosing_function(ctx: FileContext, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function around ``node``."""
    for scope in reversed(ctx.facts.enclosing(ctx.tree, node)):
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return scope
    return None


def _imported_in_function(ctx: FileContext, node: ast.AST, module: str) -> bool:
    """Whether a function around ``node`` has its own ``import <module>`` (which then serves it,
    and makes a module-level import unused)."""
    if f"import {module}" not in ctx.text:
        return False
    for scope in ctx.facts.enclosing(ctx.tree, node):
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo: list[ast.AST] = list(scope.body)
            while todo:
                current = todo.pop()
                if isinstance(current, ast.Import) and any(a.name == module and not a.asname for a in current.names):
                    return True
                if not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                    todo.extend(ast.iter_child_nodes(current))
    return False


def fix_json_return(finding: Any, ctx: FileContext, safe_wrap: SafeWrap) -> Fix | NoFix:
    """The fix of a DG103/DG104 finding: the flagged returned expression made JSON text."""
    flagged = ctx.flagged_return(finding)
    if flagged is None:
        return NoFix("no return statement to rewrite (a pass-only body, or one that can end without a return)")
    ret, value = flagged
    name, needed = _wrapper(ctx)
    imports: tuple[Import, ...] = (needed,)
    if needed.name is None and _imported_in_function(ctx, ret, needed.module):
        imports = ()
    taken = ctx.facts.qualify(ctx.key, name.split(".")[0])
    if taken is not None and ctx.facts.canonical(taken) not in ("json", "dispatchguard.ensure_json_str"):
        return NoFix(f"`{name.split('.')[0]}` names something else in this module")

    def safe() -> bool:
        return name == "ensure_json_str" and safe_wrap(ctx, ret)

    if value is None:
        end = ctx.node_end(ret)
        return Fix(
            edits=(Edit(end, end, f" {name}(None)"),),
            safe=safe(),
            description=f"return {name}(None) (a bare return is often a forgotten value)",
            imports=imports,
        )
    for kind, reason in _NO_FIX.items():
        if isinstance(value, kind):
            return NoFix(reason)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "model_dump":
        cls = ctx.facts.value_class(ctx.key, ctx.tree, value.func.value)
        if cls is not None and ctx.facts.is_pydantic_model(cls):
            if any(k.arg == "mode" for k in value.keywords):
                return NoFix("model_dump(mode=...) has no model_dump_json equivalent")
            end = ctx.node_end(value.func)
            return Fix(
                edits=(Edit(end - len("model_dump"), end, "model_dump_json"),),
                safe=False,
                description=f"model_dump() -> model_dump_json() (`{cls.rsplit('.', 1)[-1]}` is a pydantic model)",
            )
    start, end = ctx.node_start(value), ctx.node_end(value)
    bare_tuple = isinstance(value, ast.Tuple) and not ctx.text[start:end].startswith("(")
    opening, closing = (f"{name}((", "))") if bare_tuple else (f"{name}(", ")")
    part = "the returned value" if value is ret.value else "the returned content (not the artifact)"
    return Fix(
        edits=(Edit(start, start, opening), Edit(end, end, closing)),
        safe=safe(),
        description=f"wrap {part} in {name}(...)",
        imports=imports,
    )
