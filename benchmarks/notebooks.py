"""Notebooks on real agent repositories: findings in ``.ipynb`` files against the same code exported
to ``.py``, and the checker's CPU time on both.

The trees (LangGraph, LangChain Academy, CrewAI examples at pinned commits; never committed) are
written by ``benchmarks/notebooks_fetch.py``, run first when they are missing. The checker reads the
tool libraries of this interpreter's environment. For every notebook (``.ipynb_checkpoints`` aside):

* **Export.** ``nbconvert``'s ``PythonExporter`` (``--exporter PYTHON``: an interpreter with
  nbconvert and IPython installed, which turn magics into ``get_ipython()`` calls; e.g. a venv made
  with ``pip install nbconvert ipython``), and an export of our own that shares no code with the
  checker (``concat``: the code cells joined, IPython lines commented out, a cell magic's cell
  commented out whole but for ``%%time``-like ones).
* **Findings.** Each tree is checked twice, as a project: as it is (the notebooks given as paths),
  and with every notebook replaced by its export (``<stem>.py`` beside it; the exports given as
  paths). A finding is compared by (code, message, column, the text of its line): a notebook's line
  is its cell's line, an export's its file's, so equal findings are equal with positions mapped,
  whatever lines an exporter adds between cells.
* **CPU** (user+sys of this process, the best of ``--repeat`` runs, no cache, measured in the same
  run): the notebooks alone (each tree's notebooks in a folder of their own) against their
  ``concat`` exports alone, and each whole tree with its notebooks as paths against the tree with
  the exports.

    .venv/bin/python benchmarks/notebooks.py [--exporter /tmp/nbvenv/bin/python] [--repeat 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data" / "notebooks"
sys.path.insert(0, str(HERE.parent / "src"))

from dispatchguard.lint import check_paths, load_config  # noqa: E402
from dispatchguard.lint.notebook import load_notebook  # noqa: E402

sys.path.insert(0, str(HERE))
from notebooks_fetch import TREES, fetch  # noqa: E402

IGNORED = shutil.ignore_patterns(".git", ".venv", "node_modules", "__pycache__", ".dispatchguard_cache")
#: An IPython line, for the ``concat`` export (written apart from the checker's own rules).
IPYTHON = re.compile(r"\s*([%!?]|\S+\s*=\s*[%!]|\w[\w.]*\?\??\s*$|(pip|conda)\s+(install|uninstall)\b)")
TRANSPARENT = ("%%time", "%%timeit", "%%capture", "%%prun", "%%debug", "%%python", "%%pypy")

#: scratch tree -> its export files (``compare`` writes them, ``cpu_figures`` checks them)
EXPORTS: dict[Path, list[Path]] = {}

NBCONVERT = """
import json, sys
from nbconvert import PythonExporter
exporter = PythonExporter()
for source, target in json.loads(sys.stdin.read()):
    body, _ = exporter.from_filename(source)
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(body)
"""


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def notebooks_of(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def code_cells(path: Path) -> list[tuple[int, list[str]]]:
    """(cell number among all cells, its lines) of each code cell, read with json alone."""
    document = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    for number, cell in enumerate(document.get("cells", []), start=1):
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            text = "".join(source) if isinstance(source, list) else source
            cells.append((number, text.splitlines()))
    return cells


def concat_export(path: Path) -> str:
    out = []
    for _, lines in code_cells(path):
        magic_cell = bool(lines) and lines[0].startswith("%%") and lines[0].split()[0] not in TRANSPARENT
        for index, line in enumerate(lines):
            commented = magic_cell or (index == 0 and lines[0].startswith("%%")) or IPYTHON.match(line)
            out.append(("# " + line) if commented else line)
    return "\n".join(out) + "\n"


def export_target(notebook: Path) -> Path:
    target = notebook.with_suffix(".py")
    return target.with_name(notebook.stem + "_export.py") if target.exists() else target


def write_exports(tree: Path, exporter: str | None) -> dict[Path, Path]:
    """Replace each notebook of ``tree`` (a scratch copy) by its export; notebook -> export."""
    pairs = {nb: export_target(nb) for nb in notebooks_of(tree)}
    if exporter is None:
        for notebook, target in pairs.items():
            target.write_text(concat_export(notebook), encoding="utf-8")
    else:
        jobs = json.dumps([[str(nb), str(target)] for nb, target in pairs.items()])
        subprocess.run([exporter, "-c", NBCONVERT], input=jobs, text=True, check=True, capture_output=True)
    for notebook in pairs:
        notebook.unlink()
    return pairs


def keyed(findings: list[Any], root: Path, lines_of: Any) -> dict[str, Counter]:
    """path (relative to ``root``) -> Counter of (code, message, col, line text) of its active findings."""
    out: dict[str, Counter] = {}
    for f in findings:
        if f.suppressed:
            continue
        path = root / f.path  # shown relative to the root, the directory the check ran in
        text = lines_of(path, f.cell, f.line)
        out.setdefault(path.relative_to(root).as_posix(), Counter())[(f.code, f.message, f.col, text.strip())] += 1
    return out


def notebook_line(path: Path, cell: int | None, line: int) -> str:
    lines = dict(code_cells(path)).get(cell, [])
    return lines[line - 1] if 0 < line <= len(lines) else ""


def file_line(path: Path, cell: int | None, line: int) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


def check(root: Path, paths: list[Path]) -> Any:
    """Check ``paths`` as files of the project at ``root`` (a scratch copy: no pyproject above it),
    the tool libraries read from this interpreter's environment (crewai, langchain-core, ...)."""
    cwd = os.getcwd()
    os.chdir(root)
    try:
        config = dataclasses.replace(load_config([root]), python=sys.executable)
        return check_paths([p.relative_to(root).as_posix() for p in paths], config, use_cache=False)
    finally:
        os.chdir(cwd)


