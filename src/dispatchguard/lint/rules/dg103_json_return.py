"""DG103: a tool's run method returns something other than a JSON string."""

from __future__ import annotations

import ast
import json
from typing import TYPE_CHECKING

from dispatchguard.lint.resolve import CLASS, PLAIN_CLASS

if TYPE_CHECKING:
    from dispatchguard.lint.analysis import Context, FunctionInfo

CODE = "DG103"
NAME = "tool-returns-non-json"
SUMMARY = "Tool run method returns something other than a JSON string"
MESSAGE = "`{method}` returns {what}, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`"

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


def check_function(ctx: Context, fn: FunctionInfo) -> None:
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
                inner = ctx.qual_of(func.value.func, fn.scopes)
                if inner == "orjson.dumps" or self.classify(func.value, fn, depth + 1) == JSON:
                    return JSON
            if attr in _NOT_JSON_METHODS and not node.args:
                return _NOT_JSON_METHODS[attr]
            if attr == "ensure_json_str":
                return JSON
            receiver = func.value
            if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls") and fn.class_scope is not None:
                target = ctx.functions.get(f"{fn.class_scope.name}.{attr}")
                if target is not None:
                    return self.function(target, depth + 1)
        qual = ctx.qual_of(func, fn.scopes)
        if qual is not None:
            last = qual.rsplit(".", 1)[-1]
            if qual in _JSON_FUNCS or last == "ensure_json_str":
                return JSON
            if qual == "orjson.dumps":
                return "bytes (`orjson.dumps` without `.decode()`)"
            module_prefix = f"{ctx.info.name}." if ctx.info.name else ""
            if qual.startswith(module_prefix) and "." not in qual[len(module_prefix):]:
                local = qual[len(module_prefix):]
                target = ctx.functions.get(local)
                if target is not None:
                    return self.function(target, depth + 1)
            if ctx.kind(qual) in (CLASS, PLAIN_CLASS):
                return f"an instance of `{last}`"
            return None
        if isinstance(func, ast.Name):
            if func.id == "ensure_json_str":
                return JSON
            if func.id in _NOT_JSON_BUILTINS and not _shadowed(func.id, fn):
                return _NOT_JSON_BUILTINS[func.id]
        return None


def _shadowed(name: str, fn: FunctionInfo) -> bool:
    return any(name in s.names or name in s.quals for s in fn.scopes if s.kind == "function")


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


_TOOL = "from crewai.tools import BaseTool\nimport json\n\nclass T(BaseTool):\n"

VALID = [
    _TOOL + "    def _run(self, q):\n        return json.dumps({'q': q})\n",
    _TOOL + "    def _run(self, q):\n        from dispatchguard import ensure_json_str\n        return ensure_json_str({'q': q})\n",
    _TOOL + "    def _run(self, q):\n        return self.model.model_dump_json()\n",
    "from crewai.tools import BaseTool\nimport orjson\n\nclass T(BaseTool):\n    def _run(self, q):\n        return orjson.dumps({'q': q}).decode()\n",
    _TOOL + "    def _run(self, q):\n        return '{\"ok\": true}'\n",
    _TOOL + "    def _run(self, q):\n        out = json.dumps(q)\n        return out\n",
    _TOOL + "    def _run(self, q):\n        result = {'q': q}\n        result = json.dumps(result)\n        return result\n",
    _TOOL + "    def _run(self, q):\n        return self._format(q)\n\n    def _format(self, q):\n        return json.dumps(q)\n",
    _TOOL + "    def _run(self, q):\n        return render(q)\n\ndef render(q):\n    if q:\n        return json.dumps(q)\n    return '[]'\n",
    _TOOL + "    def _run(self, q):\n        return fetch(q)\n",  # unknown origin: not flagged by default
    _TOOL + "    def _run(self, q):\n        try:\n            return json.dumps(q)\n        except ValueError as exc:\n            return json.dumps({'error': str(exc)})\n",
    _TOOL + "    def _run(self, q):\n        raise NotImplementedError\n",
    _TOOL + "    async def _arun(self, q):\n        return await self._fetch(q)\n\n    async def _fetch(self, q):\n        return json.dumps(q)\n",
    _TOOL + "    def helper(self):\n        return {'not': 'a run method'}\n",
    "import json\n\nclass NotATool:\n    def _run(self):\n        return {'a': 1}\n",
    _TOOL + "    def _run(self, q):\n        return json.dumps(q) if q else '[]'\n",
    _TOOL + "    def _run(self, q):\n        def inner():\n            return {'nested': True}\n        return json.dumps(inner())\n",
    _TOOL + "    def _run(self, q):\n        while True:\n            return json.dumps(q)\n",
    _TOOL + "    def _run(self, q):\n        for x in q:\n            yield x\n",
    "from abc import abstractmethod\n" + _TOOL + "    @abstractmethod\n    def _run(self, q):\n        pass\n",
]

