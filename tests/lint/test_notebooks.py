"""Notebooks (``.ipynb``): code cells checked as one module, positions in cells (ruff's model),
IPython magics and shell escapes never parsed, ``# noqa`` per line, broken notebooks reported."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.lint import LintConfig, check_paths
from dispatchguard.lint.notebook import NotebookError, load_notebook

from ..conftest import SELECT, about, run_cli

TOOL = """\
from crewai.tools import BaseTool


class Weather(BaseTool):
    name: str = "weather"
    description: str = "the weather in a city"

    def _run(self, city: str) -> dict:
        return {"city": city}
"""

PYTHON = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}


def code(text: str, outputs: list | None = None) -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": outputs or [],
        "source": text.splitlines(keepends=True),
    }


def notebook(*cells: dict, metadata: dict | None = None) -> dict:
    metadata = PYTHON if metadata is None else metadata
    return {"cells": list(cells), "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


AGENT = notebook(
    {"cell_type": "markdown", "metadata": {}, "source": ["# Weather agent\n", "Weather().run(city='md')"]},  # 1
    code("%pip install -q crewai\n"),  # 2
    code(TOOL),  # 3: DG103 on line 9
    {"cell_type": "raw", "metadata": {}, "source": ['Weather().run(city="raw")']},  # 4: never checked
    code(  # 5: the class of cell 3 is known here
        '!ls\nfiles = !ls\nWeather?\nresult = Weather().run(city="Paris")\n'
        'quiet = Weather().run(city="Rome")  # noqa: DG101\n'
    ),
    code("%%bash\necho \"Weather().run(city='x')\"\n"),  # 6: not Python
    code('%%time\nlater = Weather().run(city="Oslo")'),  # 7: a transparent cell magic, no final newline
    code('for city in ["A", "B"]:\n    %time Weather().run(city=city)\n    print(city)\n'),  # 8
    code('doc = """\n!not a shell escape\n"""\nagain = Weather().run(city=doc)\n'),  # 9: parses as it is
)


def write(path: Path, document: dict, indent: int = 1) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.dispatchguard]\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def found(report) -> list[tuple]:
    return [(f.path, f.cell, f.line, f.col, f.code, f.suppressed) for f in about(report.findings)]


def test_code_cells_are_one_module_with_cell_positions(root: Path) -> None:
    write(root / "agent.ipynb", AGENT)
    report = check_paths(["."], LintConfig(root=root), use_cache=False)
    assert found(report) == [
        ("agent.ipynb", 3, 9, 16, "DG103", False),
        ("agent.ipynb", 5, 4, 10, "DG101", False),
        ("agent.ipynb", 5, 5, 9, "DG101", True),  # silenced by the directive on its line
        ("agent.ipynb", 7, 2, 9, "DG101", False),  # after %%time
        ("agent.ipynb", 9, 4, 9, "DG101", False),
    ]
    assert report.files_checked == 1 and report.notebooks == []
    dg101 = about(report.findings)[1]
    assert (dg101.end_line, dg101.end_col) == (4, 37)


def test_magics_are_blanked_in_place_never_parsed() -> None:
    nb = load_notebook(json.dumps(AGENT))
    lines = nb.source.splitlines()
    assert len(lines) == nb.line_count  # one virtual line per line of the code cells
    assert [c.number for c in nb.cells] == [2, 3, 5, 6, 7, 8, 9]
    cell5 = lines[nb.virtual_line(5, 1) - 1 : nb.virtual_line(5, 5)]
    assert cell5 == ["", "", "", 'result = Weather().run(city="Paris")', cell5[4]]
    cell8 = lines[nb.virtual_line(8, 1) - 1 : nb.virtual_line(8, 3)]
    assert cell8 == ['for city in ["A", "B"]:', "    pass", "    print(city)"]  # the block still parses
    assert lines[nb.virtual_line(6, 2) - 1] == ""  # %%bash: the whole cell
    assert lines[nb.virtual_line(9, 2) - 1] == "!not a shell escape"  # text of a string: kept
    assert nb.position(nb.virtual_line(7, 2)) == (7, 2)


def test_a_finding_of_the_notebook_equals_the_one_of_its_export(root: Path) -> None:
    """The same code as a .py file (the virtual source: magics blanked) has the same findings,
    its lines mapped to the cells."""
    write(root / "nb" / "agent.ipynb", AGENT)
    nb = load_notebook((root / "nb" / "agent.ipynb").read_bytes())
    (root / "py").mkdir()
    (root / "py" / "agent.py").write_text(nb.source, encoding="utf-8")
    config = LintConfig(root=root)
    in_notebook = about(check_paths(["nb"], config, use_cache=False).findings)
    in_export = about(check_paths(["py"], config, use_cache=False).findings)
    mapped = [(*nb.position(f.line), f.col, f.code, f.message, f.suppressed) for f in in_export]
    assert [(f.cell, f.line, f.col, f.code, f.message, f.suppressed) for f in in_notebook] == mapped
    assert len(mapped) == 5


def test_unused_noqa_and_syntax_errors_are_reported_in_cells(root: Path) -> None:
    write(
        root / "noqa.ipynb",
        notebook(code(TOOL), code("!pwd\nx = 1  # noqa: DG101\n"), code('Weather().run(city="x"\n')),
    )
    report = check_paths(["."], LintConfig(root=root), use_cache=False)
    assert [(f.cell, f.line, f.code) for f in about(report.findings)] == [(3, 1, "DG001")]
    (root / "noqa.ipynb").unlink()
    write(root / "noqa.ipynb", notebook(code(TOOL), code("!pwd\nx = 1  # noqa: DG101\n")))
    report = check_paths(["."], LintConfig(root=root), use_cache=False)
    found = [(f.cell, f.line, f.col, f.code) for f in about(report.findings)]
    assert found == [(1, 9, 16, "DG103"), (2, 2, 8, "DG002")]


def test_the_cache_keeps_cell_positions(root: Path, tmp_path: Path) -> None:
    write(root / "agent.ipynb", AGENT)
    config = LintConfig(root=root)
    first = check_paths(["."], config, cache_dir=tmp_path / "cache")
    again = check_paths(["."], config, cache_dir=tmp_path / "cache")
    assert found(again) == found(first) and len(about(first.findings)) == 5
    assert again.files_parsed == 0  # from the cache


def test_broken_notebooks_are_listed_with_why_and_the_rest_is_checked(root: Path) -> None:
    (root / "a_not_json.ipynb").write_text('{"cells": [', encoding="utf-8")
    write(root / "b_v3.ipynb", {"worksheets": [], "metadata": {}, "nbformat": 3})
    write(root / "c_no_cells.ipynb", {"cells": {}, "metadata": {}, "nbformat": 4})
    write(root / "d_bad_source.ipynb", notebook({"cell_type": "code", "source": 3}))
    write(root / "e_good.ipynb", AGENT)
    report = check_paths(["."], LintConfig(root=root), use_cache=False)
    reasons = dict(report.notebooks)
    assert list(reasons) == ["a_not_json.ipynb", "b_v3.ipynb", "c_no_cells.ipynb", "d_bad_source.ipynb"]
    assert reasons["a_not_json.ipynb"].startswith("not a notebook: not valid JSON")
    assert reasons["b_v3.ipynb"] == "not an nbformat 4 notebook (nbformat 3)"
    assert reasons["c_no_cells.ipynb"] == "not a notebook: no list of cells"
    assert reasons["d_bad_source.ipynb"] == "not a notebook: the source of cell 1 is not text"
    assert report.files_checked == 1 and {f.path for f in about(report.findings)} == {"e_good.ipynb"}
    with pytest.raises(NotebookError):
        load_notebook(b"\xff\xfe")


def test_an_empty_notebook_file_is_an_empty_notebook(root: Path) -> None:
    # a placeholder committed empty: no code, nothing to report, and the run does not fail
    (root / "placeholder.ipynb").write_bytes(b"")
    (root / "blank.ipynb").write_text("\n  \n", encoding="utf-8")
    write(root / "agent.ipynb", AGENT)
    report = check_paths(["."], LintConfig(root=root), use_cache=False)
    assert report.notebooks == [] and {f.path for f in about(report.findings)} == {"agent.ipynb"}
    assert load_notebook(b"").source == ""


def test_a_notebook_in_another_language_has_no_code(root: Path) -> None:
    write(root / "r.ipynb", notebook(code(TOOL), metadata={"language_info": {"name": "R"}}))
    report = check_paths(["."], LintConfig(root=root), use_cache=False)
    assert about(report.findings) == [] and report.files_checked == 1


def test_a_module_file_keeps_its_name_beside_a_paired_notebook(root: Path) -> None:
    """jupytext pairs agent.ipynb with agent.py: ``import agent`` is the .py file."""
    write(root / "agent.ipynb", notebook(code("x = 1\n")))
    (root / "agent.py").write_text(TOOL, encoding="utf-8")
    (root / "main.py").write_text('from agent import Weather\n\nWeather().run(city="x")\n', encoding="utf-8")
    report = check_paths(["."], LintConfig(root=root), use_cache=False)  # agent.ipynb sorts before agent.py
    assert ("main.py", 3, "DG101") in [(f.path, f.line, f.code) for f in about(report.findings)]


def test_a_notebook_imports_from_its_own_folder(root: Path) -> None:
    """Jupyter runs a notebook in its folder: ``from helpers import X`` finds ``nb/helpers.py``."""
    (root / "nb").mkdir()
    (root / "nb" / "__init__.py").write_text("", encoding="utf-8")  # a package: helpers is nb.helpers
    (root / "nb" / "helpers.py").write_text(TOOL, encoding="utf-8")
    cells = code("from helpers import Weather\n"), code('Weather().run(city="x")\n')
    write(root / "nb" / "explore.ipynb", notebook(*cells))
    report = check_paths(["."], LintConfig(root=root), use_cache=False)
    assert ("nb/explore.ipynb", 2, 1, "DG101") in [(f.path, f.cell, f.line, f.code) for f in about(report.findings)]


# ------------------------------------------------------------------ the command and ruff




@pytest.mark.integration
def test_the_command_prints_cell_positions(root: Path) -> None:
    write(root / "agent.ipynb", AGENT)
    text = run_cli("check", "--no-cache", cwd=root)
    assert text.returncode == 1
    assert [line.split(" ", 2)[:2] for line in text.stdout.splitlines()] == [
        ["agent.ipynb:cell", "3:9:16:"],
        ["agent.ipynb:cell", "5:4:10:"],
        ["agent.ipynb:cell", "7:2:9:"],
        ["agent.ipynb:cell", "9:4:9:"],
    ]
    items = json.loads(run_cli("check", "--no-cache", "--output-format", "json", cwd=root).stdout)
    assert [(i["cell"], i["location"], i["noqa_row"]) for i in items][:2] == [
        (3, {"row": 9, "column": 16}, 9),
        (5, {"row": 4, "column": 10}, 4),
    ]
    full = run_cli("check", "--no-cache", "--output-format", "full", cwd=root).stdout
    assert " --> agent.ipynb:cell 5:4:10\n" in full
    assert '4 | result = Weather().run(city="Paris")\n' in full  # the frame shows the cell's own lines
    write(root / "accents" / "café.ipynb", notebook(code(TOOL), code('café = Weather().run(city="x")\n')))
    rdjson = json.loads(run_cli("check", "--no-cache", "--output-format", "rdjson", "accents", cwd=root).stdout)
    [call] = [d for d in rdjson["diagnostics"] if d["code"]["value"] == "DG101"]
    assert call["location"]["range"]["start"] == {"line": 1, "column": 9}  # UTF-8 bytes of the cell's line
    grouped = run_cli("check", "--no-cache", "--output-format", "grouped", cwd=root).stdout
    assert "  cell 5:4:10 DG101 " in grouped


@pytest.mark.integration
def test_a_notebook_on_standard_input(root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "check", *SELECT, "--no-cache", "--stdin-filename", "agent.ipynb", "-"],
        cwd=root, input=json.dumps(AGENT), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stdout.splitlines()[0].startswith("agent.ipynb:cell 3:9:16: DG103 ")
    broken = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "check", "--no-cache", "--stdin-filename", "agent.ipynb", "-"],
        cwd=root, input="x = 1\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert broken.returncode == 2 and broken.stdout == ""
    assert broken.stderr.startswith("dispatchguard: error: agent.ipynb: not a notebook: not valid JSON")


RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


@pytest.mark.integration
@pytest.mark.skipif(RUFF is None, reason="ruff is not installed")
def test_cell_positions_are_ruffs(root: Path) -> None:
    """ruff (F401 on an unused import put on the line of each call) and dispatchguard (DG101 on
    the call) agree on the cell and the line, magics and markdown cells around."""
    calls = notebook(
        {"cell_type": "markdown", "metadata": {}, "source": ["# calls"]},
        code("%pip install crewai\n"),
        code(TOOL),
        code('!ls\nimport os; r = Weather().run(city="a")\n'),
        code('%%time\nx = 1\nimport sys; s = Weather().run(city="b")'),
        code('for c in "ab":\n    !echo\n    import re; t = Weather().run(city=c)\n'),
        metadata={**PYTHON, "language_info": {"name": "python"}},
    )
    write(root / "calls.ipynb", calls)
    ruff = subprocess.run(
        [RUFF, "check", "--isolated", "--no-cache", "--select", "F401", "--output-format", "json", "calls.ipynb"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    theirs = [(i["cell"], i["location"]["row"]) for i in json.loads(ruff.stdout)]
    ours = [(f.cell, f.line) for f in about(check_paths(["."], LintConfig(root=root), use_cache=False).findings)]
    assert theirs == [(4, 2), (5, 3), (6, 3)]
    assert [p for p in ours if p != (3, 9)] == theirs  # (3, 9): DG103 in the tool's cell


@pytest.mark.integration
def test_the_flake8_plugin_is_unaffected(root: Path) -> None:
    """flake8 checks Python files only: a notebook beside them changes nothing it reports, and what
    it reports is what check_paths reports for the Python files."""
    (root / "tools.py").write_text(TOOL, encoding="utf-8")
    (root / "app.py").write_text('from tools import Weather\n\nWeather().run(city="x")\n', encoding="utf-8")

    def flake8() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-m", "flake8", "--isolated", "--select", "DG", "."],
            cwd=root, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode in (0, 1), done.stderr
        return sorted(line.removeprefix("./") for line in about(done.stdout.splitlines()))

    before = flake8()
    write(root / "agent.ipynb", AGENT)
    assert flake8() == before and before
    core = about(check_paths(["."], LintConfig(root=root), use_cache=False).findings)
    assert before == sorted(f"{f.path}:{f.line}:{f.col}: {f.code} {f.message}" for f in core if f.cell is None)
    assert any(f.cell is not None for f in core)
