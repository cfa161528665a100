"""The word gate: a file's walk is skipped only when no identifier of it is a tool-related word.

A file's names are its maximal runs of ASCII word bytes (``names_in``): the identifiers of its code
(which never start with a digit), and in strings and comments runs such as ``12Tool``, which name
nothing."""

from __future__ import annotations

import random
import re

import pytest

from dispatchguard.lint import LintConfig
from dispatchguard.lint.index import HOME_GROWN_BASE_NAMES, names_in
from dispatchguard.lint.library import tool_list_sources
from dispatchguard.lint.project import WordSet, may_have_findings, seed_words


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"x = Tool()", True),
        (b"x = Tools()", False),
        (b"x = MyTool()", False),
        (b"x = '12Tool'", False),  # a run of word bytes, not the name Tool
        (b"x = a1Tool", False),
        (b"Tool", True),
        (b"BaseTool", True),
        (b"_Tool_", False),
        (b"caf\xc3\xa9Tool", True),  # non-ASCII bytes are not name bytes
        (b"Tool9 + xTool", False),
        (b"Tool9 + xTool + tool", True),
        (b"", False),
    ],
)
def test_gate_matches_tokenising(data: bytes, expected: bool) -> None:
    words = WordSet({"Tool", "BaseTool", "tool", "my-tool", "caf\u00e9"})
    assert may_have_findings(data, words) is expected


def test_gate_with_many_words() -> None:
    word_set = WordSet({f"Word{i}x" for i in range(100)})
    assert word_set.named_in(b"a = Word7x + 1")
    assert not word_set.named_in(b"a = Word7 + Word7xy")


# the definition, as a regular expression: a maximal run of ASCII word bytes
_RUNS = re.compile(rb"[A-Za-z0-9_]+")


def test_names_are_maximal_runs_of_word_bytes() -> None:
    names = names_in(b"from a.b import C as d9  # 12x caf\xc3\xa9 _")
    assert set(names) == {b"from", b"a", b"b", b"import", b"C", b"as", b"d9", b"12x", b"caf", b"_"}


def test_gate_random_agreement() -> None:
    rnd = random.Random(7)
    pool = ["ab", "a", "_1", "T", "b_", "ab1", "x", "Ta", "a_b", "_", "b9a"]
    alphabet = b"ab_1 9.T\n\xc3x"
    for _ in range(300):
        words = WordSet(set(rnd.sample(pool, rnd.randint(1, 6))))
        for _ in range(30):
            data = bytes(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14)))
            expected = not words.encoded.isdisjoint(_RUNS.findall(data))
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
    library = {tuple(sorted(pair)) for pair in tool_list_sources()}
    assert seeds.joint == {("Base", "my", "pkg"), ("pk", "tools")} | library
    assert {("langchain", "load_tools"), ("langchain_community", "SQLDatabaseToolkit")} <= tool_list_sources()
    assert seeds.named_in(b"from langchain_community.agent_toolkits import SQLDatabaseToolkit")
    assert not seeds.named_in(b"from .toolkit import SQLDatabaseToolkit")
    assert seeds.named_in(b"from my.pkg import Base")
    assert not seeds.named_in(b"Base = 1\npkg = 2")
    assert seeds.named_in(b"from .own import Base2")
