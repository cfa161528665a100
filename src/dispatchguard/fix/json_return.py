"""The fix DG103 (tool methods) and DG104 (tool functions) share: make a returned value JSON
text, by what the value is proven to be, with a rewrite that cannot raise on the values a tool
returns. The rules differ only in when the wrap is safe, which each decides (:mod:`.dg103`,
:mod:`.dg104`) and passes in as ``safe_wrap``.

* ``return obj.model_dump()`` becomes ``return obj.model_dump_json()`` when ``obj`` is proven a
  pydantic model (its class derives from ``pydantic.BaseModel`` or a known pydantic tool base,
  through the lint index); with arguments, ``json.dumps(obj.model_dump(mode="json", ...),
  ensure_ascii=False)`` (``mode="json"`` turns datetimes, UUIDs, enums... into JSON values).
* Any other flagged value ``v`` becomes ``ensure_json_str(v)`` when the project depends on
  dispatchguard at run time (it never raises), else ``json.dumps(v, ensure_ascii=False,
  default=str)``: a fix never adds a run-time dependency, never escapes non-ASCII text (``20°C``
  stays readable), and a value ``json`` cannot encode (``datetime``, ``date``, ``UUID``,
  ``Decimal``, a set, an enum member that is no ``str``/``int``, a pydantic model) becomes its
  ``str()`` text instead of raising. A bare ``return`` becomes ``return ensure_json_str(None)`` /
  ``return json.dumps(None)``.
* Text returned from an ``except`` handler (failure prose: ``f"Error: {e}"``, ``str(e)``) becomes
  the error object ``dispatch_tool`` answers for a tool that raised, ``{"error": <text>, "kind":
  "tool_error", "tool": <the tool's name>}`` in the same wrap; always unsafe.
* Only the flagged expression is wrapped: for a ``(content, artifact)`` tool that is the content
  element, never the whole tuple. Otherwise the function's return annotation becomes ``str``.
* No fix: generator expressions and lambdas (no JSON for them); JSON written by hand in an
  f-string (``f'{{"error": "{e}"}}'``: wrapping it would encode the object as a string); a finding
  outside a ``return``;
  a return that delegates to a method or function whose own returns this pass fixes
  (``return self._run(...)`` in ``_arun``: wrapping both would encode the value twice); a value
  project code (not a test) reads as a non-string through a direct call (``left < 0``,
  ``add_resources(resources: list[dict])``): the fix would break that caller, so the report names it.

Every fix that is not safe says why: the direct callers and the tests that read the raw return
(``path:line``), the project's own dispatcher, or the framework that receives the value.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dispatchguard.fix.base import Edit, FileContext, Fix, Import, NoFix
from dispatchguard.lint.callers import Caller
from dispatchguard.lint.inference.returns import hand_written_json
from dispatchguard.lint.inference.tree_values import statement_at
from dispatchguard.lint.notebook import NotebookError, is_notebook, read_notebook
from dispatchguard.lint.serializers import Serializer, error_shape, project_serializer
from dispatchguard.lint.tool_facts import Unknown

#: Decides whether the ``ensure_json_str`` wrap of a value returned by this statement is safe.
SafeWrap = Callable[[FileContext, ast.Return], bool]
JSON_RETURN_CODES = frozenset({"DG103", "DG104"})

_NO_FIX = {
    ast.GeneratorExp: "a generator has no JSON form; return a list or json.dumps(list(...))",
    ast.Lambda: "a function has no JSON form",
}
#: How a call hands a function to run elsewhere (``asyncio.to_thread(self._run, ...)``).
_RUNNERS = frozenset({"to_thread", "run_in_executor", "run_sync"})
Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Wrap:
    """``opening + value + closing``, the name it needs free in the module, and its import."""

    opening: str
    closing: str
    root: str
    imports: tuple[Import, ...]
    project: str = ""  #: the project dispatcher's serialiser this wrap is, as the report names it

    @property
    def label(self) -> str:
        """Return the wrapping function's name as the fix descriptions show it (``json.dumps``)."""
        return self.opening.rstrip("(")


