"""Every list of rule codes and hooks comes from the tables (issue 36): the rule index, the
README's and docs/cli.md's lists and CONTRIBUTING's hook table are written by
``scripts/rules_index.py``; ``check --help``, the pylint messages and the flake8 prefix read the
table themselves. Each test fails when one of them disagrees with ``RULES`` or ``HOOKS``."""

from __future__ import annotations

import importlib.util
import re
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from dispatchguard.cli.check import DESCRIPTION
from dispatchguard.lint.rule import HOOKS
from dispatchguard.lint.rules import RULES, listed
from dispatchguard.pylint import checkers, message_id

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def load_script():
    spec = importlib.util.spec_from_file_location("rules_index", ROOT / "scripts" / "rules_index.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("rules_index", module)
    spec.loader.exec_module(module)
    return module


SCRIPT = load_script()


def region(path: Path, name: str) -> str:
    text = path.read_text(encoding="utf-8")
    match = re.search(rf"<!-- begin {name}:[^\n]*-->\n(.*?)<!-- end {name} -->", text, re.S)
    assert match, f"{path.name} has no {name} region"
    return match[1]


def test_every_generated_list_is_up_to_date() -> None:
    stale = [path.relative_to(ROOT).as_posix() for path in SCRIPT.stale()]
    assert not stale, f"out of date (run python scripts/rules_index.py): {stale}"


@pytest.mark.parametrize(
    ("path", "link"),
    [(ROOT / "README.md", "[{code}](docs/rules/{code}.md)"), (ROOT / "docs" / "cli.md", "  {code} ")],
)
def test_the_docs_lists_name_every_rule_out_of_preview_and_no_other(path: Path, link: str) -> None:
    text = region(path, "rules")
    assert set(re.findall(r"DG\d{3}", text)) == set(listed())
    for code in listed():
        assert link.format(code=code) in text


def test_the_rule_index_lists_the_rules_out_of_preview() -> None:
    index = (ROOT / "docs" / "rules" / "README.md").read_text(encoding="utf-8")
    table = index[: index.index("## Terms")]
    assert set(re.findall(r"\[(DG\d{3})\]", table)) == set(listed())


def test_check_help_lists_every_rule_and_marks_those_in_preview() -> None:
    listed_in_help = dict(re.findall(r"^  (DG\d{3}) (.+)$", DESCRIPTION, re.M))
    assert set(listed_in_help) == set(RULES)
    for code, rule in RULES.items():
        assert listed_in_help[code] == rule.summary + (" (preview)" if rule.preview else "")


def test_contributing_lists_every_hook_of_the_table_and_nothing_else() -> None:
    text = region(ROOT / "CONTRIBUTING.md", "hooks")
    assert re.findall(r"^\| `(\w+)` \|", text, re.M) == [hook.field for hook in HOOKS]


HOOK_NAME = re.compile("|".join(re.escape(hook.field) for hook in HOOKS))


def test_no_hook_list_is_written_out_by_hand() -> None:
    """Outside the table (lint/rule.py) and the generated region, no file names two hooks."""
    files = [*sorted((ROOT / "src").rglob("*.py")), *sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    texts = {path: path.read_text(encoding="utf-8") for path in files if path.name != "rule.py"}
    texts[ROOT / "CONTRIBUTING.md"] = re.sub(r"<!-- begin hooks:.*?<!-- end hooks -->", "", contributing, flags=re.S)
    listing = {path.relative_to(ROOT).as_posix(): names for path, text in texts.items()
               if len(names := set(HOOK_NAME.findall(text))) > 1}  # fmt: skip
    assert not listing


def test_the_pylint_messages_are_the_rule_table() -> None:
    messages = {msgid: msg for checker in checkers() for msgid, msg in checker.msgs.items()}
    assert messages.keys() == {message_id(code) for code in RULES}
    assert {msg[1] for msg in messages.values()} == {rule.name for rule in RULES.values()}


def test_the_flake8_prefix_and_ruffs_external_cover_every_code() -> None:
    (plugin,) = [e for e in entry_points(group="flake8.extension") if e.value.startswith("dispatchguard.")]
    assert all(code.startswith(plugin.name) for code in RULES)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["entry-points"]["flake8.extension"] == {plugin.name: plugin.value}
    assert plugin.name in pyproject["tool"]["ruff"]["lint"]["external"]


def test_the_fixture_projects_select_the_codes_the_tests_are_about() -> None:
    """The fix projects' configurations write ``tests.conftest.ABOUT`` out (a TOML file cannot import it)."""
    from ..conftest import ABOUT_SELECT

    projects = sorted((ROOT / "tests" / "fixes" / "projects").glob("*/pyproject.toml"))
    selecting = [p for p in projects if "[tool.dispatchguard]" in p.read_text(encoding="utf-8")]
    assert selecting
    for path in selecting:
        assert ABOUT_SELECT in path.read_text(encoding="utf-8").splitlines(), path
