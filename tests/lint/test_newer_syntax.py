"""PEP 695 syntax (Python 3.12) is checked under an older interpreter, with the same lines and
columns; a file that is not valid under any grammar keeps its DG001."""

from __future__ import annotations

import sys

import pytest

from dispatchguard.lint.newer_syntax import parse_newer_syntax
from dispatchguard.lint.source import check_source

from ..conftest import about

SOURCE = (
    "from crewai.tools import BaseTool\n"
    "type Tools = list[BaseTool]\n"
    "type Pair[T] = tuple[T, T]\n"
    "class Search[T](BaseTool):\n"
    "    def _run[U](self, q: U) -> str:\n"
    "        return {'q': q}\n"
    "def first[T](items: list[T]) -> T:\n"
    "    return items[0]\n"
    "x = Search(); x.run(1); type Z = int\n"
)


def test_pep695_file_is_checked_with_its_findings_in_place() -> None:
    found = [(f.line, f.col, f.code) for f in about(check_source(SOURCE, path="app.py"))]
    assert found == [(6, 16, "DG103"), (9, 15, "DG101")]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the interpreter parses PEP 695 itself")
def test_rewrite_keeps_every_line_and_column() -> None:
    tree = parse_newer_syntax(SOURCE.encode())
    assert tree is not None
    classes = [n for n in tree.body if n.__class__.__name__ == "ClassDef"]
    assert (classes[0].lineno, classes[0].name) == (4, "Search")
    assigns = [n for n in tree.body if n.__class__.__name__ == "Assign"]
    assert [(a.lineno, a.value.col_offset) for a in assigns[:2]] == [(2, 13), (3, 15)]


@pytest.mark.parametrize(
    "source",
    ["def f(:\n    pass\n", "type = 1\ntype X\n", "x = [1, 2\n", "class C[T:\n    pass\n"],
)
def test_broken_files_stay_dg001(source: str) -> None:
    assert [f.code for f in about(check_source("from crewai.tools import BaseTool\n" + source))] == ["DG001"]


def test_type_as_a_name_is_untouched() -> None:
    assert [f.code for f in about(check_source("type = 1\nprint(type)\n"))] == []


PEP_701 = 'from crewai.tools import BaseTool\nrow = {"a": 1}\ntext = f"{row["a"]}"\n'


def test_a_pep_701_f_string_is_read_whatever_the_interpreter() -> None:
    assert [f.code for f in about(check_source(PEP_701))] == []


PEP_701_TOOL = (
    "from crewai.tools import BaseTool\n"
    "class Search(BaseTool):\n"
    "    name: str = 'search'\n"
    "    def _run(self, q: str) -> str:\n"
    '        return {"q": f"{ {"k": q}["k"] } \u2013 ünïcode {q!r:>{len("ab")}}"}\n'
    'print(f"{Search().run(f"{"x"}")}")  # nested, quotes reused\n'
    'note = f"""\n{ Search().run("y") }\n"""\n'
)


def test_findings_inside_and_after_pep_701_f_strings_are_where_3_12_puts_them() -> None:
    found = [(f.line, f.col, f.code) for f in about(check_source(PEP_701_TOOL, path="app.py"))]
    assert found == [(5, 16, "DG103"), (6, 10, "DG101"), (8, 3, "DG101")]


@pytest.mark.parametrize(
    "source",
    ['f"{}"\n', 'f"{x!z}"\n', 'f"{x"\n', 'f"}"\n', 'f"{x:{y}"\n', 'b"a" f"{x}"\n', 'f"{a["b"]}\n'],
)
def test_f_strings_invalid_under_3_12_too_stay_dg001(source: str) -> None:
    assert [f.code for f in about(check_source("from crewai.tools import BaseTool\n" + source))] == ["DG001"]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the interpreter parses PEP 701 f-strings itself")
def test_a_file_that_fails_for_another_reason_keeps_its_dg001_message() -> None:
    [finding] = about(check_source('from crewai.tools import BaseTool\nx = f"{row["a"]}"\ndef f(:\n'))
    assert (finding.code, finding.line) == ("DG001", 2)
    assert "Python 3.12 syntax, PEP 701" in finding.message and "run it on 3.12 or newer" in finding.message
