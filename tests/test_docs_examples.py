"""The Python blocks of the README and of docs/ run as tests, in order, one namespace per page.

A statement followed by a comment that is a string literal (on its line or alone on the next)
states its result: ``dispatch_tool(...)   # '3'``; ``...`` inside the literal stands for anything.
A block preceded by ``<!-- docs-test: skip (reason) -->`` is not run (the network, a model server,
a fragment of a larger program): the reason is part of the page.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The rule pages' blocks are checked code, not run: tests/lint/test_docs.py checks them.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(?P<marker><!-- docs-test: skip \((?P<reason>[^)]+)\) -->\n)?```python\n(?P<code>.*?)\n```", re.S)


def blocks(page: Path) -> list[tuple[int, str, str | None]]:
    text = page.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start("code")) + 1, m["code"], m["reason"]) for m in BLOCK.finditer(text)
    ]


def stated_results(code: str) -> dict[int, str]:
    """Line of a statement's last line -> the result its comment states."""
    comments: dict[int, tuple[str, bool]] = {}  # line -> (comment text, alone on its line)
    lines = code.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            row = token.start[0]
            comments[row] = (token.string[1:].strip(), not lines[row - 1][: token.start[1]].strip())
    stated = {}
    for row, (text, alone) in comments.items():
        if text[:1] not in ("'", '"'):
            continue
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, str):
            stated[row - 1 if alone else row] = value
    return stated


def matches(result: object, stated: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in stated.split("..."))
    return isinstance(result, str) and re.fullmatch(pattern, result, re.S) is not None


def run_block(code: str, namespace: dict, where: str) -> int:
    """Run one block; returns how many stated results it checked."""
    stated = stated_results(code)
    checked = 0
    for statement in ast.parse(code).body:
        expected = stated.get(statement.end_lineno)
        if isinstance(statement, ast.Expr) and expected is not None:
            result = eval(compile(ast.Expression(statement.value), where, "eval"), namespace)
            assert matches(result, expected), f"{where}:{statement.lineno}: got {result!r}, the page says {expected!r}"
            checked += 1
        else:
            exec(compile(ast.Module([statement], []), where, "exec"), namespace)
    return checked


PAGE_PARAMS = [pytest.param(page, id=page.relative_to(ROOT).as_posix()) for page in PAGES if blocks(page)]


def run_page(page: Path) -> int:
    """Run a page's blocks in order in one namespace; returns how many ran."""
    namespace: dict = {"__name__": "docs_example"}
    ran = 0
    for line, code, reason in blocks(page):
        if reason is None:
            run_block(code, namespace, f"{page.relative_to(ROOT)}:{line}")
            ran += 1
    return ran


@pytest.mark.integration
@pytest.mark.parametrize("page", PAGE_PARAMS)
def test_page_examples_run(page: Path, tmp_path: Path) -> None:
    """In a fresh interpreter, as a reader runs them (a page may register tools globally), in an
    empty folder (an example may write files)."""
    done = subprocess.run(
        [sys.executable, __file__, str(page)], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    ran = int(done.stdout.split()[-1])
    assert ran or all(reason for _, _, reason in blocks(page))


def test_readme_results_are_checked() -> None:
    """The README's runtime example states its results; they must be compared, not just run."""
    (line, code, reason), *_ = blocks(ROOT / "README.md")
    assert reason is None
    assert run_block(code, {"__name__": "docs_example"}, f"README.md:{line}") == 2


def test_a_wrong_stated_result_fails() -> None:
    with pytest.raises(AssertionError, match="the page says"):
        run_block("'a' + 'b'   # 'ab!'\n", {}, "inline")


if __name__ == "__main__":
    print("blocks run:", run_page(Path(sys.argv[1]).resolve()))
