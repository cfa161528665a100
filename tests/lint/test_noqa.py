"""One ``# noqa`` grammar: the parser, and the CLI and real flake8 agreeing on the same files."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.lint import check_paths, load_config
from dispatchguard.lint.noqa import file_suppresses, file_suppression, line_suppresses, parse_line

from ..conftest import about


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("x()  # noqa", None),
        ("x()  #noqa", None),
        ("x()  # NOQA", None),
        ("x()  # NoQa", None),
        ("x()  # noqa:", None),  # flake8 reads a colon with no code as every code
        ("x()  #noqa:DG101", ("DG101",)),
        ("x()  # noqa:DG101", ("DG101",)),
        ("x()  # noqa: DG101", ("DG101",)),
        ("x()  # noqa : DG101", ("DG101",)),
        ("x()  # noqa: DG101,DG102", ("DG101", "DG102")),
        ("x()  # noqa: DG101, DG102", ("DG101", "DG102")),
        ("x()  # noqa: DG101 DG102", ("DG101", "DG102")),
        ("x()  # noqa: dg101", ("DG101",)),
        ("x()  # noqa: DG101 -- the dispatcher is bypassed on purpose", ("DG101",)),
        ("x()  # type: ignore  # noqa: DG1", ("DG1",)),
    ],
)
def test_line_grammar(line: str, codes: tuple[str, ...] | None) -> None:
    directive = parse_line(line)
    assert directive is not None and directive.codes == codes
    assert line[directive.start :].lower().startswith(("#noqa", "# noqa"))


@pytest.mark.parametrize("line", ["x()", "x()  # noqa-ish", "x()  # noqanope", "x()  # no qa", "x()  # a note on noqa"])
def test_not_a_directive(line: str) -> None:
    assert parse_line(line) is None
    assert not line_suppresses(line, "DG101")


def test_codes_are_prefixes() -> None:
    assert line_suppresses("x()  # noqa: DG1", "DG103")
    assert not line_suppresses("x()  # noqa: DG102", "DG101")
    assert line_suppresses("x()  # noqa", "DG101")


@pytest.mark.parametrize(
    ("header", "suppressed"),
    [
        ("# dispatchguard: noqa", {"DG101", "DG102"}),
        ("# ruff: noqa", {"DG101", "DG102"}),
        ("# flake8: noqa", {"DG101", "DG102"}),
        ("#flake8=noqa", {"DG101", "DG102"}),
        ("# RUFF: NOQA", {"DG101", "DG102"}),
        ("# ruff: noqa: DG101", {"DG101"}),
        ("# dispatchguard: noqa:DG102", {"DG102"}),
        ("# flake8: noqa: DG101, DG102", {"DG101", "DG102"}),
        ("x = 1  # ruff: noqa", set()),  # file-level directives stand on a line of their own
        ("# mypy: noqa", set()),
        ("# ruff: noqa-ish", set()),
    ],
)
def test_file_level_headers(header: str, suppressed: set[str]) -> None:
    directives = file_suppression(f'"""doc"""\n{header}\nimport x\n'.encode())
    assert {c for c in ("DG101", "DG102") if file_suppresses(directives, c)} == suppressed


FILES = {
    "pyproject.toml": "[tool.dispatchguard]\n",
    "app/__init__.py": "",
    "app/tools.py": "from crewai.tools import BaseTool\n\n\nclass Search(BaseTool):\n    name: str = 'search'\n",
    "app/spaced.py": "from app.tools import Search\n\nSearch().run('a')  # noqa: DG101,DG102\n",
    "app/tight.py": "from app.tools import Search\n\nSearch().run('a')  #noqa:DG101\n",
    "app/colon_space.py": "from app.tools import Search\n\nSearch().run('a')  # noqa : DG101 DG102\n",
    "app/ruff_header.py": "# ruff: noqa: DG102\nfrom app.tools import Search\n\nSearch().run('a')\n",
    "app/dg_header.py": "# dispatchguard: noqa\nfrom app.tools import Search\n\nSearch().run('a')\n",
    "app/plain.py": "from app.tools import Search\n\nSearch().run('a')\n",
}
_FINDING = re.compile(r"^\.?/?(?P<path>[^:]+):(?P<line>\d+):\d+: (?P<code>DG\d+) ")


@pytest.mark.integration
@pytest.mark.slow
def test_cli_and_flake8_read_the_same_directives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = check_paths(["."], load_config(["."]), use_cache=False)
    core = {(f.path, f.line, f.code) for f in about(report.findings) if not f.suppressed}
    assert core == {
        ("app/plain.py", 3, "DG101"),
        ("app/plain.py", 3, "DG102"),
        ("app/tight.py", 3, "DG102"),
        ("app/ruff_header.py", 4, "DG101"),
    }
    out = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "DG", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    lines = about(out.stdout.splitlines())
    flake8 = {(m["path"], int(m["line"]), m["code"]) for m in map(_FINDING.match, lines) if m}
    assert flake8 == core, out.stdout
