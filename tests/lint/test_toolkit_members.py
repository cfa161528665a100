"""A toolkit's tool members, known to a run that checks a few files as to a run of the whole
project (issue 38, item 1; docs/rules/DG101.md).

A focused run (no word rounds) finds the files that may bind a member name by a scan of their
bytes (``member_names_in``): it must never miss a member the summary reads, or a focused run would
answer differently from ``check .``. The editor path keeps one project for a session: a buffer that
replaces a module's summary must leave the definitions counted once.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from dispatchguard.lint.index import summarise
from dispatchguard.lint.member_scan import member_names_in, member_names_of
from dispatchguard.lint.source import check_buffer, forget_editor_state

REPO = Path(__file__).resolve().parents[2]
TOOLKITS = Path(__file__).parent / "fixtures" / "invariance" / "toolkits"


def summary_members(source: bytes) -> set[str]:
    return member_names_of(summarise(ast.parse(source)).get("members", {}))


SHAPES = {
    "one-line body": b"from x import SearchTool\nclass K: search = SearchTool()\n",
    "one-line body, two statements": b"class K: a = 1; lookup = SearchTool()\n",
    "semicolon in the body": b"class K:\n    a = 1; lookup = SearchTool()\n",
    "header over lines, colons in comments and brackets": (
        b"class K(  # a comment: with a colon\n    Base[dict[str, int]],\n    metaclass=M,\n):\n"
        b"    lookup = SearchTool()\n"
    ),
    "header continued by a backslash": b"class K \\\n    (Base):\n    lookup = SearchTool()\n",
    "a decorator over lines": (
        b"class K:\n    @staticmethod\n    @tool(\n        'news',\n    )\n    def get_news(q):\n        return q\n"
    ),
    "async def": b"class K:\n    @tool\n    async def fetch(q):\n        return q\n",
    "tabs": b"class K:\n\t@tool\n\tdef get_news(q):\n\t\treturn q\n\tlookup = SearchTool()\n",
    "crlf": b"class K:\r\n    @staticmethod\r\n    @tool\r\n    def get_news(q):\r\n        return q\r\n",
    "a docstring with a def at column 0": (
        b'class K:\n    """Use it so:\n\ndef example():\n    pass\n"""\n\n    lookup = SearchTool()\n'
        b"    @tool\n    def get_news(q):\n        return q\n"
    ),
    "comments and blank lines before the body": b"class K:\n\n  # a comment\n\n  lookup = SearchTool()\n",
    "a class in an if block": b"if True:\n    class K:\n        lookup = SearchTool()\n",
    "a class after functions": (
        b"def f():\n    local = 1\n    return local\n\n\nclass K:\n    lookup = SearchTool()\n\n\n"
        b"def g():\n    other = 2\n    return other\n"
    ),
}


@pytest.mark.parametrize("source", list(SHAPES.values()), ids=list(SHAPES))
def test_the_byte_scan_finds_every_member_the_summary_reads(source: bytes) -> None:
    expected = summary_members(source)
    assert expected, "each shape binds a member that may be a tool"
    assert expected <= member_names_in(source)


def test_the_byte_scan_leaves_out_the_locals_of_functions_and_methods() -> None:
    """What the scan finds is parsed when a walk asks about the name: the locals of methods and of
    top-level functions (the names a receiver of unknown type is most often asked about) are not
    class members, and no file is parsed for them."""
    source = SHAPES["a class after functions"] + (
        b"\n\nclass Client:\n    def fetch(self):\n        metadata = {}\n        return metadata\n"
    )
    found = member_names_in(source)
    assert "lookup" in found
    assert not {"local", "other", "metadata", "fetch"} & found
    assert member_names_in(b"x = 1\n") == set()


def test_the_byte_scan_finds_the_members_of_every_module_here() -> None:
    """Over the checker's own source and the suite's fixture projects: every member the summary
    reads is found by the scan."""
    files = [*REPO.joinpath("src").rglob("*.py"), *REPO.joinpath("tests", "lint", "fixtures").rglob("*.py")]
    checked = 0
    for path in files:
        data = path.read_bytes()
        try:
            expected = summary_members(data)
        except SyntaxError:
            continue
        assert expected <= member_names_in(data), path
        checked += 1
    assert checked > 100


def analyzer_findings(root: Path) -> list[tuple[int, str]]:
    path = root / "app" / "analyzer.py"
    return [(f.line, f.code) for f in check_buffer(path, path.read_bytes()) if not f.suppressed]


def test_an_editor_buffer_that_replaces_the_toolkit_keeps_its_members_counted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One editor session: the toolkit's module is opened and edited (its summary changes), the
    member is still one definition; once the buffer drops the member, it names no tool."""
    root = tmp_path / "toolkits"
    shutil.copytree(TOOLKITS, root)
    monkeypatch.chdir(root)
    forget_editor_state()
    expected = [(9, "DG101"), (12, "DG101"), (20, "DG101"), (21, "DG101")]
    assert analyzer_findings(root) == expected
    toolkit = root / "app" / "toolkit.py"
    edited = toolkit.read_bytes() + b"\n\ndef helper():\n    return 1\n"
    check_buffer(toolkit, edited)
    assert analyzer_findings(root) == expected
    dropped = edited.replace(b"def get_google_news", b"def get_bing_news")
    check_buffer(toolkit, dropped)
    assert analyzer_findings(root) == [(12, "DG101"), (21, "DG101")]
    forget_editor_state()
