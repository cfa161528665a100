"""CONTRIBUTING's recipe for a new rule, proven (issue 36): in a copy of the repository, a
throwaway rule is added exactly as the recipe says (a rule module in preview, its case file, its
docs page: "DG105, a tool class with no description", numbered DG199 here to stay out of the
way), and the fast layer of the checker passes there, with the rule's own tests among those run
and no other file changed. The rule uses the class hook: no core file is touched."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CODE = "DG199"
#: caches and outputs the run may leave; everything else must be as it was, but the rule's files
SKIPPED_PARTS = frozenset({"__pycache__", ".dispatchguard_cache", ".pytest_cache", ".hypothesis", ".ruff_cache"})

RULE_MODULE = f'''\
"""{CODE}: a tool class declares no description."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from dispatchguard.lint.rule import Rule
from dispatchguard.lint.rules.examples import snippet

if TYPE_CHECKING:
    from dispatchguard.lint.rule import RuleContext


def _declares(node: ast.ClassDef, name: str) -> bool:
    for stmt in node.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        if any(isinstance(target, ast.Name) and target.id == name for target in targets):
            return True
    return False


def check_tool_class(ctx: RuleContext, node: ast.ClassDef) -> None:
    """Report {CODE} for a tool class that declares no ``description``."""
    if not _declares(node, "description"):
        ctx.report(node, RULE.code, RULE.message.format(name=node.name))


