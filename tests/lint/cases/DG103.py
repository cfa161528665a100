# Cases of DG103 (tool-returns-non-json), expanded by tests/lint/test_rules.py. Each `# case:` block is checked
# as a module of its own; `# error: DG103:COL MESSAGE` pins a finding (column and message) on its line.

# case: valid 1
from langchain_core.tools import BaseTool

class Search(BaseTool):
    response_format: str = "content_and_artifact"

    def _run(self, q):
        results = search(q)
        return self.clean(results), results

# case: valid 2
from bson import json_util
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        return str(json_util.dumps(list(q)))

# case: valid 3
import json
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        out = "Results: " + q
        if q:
            out = json.dumps(q)
        return out

# case: valid 4
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        return "%s" % q

# case: valid 5
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        return prefix + q + suffix

# case: valid 6
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        return "".join(q)

# case: valid 7
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        out = ""
        out += q
        return out

# case: valid 8
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, model):
        return model.json()

# case: valid 9
import json
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        if not q:
            return self._fail(q)
        return json.dumps(q)

    def _fail(self, q):
        raise ValueError(q)

# case: valid 10
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return json.dumps({'q': q})

# case: valid 11
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        from dispatchguard import ensure_json_str
        return ensure_json_str({'q': q})

# case: valid 12
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return self.model.model_dump_json()

# case: valid 13
from crewai.tools import BaseTool
import orjson

class T(BaseTool):
    def _run(self, q):
        return orjson.dumps({'q': q}).decode()

# case: valid 14
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return '{"ok": true}'

# case: valid 15
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        out = json.dumps(q)
        return out

# case: valid 16
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        result = {'q': q}
        result = json.dumps(result)
        return result

# case: valid 17
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return self._format(q)

    def _format(self, q):
        return json.dumps(q)

# case: valid 18
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return render(q)

def render(q):
    if q:
        return json.dumps(q)
    return '[]'

# case: valid 19
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return fetch(q)

# case: valid 20
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        try:
            return json.dumps(q)
        except ValueError as exc:
            return json.dumps({'error': str(exc)})

# case: valid 21
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        raise NotImplementedError

# case: valid 22
from crewai.tools import BaseTool
import json

class T(BaseTool):
    async def _arun(self, q):
        return await self._fetch(q)

    async def _fetch(self, q):
        return json.dumps(q)

# case: valid 23
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def helper(self):
        return {'not': 'a run method'}

# case: valid 24
import json

class NotATool:
    def _run(self):
        return {'a': 1}

# case: valid 25
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return json.dumps(q) if q else '[]'

# case: valid 26
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        def inner():
            return {'nested': True}
        return json.dumps(inner())

# case: valid 27
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        while True:
            return json.dumps(q)

# case: valid 28
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        for x in q:
            yield x

# case: valid 29
from abc import abstractmethod
from crewai.tools import BaseTool
import json

class T(BaseTool):
    @abstractmethod
    def _run(self, q):
        pass

# case: valid 30
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return json.dumps(q) if q else ensure_json_str(None)

# case: valid 31
from crewai.tools import BaseTool
import json

class T(BaseTool):
    async def _arun(self, q):
        return await helper(q)

async def helper(q):
    return json.dumps(q)

# case: valid 32
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return '%s' % q

# case: valid 33
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return q * 2

# case: valid 34
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return self._loop(q)

    def _loop(self, q):
        return self._run(q)

# case: valid 35
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        x = json.dumps(q)
        x += ''
        return x

# case: valid 36
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        try:
            pass
        finally:
            return json.dumps(q)

# case: valid 37
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

# case: valid 38
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        match q:
            case 1:
                return '1'
            case _:
                return '[]'

# case: valid 39
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        with open(q) as fh:
            return json.dumps(fh.read())

# case: valid 40
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        import sys
        sys.exit(1)

# case: valid 41
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        assert False, 'unreachable'

# case: valid 42
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        def str(x):
            return json.dumps(x)
        return str(q)

# case: valid 43
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return render(q)

def render(q):
    yield q

# case: valid 44
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return (lambda: 1)()

# case: valid 45
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return q.result

# case: valid 46
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return simplejson.dumps(q)

# case: valid 47
from crewai.tools import BaseTool
from json import dumps