def _project_serializer(ctx: FileContext) -> Serializer | Unknown | None:
    dispatcher = ctx.facts.dispatcher
    if isinstance(dispatcher, Unknown) or dispatcher.runtime:
        return None
    return project_serializer(ctx.facts, dispatcher, ctx.facts.module_name(ctx.key))


def _wrap(ctx: FileContext) -> Wrap:
    """The project dispatcher's own serialiser when it has one the fix can call (what it answers
    stays the same text), else ``ensure_json_str`` when the project depends on dispatchguard at run
    time, else ``json.dumps``."""
    serializer = _project_serializer(ctx)
    if isinstance(serializer, Serializer):
        module, name = serializer.import_from
        return Wrap(serializer.opening, serializer.closing, serializer.root, (Import(module, name),), serializer.label)
    if ctx.facts.runtime_dependency:
        return Wrap("ensure_json_str(", ")", "ensure_json_str", (Import("dispatchguard", "ensure_json_str"),))
    return Wrap("json.dumps(", ", ensure_ascii=False, default=str)", "json", (Import("json"),))


def runtime_dispatcher_only(ctx: FileContext, method: str | None) -> bool:
    """Whether tools run through dispatchguard's ``dispatch_tool`` (no dispatcher of the project's
    own configured) and no file calls a tool method directly (``.run(``, ``.invoke(``, ... or
    ``.<method>(``), on anything but ``self``."""
    dispatcher = ctx.facts.dispatcher
    return not isinstance(dispatcher, Unknown) and dispatcher.runtime and not ctx.facts.calls_tool_methods(method)


def enclosing_function(ctx: FileContext, node: ast.AST) -> Function | None:
    """The innermost function around ``node``."""
    for scope in reversed(ctx.facts.enclosing(ctx.tree, node)):
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return scope
    return None


def _enclosing_class(ctx: FileContext, function: Function) -> ast.ClassDef | None:
    """The top-level class ``function`` is a method of, if it is one."""
    stmt = statement_at(ctx.tree.body, function.lineno, function.col_offset)
    return stmt if isinstance(stmt, ast.ClassDef) and function in stmt.body else None


def _local_import(ctx: FileContext, node: ast.AST, module: str) -> str | None:
    """Whether a function around ``node`` has its own ``import <module>`` (which makes the name
    local to it): ``"before"`` when an unconditional one runs before ``node`` (it then serves the
    wrap, and a module-level import would be unused), ``"elsewhere"`` otherwise (the wrap would
    read the local name before it is bound), None when no function imports it."""
    if f"import {module}" not in ctx.text:
        return None
    for scope in reversed(ctx.facts.enclosing(ctx.tree, node)):
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        imports = [n for n in _own_statements(scope) if _imports_plainly(n, module)]
        if not imports:
            continue
        line = getattr(node, "lineno", 0)
        return "before" if any(i in scope.body and i.lineno < line for i in imports) else "elsewhere"
    return None


def _imports_plainly(node: ast.AST, module: str) -> bool:
    return isinstance(node, ast.Import) and any(a.name == module and not a.asname for a in node.names)


def _own_statements(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body, not those of nested functions, classes or lambdas."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(getattr(function, "body", []))
    while todo:
        current = todo.pop()
        out.append(current)
        if not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(current))
    return out


def _delegate(ctx: FileContext, value: ast.expr, function: Function | None) -> str | None:
    """The name of the method or function ``value`` hands its result from (``self._run(...)``,
    ``await asyncio.to_thread(self._run, ...)``, ``helper(...)``) when this pass fixes a return
    of that callee too."""
    if isinstance(value, ast.Await):
        value = value.value
    if not isinstance(value, ast.Call):
        return None
    targets = [value.func]
    if isinstance(value.func, ast.Attribute) and value.func.attr in _RUNNERS:
        targets = list(value.args)
    cls = _enclosing_class(ctx, function) if function is not None else None
    for target in targets:
        callee = _callee(ctx, target, cls)
        if callee is not None and callee is not function and _has_fixed_return(ctx, callee):
            return callee.name
    return None