INVALID = [
    _TOOL + "    def _run(self, q):\n        return {'q': q}  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return self.report.model_dump()  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return str(q)  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return f'result: {q}'  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return 'result: ' + json.dumps(q)  # error: DG103\n",
    _TOOL + "    def _run(self, q):  # error: DG103\n        pass\n",
    _TOOL + "    def _run(self, q):\n        if q:\n            return  # error: DG103\n        return None  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return 42  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return 'not json'  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return [x for x in q]  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return repr(q)  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        out = {'q': q}\n        return out  # error: DG103\n",
    "from crewai.tools import BaseTool\n\nclass Report:\n    pass\n\nclass T(BaseTool):\n    def _run(self, q):\n        return Report()  # error: DG103\n",
    _TOOL + "    async def _arun(self, q):  # error: DG103\n        print(q)\n",
    _TOOL + "    def _run(self, q):\n        return self._raw(q)  # error: DG103\n\n    def _raw(self, q):\n        return {'q': q}\n",
    "from crewai.tools import BaseTool\nimport orjson\n\nclass T(BaseTool):\n    def _run(self, q):\n        return orjson.dumps(q)  # error: DG103\n",
]

VALID += [
    _TOOL + "    def _run(self, q):\n        return json.dumps(q) if q else ensure_json_str(None)\n",
    _TOOL + "    async def _arun(self, q):\n        return await helper(q)\n\nasync def helper(q):\n    return json.dumps(q)\n",
    _TOOL + "    def _run(self, q):\n        return '%s' % q\n",
    _TOOL + "    def _run(self, q):\n        return q * 2\n",
    _TOOL + "    def _run(self, q):\n        return self._loop(q)\n\n    def _loop(self, q):\n        return self._run(q)\n",
    _TOOL + "    def _run(self, q):\n        x = json.dumps(q)\n        x += ''\n        return x\n",
    _TOOL + "    def _run(self, q):\n        try:\n            pass\n        finally:\n            return json.dumps(q)\n",
    _TOOL + "    def _run(self, q):\n        try:\n            out = compute(q)\n        except ValueError:\n            raise\n        else:\n            return json.dumps(out)\n",
    _TOOL + "    def _run(self, q):\n        match q:\n            case 1:\n                return '1'\n            case _:\n                return '[]'\n",
    _TOOL + "    def _run(self, q):\n        with open(q) as fh:\n            return json.dumps(fh.read())\n",
    _TOOL + "    def _run(self, q):\n        import sys\n        sys.exit(1)\n",
    _TOOL + "    def _run(self, q):\n        assert False, 'unreachable'\n",
    _TOOL + "    def _run(self, q):\n        def str(x):\n            return json.dumps(x)\n        return str(q)\n",
    _TOOL + "    def _run(self, q):\n        return render(q)\n\ndef render(q):\n    yield q\n",
    _TOOL + "    def _run(self, q):\n        return (lambda: 1)()\n",
    _TOOL + "    def _run(self, q):\n        return q.result\n",
    _TOOL + "    def _run(self, q):\n        return simplejson.dumps(q)\n",
    "from crewai.tools import BaseTool\nfrom json import dumps\n\nclass T(BaseTool):\n    def _run(self, q):\n        return dumps(q)\n",
    "from crewai.tools import BaseTool\nfrom dispatchguard import ensure_json_str as ej\n\nclass T(BaseTool):\n    def _run(self, q):\n        return ej(q)\n",
]
INVALID += [
    _TOOL + "    def _run(self, q):\n        return json.dumps(q) if q else {}  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return {} if q else json.dumps(q)  # error: DG103\n",
    _TOOL + "    async def _arun(self, q):\n        return await helper(q)  # error: DG103\n\nasync def helper(q):\n    return [q]\n",
    _TOOL + "    def _run(self, q):\n        return b'[]'  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return True  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return ...  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return q.dict()  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return dict(a=q)  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        out = []\n        out = {}\n        return out  # error: DG103\n",
    _TOOL + "    def _run(self, q):  # error: DG103\n        '''Docstring only, then pass.'''\n        pass\n",
    _TOOL + "    def _run(self, q):  # error: DG103\n        if q:\n            return json.dumps(q)\n",
    _TOOL + "    def _run(self, q):  # error: DG103\n        while True:\n            break\n",
    _TOOL + "    def _run(self, q):  # error: DG103\n        try:\n            return json.dumps(q)\n        except ValueError:\n            pass\n",
    _TOOL + "    def _run(self, q):  # error: DG103\n        match q:\n            case 1:\n                return '1'\n",
    _TOOL + "    def run(self, q):\n        return T()  # error: DG103\n",
    "from crewai.tools import BaseTool\nfrom crewai_tools import SerperDevTool\n\nclass T(BaseTool):\n    def _run(self, q):\n        return SerperDevTool()  # error: DG103\n",
    _TOOL + "    def _run(self, q):\n        return json.dumps(q) + json.dumps(q)  # error: DG103\n",
    "def outer():\n    from crewai.tools import BaseTool\n\n    class Local(BaseTool):\n        def _run(self, q):\n            return {'q': q}  # error: DG103\n    return Local\n",
]
VALID += [_TOOL + "    def _run(self, q):\n        return Text('[]')\n\nclass Text(str):\n    pass\n"]
INVALID += [_TOOL + "    def _run(self, q):\n        out = Report(q)\n        return out  # error: DG103\n\nclass Report:\n    pass\n"]