def best_cpu(root: Path, paths: list[Path], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = cpu()
        check(root, paths)
        times.append(cpu() - start)
    return min(times)


def compare(tree: Path, scratch: Path, exporter: str | None, label: str) -> dict[str, Any]:
    """Findings in the notebooks of ``tree`` against those in its exports."""
    as_is = scratch / f"{tree.name}-as-is"  # both sides in scratch: the same surroundings
    if not as_is.is_dir():
        shutil.copytree(tree, as_is, ignore=IGNORED)
    exported = scratch / f"{tree.name}-{label}"
    shutil.copytree(tree, exported, ignore=IGNORED)
    pairs = write_exports(exported, exporter)
    EXPORTS[exported] = sorted(pairs.values())
    notebooks = notebooks_of(as_is)
    in_notebooks = keyed(check(as_is, notebooks).findings, as_is, notebook_line)
    in_exports = keyed(check(exported, list(pairs.values())).findings, exported, file_line)
    rename = {t.relative_to(exported).as_posix(): n.relative_to(exported).as_posix() for n, t in pairs.items()}
    in_exports = {rename[k]: v for k, v in in_exports.items()}
    differences = []
    for path in sorted(set(in_notebooks) | set(in_exports)):
        ours, theirs = in_notebooks.get(path, Counter()), in_exports.get(path, Counter())
        if ours != theirs:
            only_notebook, only_export = sorted(map(list, ours - theirs)), sorted(map(list, theirs - ours))
            differences.append({"notebook": path, "only_notebook": only_notebook, "only_export": only_export})
    parsing = 0  # the virtual sources that parse: IPython lines were all blanked
    for notebook in notebooks:
        try:
            ast.parse(load_notebook(notebook.read_bytes()).source)
            parsing += 1
        except SyntaxError:
            pass
    return {
        "notebooks": len(notebooks),
        "virtual_sources_parsing": parsing,
        "findings_notebook": sum(sum(c.values()) for c in in_notebooks.values()),
        "findings_export": sum(sum(c.values()) for c in in_exports.values()),
        "notebooks_with_findings": len(in_notebooks),
        "differences": differences,
        "codes": dict(sorted(Counter(k[0] for c in in_notebooks.values() for k in c.elements()).items())),
    }


def cpu_figures(tree: Path, scratch: Path, repeat: int) -> dict[str, Any]:
    alone_nb, alone_py = scratch / f"{tree.name}-nb-alone", scratch / f"{tree.name}-py-alone"
    for notebook in notebooks_of(tree):
        rel = notebook.relative_to(tree)
        (alone_nb / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(notebook, alone_nb / rel)
        (alone_py / rel).parent.mkdir(parents=True, exist_ok=True)
        (alone_py / rel).with_suffix(".py").write_text(concat_export(notebook), encoding="utf-8")
    as_is = scratch / f"{tree.name}-as-is"  # written by compare(), as the tree with its concat exports
    exported = scratch / f"{tree.name}-concat"
    exports = EXPORTS[exported]
    figures = {
        "notebook_bytes": sum(p.stat().st_size for p in notebooks_of(alone_nb)),
        "export_bytes": sum(p.stat().st_size for p in alone_py.rglob("*.py")),
        "alone_cpu_notebooks_s": best_cpu(alone_nb, notebooks_of(alone_nb), repeat),
        "alone_cpu_exports_s": best_cpu(alone_py, sorted(alone_py.rglob("*.py")), repeat),
        "tree_cpu_notebooks_s": best_cpu(as_is, notebooks_of(as_is), repeat),
        "tree_cpu_exports_s": best_cpu(exported, exports, repeat),
    }
    figures["alone_ratio"] = round(figures["alone_cpu_notebooks_s"] / figures["alone_cpu_exports_s"], 2)
    figures["tree_ratio"] = round(figures["tree_cpu_notebooks_s"] / figures["tree_cpu_exports_s"], 2)
    for key in list(figures):
        if key.endswith("_s"):
            figures[key] = round(figures[key], 4)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exporter", help="a Python with nbconvert and IPython, for nbconvert's export")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the figures there")
    args = parser.parse_args()
    fetch()  # the trees not written yet
    trees = [DATA / folder for folder, _, _ in TREES]
    result: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "trees": {f: {"repository": r, "commit": c} for f, r, c in TREES},
    }
    with tempfile.TemporaryDirectory(prefix="dg-notebooks-") as scratch_name:
        scratch = Path(scratch_name)
        for tree in trees:
            entry = result["trees"][tree.name]
            entry["concat"] = compare(tree, scratch, None, "concat")
            if args.exporter:
                entry["nbconvert"] = compare(tree, scratch, args.exporter, "nbconvert")
            entry["cpu"] = cpu_figures(tree, scratch, args.repeat)
            print(json.dumps({tree.name: entry}, indent=1), file=sys.stderr)
    totals: dict[str, Any] = {"notebooks": sum(t["concat"]["notebooks"] for t in result["trees"].values())}
    for label in ("concat", "nbconvert"):
        entries = [t[label] for t in result["trees"].values() if label in t]
        if entries:
            totals[label] = {
                "findings_notebook": sum(e["findings_notebook"] for e in entries),
                "findings_export": sum(e["findings_export"] for e in entries),
                "notebooks_differing": sum(len(e["differences"]) for e in entries),
            }
    cpus = [t["cpu"] for t in result["trees"].values()]
    totals["alone_cpu_notebooks_s"] = round(sum(c["alone_cpu_notebooks_s"] for c in cpus), 4)
    totals["alone_cpu_exports_s"] = round(sum(c["alone_cpu_exports_s"] for c in cpus), 4)
    totals["alone_ratio"] = round(totals["alone_cpu_notebooks_s"] / totals["alone_cpu_exports_s"], 2)
    totals["tree_cpu_notebooks_s"] = round(sum(c["tree_cpu_notebooks_s"] for c in cpus), 4)
    totals["tree_cpu_exports_s"] = round(sum(c["tree_cpu_exports_s"] for c in cpus), 4)
    totals["tree_ratio"] = round(totals["tree_cpu_notebooks_s"] / totals["tree_cpu_exports_s"], 2)
    result["totals"] = totals
    text = json.dumps(result, indent=1) + "\n"
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    print(json.dumps(totals, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