def _callee(ctx: FileContext, target: ast.expr, cls: ast.ClassDef | None) -> Function | None:
    """The function of this file ``target`` names: ``self.m``/``cls.m`` in ``cls``, or a top-level one."""
    if (
        cls is not None
        and isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id in ("self", "cls")
    ):
        body, name = cls.body, target.attr
    elif isinstance(target, ast.Name):
        body, name = ctx.tree.body, target.id
    else:
        return None
    return next((s for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name), None)


def _has_fixed_return(ctx: FileContext, function: Function) -> bool:
    """Whether one of the file's DG103/DG104 findings being fixed lies in ``function``."""
    end = function.end_lineno or function.lineno
    return any(f.code in JSON_RETURN_CODES and function.lineno <= f.line <= end for f in ctx.findings)


def _callers(ctx: FileContext, function: Function | None) -> list[Caller]:
    """The project's direct calls of the tool method or function holding the return."""
    if function is None:
        return []
    module = ctx.facts.module_name(ctx.key)
    if function in ctx.tree.body:
        return ctx.facts.callers(f"{module}.{function.name}")
    cls = _enclosing_class(ctx, function)
    return ctx.facts.callers(function.name, f"{module}.{cls.name}") if cls is not None else []


def _model_dump(
    ctx: FileContext, value: ast.expr, wrap: Wrap
) -> tuple[tuple[Edit, ...], str, tuple[Import, ...]] | None:
    """The rewrite of ``obj.model_dump(...)`` on a proven pydantic model: (edits, description, imports)."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "model_dump"):
        return None
    cls = ctx.facts.value_class(ctx.key, ctx.tree, value.func.value)
    if cls is None or not ctx.facts.is_pydantic_model(cls):
        return None
    short = cls.rsplit(".", 1)[-1]
    if not value.args and not value.keywords:
        end = ctx.node_end(value.func)
        edit = Edit(end - len("model_dump"), end, "model_dump_json")
        return (edit,), f"model_dump() -> model_dump_json() (`{short}` is a pydantic model)", ()
    if wrap.root != "json" and ctx.facts.qualify(ctx.key, "json") not in (None, "json"):
        return None
    mode = next((k for k in value.keywords if k.arg == "mode"), None)
    if mode is None:
        first = min((*value.args, *value.keywords), key=lambda n: (n.lineno, n.col_offset))
        at = ctx.node_start(first)
        mode_edit = Edit(at, at, 'mode="json", ')
    else:
        mode_edit = Edit(ctx.node_start(mode.value), ctx.node_end(mode.value), '"json"')
    start, end = ctx.node_start(value), ctx.node_end(value)
    edits = (Edit(start, start, "json.dumps("), mode_edit, Edit(end, end, ", ensure_ascii=False)"))
    return edits, f'json.dumps(model_dump(mode="json", ...)) (`{short}` is a pydantic model)', (Import("json"),)


def _annotation_edit(ctx: FileContext, function: Function | None) -> tuple[Edit, ...]:
    """``-> dict`` becomes ``-> str``: the function now returns JSON text."""
    returns = function.returns if function is not None else None
    if returns is None:
        return ()
    spelled = ast.unparse(returns).strip("'\"")
    if spelled in ("str", "builtins.str"):
        return ()
    return (Edit(ctx.node_start(returns), ctx.node_end(returns), "str"),)


def _grouped(ctx: FileContext, callers: list[Caller]) -> list[str]:
    """``a.py:3,9`` per file, in the order found (``a.ipynb:cell 2:3``: a notebook's lines in cells)."""
    lines: dict[str, list[str]] = {}
    for caller in callers:
        lines.setdefault(caller.relpath, []).append(_shown_line(ctx, caller.relpath, caller.line))
    return [f"{path}:{','.join(dict.fromkeys(found))}" for path, found in lines.items()]


def _shown_line(ctx: FileContext, relpath: str, line: int) -> str:
    if not is_notebook(relpath):
        return str(line)
    try:
        notebook = read_notebook(Path(relpath) if relpath.startswith("/") else ctx.facts.project.root / relpath)
    except (OSError, NotebookError):
        return str(line)
    cell, in_cell = notebook.position(line)
    return f"cell {cell}:{in_cell}"


def _unsafe_because(ctx: FileContext, callers: list[Caller], wrap: Wrap, model_dump: bool) -> tuple[str, ...]:
    """What makes a fix unsafe, for the user to review: callers first, then the receivers."""
    direct = _grouped(ctx, [c for c in callers if not c.is_test])
    tests = _grouped(ctx, [c for c in callers if c.is_test])
    because = []
    if direct:
        because.append("direct calls read the raw return at " + ", ".join(direct))
    if tests:
        because.append("tests read the raw return at " + ", ".join(tests))
    dispatcher = ctx.facts.dispatcher
    serializer = _project_serializer(ctx)
    if isinstance(serializer, Unknown):
        because.append(serializer.reason)
    elif not isinstance(dispatcher, Unknown) and not dispatcher.runtime and not wrap.project:
        because.append(f"the project's dispatcher `{dispatcher.module}.{dispatcher.function}` receives the new value")
    elif model_dump or wrap.root == "json":
        because.append("the framework that runs the tool receives a `str` where it received the value")
    return tuple(because)


def _imports_for(ctx: FileContext, ret: ast.Return, imports: tuple[Import, ...]) -> tuple[Import, ...] | NoFix:
    """The imports a rewrite needs at module level: none for ``json`` when the function imports it
    before the return; no fix when it imports it only later (the name is local and unbound there)."""
    if Import("json") not in imports:
        return imports
    local = _local_import(ctx, ret, "json")
    if local == "elsewhere":
        return NoFix("the function imports `json` itself after this return (or in a branch): `json` is unbound here")
    return () if local == "before" else imports


def _blocked(
    ctx: FileContext, value: ast.expr | None, function: Function | None, callers: list[Caller]
) -> NoFix | None:
    """Why the value must not be wrapped at all: no JSON form, a second encoding, a broken caller."""
    for kind, reason in _NO_FIX.items():
        if isinstance(value, kind):
            return NoFix(reason)
    if isinstance(value, ast.JoinedStr) and hand_written_json(value):
        return NoFix("JSON written by hand: build the dict and return json.dumps(...) of it (wrapping the text "
                     "would encode the object as a string)")  # fmt: skip
    delegate = _delegate(ctx, value, function) if value is not None else None
    if delegate is not None:
        return NoFix(
            f"returns what `{delegate}` returns, which this run makes JSON text: wrapping it would encode twice"
        )
    breaking = [c for c in callers if not c.is_test and c.use is not None]
    if breaking:
        uses = "; ".join(f"{c.where} {c.use}" for c in breaking)
        return NoFix(f"project code uses the returned value as a non-string ({uses}): change that caller first")
    return None


def _wrapped(ctx: FileContext, ret: ast.Return, value: ast.expr | None, wrap: Wrap) -> tuple[tuple[Edit, ...], str]:
    """The edits that wrap the value (``None`` for a bare return), and their description."""
    if value is None:
        end = ctx.node_end(ret)
        edit = Edit(end, end, f" {wrap.opening}None{wrap.closing}")
        return (edit,), f"return {wrap.label}(None) (a bare return is often a forgotten value)"
    start, end = ctx.node_start(value), ctx.node_end(value)
    bare_tuple = isinstance(value, ast.Tuple) and not ctx.text[start:end].startswith("(")
    opening, closing = (wrap.opening + "(", ")" + wrap.closing) if bare_tuple else (wrap.opening, wrap.closing)
    part = "the returned value" if value is ret.value else "the returned content (not the artifact)"
    if wrap.project:  # the text the project's dispatcher made of the value: it answers the same
        return (Edit(start, start, opening), Edit(end, end, closing)), f"wrap {part} in {wrap.project}"
    return (Edit(start, start, opening), Edit(end, end, closing)), f"wrap {part} in {wrap.label}(...)"


def fix_json_return(finding: Any, ctx: FileContext, safe_wrap: SafeWrap) -> Fix | NoFix:
    """The fix of a DG103/DG104 finding: the flagged returned expression made JSON text."""
    flagged = ctx.flagged_return(finding)
    if flagged is None:
        return NoFix("no return statement to rewrite (a pass-only body, or one that can end without a return)")
    ret, value = flagged
    function = enclosing_function(ctx, ret)
    callers = _callers(ctx, function)
    blocked = _blocked(ctx, value, function, callers)
    if blocked is not None:
        return blocked
    wrap = _wrap(ctx)
    taken = ctx.facts.qualify(ctx.key, wrap.root)
    if taken is not None and ctx.facts.canonical(taken) not in ("json", "dispatchguard.ensure_json_str"):
        return NoFix(f"`{wrap.root}` names something else in this module")
    annotation = _annotation_edit(ctx, function) if value is None or value is ret.value else ()
    # with the project's own serialiser, a model's dump gets the project's text too, not pydantic's
    dumped = _model_dump(ctx, value, wrap) if value is not None and not wrap.project else None
    imports = _imports_for(ctx, ret, wrap.imports if dumped is None else dumped[2])
    if isinstance(imports, NoFix):
        return imports
    if dumped is not None:
        edits, description, _ = dumped
        return Fix((*edits, *annotation), False, description, imports, _unsafe_because(ctx, callers, wrap, True))
    if value is not None and function is not None and _reports_a_failure(function, ret, value):
        edits, description = _error_object(ctx, function, value, wrap)
        because = ("the model receives an error object where it received text",)
        because += _unsafe_because(ctx, callers, wrap, False)
        return Fix((*edits, *annotation), False, description, imports, because)
    safe = wrap.root == "ensure_json_str" and not callers and safe_wrap(ctx, ret)
    because = () if safe else _unsafe_because(ctx, callers, wrap, False)
    edits, description = _wrapped(ctx, ret, value, wrap)
    return Fix((*edits, *annotation), safe, description, imports, because)


def _reports_a_failure(function: Function, ret: ast.Return, value: ast.expr) -> bool:
    """Whether ``ret`` returns text about a failure from ``function`` (not from a function nested
    in it), which the contract carries as an error object: from an ``except`` handler, or from a
    branch that reports a failure (:func:`_failure_branch`)."""
    if not _is_text(value):
        return False
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.ExceptHandler) and any(ret is inner for inner in ast.walk(node)):
            return True
        if isinstance(node, ast.If) and _failure_branch(node, ret, value):
            return True
        todo.extend(ast.iter_child_nodes(node))
    return False


