"""The pylint front end: real pylint, in a subprocess, reports what `dispatchguard check` reports,
on the newsroom example and on a synthetic project (noqa, unused noqa, exclusions, pylint's own
disables, a broken configuration)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dispatchguard.lint import RULES
from dispatchguard.pylint import CODES, MESSAGE_IDS
from tests.conftest import about

pytestmark = pytest.mark.slow
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "newsroom" / "violating"
Found = set[tuple[str, int, int, str, str]]


def run_pylint(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable, "-m", "pylint", "--load-plugins=dispatchguard.pylint", "--persistent=n",
            "--disable=all", "--enable=dispatchguard", "--score=n", *args,
        ],
        cwd=root, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip


def pylint_findings(root: Path, *targets: str) -> Found:
    done = run_pylint(root, "--output-format=json", "--recursive=y", *targets)
    assert done.returncode & (1 | 32) == 0, done.stderr  # neither fatal nor a usage error
    found = set()
    for item in json.loads(done.stdout):
        code = CODES[item["message-id"]]
        assert item["symbol"] == RULES[code].name
        found.add((Path(item["path"]).as_posix(), item["line"], item["column"] + 1, code, item["message"]))
    return found


def cli_findings(root: Path) -> Found:
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "check", "--no-cache", "--output-format", "json", "."],
        cwd=root, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return {
        (Path(item["filename"]).relative_to(root).as_posix(), item["location"]["row"], item["location"]["column"],
         item["code"], item["message"])
        for item in json.loads(done.stdout)
    }  # fmt: skip


def test_message_ids_are_pylints_letter_and_four_digits():
    assert MESSAGE_IDS["DG101"] == "W9101" and MESSAGE_IDS["DG001"] == "E9001" and MESSAGE_IDS["DG002"] == "W9002"
    assert set(MESSAGE_IDS) == set(RULES)
    assert all(re.fullmatch(r"[EW]9\d{3}", msgid) for msgid in MESSAGE_IDS.values())


def test_the_newsroom_example_gives_the_same_findings(tmp_path):
    root = tmp_path / "violating"
    shutil.copytree(EXAMPLE, root)
    cli = cli_findings(root)
    assert len(about(cli)) == 20
    assert pylint_findings(root, "newsroom") == cli


PROJECT = {
    "pyproject.toml": """
        [tool.dispatchguard]
        extend-exclude = ["generated"]
    """,
    "app/__init__.py": "",
    "app/tools.py": """
        from crewai.tools import BaseTool


        class Search(BaseTool):
            name: str = "search"

            def _run(self, query: str) -> str:
                return {"query": query}
    """,
    "app/agent.py": """
        from app.tools import Search


        def plan(query):
            tool = Search()
            label = "café"; tool.run(query=label)
            tool.run(query=query)  # noqa: DG101
            tool.run(query="stale")  # noqa: DG101, DG103
            return tool.run(query=query)  # pylint: disable=direct-tool-call
    """,
    "generated/agent.py": """
        from app.tools import Search

        Search().run(query="x")
    """,
}


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def test_a_synthetic_project_gives_the_same_findings_but_pylints_own_disables(tmp_path):
    root = write(tmp_path / "proj", PROJECT)
    cli = cli_findings(root)
    assert {(path, line, code) for path, line, _, code, _ in about(cli)} == {
        ("app/agent.py", 5, "DG102"),
        ("app/agent.py", 6, "DG101"),  # after a non-ASCII string: columns count characters in both
        ("app/agent.py", 8, "DG002"),  # DG103 silences nothing there
        ("app/agent.py", 9, "DG101"),
        ("app/tools.py", 8, "DG103"),
    }
    disabled = {f for f in cli if f[1] == 9}
    assert pylint_findings(root, "app", "generated") == cli - disabled


def test_a_broken_configuration_is_one_e9001_per_module(tmp_path):
    root = write(tmp_path / "proj", {"pyproject.toml": '[tool.dispatchguard]\nselect = ["DG999"]\n', "a.py": "x = 1\n"})
    done = run_pylint(root, "--output-format=json", "a.py")
    (item,) = json.loads(done.stdout)
    assert (item["message-id"], item["symbol"], item["line"]) == ("E9001", "unparsable-file", 1)
    assert "DG999" in item["message"] and "pyproject.toml" in item["message"]
    assert done.returncode & 2  # pylint's "an error was issued" bit


def test_pylint_describes_the_messages(tmp_path):
    done = run_pylint(tmp_path, "--help-msg=direct-tool-call")
    assert ":direct-tool-call (W9101):" in done.stdout
    assert "DG101" in done.stdout and "docs/rules/DG101.md" in done.stdout
