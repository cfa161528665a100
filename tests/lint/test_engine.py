"""Engine behaviour: noqa, selection, columns, discovery, progress, isolation, self-lint."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.lint import RULES, CheckReport, Finding, LintConfig, check_paths, load_config
from dispatchguard.lint.discovery import walk
from dispatchguard.lint.source import check_source

from ..conftest import about

REPO = Path(__file__).resolve().parents[2]
# a library tool made outside the tool modules (DG102 on line 6), then called directly below it
TOOL = "from crewai_tools import (\n    SerperDevTool,\n)\n# made here:\n\nt = SerperDevTool()\n"


def _write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_noqa_forms() -> None:
    source = TOOL + (
        "t.run(1)  # noqa\n"
        "t.run(2)  # noqa: DG101\n"
        "t.run(3)  # noqa:DG102\n"
        "t.run(4)  # NOQA: DG1\n"
        "t.run(5)\n"
    )
    by_line = {f.line: f.suppressed for f in check_source(source) if f.code == "DG101"}
    assert by_line == {7: True, 8: True, 9: False, 10: True, 11: False}


def test_file_level_noqa() -> None:
    assert all(f.suppressed for f in check_source("# dispatchguard: noqa\n" + TOOL + "t.run()\n"))
    found = check_source("# dispatchguard: noqa: DG102\n" + TOOL + "t.run()\n")
    assert {(f.code, f.suppressed) for f in found} == {("DG101", False), ("DG102", True)}
    assert all(f.suppressed for f in check_source("# dispatchguard: noqa\ndef f(:\n"))


def test_columns_count_characters_not_bytes() -> None:
    (finding,) = [f for f in check_source(TOOL + "x = 'é€'; t.run()\n") if f.code == "DG101"]
    assert (finding.line, finding.col) == (7, 11)
    assert finding.end_col == 18


def test_selection_and_per_file_ignores(tmp_path: Path) -> None:
    _write(tmp_path, "a.py", TOOL + "t.run()\n")
    _write(tmp_path, "legacy/b.py", TOOL + "t.run()\n")
    base = LintConfig(root=tmp_path)

    def codes(config: LintConfig) -> list[tuple[str, str]]:
        return sorted((Path(f.path).name, f.code) for f in check_paths([tmp_path], config).findings)

    assert codes(base) == [("a.py", "DG101"), ("a.py", "DG102"), ("b.py", "DG101"), ("b.py", "DG102")]
    assert codes(dataclasses.replace(base, select=("DG102",))) == [("a.py", "DG102"), ("b.py", "DG102")]
    assert codes(dataclasses.replace(base, ignore=("DG1",))) == []
    assert codes(dataclasses.replace(base, per_file_ignores=(("legacy/*", ("DG101",)),))) == [
        ("a.py", "DG101"), ("a.py", "DG102"), ("b.py", "DG102"),
    ]  # fmt: skip
    assert codes(dataclasses.replace(base, per_file_ignores=(("legacy/*", ("DG1",)),))) == [
        ("a.py", "DG101"), ("a.py", "DG102"),
    ]  # fmt: skip
    _write(tmp_path, "bad.py", "from crewai.tools import BaseTool\ndef f(:\n")
    _write(tmp_path, "plain_bad.py", "def f(:\n")  # names no tool word: never parsed, E999's business
    assert ("bad.py", "DG001") in codes(base)
    assert ("plain_bad.py", "DG001") not in codes(base)
    assert ("bad.py", "DG001") not in codes(dataclasses.replace(base, ignore=("DG001",)))
    assert ("bad.py", "DG001") not in codes(dataclasses.replace(base, per_file_ignores=(("bad.py", ("DG",)),)))


MOCK = "from crewai.tools import BaseTool\n\nclass Mock(BaseTool):\n    def _run(self, q):\n        return {'q': q}\n"


def test_test_files_and_tool_modules_are_exempt(tmp_path: Path) -> None:
    # a test builds tools, runs them and declares throw-away ones (DG101, DG102, DG103, DG104)
    mock_function = "from langchain_core.tools import tool\n\n@tool\ndef add(a: int, b: int):\n    return a + b\n"
    # a tests folder at any depth (``src/news/tests/``), not only at the root
    for rel in ("tests/test_a.py", "pkg/test_b.py", "pkg/c_test.py", "conftest.py", "src/pkg/tests/scratch.py"):
        _write(tmp_path, rel, TOOL + "t.run()\n\n" + MOCK + "\n" + mock_function)
    _write(tmp_path, "pkg/tools/made.py", TOOL)
    _write(tmp_path, "pkg/inbuilt_tools.py", TOOL)
    _write(tmp_path, "pkg/tool_registry/registry.py", TOOL)  # a folder named like a registry
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    assert report.findings == []
    assert report.files_checked == 8


def test_exclude_and_explicit_files(tmp_path: Path) -> None:
    _write(tmp_path, "build/gen.py", "x._run()\n")
    _write(tmp_path, ".venv/lib/site.py", "x._run()\n")
    _write(tmp_path, "vendored/v.py", "x._run()\n")
    _write(tmp_path, "script", "x._run()\n")  # no suffix: only when named explicitly
    _write(tmp_path, "ok.py", "x = 1\n")
    config = LintConfig(root=tmp_path, exclude=(*LintConfig().exclude, "vendored"))
    report = check_paths([tmp_path], config, use_cache=False)
    assert report.findings == [] and report.files_checked == 1
    report = check_paths([tmp_path / "script"], config, use_cache=False)
    assert [f.code for f in report.findings] == ["DG101"]
    # a file named explicitly is checked even when excluded, as ruff does, unless force-exclude
    assert check_paths([tmp_path / "build" / "gen.py"], config, use_cache=False).files_checked == 1
    forced = dataclasses.replace(config, force_exclude=True)
    assert check_paths([tmp_path / "build" / "gen.py"], forced, use_cache=False).files_checked == 0
    assert [p.name for p in walk([tmp_path], config, tmp_path)] == ["ok.py"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_module_loaded_for_a_question_is_still_a_candidate_once_it_names_a_tool_word(
    tmp_path: Path, jobs: int
) -> None:
    # the first round's walk of tools/t.py loads app/helpers.py (what is VALUE?); the second
    # round's words (MyTool) are in it: it is checked, as when it is checked on its own
    _write(tmp_path, "tools/__init__.py", "")
    _write(tmp_path, "app/__init__.py", "")
    _write(
        tmp_path,
        "tools/t.py",
        "from crewai.tools import BaseTool\nfrom app.helpers import VALUE\n\n\nclass MyTool(BaseTool):\n"
        '    name: str = "t"\n    description: str = "t"\n\n    def _run(self, q):\n        return VALUE.run(q)\n',
    )
    helpers = "from tools.t import MyTool\n\nVALUE = 1\n\n\ndef build():\n    return MyTool()\n"
    _write(tmp_path, "app/helpers.py", helpers)
    whole = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False, jobs=jobs)
    alone = check_paths([tmp_path / "app/helpers.py"], LintConfig(root=tmp_path), use_cache=False)
    found = [(Path(f.path).name, f.line, f.code) for f in about(whole.findings)]
    assert found == [(Path(f.path).name, f.line, f.code) for f in about(alone.findings)] == [("helpers.py", 7, "DG102")]


def test_strict_mode_flags_unknown_returns() -> None:
    source = (
        "from crewai.tools import BaseTool\n\nclass T(BaseTool):\n    def _run(self, q):\n        return q.upper()\n"
    )
    assert about(check_source(source)) == []
    (finding,) = about(check_source(source, LintConfig(strict=True)))
    assert finding.code == "DG103" and "strict" in finding.message


def test_unreadable_file_is_dg001(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, "secret.py", "x = 1\n")
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "secret.py":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    (finding,) = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False).findings
    assert finding.code == "DG001" and "cannot read the file: Permission denied" in finding.message
    assert finding.path.endswith("secret.py") and path.exists()


def test_deep_nesting_never_crashes(tmp_path: Path) -> None:
    _write(tmp_path, "deep.py", "x = " + "(" * 150 + "1" + ")" * 150 + "\n" + "t._run()\n")
    _write(tmp_path, "deeper.py", "x = " + "[" * 5000 + "]" * 5000 + "\n")
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    assert {Path(f.path).name for f in report.findings} <= {"deep.py", "deeper.py"}


def test_progress_callback(tmp_path: Path) -> None:
    for i in range(3):
        _write(tmp_path, f"m{i}.py", "x = 1\n")
    calls: list[tuple[int, int]] = []
    check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (3, 3)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_report_types() -> None:
    finding = Finding("a.py", 1, 1, "DG101", "m", 1, 2, suppressed=True)
    report = CheckReport([finding, dataclasses.replace(finding, suppressed=False)], 1)
    assert report.active == [report.findings[1]]
    assert finding.fix is None
    assert {"DG001", "DG002", "DG101", "DG102", "DG103", "DG104"} <= set(RULES)
    for code, rule in RULES.items():
        assert (rule.code, bool(rule.name), bool(rule.summary)) == (code, True, True)


@pytest.mark.integration
def test_core_never_imports_heavy_or_user_code(tmp_path: Path) -> None:
    _write(tmp_path, "user.py", "raise SystemExit('user code was imported')\n" + TOOL + "t.run()\n")
    script = (
        "import sys, json\n"
        "from dispatchguard.lint import LintConfig, check_paths\n"
        f"r = check_paths([{str(tmp_path)!r}], LintConfig(root={str(tmp_path)!r}), jobs=1, use_cache=False)\n"
        "print(json.dumps({'codes': [f.code for f in r.findings],"
        " 'loaded': sorted(m for m in ('pydantic', 'libcst', 'flake8', 'httpx', 'user') if m in sys.modules)}))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path)
    result = json.loads(out.stdout)
    assert sorted(result["codes"]) == ["DG101", "DG102"] and result["loaded"] == []


def test_the_checker_lints_itself() -> None:
    """The whole repository (package, tests, benchmarks) is clean under its own configuration."""
    config = load_config([REPO])
    assert config.root == REPO
    report = check_paths([REPO], config, use_cache=False)
    assert [f for f in report.findings if not f.suppressed] == []
    assert report.files_checked > 100