#: A flag that says a step went well (``if not ok``, ``if not resp.is_success``) ...
_SUCCESS_FLAGS = frozenset({"ok", "is_ok", "success", "is_success", "successful", "is_successful", "succeeded",
                            "valid", "is_valid"})  # fmt: skip
#: ... or that it failed (``if error``, ``if result.failed``, ``if "error" in data``).
_FAILURE_FLAGS = frozenset({"error", "errors", "err", "failed", "failure", "is_error", "has_error", "exception"})
#: What a status check compares (``resp.status_code != 200``, ``proc.returncode != 0``).
_STATUS_FIELDS = frozenset({"status", "status_code", "code", "returncode", "return_code", "exit_code"})
#: How failure prose starts, lower-cased (``return "Error: query too long"`` in an ``if``).
_FAILURE_WORDS = ("error", "failed", "failure", "request failed", "unable to", "could not", "cannot")


def _failure_branch(branch: ast.If, ret: ast.Return, value: ast.expr) -> bool:
    """Whether ``ret`` lies in the arm of ``branch`` that a failure takes: the body of a failure
    test (``if not ok``, ``if error``, ``if resp.status_code != 200``), the ``else`` of a success
    test (``if resp.ok``, ``if r.status_code == 200``), or any arm when the text itself starts as
    failure prose (``"Error: ..."``, ``f"Failed to ..."``)."""
    in_body = any(ret is inner for stmt in branch.body for inner in ast.walk(stmt))
    in_else = not in_body and any(ret is inner for stmt in branch.orelse for inner in ast.walk(stmt))
    if not (in_body or in_else):
        return False
    if _opening_text(value).lower().lstrip().startswith(_FAILURE_WORDS):
        return True
    failed = _test_outcome(branch.test)
    return (in_body and failed is True) or (in_else and failed is False)


