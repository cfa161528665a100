"""DG103: a tool's run method returns something other than a JSON string."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from dispatchguard.lint.returns import JSON, Classifier, ends
from dispatchguard.lint.rules.examples import snippet

if TYPE_CHECKING:
    from dispatchguard.lint.walker import Context, FunctionInfo

CODE = "DG103"
NAME = "tool-returns-non-json"
SUMMARY = "Tool run method returns something other than a JSON string"
MESSAGE = "`{method}` returns {what}, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`"
#: The methods of a tool class whose return value reaches the model.
TOOL_METHODS = frozenset({"run", "_run", "arun", "_arun"})


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


def is_abstract(node: ast.AST) -> bool:
    for decorator in node.decorator_list:  # type: ignore[attr-defined]
        name = decorator.attr if isinstance(decorator, ast.Attribute) else getattr(decorator, "id", "")
        if name in ("abstractmethod", "overload"):
            return True
    return False


def _only_pass(body: list[ast.stmt]) -> bool:
    stmts = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return all(isinstance(s, ast.Pass) for s in stmts)


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
        from crewai.tools import BaseTool

        class Report(BaseTool):
            def _run(self, rows):
                return "\\n".join(rows).rstrip()  # error: DG103
    """),
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
