"""PEP 701 f-strings read under this interpreter give the tree a real Python 3.12+ gives: the same
nodes, and the same lines and columns for every expression (Hypothesis writes the f-strings; a 3.12
interpreter on this machine is the oracle, in one long-lived subprocess)."""

from __future__ import annotations

import ast
import glob
import json
import os
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dispatchguard.lint.fstrings import parse_source

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(sys.version_info >= (3, 12), reason="this interpreter reads PEP 701 itself"),
]

# The oracle's side: one source per line (JSON) in, its normalised dump (or the error) out.
ORACLE = r"""
import ast, json, sys
def norm(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            node.values = [v for v in node.values if not (isinstance(v, ast.Constant) and v.value == "")]
            for v in node.values:
                if isinstance(v, ast.Constant):
                    for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                        try:
                            delattr(v, a)
                        except AttributeError:
                            pass
    return ast.dump(tree, include_attributes=True).replace(", type_params=[]", "")  # PEP 695's field
for line in sys.stdin:
    try:
        out = norm(ast.parse(json.loads(line)))
    except SyntaxError as exc:
        out = "SyntaxError"
    print(json.dumps(out), flush=True)
"""


def newer_python() -> str | None:
    """A Python 3.12+ that runs on this machine: one pyenv installed, or on PATH (pyenv's shims on
    PATH may name a version that is not selected, hence the check)."""
    pyenv = os.path.expanduser("~/.pyenv/versions")
    candidates = sorted(glob.glob(f"{pyenv}/3.1[2-9]*/bin/python3"))
    candidates += [p for p in map(shutil.which, ("python3.13", "python3.12")) if p]
    for python in candidates:
        probe = subprocess.run(
            [python, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"], capture_output=True, check=False
        )
        if probe.returncode == 0:
            return python
    return None


@pytest.fixture(scope="module")
def oracle():
    python = newer_python()
    if python is None:
        pytest.skip("no Python 3.12 or newer on this machine to compare with")
    proc = subprocess.Popen(
        [python, "-c", ORACLE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
    )

    def ask(source: str) -> str:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(source) + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    yield ask
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=30)


def ours(source: str) -> str:
    tree = parse_source(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for v in node.values:
                if isinstance(v, ast.Constant):
                    for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                        if a in v.__dict__:
                            delattr(v, a)
    return ast.dump(tree, include_attributes=True)


CASES = [
    'x = f"{row["a"]}"\n',
    'x = f"a{b!r:>{w}} c {d=} {e = !s}"\n',
    "y = \"p\" f\"{z['k']}\" 'q'\n",
    'y = ("p"\n     f"{z["k"]}")\n',
    "s = f'{f'{f'{x}'}'}'\n",
    'q = f"""\n{ a[\n  "k" ] }\n"""\n',
    'w = f"{x:{"<" if y else ">"}10}"\n',
    'v = f"é{ü["k"]}ß" + g("z")  # ünï\n',
    'r = rf"\\d{x}\\{y}"\n',
    'n = f"\\N{EM DASH}{x}\\n{{literal}}"\n',
    'u = f"{x}" f"{ {"a": 1}["a"] }"\n',
    'def f():\n    return f"{ x # a comment\n    }"\n',
    'call(f"{a}", key=f\'{b["c"]!a}\', *[f"{d}"])\n',
]


@pytest.mark.parametrize("source", CASES)
def test_hand_written_f_strings_give_the_tree_of_3_12(oracle, source: str) -> None:
    assert ours(source) == oracle(source)


_names = st.sampled_from(["x", "row", "ünï", "tool.result"])
_keys = st.sampled_from(["a", "k k", "é", "{b}"])


def _expression(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    quote = st.sampled_from(['"', "'"])
    subscript = st.builds(lambda n, q, k: f"{n}[{q}{k}{q}]", _names, quote, _keys)
    call = st.builds(lambda n, q, k: f"len({q}{k}{q}) + {n}", _names, quote, _keys)
    nested = st.builds(lambda q, body: f"f{q}{body}{q}", quote, inner)
    return st.one_of(_names, subscript, call, nested, st.just('{"a": 1}["a"]'))


def _fstring_body(depth: int) -> st.SearchStrategy[str]:
    inner = _fstring_body(depth - 1) if depth else st.just("t")
    field = st.builds(
        lambda e, pad, debug, conv, spec: "{" + pad + e + pad + debug + conv + spec + "}",
        _expression(inner),
        st.sampled_from(["", " "]),
        st.sampled_from(["", "="]),
        st.sampled_from(["", "!r", "!s"]),
        st.sampled_from(["", ":>10", ":{w}", ":.2f"]),
    )
    text = st.sampled_from(["", "a", " \u2013 ", "{{", "}}", "\\n", "é"])
    return st.lists(st.one_of(field, text), min_size=1, max_size=4).map("".join)


_sources = st.builds(
    lambda before, prefix, quote, body, after: before[0] + f"{prefix}{quote}{body}{quote}" + before[1] + after + "\n",
    st.sampled_from([("x = ", ""), ("print(", ")"), ("x = 'a' ", ""), ("x = (\n    ", "\n)")]),
    st.sampled_from(["f", "F", "rf", "fR"]),
    st.sampled_from(['"', "'", '"""']),
    _fstring_body(2),
    st.sampled_from(["", " + y", "  # note"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sources)
def test_generated_f_strings_give_the_tree_of_3_12(oracle, source: str) -> None:
    expected = oracle(source)
    if expected == "SyntaxError":
        with pytest.raises((SyntaxError, ValueError)):
            parse_source(source)
    else:
        assert ours(source) == expected