def _test_outcome(test: ast.expr) -> bool | None:
    """True when an ``if`` test is true on a failure, False when it is true on a success, None
    when it says neither."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _test_outcome(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _comparison_outcome(test.left, test.ops[0], test.comparators[0])
    flag = _last_name(test.func if isinstance(test, ast.Call) and not test.args else test)
    if flag in _SUCCESS_FLAGS:
        return False
    if flag in _FAILURE_FLAGS:
        return True
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "get" and test.args:
        key = test.args[0]  # ``data.get("error")``
        return True if isinstance(key, ast.Constant) and key.value in _FAILURE_FLAGS else None
    return None


def _comparison_outcome(left: ast.expr, op: ast.cmpop, right: ast.expr) -> bool | None:
    """:func:`_test_outcome` of ``"error" in data`` and of a status check (``resp.status_code !=
    200``, ``code >= 400``, ``status_code == 404``, ``status_code == 200``)."""
    if isinstance(op, ast.In) and isinstance(left, ast.Constant) and left.value in _FAILURE_FLAGS:
        return True
    if _last_name(left) not in _STATUS_FIELDS:
        return None
    if isinstance(op, (ast.NotEq, ast.NotIn, ast.Gt, ast.GtE)):
        return True
    if not isinstance(op, (ast.Eq, ast.In)):
        return None
    codes = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
    numbers = [c.value for c in codes if isinstance(c, ast.Constant) and isinstance(c.value, int)]
    failing = {n >= 400 for n in numbers}
    if numbers and len(numbers) == len(codes) and len(failing) == 1:
        return failing.pop()  # ``== 404`` tests a failure, ``== 200`` a success
    return None


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def _opening_text(value: ast.expr) -> str:
    """The literal text a string expression starts with (``"Error: "`` of ``f"Error: {e}"``)."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    if isinstance(value, ast.JoinedStr) and value.values:
        return _opening_text(value.values[0])  # type: ignore[arg-type]
    if isinstance(value, ast.BinOp):
        return _opening_text(value.left)
    return ""


