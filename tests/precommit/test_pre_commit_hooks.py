"""The hooks under the real pre-commit (`pre-commit run`, the hook repo named in the configuration), on
throw-away repositories holding the example project. Slow: the first test builds the hook environment
(pip install from PyPI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ABOUT_SELECT

ROOT = Path(__file__).resolve().parents[2]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def clean_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_") and k != "PYTHONPATH"}


pytestmark = pytest.mark.slow


def output(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stdout + proc.stderr


def test_check_hook_fails_on_violations_and_passes_on_fixed(example_repo, pre_commit_run):
    violating = example_repo("violating")
    proc = pre_commit_run(violating, "dispatchguard", "--all-files")
    assert proc.returncode == 1, output(proc)
    text = output(proc)
    for code in ("DG101", "DG102", "DG103"):
        assert code in text

    fixed = example_repo("fixed")
    proc = pre_commit_run(fixed, "dispatchguard", "--all-files")
    assert proc.returncode == 0, output(proc)
    assert "Passed" in proc.stdout


def test_check_hook_on_one_staged_file_uses_the_whole_project(example_repo, pre_commit_run):
    """Only planner.py is passed; its tools are defined (and derive from the project's base
    class) in files that are not passed."""
    violating = example_repo("violating")
    proc = pre_commit_run(violating, "dispatchguard", "--files", "newsroom/agents/planner.py")
    assert proc.returncode == 1, output(proc)
    text = output(proc)
    assert "newsroom/agents/planner.py" in text and "DG101" in text
    assert "newsroom/crew.py" not in text and "newsroom/tools/" not in text


def test_fix_hook_applies_safe_fixes_then_passes(example_repo, pre_commit_run):
    """The fixed twin with a safely fixable DG103 put back (the project dispatches through
    dispatchguard and calls no tool method directly) and an unsafe one (model_dump_json)."""
    repo = example_repo("fixed")
    metrics = repo / "newsroom" / "tools" / "metrics.py"
    text = metrics.read_text()
    broken = text.replace(
        "return ensure_json_str(kpi)", 'return {"kpi": kpi.name, "status": kpi.status}  # the summary'
    )
    assert broken != text
    metrics.write_text(broken)
    git(repo, "add", "-A")

    proc = pre_commit_run(repo, "dispatchguard", "--all-files")
    assert proc.returncode == 1, output(proc)

    proc = pre_commit_run(repo, "dispatchguard-fix", "--all-files")
    assert proc.returncode == 1, output(proc)
    assert "files were modified by this hook" in output(proc)
    fixed = metrics.read_text()
    assert 'return ensure_json_str({"kpi": kpi.name, "status": kpi.status})  # the summary' in fixed

    git(repo, "add", "-A")
    proc = pre_commit_run(repo, "dispatchguard-fix", "--all-files")
    assert proc.returncode == 0, output(proc)
    proc = pre_commit_run(repo, "dispatchguard", "--all-files")
    assert proc.returncode == 0, output(proc)


def test_fix_hook_leaves_unsafe_fixes_for_review(example_repo, pre_commit_run):
    repo = example_repo("fixed")
    metrics = repo / "newsroom" / "tools" / "metrics.py"
    text = metrics.read_text()
    broken = text.replace("return metric.model_dump_json()", "return metric.model_dump()")
    assert broken != text
    metrics.write_text(broken)
    git(repo, "add", "-A")
    proc = pre_commit_run(repo, "dispatchguard-fix", "--all-files")
    assert proc.returncode == 1, output(proc)
    assert "files were modified by this hook" not in output(proc)
    assert "unsafe fix available (model_dump() -> model_dump_json()" in output(proc)
    assert metrics.read_text() == broken


def test_coverage_hook_on_pre_push(tmp_path, pre_commit_run):
    repo = tmp_path / "cov"
    (repo / "src" / "app").mkdir(parents=True)
    (repo / "src" / "app" / "__init__.py").write_text("")
    (repo / "src" / "app" / "tool_dispatcher.py").write_text(
        "def dispatch(name):\n    if name == 'a':\n        return 'A'\n    return 'other'\n"
    )
    (repo / "run.py").write_text(
        "import sys\nsys.path.insert(0, 'src')\nfrom app import tool_dispatcher\ntool_dispatcher.dispatch('a')\n"
    )
    (repo / "pyproject.toml").write_text(
        "[tool.dispatchguard.coverage]\nfail-under = 90\ninclude = ['src/**/tool_dispatcher.py']\n"
    )
    subprocess.run(
        [sys.executable, "-m", "coverage", "run", "--branch", "run.py"],
        cwd=repo,
        env=clean_env(),
        check=True,
        capture_output=True,
    )
    git(repo, "init", "-q")
    git(repo, "add", "pyproject.toml", "src", "run.py")

    args = ("dispatchguard-coverage", "--hook-stage", "pre-push", "--all-files")
    proc = pre_commit_run(repo, *args)
    assert proc.returncode == 1, output(proc)
    assert "src/app/tool_dispatcher.py" in output(proc) and "below 90%" in output(proc)

    (repo / "pyproject.toml").write_text(
        "[tool.dispatchguard.coverage]\nfail-under = 60\ninclude = ['src/**/tool_dispatcher.py']\n"
    )
    proc = pre_commit_run(repo, *args)
    assert proc.returncode == 0, output(proc)


def test_check_hook_sees_stubs_and_honours_exclude(tmp_path, pre_commit_run):
    """`types_or: [python, pyi]`: a staged .pyi stub is checked; --force-exclude: a staged file in
    `extend-exclude` or .gitignore'd (added with -f) is not reported although pre-commit names it."""
    repo = tmp_path / "stubs"
    files = {
        "pyproject.toml": f'[tool.dispatchguard]\nextend-exclude = ["generated"]\n{ABOUT_SELECT}\n',
        ".gitignore": "scratch/\n",
        "app/__init__.py": "",
        "app/tools.py": "from crewai.tools import BaseTool\n\n\nclass Search(BaseTool):\n    name: str = 'search'\n",
        "app/agent.pyi": "from app.tools import Search\n\nSearch().run('x')\n",
        "generated/client.py": "from app.tools import Search\n\nSearch().run('x')\n",
        "scratch/try.py": "from app.tools import Search\n\nSearch().run('x')\n",
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "add", "-f", "scratch/try.py")

    proc = pre_commit_run(repo, "dispatchguard", "--all-files")
    assert proc.returncode == 1, output(proc)
    text = output(proc)
    assert "app/agent.pyi:3:1: DG101" in text and "app/agent.pyi:3:1: DG102" in text
    assert "generated/client.py" not in text and "scratch/try.py" not in text

    (repo / "app" / "agent.pyi").write_text("from app.tools import Search\n\nsearch: Search\n")
    git(repo, "add", "-A")
    proc = pre_commit_run(repo, "dispatchguard", "--all-files")
    assert proc.returncode == 0, output(proc)


def test_check_hook_reads_the_projects_dot_venv_not_its_own(pre_commit_run, tmp_path, team_tools_env):
    """pre-commit sets VIRTUAL_ENV to the hook's own environment; the project's tool libraries are
    in its .venv (here with team-tools installed), which the hook must read instead."""
    repo = tmp_path / "app"
    repo.mkdir()
    (repo / "app.py").write_text("from teamtools import SearchTool\n\nsearch = SearchTool()\n", encoding="utf-8")
    (repo / ".venv").symlink_to(team_tools_env)
    (repo / ".gitignore").write_text(".venv\n", encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    proc = pre_commit_run(repo, "dispatchguard", "--all-files")
    assert proc.returncode == 1, output(proc)
    assert "app.py:3:10: DG102 tool class `SearchTool`" in output(proc)