class T(BaseTool):
    def _run(self, q):
        return dumps(q)

# case: valid 48
from crewai.tools import BaseTool
from dispatchguard import ensure_json_str as ej

class T(BaseTool):
    def _run(self, q):
        return ej(q)

# case: valid 49
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return Text('[]')

class Text(str):
    pass

# case: invalid 1
from crewai.tools import BaseTool

class Report(BaseTool):
    def _run(self, rows):
        return "\n".join(rows).rstrip()  # error: DG103:16 `Report._run` returns text joined with '\n', not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 2
from langchain_core.tools import BaseTool

class Search(BaseTool):
    response_format: str = "content_and_artifact"

    def _run(self, q):
        return f"Found {q}", {"raw": q}  # error: DG103:16 `Search._run` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 3
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        people = fetch(q)
        people = self._text(people)
        return people  # error: DG103:16 `T._run` returns text joined with '\n', not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    def _text(self, people):
        return "\n".join(people)

# case: invalid 4
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        try:
            return do(q)
        except OSError as e:
            return "Error: " + str(e)  # error: DG103:20 `T._run` returns text glued to other values, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 5
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        out = "Results:"
        for item in q:
            out += item
        return out  # error: DG103:16 `T._run` returns text built with `+=`, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 6
from crewai.tools import BaseTool

TEMPLATE = "Error: {} is not a valid path"

class T(BaseTool):
    def _run(self, q):
        if not q:
            return TEMPLATE.format(q)  # error: DG103:20 `T._run` returns text formatted with `.format`, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        return "{}".format(q)

# case: invalid 7
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        return self._format(q)  # error: DG103:16 `T._run` returns text joined with '\n', not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    def _format(self, q):
        lines = [str(x) for x in q]
        return "\n".join(lines)

# case: invalid 8
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, a, b):
        return a / b  # error: DG103:16 `T._run` returns a number (arithmetic), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 9
import requests
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, url):
        response = requests.post(url, json={})
        return response.json()  # error: DG103:16 `T._run` returns a parsed value (`.json()` of an HTTP response), not text, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 10
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        return "Error: %s" % q  # error: DG103:16 `T._run` returns text formatted with `%`, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 11
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return {'q': q}  # error: DG103:16 `T._run` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 12
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return self.report.model_dump()  # error: DG103:16 `T._run` returns a dict (`.model_dump()`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 13
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return str(q)  # error: DG103:16 `T._run` returns `str(...)` (a Python repr), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 14
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return f'result: {q}'  # error: DG103:16 `T._run` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 15
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return 'result: ' + json.dumps(q)  # error: DG103:16 `T._run` returns text glued to JSON, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 16
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):  # error: DG103:5 `T._run` returns None (a body of only `pass`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        pass

# case: invalid 17
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        if q:
            return  # error: DG103:13 `T._run` returns None (a bare `return`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        return None  # error: DG103:16 `T._run` returns None, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 18
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return 42  # error: DG103:16 `T._run` returns a number, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 19
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return 'not json'  # error: DG103:16 `T._run` returns a string that is not JSON, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 20
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return [x for x in q]  # error: DG103:16 `T._run` returns a list, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 21
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return repr(q)  # error: DG103:16 `T._run` returns `repr(...)` (a Python repr), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 22
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        out = {'q': q}
        return out  # error: DG103:16 `T._run` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 23
from crewai.tools import BaseTool

class Report:
    pass

class T(BaseTool):
    def _run(self, q):
        return Report()  # error: DG103:16 `T._run` returns an instance of `Report`, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 24
from crewai.tools import BaseTool
import json

class T(BaseTool):
    async def _arun(self, q):  # error: DG103:5 `T._arun` returns None (it can end without a return), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        print(q)

# case: invalid 25
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return self._raw(q)  # error: DG103:16 `T._run` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    def _raw(self, q):
        return {'q': q}

# case: invalid 26
from crewai.tools import BaseTool
import orjson

class T(BaseTool):
    def _run(self, q):
        return orjson.dumps(q)  # error: DG103:16 `T._run` returns bytes (`orjson.dumps` without `.decode()`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 27
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return json.dumps(q) if q else {}  # error: DG103:16 `T._run` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 28
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return {} if q else json.dumps(q)  # error: DG103:16 `T._run` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 29
from crewai.tools import BaseTool
import json

