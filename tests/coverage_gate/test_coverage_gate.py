"""The coverage gate on real coverage.py data produced in a temp project."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard import coverage_gate as gate
from dispatchguard.cli import main as cli_main
from dispatchguard.coverage_gate.report import format_percent
from dispatchguard.coverage_gate.results import format_missing
from dispatchguard.globs import glob_to_regex

MODELS = "src/**/models.py"
DISPATCHER = "src/**/tool_dispatcher.py"


def run(argv, capsys):
    code = gate.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.integration
def test_passes_at_or_above_threshold(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    # models 5/8 (62.5%) + dispatcher 6/6 lines+branches: total 11/14 = 78.57%
    code, out, err = run(["--fail-under", "78", "--include", MODELS, "--include", DISPATCHER], capsys)
    assert code == 0, out + err
    assert "src/app/models.py" in out and "src/app/tool_dispatcher.py" in out
    assert "unused.py" not in out
    assert "78.57%" in out
    assert "OK: total branch coverage" in out


@pytest.mark.integration
def test_fails_below_threshold_with_missed_lines(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    code, out, _ = run(["--fail-under", "90", "--include", MODELS], capsys)
    assert code == 1
    row = next(line for line in out.splitlines() if line.startswith("src/app/models.py"))
    # Stmts Miss Branch BrPart Cover Missing
    assert row.split()[1:6] == ["6", "2", "2", "1", "62.50%"]
    assert row.endswith("   4, 7")  # the partial branch 2->4 goes to a missed line: not repeated
    assert "FAIL: total branch coverage 62.50% is below 90%" in out


@pytest.mark.integration
def test_quiet_prints_the_verdict_and_only_the_files_below_it(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    code, out, _ = run(["-q", "--fail-under", "78", "--include", MODELS, "--include", DISPATCHER], capsys)
    assert code == 0
    assert out.splitlines() == ["OK: total branch coverage 78.57% >= 78%"]
    code, out, _ = run(["--quiet", "--fail-under", "90", "--include", MODELS, "--include", DISPATCHER], capsys)
    assert code == 1
    assert "src/app/models.py" in out and "tool_dispatcher.py" not in out  # 100%: not a reason to fail
    assert out.splitlines()[-1] == "FAIL: total branch coverage 78.57% is below 90%"


@pytest.mark.integration
def test_threshold_is_inclusive(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    assert run(["--fail-under", "62.5", "--include", MODELS], capsys)[0] == 0
    assert run(["--fail-under", "62.51", "--include", MODELS], capsys)[0] == 1


@pytest.mark.integration
def test_no_branch_counts_lines_only(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    code, out, _ = run(["--fail-under", "66", "--include", MODELS, "--no-branch"], capsys)
    assert code == 0
    assert "Branch" not in out
    assert "66.66%" in out  # 4/6, shown floored, never rounded up
    assert "line coverage" in out


@pytest.mark.integration
def test_branch_flag_needs_branch_data(tmp_path, cov_run, monkeypatch, capsys, write):
    write(tmp_path / "src" / "models.py", "x = 1\n")
    write(tmp_path / "run.py", "import sys; sys.path.insert(0, 'src'); import models\n")
    cov_run(tmp_path)  # no --branch
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["--fail-under", "50", "--include", "src/models.py", "--branch"], capsys)
    assert code == 2
    assert "without branch measurement" in err
    code, out, _ = run(["--fail-under", "50", "--include", "src/models.py"], capsys)
    assert code == 0 and "line coverage 100.00%" in out


@pytest.mark.integration
def test_per_file_requires_every_file(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    argv = ["--fail-under", "70", "--include", MODELS, "--include", DISPATCHER]
    assert run(argv, capsys)[0] == 0  # total 78.57%
    code, out, _ = run([*argv, "--per-file"], capsys)
    assert code == 1
    assert "FAIL: 1 file(s) below 70% branch coverage: src/app/models.py (62.50%)" in out


@pytest.mark.integration
def test_never_imported_file_counts_as_zero(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    code, out, _ = run(["--fail-under", "1", "--include", "src/app/unused.py", "--per-file"], capsys)
    assert code == 1
    assert "src/app/unused.py (never imported)" in out
    assert "0.00%" in out


@pytest.mark.integration
def test_files_on_disk_are_found_by_the_checkers_walker(project, monkeypatch, capsys, write):
    """A never-imported file the project ignores (.gitignore, extend-exclude) is not gated."""
    write(project / "src" / "app" / "generated" / "client.py", "def c():\n    return 1\n")
    write(project / "src" / "app" / "vendored.py", "def v():\n    return 1\n")
    write(project / ".gitignore", "generated/\n")
    write(project / "pyproject.toml", '[tool.dispatchguard]\nextend-exclude = ["vendored.py"]\n')
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    monkeypatch.chdir(project)
    code, out, _ = run(["--fail-under", "1", "--include", "src/app/**/*.py", "--no-branch"], capsys)
    assert code == 0, out
    assert "unused.py (never imported)" in out
    assert "generated" not in out and "vendored" not in out


@pytest.mark.integration
def test_missing_data_file_is_an_error(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    code, out, err = run(["--fail-under", "90", "--include", MODELS, "--data-file", "nope.db"], capsys)
    assert code == 2 and out == ""
    assert f"no coverage data file at {project / 'nope.db'}" in err


@pytest.mark.integration
def test_parallel_data_files_get_a_combine_hint(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    (project / ".coverage").rename(project / ".coverage.host.123.456")
    code, _, err = run(["--fail-under", "90", "--include", MODELS], capsys)
    assert code == 2
    assert ".coverage.host.123.456" in err and "coverage combine" in err


@pytest.mark.integration
def test_nothing_matched_names_the_patterns(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    code, _, err = run(["--fail-under", "90", "--include", "lib/**/nothing.py"], capsys)
    assert code == 2
    assert "'lib/**/nothing.py'" in err and str(project / ".coverage") in err


@pytest.mark.integration
def test_unmatched_pattern_among_matched_is_a_warning(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    code, out, _ = run(["--fail-under", "50", "--include", MODELS, "--include", "x/*.py"], capsys)
    assert code == 0
    assert "warning: pattern 'x/*.py' matched no file" in out


@pytest.mark.integration
def test_defaults_from_pyproject(project, monkeypatch, capsys, write):
    (project / ".coverage").rename(project / "cov.data")
    write(
        project / "pyproject.toml",
        """
        [tool.dispatchguard.coverage]
        fail-under = 90
        include = ["src/**/tool_dispatcher.py"]
        data-file = "cov.data"
        """,
    )
    sub = project / "src"
    monkeypatch.chdir(sub)  # config paths are relative to pyproject.toml, not the cwd
    code, out, err = run([], capsys)
    assert code == 0, err
    assert "src/app/tool_dispatcher.py" in out and "models.py" not in out
    # the command line wins over the configuration
    code, out, _ = run(["--fail-under", "100", "--include", "app/models.py", "--data-file", "../cov.data"], capsys)
    assert code == 1 and "app/models.py" in out


@pytest.mark.integration
def test_pyproject_coverage_exclusions_are_honoured(project, cov_run, monkeypatch, capsys, write):
    write(
        project / "pyproject.toml",
        """
        [tool.coverage.report]
        exclude_also = ["def g"]
        """,
    )
    monkeypatch.chdir(project)
    code, out, _ = run(["--fail-under", "70", "--include", MODELS, "--no-branch"], capsys)
    assert code == 0  # g() and its body excluded: 3/4 = 75%
    assert "75.00%" in out and "Missing" in out and out.count(", 7") == 0


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("fail-under = 'high'", "key 'fail-under': expected a number between 0 and 100, got 'high'"),
        ("fail-under = 120", "key 'fail-under': expected a number between 0 and 100, got 120"),
        ("include = [1]", "key 'include': expected a list of non-empty strings"),
        ("data-file = 3", "key 'data-file': expected a file name, got 3"),
        ("per-file = 'yes'", "key 'per-file': expected true or false, got 'yes'"),
        ("threshold = 3", "key 'threshold': unknown key (known keys: branch, data-file"),
        ("fail-under = [", "invalid TOML"),
    ],
)
def test_bad_configuration_is_a_clear_error(tmp_path, monkeypatch, capsys, write, toml, message):
    pyproject = write(tmp_path / "pyproject.toml", "[tool.dispatchguard.coverage]\n" + toml + "\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = run([], capsys)
    assert code == 2
    assert message in err and str(pyproject) in err


def test_configured_include_must_be_a_list(tmp_path, write):
    """As every list key: a bare string is an error that says how to write it."""
    pyproject = write(
        tmp_path / "pyproject.toml",
        "[tool.dispatchguard.coverage]\nfail-under = 90\ninclude = 'src/*.py'\nper-file = true\n",
    )
    with pytest.raises(gate.GateError, match=r"got the string 'src/\*\.py' \(write \['src/\*\.py'\]\)"):
        gate.resolve_options(cwd=tmp_path, pyproject=pyproject)
    write(pyproject, "[tool.dispatchguard.coverage]\nfail-under = 90\ninclude = ['src/*.py']\nper-file = true\n")
    options = gate.resolve_options(cwd=tmp_path, pyproject=pyproject)
    assert options.include == ("src/*.py",) and options.per_file
    assert options.data_file == tmp_path / ".coverage"


def test_missing_threshold_or_patterns(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["--include", "x.py"], capsys)
    assert code == 2 and "no threshold" in err
    code, _, err = run(["--fail-under", "90"], capsys)
    assert code == 2 and "no files to gate" in err
    code, _, err = run(["--fail-under", "101", "--include", "x.py"], capsys)
    assert code == 2 and "between 0 and 100" in err


@pytest.mark.integration
def test_hook_entry_ignores_file_names(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    code, _, _ = run(["--fail-under", "60", "--include", MODELS, "src/app/models.py", "run.py"], capsys)
    assert code == 0


@pytest.mark.integration
def test_unreadable_data_file(project, monkeypatch, capsys):
    (project / ".coverage").write_bytes(b"this is not sqlite at all" * 100)
    monkeypatch.chdir(project)
    code, _, err = run(["--fail-under", "60", "--include", MODELS], capsys)
    assert code == 2 and "cannot read coverage data" in err


@pytest.mark.integration
def test_router_subcommand_in_process(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    code = cli_main.main(["coverage", "--fail-under", "99", "--include", DISPATCHER])
    assert code == 0
    assert "100.00%" in capsys.readouterr().out


@pytest.mark.integration
def test_installed_command(project):
    """The real console script, as CI and the pre-push hook run it."""
    exe = Path(sys.executable).with_name("dispatchguard")
    proc = subprocess.run(
        [str(exe), "coverage", "--fail-under", "90", "--include", MODELS, "--include", DISPATCHER],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert "TOTAL" in proc.stdout and "FAIL" in proc.stdout


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("src/**/models.py", "src/models.py", True),
        ("src/**/models.py", "src/a/b/models.py", True),
        ("src/**/models.py", "src/a/b/models.pyc", False),
        ("src/*/models.py", "src/a/b/models.py", False),
        ("src/*.py", "src/a/x.py", False),
        ("**/x.py", "x.py", True),
        ("**/x.py", "/abs/path/x.py", True),
        ("./src/x?.py", "src/x1.py", True),
        ("src/[ab].py", "src/b.py", True),
        ("src/[!ab].py", "src/b.py", False),
        ("src/[!ab].py", "src/c.py", True),
        ("src/**", "src/a/b.py", True),
        ("src/[", "src/[", True),
    ],
)
def test_glob_to_regex(pattern, path, matches):
    assert bool(glob_to_regex(pattern).match(path)) is matches


def test_format_missing():
    assert format_missing([1, 2, 3, 5, 9, 10], [(4, 6), (2, 8), (7, -1), (6, 9)]) == "1-3, 4->6, 5, 7->exit, 9-10"
    assert format_missing([], []) == ""


def test_format_percent_never_rounds_up_to_threshold():
    assert format_percent(89.9999) == "89.99%"
    assert format_percent(100.0) == "100.00%"


def test_render_with_empty_file_is_full(tmp_path):
    options = gate.GateOptions(fail_under=90, include=("x",), data_file=tmp_path, base_dir=tmp_path)
    empty = gate.FileResult("pkg/__init__.py", 0, (), 0, (), 0, True, True)
    result = gate.GateResult([empty], options)
    out = io.StringIO()
    gate.render(result, out)
    assert result.passed and "100.00%" in out.getvalue()
