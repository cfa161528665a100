"""ruff's conventions for `check` through the real command: `--fix` with `--show-fixes` and
`--exit-non-zero-on-fix`, `--unsafe-fixes` that only makes fixes available, `-q`, `--output-file`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ..conftest import SELECT
from .conftest import run_cli

pytestmark = pytest.mark.integration

TOOL = """\
from crewai.tools import BaseTool


class Search(BaseTool):
    name: str = "search"

    def _run(self, query: str) -> str:
        return {"query": query}
"""


@pytest.fixture
def fixable(tmp_path: Path) -> Path:
    """A project whose one finding (DG103) has an unsafe fix and nothing else."""
    (tmp_path / "pyproject.toml").write_text("[tool.dispatchguard]\n", encoding="utf-8")
    (tmp_path / "tools.py").write_text(TOOL, encoding="utf-8")
    return tmp_path


def test_exit_non_zero_on_fix_and_show_fixes(fixable: Path) -> None:
    plain = run_cli("check", *SELECT, "--no-cache", "--fix", "--unsafe-fixes", cwd=fixable)
    assert plain.returncode == 0, plain.stderr  # everything fixed: nothing left to report
    assert "Fixed 1 finding in 1 file." in plain.stderr
    (fixable / "tools.py").write_text(TOOL, encoding="utf-8")
    done = run_cli(
        "check", *SELECT, "--no-cache", "--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", "--show-fixes", cwd=fixable
    )
    assert done.returncode == 1, done.stderr  # a file changed, though no finding remains
    assert done.stdout == ""
    assert done.stderr.startswith(
        "Fixed 1 finding:\n- tools.py:\n    1 × DG103 (tool-returns-non-json)\n"  # noqa: RUF001
    )
    again = run_cli("check", *SELECT, "--no-cache", "--fix", "--exit-non-zero-on-fix", cwd=fixable)
    assert again.returncode == 0, again.stderr  # nothing changed this time


def test_unsafe_fixes_without_fix_writes_nothing(fixable: Path) -> None:
    done = run_cli("check", *SELECT, "--no-cache", "--unsafe-fixes", cwd=fixable)
    assert done.returncode == 1
    assert "tools.py:8:16: DG103" in done.stdout
    assert (fixable / "tools.py").read_text(encoding="utf-8") == TOOL


@pytest.mark.parametrize("flag", ["--show-fixes", "--exit-non-zero-on-fix"])
def test_fix_reporting_options_need_fix(fixable: Path, flag: str) -> None:
    done = run_cli("check", flag, cwd=fixable)
    assert done.returncode == 2
    assert done.stderr == f"dispatchguard: error: {flag} reports on --fix: give --fix too\n"


def test_quiet_prints_the_findings_and_nothing_else(fixable: Path) -> None:
    done = run_cli("check", *SELECT, "--no-cache", "-q", cwd=fixable)
    assert done.returncode == 1
    assert done.stdout.startswith("tools.py:8:16: DG103 ") and done.stderr == ""
    fixed = run_cli("check", *SELECT, "--no-cache", "--quiet", "--fix", "--unsafe-fixes", cwd=fixable)
    assert fixed.returncode == 0 and fixed.stdout == "" and fixed.stderr == ""


def test_output_file(fixable: Path) -> None:
    done = run_cli("check", *SELECT, "--no-cache", "--output-format", "json", "-o", "report/out.json", cwd=fixable)
    assert done.returncode == 2 and "--output-file: cannot write report/out.json" in done.stderr
    (fixable / "report").mkdir()
    output = ("--output-format", "json", "--output-file", "report/out.json")
    done = run_cli("check", *SELECT, "--no-cache", *output, cwd=fixable)
    assert done.returncode == 1 and done.stdout == ""
    [item] = json.loads((fixable / "report" / "out.json").read_text(encoding="utf-8"))
    assert item["code"] == "DG103"
    text = run_cli("check", *SELECT, "--no-cache", "-o", "out.txt", cwd=fixable, env={"FORCE_COLOR": "1"})
    assert text.returncode == 1 and text.stderr.startswith("Found 1 finding")
    assert (fixable / "out.txt").read_text(encoding="utf-8").startswith("tools.py:8:16: DG103")  # never coloured


def test_every_check_option_is_documented() -> None:
    done = run_cli("check", "--help")
    assert done.returncode == 0
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", done.stdout)) - {"--help"}
    assert {"--add-noqa", "--output-file", "--quiet", "--show-fixes", "--exit-non-zero-on-fix"} <= options
    page = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    assert [o for o in sorted(options) if f"`{o}" not in page and f" {o}`" not in page] == []


def test_an_unknown_option_shows_the_usage_of_its_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    from dispatchguard.cli.main import main

    for command in ("check", "fix", "verify"):
        with pytest.raises(SystemExit) as stopped:
            main([command, "--bogus", "."])
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith(f"usage: dispatchguard {command} ")
        assert f"dispatchguard {command}: error: unrecognized arguments: --bogus" in err


def test_check_help_lists_every_rule_of_the_rule_table(capsys: pytest.CaptureFixture[str]) -> None:
    from dispatchguard.cli.main import main
    from dispatchguard.lint import RULES

    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = capsys.readouterr().out
    for code, rule in RULES.items():
        assert f"  {code} {rule.summary}{' (preview)' if rule.preview else ''}\n" in out


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda d: (d / "loop").symlink_to(d / "loop"), "a symbolic link loop (too many levels of symbolic links)"),
        (lambda d: (d / "loop").symlink_to(d / "gone.py"), "a symbolic link to {d}/gone.py, which does not exist"),
        (lambda d: None, "no such file or directory"),
    ],
)
def test_a_named_path_that_cannot_be_read_says_why(
    tmp_path: Path, make, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from dispatchguard.cli.main import main

    make(tmp_path)
    assert main(["check", str(tmp_path / "loop")]) == 2
    assert f"{tmp_path / 'loop'}: {reason.format(d=tmp_path)}" in capsys.readouterr().err