class T(BaseTool):
    async def _arun(self, q):
        return await helper(q)  # error: DG103:16 `T._arun` returns a list, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

async def helper(q):
    return [q]

# case: invalid 30
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return b'[]'  # error: DG103:16 `T._run` returns bytes, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 31
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return True  # error: DG103:16 `T._run` returns a bool, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 32
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return ...  # error: DG103:16 `T._run` returns Ellipsis, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 33
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return q.dict()  # error: DG103:16 `T._run` returns a dict (`.dict()`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 34
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return dict(a=q)  # error: DG103:16 `T._run` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 35
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        out = []
        out = {}
        return out  # error: DG103:16 `T._run` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 36
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):  # error: DG103:5 `T._run` returns None (a body of only `pass`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        '''Docstring only, then pass.'''
        pass

# case: invalid 37
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):  # error: DG103:5 `T._run` returns None (it can end without a return), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        if q:
            return json.dumps(q)

# case: invalid 38
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):  # error: DG103:5 `T._run` returns None (it can end without a return), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        while True:
            break

# case: invalid 39
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):  # error: DG103:5 `T._run` returns None (it can end without a return), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        try:
            return json.dumps(q)
        except ValueError:
            pass

# case: invalid 40
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):  # error: DG103:5 `T._run` returns None (it can end without a return), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        match q:
            case 1:
                return '1'

# case: invalid 41
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def run(self, q):
        return T()  # error: DG103:16 `T.run` returns an instance of `T`, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 42
from crewai.tools import BaseTool
from crewai_tools import SerperDevTool

class T(BaseTool):
    def _run(self, q):
        return SerperDevTool()  # error: DG103:16 `T._run` returns an instance of `SerperDevTool`, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 43
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        return json.dumps(q) + json.dumps(q)  # error: DG103:16 `T._run` returns text glued to JSON, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 44
def outer():
    from crewai.tools import BaseTool

    class Local(BaseTool):
        def _run(self, q):
            return {'q': q}  # error: DG103:20 `outer.Local._run` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
    return Local

# case: invalid 45
from crewai.tools import BaseTool
import json

class T(BaseTool):
    def _run(self, q):
        out = Report(q)
        return out  # error: DG103:16 `T._run` returns an instance of `Report`, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

class Report:
    pass

# case: invalid negative numbers (0.3.0 lost them while `return 1` was still reported)
from crewai.tools import BaseTool

class Score(BaseTool):
    def _run(self, q: str):
        if not q:
            return -1  # error: DG103:20 `Score._run` returns a number, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        return -1.5  # error: DG103:16 `Score._run` returns a number, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid a negated name is unknown
from crewai.tools import BaseTool

class Flip(BaseTool):
    def _run(self, q: str):
        return ~q

# case: invalid declared return types decide unknown values
from crewai.tools import BaseTool

class Lookup(BaseTool):
    def _run(self, q: str) -> dict:
        return self.client.search(q)  # error: DG103:16 `Lookup._run` returns a dict (declared `-> dict`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

class Count(BaseTool):
    def _run(self, q: str) -> "int | None":
        return self.counter(q)  # error: DG103:16 `Count._run` returns a number (declared `-> int | None`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid a helper's declared return type
from typing import Optional

from crewai.tools import BaseTool

class Report:
    pass

def load(q) -> Optional[list[dict]]:
    return fetch(q)

def build(q) -> Report:
    return make(q)

class Search(BaseTool):
    def _run(self, q: str):
        if q:
            return load(q)  # error: DG103:20 `Search._run` returns a list (declared `-> Optional[list[dict]]`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        return build(q)  # error: DG103:16 `Search._run` returns an instance of `Report` (declared `-> Report`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid declared text or anything else stays unknown
import json
from typing import Any

from crewai.tools import BaseTool

class Echo(BaseTool):
    def _run(self, q: str) -> str:
        return self.client.search(q)

class Free(BaseTool):
    def _run(self, q: str) -> Any:
        return self.client.search(q)

class Either(BaseTool):
    def _run(self, q: str) -> "dict | str":
        return self.client.search(q)

class Known(BaseTool):
    def _run(self, q: str) -> dict:
        return json.dumps({"q": q})