def _is_text(value: ast.expr) -> bool:
    """A string literal, an f-string, a concatenation or ``%`` of one, or ``str(...)``."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str)
    if isinstance(value, ast.JoinedStr):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Mod)):
        return _is_text(value.left) or (isinstance(value.op, ast.Add) and _is_text(value.right))
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "str"


def _error_object(ctx: FileContext, function: Function, value: ast.expr, wrap: Wrap) -> tuple[tuple[Edit, ...], str]:
    """The edits that make failure text the error object the project's dispatcher answers for a
    failing call (its own keys, read from its code), or dispatchguard's ``{"error": <text>,
    "kind": "tool_error", "tool": <the tool's name>}`` when it has none."""
    name = json.dumps(_tool_name(ctx, function), ensure_ascii=False)
    filled = {"text": None, "kind": '"tool_error"', "tool": name}
    parts = [(field, filled.get(held, held)) for field, held in error_shape(ctx.facts, ctx.facts.dispatcher)]
    text_at = next(i for i, (_, held) in enumerate(parts) if held is None)
    before = "".join(f'"{field}": {held}, ' for field, held in parts[:text_at])
    after = "".join(f', "{field}": {held}' for field, held in parts[text_at + 1 :])
    start, end = ctx.node_start(value), ctx.node_end(value)
    opening = f'{wrap.opening}{{{before}"{parts[text_at][0]}": '
    closing = f"{after}}}{wrap.closing}"
    shape = "{" + before + f'"{parts[text_at][0]}": ...' + after + "}"
    edits = (Edit(start, start, opening), Edit(end, end, closing))
    return edits, f"return the failure as the error object {shape}"


def _tool_name(ctx: FileContext, function: Function) -> str:
    """The name the model calls the tool by: a tool class's ``name`` field, ``@tool("Name")``'s
    argument, else the class's or the function's own name."""
    cls = _enclosing_class(ctx, function)
    if cls is not None:
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign):
                target = stmt.target
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
            else:
                continue
            value = stmt.value
            if isinstance(target, ast.Name) and target.id == "name" and isinstance(value, ast.Constant):
                if isinstance(value.value, str):
                    return value.value
        return cls.name
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and decorator.args and isinstance(decorator.args[0], ast.Constant):
            if isinstance(decorator.args[0].value, str):
                return decorator.args[0].value
    return function.name
