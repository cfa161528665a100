"""DG103: a tool's run method returns something other than a JSON string."""

from __future__ import annotations

import ast
import json
from typing import TYPE_CHECKING

from dispatchguard.lint.rules.examples import snippet

if TYPE_CHECKING:
    from dispatchguard.lint.walker import Context, FunctionInfo

CODE = "DG103"
NAME = "tool-returns-non-json"
SUMMARY = "Tool run method returns something other than a JSON string"
MESSAGE = "`{method}` returns {what}, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`"
#: The methods of a tool class whose return value reaches the model.
TOOL_METHODS = frozenset({"run", "_run", "arun", "_arun"})

JSON = "json"
UNKNOWN = None
# classification: "json", None (unknown), or a description of what is returned (not JSON)

_JSON_FUNCS = frozenset({"json.dumps", "simplejson.dumps", "ujson.dumps", "rapidjson.dumps"})
_NOT_JSON_BUILTINS = {
    "str": "`str(...)` (a Python repr)",
    "repr": "`repr(...)` (a Python repr)",
    "format": "`format(...)`",
    "dict": "a dict",
    "list": "a list",
    "tuple": "a tuple",
    "set": "a set",
    "frozenset": "a set",
    "sorted": "a list",
    "int": "a number",
    "float": "a number",
    "bool": "a bool",
    "len": "a number",
    "sum": "a number",
    "round": "a number",
    "abs": "a number",
    "bytes": "bytes",
}
_NOT_JSON_LITERALS = {
    ast.Dict: "a dict",
    ast.DictComp: "a dict",
    ast.List: "a list",
    ast.ListComp: "a list",
    ast.Set: "a set",
    ast.SetComp: "a set",
    ast.Tuple: "a tuple",
    ast.GeneratorExp: "a generator",
    ast.JoinedStr: "an f-string",
    ast.Lambda: "a function",
}
_NOT_JSON_METHODS = {
    "model_dump": "a dict (`.model_dump()`)",
    "dict": "a dict (`.dict()`)",
    "to_dict": "a dict (`.to_dict()`)",
}
_MAX_DEPTH = 12
# the characters JSON text can start and end with (after white space): objects, arrays, strings,
# numbers, true, false, null
_JSON_FIRST = frozenset('{["-0123456789tfn')
_JSON_LAST = frozenset('}]"0123456789el')
_ARITHMETIC = (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow)
_HTTP_METHODS = frozenset({"get", "post", "put", "patch", "delete", "head", "request", "send"})
_HTTP_LIBRARIES = frozenset({"requests", "httpx", "aiohttp", "urllib3"})


def check_tool_method(ctx: Context, fn: FunctionInfo) -> None:
    check_returns(ctx, fn, CODE, MESSAGE, fn.qualname)


def check_returns(ctx: Context, fn: FunctionInfo, code: str, message: str, name: str) -> None:
    """Report every way ``fn`` can give the model something other than a JSON string (DG103 for
    the run methods of tool classes, DG104 for tool functions). With ``fn.artifact``
    (``response_format="content_and_artifact"``) a returned tuple's first element is judged."""
    node = fn.node
    if fn.is_generator or is_abstract(node):
        return
    body = node.body  # type: ignore[attr-defined]
    if not ends(body):
        what = "None (a body of only `pass`)" if _only_pass(body) else "None (it can end without a return)"
        ctx.report(node, code, message.format(method=name, what=what))
    classifier = Classifier(ctx)
    for ret in fn.returns:
        value = ret.value
        if value is None:
            ctx.report(ret, code, message.format(method=name, what="None (a bare `return`)"))
            continue
        if fn.artifact:
            if not isinstance(value, ast.Tuple) or not value.elts:
                continue  # (content, artifact) built elsewhere: the content is out of sight
            value = value.elts[0]
        verdict = classifier.classify(_straight_line_value(fn, ret, value), fn, 0)
        if verdict == JSON:
            continue
        if verdict is None:
            if not ctx.strict:
                continue
            verdict = "a value not known to be a JSON string (strict mode)"
        ctx.report(value, code, message.format(method=name, what=verdict))