# case: invalid a project's own tool base (a local replacement of CrewAI's) makes its subclasses tools
class BaseTool:
    name: str = "UnnamedTool"
    description: str = "Generic tool interface"

    def run(self, *args, **kwargs):
        return self._run(*args, **kwargs)

    def _run(self, *args, **kwargs):
        raise NotImplementedError("Tool must implement _run() method.")


class StorageTool(BaseTool):
    name = "storage"
    description = "Stores a file."

    def _run(self, path):
        return {"stored": path}  # error: DG103:16 `StorageTool._run` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid an abstract tool base says its name and description through properties
from abc import ABC, abstractmethod


class BaseTool(ABC):
    @property
    @abstractmethod
    def name(self) -> str: ...

    @property
    @abstractmethod
    def description(self) -> str: ...

    @abstractmethod
    async def run(self, query: str) -> str: ...


class WebSearchTool(BaseTool):
    @property
    def name(self) -> str:
        return "web_search"

    @property
    def description(self) -> str:
        return "Searches the web."

    async def run(self, query: str) -> str:
        return f"No results found for {query}."  # error: DG103:16 `WebSearchTool.run` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid a class named Tool that says nothing of itself to a model is no tool base
class Tool:
    def run(self, job):
        return job.start()


class Hammer(Tool):
    def run(self, job):
        return {"hit": job}

# case: invalid a function defined in the method and called there is followed, its self is the method's
from crewai.tools import BaseTool


class Alert(BaseTool):
    name: str = "alert"
    description: str = "Raise an alert."

    def _run(self, reason: str) -> str:
        @traced(name="alert")
        def inner():
            return self._send(reason)

        try:
            return inner()  # error: DG103:20 `Alert._run` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        except Exception:
            return self._send(reason)  # error: DG103:20 `Alert._run` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    def _send(self, reason: str) -> str:
        return f"ALERT_SENT: {reason}"

# case: valid a local function's name bound again says nothing, and one returning JSON is JSON
import json

from crewai.tools import BaseTool


class Report(BaseTool):
    name: str = "report"
    description: str = "Report."

    def _run(self, topic: str) -> str:
        def inner():
            return f"Report on {topic}"

        inner = pick(inner)
        return inner()


class Dumped(BaseTool):
    name: str = "dumped"
    description: str = "Dumped."

    def _run(self, topic: str) -> str:
        def inner():
            return json.dumps({"topic": topic})

        return inner()

# case: invalid a tool class of the module held by another tool answers what its own run returns
from crewai.tools import BaseTool


class Webhook(BaseTool):
    name: str = "webhook"
    description: str = "Call the webhook."

    def _run(self, event: str, data: dict) -> str:
        return f"✅ {event} sent"  # error: DG103:16 `Webhook._run` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


class Publisher(BaseTool):
    name: str = "publisher"
    description: str = "Publish."

    def __init__(self, url: str):
        super().__init__()
        self._webhook = Webhook(url)

    def _run(self, post: str) -> str:
        return self._webhook._run("publish", {"post": post})  # error: DG103:16 `Publisher._run` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


def answer(event: str) -> str:
    hook = Webhook("https://example.org")
    return hook._run(event, {})

# case: valid a held tool class of the module (a declared field) that answers JSON, and a held instance rebound
import json

from crewai.tools import BaseTool


class Webhook(BaseTool):
    name: str = "webhook"
    description: str = "Call the webhook."

    def _run(self, event: str) -> str:
        return json.dumps({"event": event})


class Other(BaseTool):
    name: str = "other"
    description: str = "Other."

    def _run(self, event: str) -> str:
        return self.fetch(event)


class Announcer(BaseTool):
    name: str = "announcer"
    description: str = "Announce."
    webhook: Webhook

    def _run(self, post: str) -> str:
        return self.webhook._run(post)


class Either(BaseTool):
    name: str = "either"
    description: str = "Either."

    def _run(self, post: str, plain: bool) -> str:
        hook = Webhook()
        if plain:
            hook = Other()
        return hook._run(post)

# case: invalid a sync run method runs its async twin to completion: it returns what the twin returns
import asyncio

from langchain_core.tools import BaseTool


