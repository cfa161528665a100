"""Golden tests: each ``golden/<case>.py`` is fixed in a throw-away project and compared byte for
byte with ``golden/<case>.expected.py``. The DG101 cases' projects configure a dispatcher
(:data:`PROJECTS`). The cases run with ``--unsafe-fixes``; without it only the ``ensure_json_str``
wraps the DG103/DG104 cases prove safe are applied.

Regenerate the expected files after a deliberate change with ``DG_UPDATE_GOLDEN=1`` (then review
the diff).
"""

from __future__ import annotations

import ast
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import load_config

GOLDEN = Path(__file__).parent / "golden"
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
CASES = sorted(p for p in GOLDEN.glob("*.py") if not p.name.endswith(".expected.py"))
PYPROJECT = """\
[project]
name = "app"
dependencies = ["dispatchguard"]

[tool.dispatchguard]
tool-modules = ["tools/**"]
"""
#: Per case: the configured dispatchers and the other files of its project.
PROJECTS: dict[str, tuple[list[str], dict[str, str]]] = {
    "dg101_agent": (["app.dg101_agent.run_tool"], {}),
    "dg101_homegrown_crlf": (
        ["desk.dispatcher.dispatch_tool"],
        {
            "desk/__init__.py": "",
            "desk/dispatcher.py": (
                "from app.dg101_homegrown_crlf import KpiTool\n\n"
                'REGISTRY = {"kpi": KpiTool()}\n\n\n'
                "def dispatch_tool(name: str, args: dict) -> str:\n"
                "    return REGISTRY[name].run(**args)\n"
            ),
        },
    ),
    "dg104_imports": (
        [],
        {
            "app/units.py": 'def celsius() -> str:\n    return "C"\n',
            "app/registry.py": (
                "from dispatchguard import TOOL_REGISTRY\n\nfrom app.dg104_imports import weather\n\n"
                'TOOL_REGISTRY.register("weather", weather)\n'
            ),
        },
    ),
}


#: The tool functions whose wraps are safe: registered in TOOL_REGISTRY and mentioned nowhere else.
SAFE_TOOL_FUNCTIONS = {"dg104_langchain": {"company"}, "dg104_crewai": {"tags"}, "dg104_imports": {"weather"}}


def function_at(path: Path, line: int) -> str:
    """The name of the top-level function of ``path`` holding ``line``."""
    for stmt in ast.parse(path.read_bytes()).body:
        if isinstance(stmt, ast.FunctionDef) and stmt.lineno <= line <= (stmt.end_lineno or 0):
            return stmt.name
    raise AssertionError(f"no function at line {line} of {path.name}")


def isort_clean(project: Path, target: Path) -> bool:
    """Whether ruff's isort rule (default settings, ``app`` first-party) accepts ``target``."""
    assert RUFF is not None, "ruff is a dev dependency"
    proc = subprocess.run(
        [RUFF, "check", "--isolated", "--no-cache", "--select", "I", str(target)], cwd=project, capture_output=True
    )
    return proc.returncode == 0


def make_project(tmp_path: Path, case: Path) -> Path:
    project = tmp_path / "project"
    (project / "app").mkdir(parents=True)
    (project / "app" / "__init__.py").write_text("")
    dispatchers, files = PROJECTS.get(case.stem, ([], {}))
    (project / "pyproject.toml").write_text(PYPROJECT + f"dispatchers = {dispatchers!r}\n".replace("'", '"'))
    for relpath, text in files.items():
        (project / relpath).parent.mkdir(parents=True, exist_ok=True)
        (project / relpath).write_text(text)
    target = project / "app" / case.name
    shutil.copyfile(case, target)
    return target


def fix(target: Path, **kwargs):
    config = load_config([str(target)])
    return apply_fixes([str(target)], config, use_cache=False, **kwargs)


@pytest.mark.integration
@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_golden(case: Path, tmp_path: Path):
    unsafe = True
    expected_path = case.with_name(case.stem + ".expected.py")
    target = make_project(tmp_path, case)
    os.chmod(target, 0o640)
    sorted_before = isort_clean(tmp_path / "project", target)

    report = fix(target, unsafe=unsafe)
    result = target.read_bytes()
    if os.environ.get("DG_UPDATE_GOLDEN"):
        expected_path.write_bytes(result)
    assert expected_path.exists(), f"missing {expected_path.name}; run with DG_UPDATE_GOLDEN=1"
    assert result == expected_path.read_bytes()

    assert report.applied, "a golden case should exercise at least one fix"
    ast.parse(result)  # the fixed file parses
    if sorted_before:  # the imports a fix adds go where isort puts them
        assert isort_clean(tmp_path / "project", target)
    original = case.read_bytes()
    assert (b"\r\n" in result) == (b"\r\n" in original)  # newline style kept
    if b"\r\n" in original:
        assert result.count(b"\n") == result.count(b"\r\n")  # added lines use CRLF too
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # permissions kept

    # idempotent: a second run changes nothing
    again = fix(target, unsafe=unsafe)
    assert again.changed_files == [] and again.applied == []
    assert target.read_bytes() == result
    # re-checked: what is left is only what has no fix, each with its reason
    assert {(f.line, f.code) for f in again.remaining} == {
        (s.line, s.code) for s in again.skipped if s.kind == "unfixable"
    }


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_golden_diff_writes_nothing(case: Path, tmp_path: Path):
    target = make_project(tmp_path, case)
    before = target.read_bytes()
    report = fix(target, unsafe=True, diff=True)
    assert target.read_bytes() == before
    assert report.diff.startswith(f"--- a/{report.changed_files[0]}")
    assert report.exit_code == 1


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_golden_without_unsafe_fixes(case: Path, tmp_path: Path):
    """DG101 fixes are never safe. The DG103 and DG104 cases' projects have no dispatcher of their
    own and call no tool method directly: their ensure_json_str wraps of tool methods are safe, and
    those of the tool functions registered in TOOL_REGISTRY and mentioned nowhere else; the rest is
    not."""
    target = make_project(tmp_path, case)
    report = fix(target)
    assert report.exit_code == 1
    if case.stem.startswith("dg101"):
        assert target.read_bytes() == case.read_bytes() and report.applied == []
        assert report.unsafe_available > 0
    else:
        assert report.applied and all(a.safe for a in report.applied)
        assert all("ensure_json_str" in a.description for a in report.applied)
        ast.parse(target.read_bytes())
    if case.stem.startswith("dg104"):
        assert {function_at(case, a.line) for a in report.applied} == SAFE_TOOL_FUNCTIONS[case.stem]
        fixed = {line for line in target.read_text().splitlines() if "ensure_json_str(" in line}
        unsafe = fix(target, unsafe=True)
        assert unsafe.applied and not any(a.safe for a in unsafe.applied)  # the rest needs --unsafe-fixes
        assert fixed < {line for line in target.read_text().splitlines() if "ensure_json_str(" in line}
