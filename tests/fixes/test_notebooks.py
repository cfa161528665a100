"""Fixing notebooks: the fixes planned on the code cells as one module, written back into the cells
they fall in; every byte outside the changed cells' ``source`` values is kept (indentation, key
order, escapes, the final newline, outputs, metadata)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dispatchguard.fix import apply_fixes, with_fixes
from dispatchguard.lint import check_paths, load_config
from dispatchguard.lint.notebook import NotebookError, load_notebook

from ..conftest import about, run_cli

TOOL = """\
from crewai.tools import BaseTool


class Weather(BaseTool):  # café
    name: str = "weather"
    description: str = "the weather in a city"

    def _run(self, city: str) -> dict:
        return {"city": city}
"""

FIXED_TOOL = TOOL.replace("from crewai", "import json\n\nfrom crewai").replace(
    "-> dict:\n        return {\"city\": city}",
    '-> str:\n        return json.dumps({"city": city}, ensure_ascii=False, default=str)',
)

OUTPUTS = [
    {"name": "stdout", "output_type": "stream", "text": ["Paris: 21°C\n"]},
    {"data": {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure>"]}, "metadata": {}, "output_type": "display_data"},
]


def cell(kind: str, text: str, **extra) -> dict:
    # "source" first: the key order of the file is not Jupyter's sorted one
    return {"source": text.splitlines(keepends=True), "cell_type": kind, "metadata": {"tags": ["t"]}, **extra}


def code(text: str, outputs: list | None = None) -> dict:
    return cell("code", text, execution_count=3, outputs=outputs or [], id="a1")


def document(*cells: dict) -> dict:
    return {
        "nbformat_minor": 5,
        "cells": list(cells),
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}, "custom": {"ü": 1}},
        "nbformat": 4,
    }


AGENT = document(
    cell("markdown", "# Wetter für Paris\n"),
    code("%pip install crewai\n"),
    code(TOOL),
    code('!ls\nprint(Weather().run(city="Paris"))\n', OUTPUTS),
)


def source_span(text: str, index: int) -> tuple[int, int]:
    """(start, end) of the ``source`` value of cell ``index`` (0-based) in a notebook's text."""
    start = [m.end() for m in re.finditer(r'"source":\s*', text)][index]
    return start, text.index("]", start) + 1


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.dispatchguard]\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("indent", "ascii_only", "newline"),
    [(1, False, "\n"), (2, True, ""), (4, False, "")],
    ids=["jupyter", "ascii-escapes-no-final-newline", "indent-4"],
)
def test_fix_round_trip_keeps_every_byte_outside_the_changed_cell(
    root: Path, indent: int, ascii_only: bool, newline: str
) -> None:
    old = json.dumps(AGENT, indent=indent, ensure_ascii=ascii_only) + newline
    path = root / "agent.ipynb"
    path.write_text(old, encoding="utf-8")
    report = apply_fixes(["agent.ipynb"], load_config(["."]), unsafe=True, use_cache=False)
    assert [(f.cell, f.line, f.col, f.code) for f in report.applied] == [(3, 9, 16, "DG103")]
    assert report.changed_files == ["agent.ipynb"]
    new = path.read_text(encoding="utf-8")
    start, end = source_span(old, 2)
    new_end = len(new) - (len(old) - end)
    assert new[:start] == old[:start] and new[new_end:] == old[end:]  # same bytes outside cell 3's source
    assert json.loads(new[start:new_end]) == FIXED_TOOL.splitlines(keepends=True)
    lead = old[start + 1 : old.index('"', start)]  # the items laid out as they were
    close = old[old.rindex('"', start, end) + 1 : end - 1]
    items = [json.dumps(line, ensure_ascii=ascii_only) for line in FIXED_TOOL.splitlines(keepends=True)]
    assert new[start:new_end] == "[" + lead + ("," + lead).join(items) + close + "]"
    fixed = json.loads(new)
    assert fixed["cells"][3]["outputs"] == OUTPUTS and fixed["metadata"] == AGENT["metadata"]
    assert new.isascii() == ascii_only
    again = apply_fixes(["agent.ipynb"], load_config(["."]), unsafe=True, use_cache=False)
    assert again.applied == [] and path.read_text(encoding="utf-8") == new  # idempotent


def test_a_fix_that_would_edit_a_cell_that_is_not_python_is_dropped(root: Path) -> None:
    """The import ``json.dumps`` needs goes at the module's top: the first code cell is
    ``%%bash``, so the fix is dropped, with why, and the notebook left as it is."""
    (root / "pyproject.toml").write_text('[tool.dispatchguard]\ntool-bases = ["Base"]\n', encoding="utf-8")
    bare = "class Weather(Base):\n    def _run(self, city: str) -> dict:\n        return {'city': city}\n"
    old = json.dumps(document(code("%%bash\necho hi\n"), code(bare)), indent=1)
    (root / "bash.ipynb").write_text(old, encoding="utf-8")
    report = apply_fixes(["bash.ipynb"], load_config(["."]), unsafe=True, use_cache=False)
    assert report.applied == [] and (root / "bash.ipynb").read_text(encoding="utf-8") == old
    [skipped] = about(report.skipped)
    assert (skipped.cell, skipped.line, skipped.code) == (2, 3, "DG103")
    assert skipped.reason == "fix dropped: a fix would edit cell 1, which is not Python"