class Retriever(BaseTool):
    name: str = "retriever"
    description: str = "Finds passages."

    async def _arun(self, query: str) -> str:
        passages = [query]
        return "\n".join(passages)  # error: DG103:16 `Retriever._arun` returns text joined with '\n', not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    def _run(self, query: str) -> str:
        return asyncio.run(self._arun(query))  # error: DG103:16 `Retriever._run` returns text joined with '\n', not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


class Looped(BaseTool):
    name: str = "looped"
    description: str = "Counts."

    async def _arun(self, query: str) -> str:
        return {"query": query}  # error: DG103:16 `Looped._arun` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    def _run(self, query: str) -> str:
        loop = asyncio.new_event_loop()
        return loop.run_until_complete(self._arun(query))  # error: DG103:16 `Looped._run` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid a sync run method runs an async twin that returns JSON text
import asyncio
import json

from langchain_core.tools import BaseTool


class Retriever(BaseTool):
    name: str = "retriever"
    description: str = "Finds passages."

    async def _arun(self, query: str) -> str:
        return json.dumps({"passages": [query]})

    def _run(self, query: str) -> str:
        return asyncio.run(self._arun(query))

# case: invalid a tool class returns its chat model's reply (a field, a class variable, or built in `__init__`)
import asyncio
from typing import ClassVar

from crewai import Agent, Crew, Task
from langchain_community.chat_models import ChatPerplexity
from langchain_core.tools import BaseTool
from langchain_openai import ChatOpenAI
from pydantic import Field


class SearchNewsTool(BaseTool):
    name: str = "search_news"
    description: str = "Finds news about a company."
    llm: ChatOpenAI = Field(default_factory=lambda: ChatOpenAI(model="gpt-4o"))

    async def _arun(self, query: str) -> str:
        response = await self.llm.ainvoke(f"News about {query}")
        return response.content  # error: DG103:16 `SearchNewsTool._arun` returns the chat model's reply (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    def _run(self, query: str) -> str:
        return asyncio.run(self._arun(query))  # error: DG103:16 `SearchNewsTool._run` returns the chat model's reply (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


class StrategyTool(BaseTool):
    name: str = "strategy"
    description: str = "Suggests a strategy."

    def __init__(self) -> None:
        super().__init__()
        self.model = ChatPerplexity(model="sonar")

    def _run(self, query: str) -> str:
        return self.model.invoke(query).content.strip()  # error: DG103:16 `StrategyTool._run` returns the chat model's reply (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


class SonarSearchTool(BaseTool):
    name: str = "sonar_search"
    description: str = "Searches the web through a model."
    llm: ClassVar[ChatOpenAI] = ChatOpenAI(base_url="https://openrouter.ai/api/v1", model="perplexity/sonar")

    async def _arun(self, query: str) -> str:
        response = await self.llm.ainvoke(query)
        return response.content  # error: DG103:16 `SonarSearchTool._arun` returns the chat model's reply (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid a tool class whose model is asked for JSON, or whose model is of a class no table knows
from langchain_core.tools import BaseTool
from langchain_openai import ChatOpenAI
from my_models import LocalModel


class ExtractTool(BaseTool):
    name: str = "extract"
    description: str = "Extracts fields."

    def __init__(self) -> None:
        super().__init__()
        self.model = ChatOpenAI(model="gpt-4o", model_kwargs={"response_format": {"type": "json_object"}})
        self.local = LocalModel()

    def _run(self, query: str) -> str:
        if query:
            return self.model.invoke(query).content
        return self.local.invoke(query).content

# case: invalid a tool class runs its own chain ending in a string parser, or an agent executor's run
from crewai.tools import BaseTool
from langchain.agents import initialize_agent
from langchain_core.output_parsers import StrOutputParser
from langchain_openai import ChatOpenAI


class DocumentQATool(BaseTool):
    name: str = "document_qa"
    description: str = "Answers questions about the documents."

    def __init__(self, prompt) -> None:
        super().__init__()
        self.chain = prompt | ChatOpenAI(model="gpt-4o") | StrOutputParser()
        self.agent = initialize_agent([], ChatOpenAI(model="gpt-4o"))

    def _run(self, question: str) -> str:
        if question.endswith("?"):
            return self.chain.invoke({"question": question})  # error: DG103:20 `DocumentQATool._run` returns the text of a chain ending in `StrOutputParser` (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
        return self.agent.run(question)  # error: DG103:16 `DocumentQATool._run` returns the agent's final answer (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
