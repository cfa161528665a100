"""Every tool `check` names is run or listed by `verify` (issue 33, item 3): the tools a class
body binds (`@tool` methods, static methods, class attributes holding tools, the idiom of
crewAI-examples) are verified; a tool that `verify` cannot build (made inside a function or a
method) is listed as not built, with why, never dropped; a path that does not exist is exit 2."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dispatchguard.lint import LintConfig, load_config
from dispatchguard.verify.discover import named_by_check, verify_targets

ROOT = Path(__file__).resolve().parents[2]
LINT_FIXTURES = ROOT / "tests" / "lint" / "fixtures"

CLASS_TOOLS = '''
import json

from langchain_core.tools import StructuredTool, tool


def _lookup(key: str) -> str:
    return json.dumps({"key": key})


class SearchTools:
    @tool("Search the internet")
    def search_internet(query: str) -> str:
        """Search the internet for a query."""
        return f"Results for {query}"

    @tool("save_dataset")
    @staticmethod
    def save_dataset(name: str) -> str:
        """Save a dataset."""
        return json.dumps({"saved": name})

    lookup = StructuredTool.from_function(func=_lookup, name="lookup", description="Look a key up.")


class Builder:
    def build(self):
        @tool
        def inner(q: str) -> str:
            """Inner."""
            return {"q": q}

        return inner
'''


def _class_tools(root: Path) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("", encoding="utf-8")
    (root / "app" / "tools.py").write_text(textwrap.dedent(CLASS_TOOLS), encoding="utf-8")
    (root / "pyproject.toml").write_text("[tool.dispatchguard.verify]\ncases = 2\n", encoding="utf-8")
    return root


def _case_trees(root: Path) -> Path:
    """The checker's DG103 and DG104 cases, each block a module of one tree."""
    root.mkdir()
    for code in ("DG103", "DG104"):
        text = (ROOT / "tests" / "lint" / "cases" / f"{code}.py").read_text(encoding="utf-8")
        for number, block in enumerate(re.split(r"^# case: ", text, flags=re.M)[1:]):
            (root / f"case_{code.lower()}_{number:03d}.py").write_text("# case: " + block, encoding="utf-8")
    return root


def _trees(tmp_path: Path) -> list[Path]:
    lint_trees = sorted(p for p in LINT_FIXTURES.iterdir() if p.is_dir())
    return [*lint_trees, _class_tools(tmp_path / "class_tools"), _case_trees(tmp_path / "cases")]


def test_every_tool_check_names_is_run_or_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On every fixture tree: each tool a DG103/DG104 finding names is a verify target, as itself
    or as the module-level tool built from it there (``lookup = StructuredTool.from_function(func=_lookup)``)."""
    counted = 0
    for root in _trees(tmp_path):
        monkeypatch.chdir(root)
        config = load_config([root]) if (root / "pyproject.toml").exists() else LintConfig(root=root)
        targets = verify_targets(["."], config)
        named = named_by_check(["."], config)
        counted += len(named)
        for path, _, code, name in named:
            here = [t for t in targets if t.path == path]
            source = (root / path).read_text(encoding="utf-8").splitlines()
            mentions = re.compile(rf"\b{re.escape(name)}\b")
            built_from = [t for t in here if t.kind != "listed" and mentions.search(source[t.line - 1])]
            assert any(t.name == name for t in here) or built_from, (root.name, path, code, name)
    assert counted > 100  # the cases name over a hundred tools


@pytest.mark.integration
def test_class_body_tools_are_verified_and_a_tool_made_in_a_method_is_listed(tmp_path: Path) -> None:
    root = _class_tools(tmp_path / "class_tools")
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify", "--output-format", "json", "-j", "2"],
        cwd=root, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    reports = {r["tool"]: r for r in json.loads(done.stdout)}
    assert set(reports) == {
        "app.tools.SearchTools.search_internet",
        "app.tools.SearchTools.save_dataset",
        "app.tools.SearchTools.lookup",
        "app.tools.Builder.build.inner",
    }
    search = reports["app.tools.SearchTools.search_internet"]
    assert (search["status"], search["code"], search["line"]) == ("violation", "DG104", 13)
    assert search["detail"].startswith("returned text that is not JSON (Expecting value): 'Results for")
    assert reports["app.tools.SearchTools.save_dataset"]["status"] == "verified"
    assert reports["app.tools.SearchTools.lookup"]["status"] == "verified"
    inner = reports["app.tools.Builder.build.inner"]
    assert inner["status"] == "not_built"
    assert inner["detail"].startswith("check names it (DG104), but made a tool inside `Builder.build`")
    assert "4 tools found: 2 verified, 1 broke the contract, 1 not built." in done.stderr


@pytest.mark.integration
def test_a_factory_builds_a_listed_tool(tmp_path: Path) -> None:
    root = _class_tools(tmp_path / "class_tools")
    with open(root / "app" / "tools.py", "a", encoding="utf-8") as tools:
        tools.write("\n\ndef make_inner():\n    return Builder().build()\n")
    (root / "pyproject.toml").write_text(
        '[tool.dispatchguard.verify]\ncases = 2\nexclude = ["app.tools.SearchTools.*"]\n'
        '[tool.dispatchguard.verify.factories]\n"app.tools.Builder.build.inner" = "app.tools:make_inner"\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify", "--output-format", "json"],
        cwd=root, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    [inner] = json.loads(done.stdout)
    assert (inner["tool"], inner["status"]) == ("app.tools.Builder.build.inner", "violation"), inner
    assert inner["detail"].startswith("returned dict, not str")


@pytest.mark.integration
@pytest.mark.parametrize("command", [["verify"], ["fix", "--verify"]])
def test_a_path_that_does_not_exist_is_exit_2(tmp_path: Path, command: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", *command, "no/such/folder"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "no/such/folder: no such file or directory" in done.stderr
    assert os.listdir(tmp_path) == []
