"""The word gate: a file's walk is skipped only when no identifier of it is a tool-related word.

The gate searches the bytes for anchors (the words that contain no other word) and checks the
identifier around each hit; it must agree with tokenising the file (``IDENTIFIER.findall``)."""

from __future__ import annotations

import random

import pytest

from dispatchguard.lint import LintConfig
from dispatchguard.lint.index import HOME_GROWN_BASE_NAMES, IDENTIFIER
from dispatchguard.lint.project import WordSet, may_have_findings, seed_words


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
    words = WordSet({"Tool", "BaseTool", "tool", "my-tool", "caf\u00e9"})
    assert words.anchors is not None
    assert may_have_findings(data, words) is expected
    assert (not words.encoded.isdisjoint(IDENTIFIER.findall(data))) is expected


def test_gate_with_many_words_tokenises() -> None:
    words = {f"Word{i}x" for i in range(100)}  # no word contains another: too many anchors
    word_set = WordSet(words)
    assert word_set.anchors is None
    assert word_set.named_in(b"a = Word7x + 1")
    assert not word_set.named_in(b"a = Word7 + Word7xy")


def test_gate_random_agreement() -> None:
    rnd = random.Random(7)
    pool = ["ab", "a", "_1", "T", "b_", "ab1", "x", "Ta", "a_b", "_", "b9a"]
    alphabet = b"ab_1 9.T\n\xc3x"
    for _ in range(300):
        words = WordSet(set(rnd.sample(pool, rnd.randint(1, 6))))
        for _ in range(30):
            data = bytes(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14)))
            expected = not words.encoded.isdisjoint(IDENTIFIER.findall(data))
            assert words.named_in(data) is expected, (data, sorted(words.words))


def test_private_run_calls_pass_the_gate_without_words() -> None:
    assert may_have_findings(b"x._run(1)", WordSet(()))
    assert may_have_findings(b"await x._arun(1)", WordSet(()))
    assert not may_have_findings(b"def _running(): pass", WordSet(()))


def test_seed_words_come_from_the_configuration() -> None:
    config = LintConfig(tool_bases=("my.pkg.Base", "own.Base2"), tool_decorators=("deco",), tool_packages=("pk.tools",))
    seeds = seed_words(config, project_modules={"own"})
    # outside the project: all parts must be named; bare or inside the project: the last part;
    # and the names a project gives its own tool base
    assert seeds.words == {"deco", "Base2"} | HOME_GROWN_BASE_NAMES
    assert seeds.joint == {("Base", "my", "pkg"), ("pk", "tools")}
    assert seeds.named_in(b"from my.pkg import Base")
    assert not seeds.named_in(b"Base = 1\npkg = 2")
    assert seeds.named_in(b"from .own import Base2")