RULE = Rule(
    code="{CODE}",
    name="tool-without-description",
    summary="Tool class without a description",
    message="tool class `{{name}}` has no description: the model chooses tools by it",
    check_tool_class=check_tool_class,
    no_fix_reason="no automatic fix: say what the tool does, for the model",
    preview=True,
    valid=(
        snippet("""
            from crewai.tools import BaseTool

            class Search(BaseTool):
                name: str = "search"
                description: str = "Search the web."
        """),
    ),
    invalid=(
        snippet("""
            from crewai.tools import BaseTool

            class Search(BaseTool):  # error: {CODE}
                name: str = "search"
        """),
    ),
)
'''

CASES = f"""\
# case: valid a tool class with a description
from crewai.tools import BaseTool


class Search(BaseTool):
    name: str = "search"
    description: str = "Search the web."


# case: invalid a tool class without one
from crewai.tools import BaseTool


class Fetch(BaseTool):  # error: {CODE}:1 tool class `Fetch` has no description: the model chooses tools by it
    name: str = "fetch"


# case: valid a class that is not a tool
class Helper:
    name: str = "helper"
"""

PAGE = f"""\
# tool-without-description ({CODE})

## What it does

Reports a tool class that declares no `description`.

## Why is this bad?

The model chooses a tool by its name and description.

## Example

```python
from crewai.tools import BaseTool


class Search(BaseTool):
    name: str = "search"
```

## Use instead

```python
from crewai.tools import BaseTool


class Search(BaseTool):
    name: str = "search"
    description: str = "Search the web."
```

## Fix safety

No automatic fix.

## Options

None.
"""

#: what CONTRIBUTING's recipe adds, relative to the repository
ADDED = {
    f"src/dispatchguard/lint/rules/{CODE.lower()}_tool_without_description.py": RULE_MODULE,
    f"tests/lint/cases/{CODE}.py": CASES,
    f"docs/rules/{CODE}.md": PAGE,
}


def tracked_files() -> list[str]:
    done = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("not a git checkout: the repository's files are not known")
    return [name for name in done.stdout.decode().split("\0") if name and (ROOT / name).is_file()]


def snapshot(root: Path) -> dict[str, str]:
    out = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if path.is_file() and not SKIPPED_PARTS.intersection(rel.parts):
            out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def pytest_in(copy: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    # the copy's sources first: the package installed for the tests is this checkout's, editable;
    # not measured by the suite's coverage (a copy's lines are not this checkout's, and coverage
    # would double the run's CPU)
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(copy / "src"), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pytest", *argv, "-p", "no:cacheprovider"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def recipe_command(copy: Path) -> list[str]:
    """The arguments of the recipe's ``pytest`` command, globs expanded in ``copy``."""
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    recipe = contributing[contributing.index("## Adding a rule") :]
    command = re.search(r"Run the fast layer of the checker: `\.venv/bin/pytest ([^`]+)`", recipe)
    assert command, "CONTRIBUTING's recipe names the command this test runs"
    args = [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', command[1])]
    return [a for a in args if "*" not in a] + [
        p.relative_to(copy).as_posix() for a in args if "*" in a for p in sorted(copy.glob(a))
    ]


#: a line of ``pytest -v``: ``tests/x.py::test[id with spaces] PASSED [ 12%]``
OUTCOME = re.compile(r"^(?P<id>\S+::.+?) (?P<outcome>PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b.*\[\s*\d+%\]$")


def copy_of_the_repository(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    for name in tracked_files():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    assert not any((copy / rel).exists() for rel in ADDED), f"{CODE} exists already: pick another code"
    return copy


def changes(before: dict[str, str], after: dict[str, str]) -> tuple[list[str], list[str]]:
    """(files changed, files added)."""
    return sorted(rel for rel in before if after.get(rel) != before[rel]), sorted(set(after) - set(before))


def run_recipe(copy: Path, tests_before: set[str], *only: str) -> list[str]:
    """Run the recipe's command in ``copy`` (``only``: with ``-k`` and these names); every test
    passes; the new tests, all the rule's own."""
    done = pytest_in(copy, *recipe_command(copy), *(("-k", " or ".join(only)) if only else ()), "-v")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    outcomes = {m["id"]: m["outcome"] for line in done.stdout.splitlines() if (m := OUTCOME.match(line))}
    if not only:
        assert outcomes.keys() >= tests_before  # every test that ran before runs, and passes (returncode 0)
    new = sorted(set(outcomes) - tests_before)
    assert new and all(CODE in test for test in new), [t for t in new if CODE not in t]
    assert any("test_case[" in t for t in new) and any("test_rule_has_a_page" in t for t in new)
    print(f"{len(outcomes)} tests ran, all passed; {len(new)} new, all {CODE}'s own")
    return new


def collected(copy: Path) -> set[str]:
    done = pytest_in(copy, *recipe_command(copy), "-q", "--collect-only")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {line for line in done.stdout.splitlines() if "::" in line}


#: what taking a rule out of preview changes besides its module: the lists scripts/rules_index.py writes
LISTS = ["README.md", "docs/cli.md", "docs/rules/README.md"]


@pytest.mark.integration
def test_a_rule_added_by_the_recipe_touches_only_its_own_files_in_and_out_of_preview(tmp_path: Path) -> None:
    """In preview, the rule's three files and nothing else, its own tests and the lists' passing;
    out of preview (reporting in the front-end and fixture tests' projects, which compare only the
    codes they are about), the generated lists besides, and no other test of the recipe's run (the
    fast layer of the checker, the cost of this test) changes its outcome. A rule reports more out
    of preview than in it, so the whole run is made there only."""
    copy = copy_of_the_repository(tmp_path)
    tests_before, before = collected(copy), snapshot(copy)
    for rel, text in ADDED.items():
        (copy / rel).write_text(text, encoding="utf-8")

    run_recipe(copy, tests_before, CODE, "test_rule_lists")
    changed, added = changes(before, snapshot(copy))
    assert changed == []
    assert added == sorted(ADDED)

    for rel, text in ADDED.items():
        (copy / rel).write_text(text.replace("    preview=True,\n", ""), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(copy / "src")}
    script = [sys.executable, "scripts/rules_index.py"]
    subprocess.run(script, cwd=copy, env=env, check=True, capture_output=True)

    run_recipe(copy, tests_before)
    changed, added = changes(before, snapshot(copy))
    assert changed == LISTS
    assert added == sorted(ADDED)
    assert f"[{CODE}](docs/rules/{CODE}.md)" in (copy / "README.md").read_text(encoding="utf-8")


def test_the_recipe_in_contributing_adds_what_this_test_adds() -> None:
    recipe = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    recipe = recipe[recipe.index("## Adding a rule") : recipe.index("When the rule leaves preview")]
    for path in ("src/dispatchguard/lint/rules/dgNNN_<name>.py", "tests/lint/cases/DGNNN.py", "docs/rules/DGNNN.md"):
        assert f"`{path}`" in recipe
    assert "preview=True" in recipe and "Three files" in recipe
    assert textwrap.dedent(RULE_MODULE).count("preview=True") == 1
