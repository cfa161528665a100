"""`dispatchguard check --add-noqa[=REASON]` through the real command: every finding silenced in
place, existing codes kept, files never broken or half-written."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import SELECT
from .conftest import run_cli, write_tree

pytestmark = pytest.mark.integration

AGENT = """\
from app.tools import Search


def plan(query):
    tool = Search()  # a comment
    return tool.run(query=query)  # noqa: E501


def quiet(query):
    Search()  # noqa
"""


def test_adds_codes_keeps_existing_ones_and_rechecks(project: Path) -> None:
    (project / "app" / "agent.py").write_text(AGENT, encoding="utf-8")
    done = run_cli("check", *SELECT, "--add-noqa", "--no-cache")
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "Added 3 noqa directives in 2 files."
    text = (project / "app" / "agent.py").read_text(encoding="utf-8").splitlines()
    assert text[4] == "    tool = Search()  # a comment  # noqa: DG102"
    assert text[5] == "    return tool.run(query=query)  # noqa: E501, DG101"
    assert text[9] == "    Search()  # noqa"
    assert (project / "app" / "tools.py").read_text().splitlines()[9].endswith("  # noqa: DG103")
    after = run_cli("check", *SELECT, "--no-cache")
    assert after.returncode == 0 and after.stdout == ""
    again = run_cli("check", *SELECT, "--add-noqa", "--no-cache")
    assert again.stderr.strip() == "Added 0 noqa directives in 0 files."


def test_reason_and_line_endings(project: Path) -> None:
    (project / "app" / "agent.py").write_bytes(b"from app.tools import Search\r\n\r\nSearch().run('x')\r\n")
    mode = (project / "app" / "agent.py").stat().st_mode
    done = run_cli("check", *SELECT, "--add-noqa=adopted 2026-11", "app/agent.py")
    assert done.returncode == 0, done.stderr
    data = (project / "app" / "agent.py").read_bytes()
    assert data == b"from app.tools import Search\r\n\r\nSearch().run('x')  # noqa: DG101, DG102 adopted 2026-11\r\n"
    assert (project / "app" / "agent.py").stat().st_mode == mode
    assert sorted(p.name for p in (project / "app").iterdir()) == ["__init__.py", "agent.py", "tools.py"]


def test_a_line_inside_a_string_is_left_alone_and_counted(project: Path) -> None:
    body = 'from app.tools import Search\n\nx = [Search(), """\n"""]\ny = Search().run(\\\n  "q")\n'
    (project / "app" / "agent.py").write_text(body, encoding="utf-8")
    done = run_cli("check", *SELECT, "--add-noqa", "--no-cache", "app/agent.py")
    assert done.returncode == 1
    assert "2 lines left alone (the line ends inside a string or a continuation): app/agent.py:3, app/agent.py:5" in (
        done.stderr
    )
    assert "still reported after the edit" not in done.stderr  # nothing was written
    assert (project / "app" / "agent.py").read_text(encoding="utf-8") == body


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--add-noqa", "--fix"], "--add-noqa cannot be combined with --fix or --write-baseline"),
        (["--add-noqa", "-"], "--add-noqa writes files and cannot be used on standard input"),
        (["--add-noqa=why", "--", "-"], "--add-noqa writes files and cannot be used on standard input"),
        (["--add-noqa=a\nb"], "--add-noqa: the reason must be on one line"),
    ],
)
def test_bad_add_noqa_usage(project: Path, args: list[str], message: str) -> None:
    before = {p: p.read_bytes() for p in project.rglob("*.py")}
    done = run_cli("check", *SELECT, *args)
    assert done.returncode == 2
    assert done.stderr.startswith(f"dispatchguard: error: {message}")
    assert {p: p.read_bytes() for p in project.rglob("*.py")} == before


def test_the_bare_option_never_takes_a_path(tmp_path: Path) -> None:
    """`--add-noqa a.py b.py` adds directives to both files: a reason needs `=`, as in ruff."""
    write_tree(tmp_path, {"pyproject.toml": "[tool.dispatchguard]\n", "a.py": "y._run()\n", "b.py": "z._run()\n"})
    done = run_cli("check", *SELECT, "--add-noqa", "a.py", "b.py", "--no-cache", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "Added 2 noqa directives in 2 files."
    assert (tmp_path / "a.py").read_text() == "y._run()  # noqa: DG101\n"
    assert (tmp_path / "b.py").read_text() == "z._run()  # noqa: DG101\n"
    quiet = run_cli("check", *SELECT, "-q", "--add-noqa=later", "a.py", cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == ""


def test_a_reason_after_the_option_end_is_a_file_name(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": "[tool.dispatchguard]\n", "--add-noqa=x.py": "y._run()\n"})
    done = run_cli("check", *SELECT, "--add-noqa", "--", "--add-noqa=x.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "--add-noqa=x.py").read_text() == "y._run()  # noqa: DG101\n"


def test_the_option_end_separates_a_path(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": "[tool.dispatchguard]\n", "app/a.py": "y._run()\n"})
    done = run_cli("check", *SELECT, "--add-noqa", "--", "app", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "app" / "a.py").read_text() == "y._run()  # noqa: DG101\n"
