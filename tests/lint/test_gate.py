"""The word gate: a file's walk is skipped only when no identifier of it is a tool-related word.

The gate searches the bytes for anchors (the words that contain no other word) and checks the
identifier around each hit; it must agree with tokenising the file (``_IDENT.findall``)."""

from __future__ import annotations

import random

import pytest

from dispatchguard.lint import LintConfig
from dispatchguard.lint.engine import _relevance_hints
from dispatchguard.lint.project import _IDENT, Project


def _project(words: set[str]) -> Project:
    project = Project(LintConfig())
    project.resolver._words = frozenset(words)  # the project facts the gate is built from
    return project


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"x = Tool()", True),
        (b"x = Tools()", False),
        (b"x = MyTool()", False),
        (b"x = 12Tool", True),  # _IDENT skips leading digits
        (b"x = a1Tool", False),
        (b"Tool", True),
        (b"BaseTool", True),
        (b"_Tool_", False),
        (b"caf\xc3\xa9Tool", True),  # non-ASCII bytes are not identifier bytes for _IDENT
        (b"Tool9 + xTool", False),
        (b"Tool9 + xTool + tool", True),
        (b"", False),
    ],
)
def test_gate_matches_tokenising(data: bytes, expected: bool) -> None:
    project = _project({"Tool", "BaseTool", "tool", "my-tool", "caf\u00e9"})
    assert project.may_have_findings(data) is expected
    assert (not project.word_set.isdisjoint(_IDENT.findall(data))) is expected


def test_gate_with_many_words_tokenises() -> None:
    words = {f"Word{i}x" for i in range(100)}  # no word contains another: too many anchors
    project = _project(words)
    assert project.may_have_findings(b"a = Word7x + 1")
    assert not project.may_have_findings(b"a = Word7 + Word7xy")


def test_gate_random_agreement() -> None:
    rnd = random.Random(7)
    pool = ["ab", "a", "_1", "T", "b_", "ab1", "x", "Ta", "a_b", "_", "b9a"]
    alphabet = b"ab_1 9.T\n\xc3x"
    for _ in range(300):
        project = _project(set(rnd.sample(pool, rnd.randint(1, 6))))
        for _ in range(30):
            data = bytes(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14)))
            expected = not project.word_set.isdisjoint(_IDENT.findall(data))
            assert project.may_have_findings(data) is expected, (data, sorted(project.word_set))


def test_relevance_hints_keep_the_shortest() -> None:
    hints = _relevance_hints(LintConfig())
    assert b"tool" in hints and b"Tool" in hints and b"_run" in hints
    assert not any(h != o and o in h for h in hints for o in hints)
