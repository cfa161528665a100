"""DG103 fix: make a tool's return value JSON text, by what the value is proven to be.

* ``return obj.model_dump(...)`` becomes ``return obj.model_dump_json(...)`` only when ``obj`` is
  proven to be a pydantic model (its class derives from ``pydantic.BaseModel`` or a known pydantic
  tool base, through the lint index). A dataclass with a hand-written ``model_dump`` is not.
* Any other flagged value ``v`` becomes ``ensure_json_str(v)`` when the project depends on
  dispatchguard at run time (its pyproject's ``dependencies`` name it, or a module outside the
  tests imports it), else ``json.dumps(v)``: a fix never adds a run-time dependency. A bare
  ``return`` becomes ``return ensure_json_str(None)`` / ``return json.dumps(None)``.

Fix safety (ruff's sense: a safe fix cannot change what any caller observes):

* **safe** only for the ``ensure_json_str(v)`` wrap when the project has no dispatcher of its own
  configured (its tools run through dispatchguard's ``dispatch_tool``, which returns
  ``ensure_json_str(result)`` already, and ``ensure_json_str`` is idempotent on its own output) and
  no file of the project calls a tool method directly (``.run(``, ``._run(``, ``.arun(``,
  ``._arun(``, ``.invoke(``, ``.ainvoke(``, or the fixed method's name): then the dispatcher is the
  only caller and it returns the same text as before;
* **unsafe** otherwise: the method's return type changes (a dict, model or ``None`` becomes a
  ``str``), so a direct caller or a test asserting on the dict sees a difference, and a project
  dispatcher that serialises the result itself would encode it twice.

No fix: generator expressions and lambdas (no JSON for them), a ``pass``-only body (nothing to
return), ``.model_dump(mode=...)`` on a model (``model_dump_json`` has no ``mode``).
"""

from __future__ import annotations

import ast

from dispatchguard.fix.base import Edit, FileContext, Fix, Import, NoFix
from dispatchguard.lint.tool_facts import Unknown

CODE = "DG103"

_NO_FIX = {
    ast.GeneratorExp: "a generator has no JSON form; return a list or json.dumps(list(...))",
    ast.Lambda: "a function has no JSON form",
}


def _wrapper(ctx: FileContext) -> tuple[str, Import]:
    if ctx.facts.runtime_dependency:
        return "ensure_json_str", Import("dispatchguard", "ensure_json_str")
    return "json.dumps", Import("json")


def _only_dispatcher_calls(ctx: FileContext, method: str | None) -> bool:
    dispatcher = ctx.facts.dispatcher
    return not isinstance(dispatcher, Unknown) and dispatcher.runtime and not ctx.facts.calls_tool_methods(method)


def _method_name(ctx: FileContext, node: ast.AST) -> str | None:
    for scope in reversed(ctx.facts.enclosing(ctx.tree, node)):
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return scope.name
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


def fix(finding, ctx: FileContext) -> Fix | NoFix:
    ret = ctx.return_of_value_at(finding.line, finding.col)
    if ret is None:
        bare = [r for r in ctx.nodes_at(finding.line, finding.col, ast.Return) if r.value is None]
        if not bare:
            return NoFix("not a return statement (e.g. a pass-only body): write the return value by hand")
        ret = bare[0]
    wrapper, needed = _wrapper(ctx)
    imports: tuple[Import, ...] = (needed,)
    if needed.name is None and _imported_in_function(ctx, ret, needed.module):
        imports = ()
    taken = ctx.facts.qualify(ctx.key, wrapper.split(".")[0])
    if taken is not None and ctx.facts.canonical(taken) not in ("json", "dispatchguard.ensure_json_str"):
        return NoFix(f"`{wrapper.split('.')[0]}` names something else in this module")
    method = _method_name(ctx, ret)
    if ret.value is None:
        end = ctx.node_end(ret)
        return Fix(
            edits=(Edit(end, end, f" {wrapper}(None)"),),
            safe=wrapper == "ensure_json_str" and _only_dispatcher_calls(ctx, method),
            description=f"return {wrapper}(None) (a bare return is often a forgotten value)",
            imports=imports,
        )
    value = ret.value
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
    opening, closing = (f"{wrapper}((", "))") if bare_tuple else (f"{wrapper}(", ")")
    return Fix(
        edits=(Edit(start, start, opening), Edit(end, end, closing)),
        safe=wrapper == "ensure_json_str" and _only_dispatcher_calls(ctx, method),
        description=f"wrap the returned value in {wrapper}(...)",
        imports=imports,
    )
