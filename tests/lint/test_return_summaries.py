"""What a module's functions return, recorded in its summary, and DG103/DG104 following imported
helpers with it (issue 11): verdicts, messages naming the helper, strict mode, the cache."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from dispatchguard.lint import LintConfig, check_paths
from dispatchguard.lint.index import summarise
from dispatchguard.lint.source import check_source

from ..conftest import about
from .conftest import FIXTURES


def _returns(source: str) -> dict[str, str]:
    return summarise(ast.parse(textwrap.dedent(source))).get("returns", {})


def test_summary_records_known_verdicts_only() -> None:
    returns = _returns("""
        import json
        from json import dumps as d
        import orjson

        SEP = ", "
        TEMPLATE = "Error: {}"

        def dumped(x):
            return json.dumps(x)

        def aliased(x):
            return d(x)

        def raises(x):
            raise ValueError(x)

        def joined(x):
            return SEP.join(x)

        def formatted(x):
            return TEMPLATE.format(x)

        def glued(x):
            if x:
                return "Error: " + x
            return f"Found {x}"

        def chained(x):
            if not x:
                raises(x)
            return dumped(x)

        def via_local(x):
            out = json.dumps(x)
            return out

        def decoded(x):
            return orjson.dumps(x).decode()

        def constant():
            return '{"ok": true}'

        def mixed(x):
            if x:
                return json.dumps(x)
            return "Error"

        def unknown(x):
            return x.render()

        def falls_off(x):
            if x:
                return json.dumps(x)
    """)
    assert returns == {
        "dumped": "json",
        "aliased": "json",
        "raises": "never",
        "joined": "text joined with ', '",
        "formatted": "text formatted with `.format`",
        "glued": "text glued to other values",
        "chained": "json",
        "via_local": "json",
        "decoded": "json",
        "constant": "json",
    }


@pytest.mark.parametrize(
    "source",
    [
        "def f(x):\n    yield x\n    return 'Error'\n",  # a generator
        "def f(x):\n    if (y := x):\n        return 'Error'\n    return 'Error: ' + y\n",  # a := binding
        "@wrap\ndef f(x):\n    return 'Error'\n",  # a decorator may replace the function
        "def f(x):\n    return 'Error'\n\nf = other\n",  # bound twice
        "try:\n    from fast import f\nexcept ImportError:\n    def f(x):\n        return 'Error'\n",
        "def f(json):\n    return json.dumps(1)\n",  # json is the parameter, not the module
        "import json\ndef f(x):\n    out = x\n    out = out + '!'\n    return out\n",  # refers to itself
    ],
)
def test_summary_leaves_out_what_it_cannot_know(source: str) -> None:
    assert "f" not in _returns(source)


def test_summary_keeps_return_preserving_decorators() -> None:
    source = "import functools, json\n\n@functools.lru_cache\ndef f(x):\n    return json.dumps(x)\n"
    assert _returns(source) == {"f": "json"}


def test_options_only_calls_are_marked_in_the_summary() -> None:
    tree = ast.parse(
        "from crewai.tools import tool\n"
        "named = tool('Search')\n"
        "options = tool(parse_docstring=True)\n"
        "made = tool(fn)\n"
        "both = tool('Search', fn)\n"
    )
    defs = summarise(tree)["defs"]
    assert defs["named"] == [["call", "tool", "options"]]
    assert defs["options"] == [["call", "tool", "options"]]
    # positional arguments that are names are kept (a class factory's argument)
    assert defs["made"] == [["call", "tool", "args", ["fn"]]]
    assert defs["both"] == [["call", "tool", "args", [None, "fn"]]]


def test_messages_name_the_imported_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    root = FIXTURES / "returns"
    monkeypatch.chdir(root)
    report = check_paths(["."], LintConfig(root=root), jobs=1, use_cache=False)
    messages = {(f.path, f.line): f.message for f in about(report.findings)}
    assert "returns text joined with '\\n' (from `format_result`)" in messages[("app/tools.py", 19)]
    assert "returns an f-string (from `error_text`)" in messages[("app/tools.py", 27)]
    assert messages[("app/tools.py", 40)].startswith(
        "tool function `lines` returns text joined with ', ' (from `as_lines`)"
    )


HELPER_TEXT = "def render(rows):\n    return '\\n'.join(rows)\n"
HELPER_JSON = "import json\n\n\ndef render(rows):\n    return json.dumps(rows)\n"
TOOL = (
    "from crewai.tools import BaseTool\n"
    "from proj.helpers import render\n\n\n"
    "class Listing(BaseTool):\n"
    "    def _run(self, q):\n"
    "        return render(q)\n"
)


@pytest.mark.parametrize("jobs", [1, 2])
def test_editing_the_helper_module_revalidates_cached_results(tmp_path: Path, jobs: int) -> None:
    pkg = tmp_path / "proj"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(HELPER_TEXT)
    (pkg / "tools.py").write_text(TOOL)
    config = LintConfig(root=tmp_path)

    def codes() -> list[tuple[str, int, str]]:
        report = check_paths([tmp_path], config, jobs=jobs)
        return [(Path(f.path).name, f.line, f.code) for f in about(report.findings)]

    assert codes() == [("tools.py", 7, "DG103")]
    (pkg / "helpers.py").write_text(HELPER_JSON)  # tools.py is unchanged: its cached result must go
    assert codes() == []
    warm = check_paths([tmp_path], config, jobs=jobs)
    assert (about(warm.findings), warm.files_parsed, warm.files_walked) == ([], 0, 0)
    (pkg / "helpers.py").write_text(HELPER_TEXT + "\n")
    assert codes() == [("tools.py", 7, "DG103")]


def test_strict_mode_accepts_an_imported_json_wrapper() -> None:
    extra = {"pkg/__init__.py": "from .wrap import dump\n", "pkg/wrap.py": HELPER_JSON.replace("render", "dump")}
    source = (
        "from crewai.tools import BaseTool\nfrom pkg import dump, other\n\n"
        "class T(BaseTool):\n    def _run(self, q):\n        if q:\n            return dump(q)\n"
        "        return other(q)\n"
    )
    findings = about(check_source(source, LintConfig(strict=True), path="pkg/tools.py", extra=extra))
    assert [(f.code, f.line) for f in findings] == [("DG103", 8)]  # other(): unknown, dump(): JSON


def test_declared_return_types_reach_the_summary_and_other_modules() -> None:
    """A helper whose returns are unknown is what its annotation declares (issue 20)."""
    helpers = "from typing import Any\n\ndef rows(q) -> list[dict]:\n    return db.query(q)\n\n"
    helpers += "def text(q) -> str:\n    return db.query(q)\n\ndef anything(q) -> Any:\n    return db.query(q)\n"
    assert _returns(helpers) == {"rows": "a list (declared `-> list[dict]`)"}
    tool = (
        "from crewai.tools import BaseTool\nfrom pkg.helpers import anything, rows, text\n\n"
        "class Search(BaseTool):\n    def _run(self, q):\n        if q:\n            return rows(q)\n"
        "        if q is None:\n            return text(q)\n        return anything(q)\n"
    )
    findings = about(check_source(tool, path="pkg/tools.py", extra={"pkg/helpers.py": helpers}))
    assert [(f.line, f.code) for f in findings] == [(7, "DG103")]
    assert "a list (declared `-> list[dict]`) (from `rows`)" in findings[0].message