class Classifier:
    """What a returned expression is: :data:`JSON`, None (unknown) or a description of a value
    that is not a JSON string. Text counts as not JSON only when its first or last character
    rules JSON out (``"Error: " + x``: no JSON value starts with ``E``), so unknown parts never
    make a finding."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.in_progress: set[int] = set()

    def function(self, fn: FunctionInfo, depth: int) -> str | None:
        """The verdict of every return of a same-module function (JSON only if all are; a function
        that only raises never returns, which is JSON's verdict: it adds nothing)."""
        if id(fn) in self.in_progress or depth > _MAX_DEPTH or fn.is_generator:
            return None
        self.in_progress.add(id(fn))
        try:
            if not ends(fn.node.body):  # type: ignore[attr-defined]
                return None
            if not fn.returns:
                return JSON if _only_raises(fn.node.body) else None  # type: ignore[attr-defined]
            verdicts = [self.classify(r.value, fn, depth + 1) if r.value is not None else "None" for r in fn.returns]
        finally:
            self.in_progress.discard(id(fn))
        if all(v == JSON for v in verdicts):
            return JSON
        bad = [v for v in verdicts if v not in (JSON, None)]
        if bad and len(bad) == len(verdicts):
            return bad[0]
        return None

    def classify(self, node: ast.AST, fn: FunctionInfo, depth: int) -> str | None:
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, str):
                try:
                    json.loads(value)
                except ValueError:
                    return "a string that is not JSON"
                return JSON
            if value is None:
                return "None"
            if isinstance(value, bytes):
                return "bytes"
            if value is Ellipsis:
                return "Ellipsis"
            return "a bool" if isinstance(value, bool) else "a number"
        literal = _NOT_JSON_LITERALS.get(type(node))
        if literal is not None:
            return literal
        if isinstance(node, ast.Await):
            return self.classify(node.value, fn, depth + 1)
        if isinstance(node, ast.IfExp):
            a = self.classify(node.body, fn, depth + 1)
            b = self.classify(node.orelse, fn, depth + 1)
            if a == JSON and b == JSON:
                return JSON
            return a if a not in (JSON, None) else (b if b not in (JSON, None) else None)
        if isinstance(node, ast.BinOp):
            return self.binop(node, fn, depth)
        if isinstance(node, ast.Name):
            return self.name(node.id, fn, depth)
        if isinstance(node, ast.Call):
            return self.call(node, fn, depth)
        return None

    def binop(self, node: ast.BinOp, fn: FunctionInfo, depth: int) -> str | None:
        op = node.op
        if isinstance(op, ast.Add):
            sides = [self.classify(node.left, fn, depth + 1), self.classify(node.right, fn, depth + 1)]
            if JSON in sides:
                return "text glued to JSON"
            if any(self.edges(node, fn, depth)):
                return "text glued to other values"
            if sides[0] == sides[1] == "a number":
                return "a number"
            return None
        if isinstance(op, ast.Mod):
            template = self.text(node.left)
            if template is not None and _bad_start(template) and not template.lstrip().startswith("%"):
                return "text formatted with `%`"
            return None
        if isinstance(op, _ARITHMETIC):
            return "a number (arithmetic)"
        return None

    def text(self, node: ast.AST) -> str | None:
        """The text of a str constant, or of a module-level name bound to one."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return self.ctx.module_text(node.id)
        return None

    def edges(self, node: ast.AST, fn: FunctionInfo, depth: int) -> tuple[bool, bool]:
        """Whether the text ``node`` evaluates to surely starts / ends with a character no JSON
        text starts / ends with."""
        if depth > _MAX_DEPTH:
            return False, False
        text = self.text(node)
        if text is not None and not isinstance(node, ast.Name):
            return _bad_start(text), _bad_end(text)
        if isinstance(node, ast.JoinedStr) and node.values:
            first, last = node.values[0], node.values[-1]
            start = isinstance(first, ast.Constant) and _bad_start(str(first.value))
            end = isinstance(last, ast.Constant) and _bad_end(str(last.value))
            return start, end
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.edges(node.left, fn, depth + 1)[0], self.edges(node.right, fn, depth + 1)[1]
        if isinstance(node, ast.Name):
            values = fn.assigns.get(node.id)
            if not values:
                text = None if fn.shadows(node.id) else self.ctx.module_text(node.id)
                return (_bad_start(text), _bad_end(text)) if text is not None else (False, False)
            plain = [v for v in values if not isinstance(v, ast.AugAssign)]
            grown = [v for v in values if isinstance(v, ast.AugAssign)]
            if not plain or None in plain or any(not isinstance(g.op, ast.Add) for g in grown):
                return False, False
            parts = [self.edges(v, fn, depth + 1) for v in plain]  # type: ignore[arg-type]
            ends_ = parts + [self.edges(g.value, fn, depth + 1) for g in grown]
            return all(p[0] for p in parts), all(e[1] for e in ends_)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            template = self.text(node.func.value)
            if template is not None:
                return _bad_start(template), _bad_end(template)
        return False, False

    def name(self, name: str, fn: FunctionInfo, depth: int) -> str | None:
        values = fn.assigns.get(name)
        if not values:
            literal = None if fn.shadows(name) else self.ctx.module_literal(name)
            return None if literal is None else self.classify(literal, fn, depth + 1)
        if any(isinstance(v, ast.AugAssign) for v in values):
            return "text built with `+=`" if any(self.edges(ast.Name(id=name), fn, depth + 1)) else None
        verdicts = [self.classify(v, fn, depth + 1) if v is not None else None for v in values]
        if all(v == JSON for v in verdicts):
            return JSON
        if all(v not in (JSON, None) for v in verdicts):
            return verdicts[-1]
        return None

    def call(self, node: ast.Call, fn: FunctionInfo, depth: int) -> str | None:
        ctx = self.ctx
        func = node.func
        if isinstance(func, ast.Attribute):
            attr = func.attr
            if attr == "model_dump_json":
                return JSON
            if attr == "decode" and isinstance(func.value, ast.Call):
                inner = ctx.qualified_name(func.value.func, fn)
                if inner == "orjson.dumps" or self.classify(func.value, fn, depth + 1) == JSON:
                    return JSON
            if attr in _NOT_JSON_METHODS and not node.args:
                return _NOT_JSON_METHODS[attr]
            if attr == "ensure_json_str":
                return JSON
            if attr == "join" and node.args:
                separator = self.text(func.value)
                if separator:
                    return f"text joined with {separator!r}"
            if attr == "format" and any(self.edges(node, fn, depth)):
                return "text formatted with `.format`"
            if attr == "json" and not node.args and not node.keywords and self.is_http_response(func.value, fn):
                return "a parsed value (`.json()` of an HTTP response), not text"
            receiver = func.value
            if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
                target = ctx.method(fn, attr)
                if target is not None:
                    return self.function(target, depth + 1)
        qual = ctx.qualified_name(func, fn)
        if qual is not None:
            last = qual.rsplit(".", 1)[-1]
            if qual in _JSON_FUNCS or last == "ensure_json_str" or _is_json_module_dumps(qual):
                return JSON
            if qual == "orjson.dumps":
                return "bytes (`orjson.dumps` without `.decode()`)"
            target = ctx.module_function(qual)
            if target is not None:
                return self.function(target, depth + 1)
            if ctx.is_class(qual):
                return f"an instance of `{last}`"
            return None
        if isinstance(func, ast.Name):
            if func.id == "ensure_json_str":
                return JSON
            if func.id in _NOT_JSON_BUILTINS and not fn.shadows(func.id):
                if func.id == "str" and len(node.args) == 1 and self.classify(node.args[0], fn, depth + 1) == JSON:
                    return JSON  # str() of JSON text is that text
                return _NOT_JSON_BUILTINS[func.id]
        return None

    def is_http_response(self, node: ast.AST, fn: FunctionInfo) -> bool:
        """``requests.get(...)``, ``session.post(...)``, ``httpx.request(...)``, or a local name
        bound only to such calls."""
        if isinstance(node, ast.Name):
            values = fn.assigns.get(node.id) or [None]
            return all(v is not None and self.is_http_response(v, fn) for v in values)
        if isinstance(node, ast.Await):
            node = node.value
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            return False
        if node.func.attr not in _HTTP_METHODS:
            return False
        qual = self.ctx.qualified_name(node.func, fn)
        return qual is None or qual.split(".", 1)[0] in _HTTP_LIBRARIES


def _straight_line_value(fn: FunctionInfo, ret: ast.Return, value: ast.expr) -> ast.expr:
    """For ``return name`` in the function's own body, when every binding of ``name`` is a plain
    assignment in that same body: the value of the last assignment before the return (straight-line
    code, so that is the one returned). Otherwise ``value`` itself."""
    if not isinstance(value, ast.Name):
        return value
    body = fn.node.body  # type: ignore[attr-defined]
    if ret not in body:
        return value
    bindings = fn.assigns.get(value.id) or []
    found = [
        stmt
        for stmt in body[: body.index(ret)]
        if isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == value.id
    ]
    every = [
        stmt
        for stmt in body
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == value.id for t in stmt.targets)
    ]
    if not found or len(every) != len(bindings) or any(b is None or isinstance(b, ast.AugAssign) for b in bindings):
        return value
    return found[-1].value


def _is_json_module_dumps(qual: str) -> bool:
    """``dumps`` of a JSON module (``bson.json_util.dumps``, ``simplejson.dumps``): JSON text;
    ``orjson.dumps`` gives bytes."""
    module, _, name = qual.rpartition(".")
    return name == "dumps" and "json" in module.rsplit(".", 1)[-1] and module != "orjson"


def _bad_start(text: str) -> bool:
    stripped = text.lstrip()
    return bool(stripped) and stripped[0] not in _JSON_FIRST


def _bad_end(text: str) -> bool:
    stripped = text.rstrip()
    return bool(stripped) and stripped[-1] not in _JSON_LAST


def _only_raises(body: list[ast.stmt]) -> bool:
    """A body that ends by raising on every path and returns nothing (``ends`` holds)."""
    return not any(isinstance(n, ast.Return) for stmt in body for n in ast.walk(stmt))


def is_abstract(node: ast.AST) -> bool:
    for decorator in node.decorator_list:  # type: ignore[attr-defined]
        name = decorator.attr if isinstance(decorator, ast.Attribute) else getattr(decorator, "id", "")
        if name in ("abstractmethod", "overload"):
            return True
    return False


def _only_pass(body: list[ast.stmt]) -> bool:
    stmts = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return all(isinstance(s, ast.Pass) for s in stmts)


def ends(body: list[ast.stmt]) -> bool:
    """Whether a block always ends in return/raise (never falls off its end)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return ends(last.body) and ends(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return ends(last.body)
    if isinstance(last, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        if last.finalbody and ends(last.finalbody):
            return True
        main = ends(last.orelse) if last.orelse else ends(last.body)
        return main and all(ends(h.body) for h in last.handlers)
    if isinstance(last, ast.While):
        return isinstance(last.test, ast.Constant) and bool(last.test.value) and not _has_break(last.body)
    if isinstance(last, ast.Match):
        has_wildcard = any(
            isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None for c in last.cases
        )
        return has_wildcard and all(ends(c.body) for c in last.cases)
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        name = getattr(last.value.func, "attr", None) or getattr(last.value.func, "id", None)
        return name in ("exit", "_exit", "abort", "fail", "skip")
    if isinstance(last, ast.Assert):
        return isinstance(last.test, ast.Constant) and not last.test.value
    return False


def _has_break(body: list[ast.stmt]) -> bool:
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Break):
                return True
    return False


VALID = [
    snippet("""
        from langchain_core.tools import BaseTool

        class Search(BaseTool):
            response_format: str = "content_and_artifact"

            def _run(self, q):
                results = search(q)
                return self.clean(results), results
    """),
    snippet("""
        from bson import json_util
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                return str(json_util.dumps(list(q)))
    """),
    snippet("""
        import json
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                out = "Results: " + q
                if q:
                    out = json.dumps(q)
                return out
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                return "%s" % q
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                return prefix + q + suffix
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                return "".join(q)
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                out = ""
                out += q
                return out
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, model):
                return model.json()
    """),
    snippet("""
        import json
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                if not q:
                    return self._fail(q)
                return json.dumps(q)

            def _fail(self, q):
                raise ValueError(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return json.dumps({'q': q})
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                from dispatchguard import ensure_json_str
                return ensure_json_str({'q': q})
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return self.model.model_dump_json()
    """),
    snippet("""
        from crewai.tools import BaseTool
        import orjson

        class T(BaseTool):
            def _run(self, q):
                return orjson.dumps({'q': q}).decode()
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return '{"ok": true}'
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                out = json.dumps(q)
                return out
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                result = {'q': q}
                result = json.dumps(result)
                return result
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return self._format(q)

            def _format(self, q):
                return json.dumps(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return render(q)

        def render(q):
            if q:
                return json.dumps(q)
            return '[]'
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return fetch(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                try:
                    return json.dumps(q)
                except ValueError as exc:
                    return json.dumps({'error': str(exc)})
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                raise NotImplementedError
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            async def _arun(self, q):
                return await self._fetch(q)

            async def _fetch(self, q):
                return json.dumps(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def helper(self):
                return {'not': 'a run method'}
    """),
    snippet("""
        import json

        class NotATool:
            def _run(self):
                return {'a': 1}
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return json.dumps(q) if q else '[]'
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                def inner():
                    return {'nested': True}
                return json.dumps(inner())
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                while True:
                    return json.dumps(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                for x in q:
                    yield x
    """),
    snippet("""
        from abc import abstractmethod
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            @abstractmethod
            def _run(self, q):
                pass
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return json.dumps(q) if q else ensure_json_str(None)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            async def _arun(self, q):
                return await helper(q)

        async def helper(q):
            return json.dumps(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return '%s' % q
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return q * 2
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return self._loop(q)

            def _loop(self, q):
                return self._run(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                x = json.dumps(q)
                x += ''
                return x
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                try:
                    pass
                finally:
                    return json.dumps(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                try:
                    out = compute(q)
                except ValueError:
                    raise
                else:
                    return json.dumps(out)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                match q:
                    case 1:
                        return '1'
                    case _:
                        return '[]'
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                with open(q) as fh:
                    return json.dumps(fh.read())
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                import sys
                sys.exit(1)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                assert False, 'unreachable'
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                def str(x):
                    return json.dumps(x)
                return str(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return render(q)

        def render(q):
            yield q
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return (lambda: 1)()
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return q.result
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return simplejson.dumps(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        from json import dumps

        class T(BaseTool):
            def _run(self, q):
                return dumps(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        from dispatchguard import ensure_json_str as ej

        class T(BaseTool):
            def _run(self, q):
                return ej(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return Text('[]')

        class Text(str):
            pass
    """),
]

INVALID = [
    snippet("""
        from langchain_core.tools import BaseTool

        class Search(BaseTool):
            response_format: str = "content_and_artifact"

            def _run(self, q):
                return f"Found {q}", {"raw": q}  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                people = fetch(q)
                people = self._text(people)
                return people  # error: DG103

            def _text(self, people):
                return "\\n".join(people)
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                try:
                    return do(q)
                except OSError as e:
                    return "Error: " + str(e)  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                out = "Results:"
                for item in q:
                    out += item
                return out  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool

        TEMPLATE = "Error: {} is not a valid path"

        class T(BaseTool):
            def _run(self, q):
                if not q:
                    return TEMPLATE.format(q)  # error: DG103
                return "{}".format(q)
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                return self._format(q)  # error: DG103

            def _format(self, q):
                lines = [str(x) for x in q]
                return "\\n".join(lines)
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, a, b):
                return a / b  # error: DG103
    """),
    snippet("""
        import requests
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, url):
                response = requests.post(url, json={})
                return response.json()  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                return "Error: %s" % q  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return {'q': q}  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return self.report.model_dump()  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return str(q)  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return f'result: {q}'  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return 'result: ' + json.dumps(q)  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):  # error: DG103
                pass
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                if q:
                    return  # error: DG103
                return None  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return 42  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return 'not json'  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return [x for x in q]  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return repr(q)  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                out = {'q': q}
                return out  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool

        class Report:
            pass

        class T(BaseTool):
            def _run(self, q):
                return Report()  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            async def _arun(self, q):  # error: DG103
                print(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return self._raw(q)  # error: DG103

            def _raw(self, q):
                return {'q': q}
    """),
    snippet("""
        from crewai.tools import BaseTool
        import orjson

        class T(BaseTool):
            def _run(self, q):
                return orjson.dumps(q)  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return json.dumps(q) if q else {}  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return {} if q else json.dumps(q)  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            async def _arun(self, q):
                return await helper(q)  # error: DG103

        async def helper(q):
            return [q]
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return b'[]'  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return True  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return ...  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return q.dict()  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return dict(a=q)  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                out = []
                out = {}
                return out  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):  # error: DG103
                '''Docstring only, then pass.'''
                pass
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):  # error: DG103
                if q:
                    return json.dumps(q)
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):  # error: DG103
                while True:
                    break
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):  # error: DG103
                try:
                    return json.dumps(q)
                except ValueError:
                    pass
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):  # error: DG103
                match q:
                    case 1:
                        return '1'
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def run(self, q):
                return T()  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        from crewai_tools import SerperDevTool

        class T(BaseTool):
            def _run(self, q):
                return SerperDevTool()  # error: DG103
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                return json.dumps(q) + json.dumps(q)  # error: DG103
    """),
    snippet("""
        def outer():
            from crewai.tools import BaseTool

            class Local(BaseTool):
                def _run(self, q):
                    return {'q': q}  # error: DG103
            return Local
    """),
    snippet("""
        from crewai.tools import BaseTool
        import json

        class T(BaseTool):
            def _run(self, q):
                out = Report(q)
                return out  # error: DG103

        class Report:
            pass
    """),
]
