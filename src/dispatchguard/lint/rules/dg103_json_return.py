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


def check_tool_method(ctx: Context, fn: FunctionInfo) -> None:
    node = fn.node
    if fn.is_generator or _is_abstract(node):
        return
    method = fn.qualname
    body = node.body  # type: ignore[attr-defined]
    if not _ends(body):
        what = "None (a body of only `pass`)" if _only_pass(body) else "None (it can end without a return)"
        ctx.report(node, CODE, MESSAGE.format(method=method, what=what))
    classifier = _Classifier(ctx)
    for ret in fn.returns:
        if ret.value is None:
            ctx.report(ret, CODE, MESSAGE.format(method=method, what="None (a bare `return`)"))
            continue
        verdict = classifier.classify(ret.value, fn, 0)
        if verdict == JSON:
            continue
        if verdict is None:
            if not ctx.strict:
                continue
            verdict = "a value not known to be a JSON string (strict mode)"
        ctx.report(ret.value, CODE, MESSAGE.format(method=method, what=verdict))


class _Classifier:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.in_progress: set[int] = set()

    def function(self, fn: FunctionInfo, depth: int) -> str | None:
        """The verdict of every return of a same-module function (JSON only if all are)."""
        if id(fn) in self.in_progress or depth > _MAX_DEPTH or fn.is_generator:
            return None
        self.in_progress.add(id(fn))
        try:
            if not fn.returns or not _ends(fn.node.body):  # type: ignore[attr-defined]
                return None
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
            if isinstance(node.op, ast.Add):
                sides = [self.classify(node.left, fn, depth + 1), self.classify(node.right, fn, depth + 1)]
                if JSON in sides:
                    return "text glued to JSON"
                return None
            if isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
                return None
            return None
        if isinstance(node, ast.Name):
            return self.name(node.id, fn, depth)
        if isinstance(node, ast.Call):
            return self.call(node, fn, depth)
        return None

    def name(self, name: str, fn: FunctionInfo, depth: int) -> str | None:
        values = fn.assigns.get(name)
        if not values:
            return None
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
            receiver = func.value
            if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
                target = ctx.method(fn, attr)
                if target is not None:
                    return self.function(target, depth + 1)
        qual = ctx.qualified_name(func, fn)
        if qual is not None:
            last = qual.rsplit(".", 1)[-1]
            if qual in _JSON_FUNCS or last == "ensure_json_str":
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
                return _NOT_JSON_BUILTINS[func.id]
        return None


def _is_abstract(node: ast.AST) -> bool:
    for decorator in node.decorator_list:  # type: ignore[attr-defined]
        name = decorator.attr if isinstance(decorator, ast.Attribute) else getattr(decorator, "id", "")
        if name in ("abstractmethod", "overload"):
            return True
    return False


def _only_pass(body: list[ast.stmt]) -> bool:
    stmts = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return all(isinstance(s, ast.Pass) for s in stmts)


def _ends(body: list[ast.stmt]) -> bool:
    """Whether a block always ends in return/raise (never falls off its end)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _ends(last.body) and _ends(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _ends(last.body)
    if isinstance(last, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        if last.finalbody and _ends(last.finalbody):
            return True
        main = _ends(last.orelse) if last.orelse else _ends(last.body)
        return main and all(_ends(h.body) for h in last.handlers)
    if isinstance(last, ast.While):
        return isinstance(last.test, ast.Constant) and bool(last.test.value) and not _has_break(last.body)
    if isinstance(last, ast.Match):
        has_wildcard = any(
            isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None for c in last.cases
        )
        return has_wildcard and all(_ends(c.body) for c in last.cases)
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