def test_fix_data_is_in_cells_and_applies_to_the_cell(root: Path) -> None:
    """``check --output-format json``'s fix for a notebook finding: rows in the finding's cell;
    made on the cell's source, they give what ``fix`` writes."""
    (root / "agent.ipynb").write_text(json.dumps(AGENT, indent=1), encoding="utf-8")
    config = load_config(["."])
    [finding] = [f for f in with_fixes(about(check_paths(["."], config, use_cache=False).findings), config) if f.fix]
    assert (finding.cell, finding.code) == (3, "DG103")
    lines = TOOL.splitlines(keepends=True)
    for edit in sorted(finding.fix.edits, key=lambda e: (e.line, e.col), reverse=True):
        text = "".join(lines)
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line))
        start, stop = offsets[edit.line - 1] + edit.col - 1, offsets[edit.end_line - 1] + edit.end_col - 1
        lines = (text[:start] + edit.content + text[stop:]).splitlines(keepends=True)
    assert "".join(lines) == FIXED_TOOL




@pytest.mark.integration
def test_the_fix_command_on_a_notebook(root: Path) -> None:
    old = json.dumps(AGENT, indent=1) + "\n"
    (root / "agent.ipynb").write_text(old, encoding="utf-8")
    diff = run_cli("fix", "--no-cache", "--unsafe-fixes", "--diff", cwd=root)
    assert diff.returncode == 1 and (root / "agent.ipynb").read_text(encoding="utf-8") == old
    assert '+    "import json\\n",' in diff.stdout.splitlines()
    done = run_cli("fix", "--no-cache", "--unsafe-fixes", cwd=root)
    assert done.returncode == 1, done.stderr  # DG101 remains (no dispatcher is configured)
    assert done.stdout.splitlines()[0].startswith("agent.ipynb:cell 3:9:16: DG103 fixed: ")
    assert "direct calls read the raw return at agent.ipynb:cell 4:2;" in done.stdout.splitlines()[0]
    assert done.stdout.splitlines()[1].startswith("agent.ipynb:cell 4:2:7: DG101 ")
    assert json.loads((root / "agent.ipynb").read_text(encoding="utf-8"))["cells"][2]["source"] == (
        FIXED_TOOL.splitlines(keepends=True)
    )
    noqa = run_cli("check", "--no-cache", "--add-noqa", cwd=root)
    assert noqa.returncode == 0, noqa.stderr
    cells = json.loads((root / "agent.ipynb").read_text(encoding="utf-8"))["cells"]
    assert cells[3]["source"] == ["!ls\n", 'print(Weather().run(city="Paris"))  # noqa: DG101\n']
    assert cells[3]["outputs"] == OUTPUTS


# ------------------------------------------------------------------ edits of the virtual source


def edited(document: dict, edits: list[tuple[int, int, str]], indent: int | None = 1) -> dict:
    return json.loads(load_notebook(json.dumps(document, indent=indent)).with_edits(edits))


def test_edits_land_in_their_cells() -> None:
    nb = document(
        {"cell_type": "code", "source": "a = 1\nb = 2", "metadata": {}},  # source as one string
        code("%time x = 1\nc = 3"),  # no final newline
        code(""),
    )
    source = load_notebook(json.dumps(nb)).source
    assert source == "a = 1\nb = 2\n\nc = 3\n"
    at = source.index("c = 3")
    out = edited(nb, [(0, 0, "import os\n"), (at, at + 5, "c = 4")])
    assert out["cells"][0]["source"] == "import os\na = 1\nb = 2"  # still one string, no final newline added
    assert out["cells"][1]["source"] == ["%time x = 1\n", "c = 4"]  # the magic restored, no final newline
    assert out["cells"][2]["source"] == []
    out = edited(nb, [(0, source.index("\n\n") + 1, "")], indent=None)  # the whole first cell removed
    assert out["cells"][0]["source"] == ""
    gone = edited(document(code("x = 1\n")), [(0, 6, "")])
    assert gone["cells"][0]["source"] == []
    end = len(source)
    assert edited(nb, [(end, end, "d = 5\n")])["cells"][1]["source"] == ["%time x = 1\n", "c = 3\n", "d = 5"]
    shell = document(code("a = 1\n"), code("!ls -l\nb = 2\n"))
    assert edited(shell, [(6, 6, "import os\n")])["cells"][1]["source"] == ["import os\n", "!ls -l\n", "b = 2\n"]


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        ((4, 8, ""), "a fix spans two cells"),  # from the first cell into the second
        ((6, 7, ""), "a fix touches an IPython line (a magic or a shell escape)"),
        ((15, 15, "x"), "a fix touches an IPython line (a magic or a shell escape)"),  # inside `    pass`
    ],
)
def test_edits_that_cannot_be_made_in_cells(edit: tuple[int, int, str], reason: str) -> None:
    nb = document(code("a = 1\n"), code("!ls -l\nif b:\n    %time f()\n"))
    with pytest.raises(NotebookError, match=re.escape(reason)):
        load_notebook(json.dumps(nb)).with_edits([edit])


def test_no_code_cell_and_no_edit() -> None:
    nb = load_notebook(json.dumps(document(cell("markdown", "# only text\n"))))
    assert nb.source == "" and nb.with_edits([]) == json.dumps(document(cell("markdown", "# only text\n")))
    assert nb.position(1) == (1, 1)
    with pytest.raises(NotebookError, match="no code cell"):
        nb.with_edits([(0, 0, "x = 1\n")])
    with pytest.raises(NotebookError, match="not a JSON object"):
        load_notebook("[]")
    with pytest.raises(NotebookError, match="cell 1 has no cell_type"):
        load_notebook(json.dumps({"cells": [{"source": []}], "nbformat": 4}))
