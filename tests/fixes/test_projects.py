"""The fixer on the fixture projects under projects/, each with its own registry, dispatcher (or
dispatchguard's), dataclasses with a hand-written ``model_dump``, pydantic models, LangChain
``@tool`` functions (desk), isort settings and test suite. Every step runs the real programs in a
copy: the project's tests (pytest, in a subprocess), ``dispatchguard check``/``fix`` and
``ruff check --select I``.

What the tiers must do:
- ``fix`` (safe fixes only) never makes a passing test fail;
- ``fix --unsafe-fixes`` rewrites DG101 calls towards the project's own dispatcher with the names
  its registry uses, ``model_dump_json`` only on pydantic models; the tests that fail afterwards
  are exactly those that use a tool's raw return value directly (what "unsafe" means);
- after either, ruff's isort rule is clean and a second run changes nothing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from ..conftest import SELECT
from .conftest import PROJECTS, copy_project, run_tests

pytestmark = pytest.mark.integration

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")

#: Per project: tests that fail after --unsafe-fixes (they read a tool's dict return directly).
BROKEN_BY_UNSAFE = {
    "shop": {"test_in_stock", "test_price", "test_level_tool_directly"},
    "notes": set(),
    "desk": {"test_multiply_directly"},  # calls the undecorated func= target by name
}


def dispatchguard(project: Path, command: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``dispatchguard check`` or ``fix`` on the codes these tests are about (a ``--select`` given wins)."""
    return subprocess.run(
        [sys.executable, "-m", "dispatchguard", command, *SELECT, *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )


def findings(project: Path) -> Counter[str]:
    proc = dispatchguard(project, "check", "--no-cache", "--output-format", "json", ".")
    assert proc.returncode in (0, 1), proc.stderr
    return Counter(f["code"] for f in json.loads(proc.stdout))


def sources(project: Path) -> dict[str, str]:
    return {p.relative_to(project).as_posix(): p.read_text() for p in sorted(project.rglob("*.py"))}


def isort_clean(project: Path) -> None:
    assert RUFF is not None, "ruff is a dev dependency"
    proc = subprocess.run(
        [RUFF, "check", "--select", "I", "--no-cache", "."], cwd=project, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("name", sorted(BROKEN_BY_UNSAFE))
def test_safe_fixes_keep_the_tests_green(name: str, tmp_path: Path):
    project = copy_project(name, tmp_path)
    passed, failed = run_tests(project)
    assert passed > 0 and failed == set()
    before = findings(project)
    assert before

    proc = dispatchguard(project, "fix", "--no-cache", ".")
    assert proc.returncode == 1, proc.stderr  # findings remain (the unsafe ones)
    assert run_tests(project) == (passed, set())
    isort_clean(project)
    once = sources(project)
    again = dispatchguard(project, "fix", "--no-cache", ".")
    assert "Nothing to fix." in again.stderr and again.returncode == (1 if findings(project) else 0)
    assert sources(project) == once  # idempotent


@pytest.mark.parametrize("name", sorted(BROKEN_BY_UNSAFE))
def test_unsafe_fixes_break_only_direct_uses(name: str, tmp_path: Path):
    project = copy_project(name, tmp_path)
    passed, _ = run_tests(project)
    proc = dispatchguard(project, "fix", "--no-cache", "--unsafe-fixes", ".")
    assert proc.returncode in (0, 1), proc.stderr
    after_passed, failed = run_tests(project)
    assert failed == BROKEN_BY_UNSAFE[name]
    assert after_passed == passed - len(failed)
    isort_clean(project)
    once = sources(project)
    proc = dispatchguard(project, "fix", "--no-cache", "--unsafe-fixes", ".")
    assert "Nothing to fix." in proc.stderr
    assert sources(project) == once


def test_shop_rewrites_through_its_dispatcher(tmp_path: Path):
    project = copy_project("shop", tmp_path)
    assert findings(project) == Counter({"DG101": 3, "DG103": 3})
    proc = dispatchguard(project, "fix", "--no-cache", ".")
    assert "6 more fixable with --unsafe-fixes" in proc.stderr
    assert sources(project) == sources(PROJECTS / "shop")  # every fix here is unsafe

    dispatchguard(project, "fix", "--no-cache", "--unsafe-fixes", ".")
    service = (project / "shop" / "service.py").read_text()
    assert 'run_tool("calculator", {"a": a, "b": b})' in service
    assert '"item": item,  # the item\'s name' in service  # comments inside the call are kept
    assert "from shop.dispatcher import run_tool\nfrom shop.tool_registry import TOOLS\n" in service
    assert "ToolAction" not in service and "dispatchguard" not in service
    tools = (project / "shop" / "tools.py").read_text()
    # the shop's dispatcher makes `json.dumps(result)` of what is not text: the fixed tools make that very
    # text (not pydantic's model_dump_json(), whose spacing differs), so run_tool answers as before
    assert "return json.dumps(quote.model_dump())" in tools  # Quote is a pydantic model
    assert "return json.dumps(level.model_dump())" in tools  # Level is a dataclass
    assert "ensure_json_str" not in tools  # the shop does not depend on dispatchguard
    assert 'json.dumps(run_tool("quote", {"item": item}))' in service  # tool = TOOLS["quote"]
    assert findings(project) == Counter()


def test_notes_safe_fixes_wrap_in_ensure_json_str(tmp_path: Path):
    project = copy_project("notes", tmp_path)
    assert findings(project) == Counter({"DG103": 3})
    proc = dispatchguard(project, "fix", "--no-cache", ".")
    assert "Fixed 3 findings in 1 file." in proc.stderr, proc.stderr
    tools = (project / "notes" / "tools.py").read_text()
    assert "return ensure_json_str(stats.model_dump())" in tools  # Stats is a dataclass
    assert "return ensure_json_str(None)" in tools
    assert "from dispatchguard import TOOL_REGISTRY, ensure_json_str\n" in tools
    assert findings(project) == Counter()


def test_without_a_project_dispatcher_dg101_uses_dispatchguards_with_the_registered_name(tmp_path: Path):
    """notes registers its tools in dispatchguard's TOOL_REGISTRY and configures no dispatcher of
    its own: the rewrite is dispatchguard's dispatch_tool, and the rewritten code runs."""
    project = copy_project("notes", tmp_path)
    (project / "notes" / "digest.py").write_text(
        '"""Calls a tool directly."""\n\nfrom notes.tools import TagsTool\n\n\n'
        "def tags_of(text: str):\n    return TagsTool().run(text=text)\n"
    )
    proc = dispatchguard(project, "fix", "--no-cache", "--unsafe-fixes", "--select", "DG101", ".")
    assert "DG101 fixed" in proc.stdout, proc.stdout + proc.stderr
    digest = (project / "notes" / "digest.py").read_text()
    assert 'return dispatch_tool(ToolAction(name="tags", args={"text": text}))' in digest
    # TagsTool is no longer used, but importing notes.tools registers the tools: the import stays
    assert "from dispatchguard import ToolAction, dispatch_tool\n\nfrom notes.tools import TagsTool\n" in digest
    isort_clean(project)
    ran = subprocess.run(
        [sys.executable, "-c", "from notes.digest import tags_of; print(tags_of('a #b #c'))"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(ran.stdout) == ["b", "c"]


def test_a_registry_the_dispatcher_does_not_read_gives_no_name(tmp_path: Path):
    project = copy_project("shop", tmp_path)
    (project / "shop" / "extra_registry.py").write_text(
        "from shop.tools import CalculatorTool\n\nEXTRA = {'calc-2': CalculatorTool()}\n"
    )
    (project / "shop" / "report.py").write_text(
        "from shop.tools import CalculatorTool\n\n\ndef add() -> str:\n    return CalculatorTool()._run(a=1, b=2)\n"
    )
    proc = dispatchguard(project, "fix", "--no-cache", "--unsafe-fixes", "--select", "DG101", "shop/report.py")
    assert 'run_tool("calculator", {"a": 1, "b": 2})' in (project / "shop" / "report.py").read_text(), proc.stdout
    assert "calc-2" not in (project / "shop" / "report.py").read_text()


def test_desk_safe_fixes_only_the_tool_functions_nothing_else_calls(tmp_path: Path):
    """desk registers its LangChain tool functions in TOOL_REGISTRY and its tests go through
    dispatch_tool; one test calls ``multiply``, the ``func=`` target of a StructuredTool, by name."""
    project = copy_project("desk", tmp_path)
    assert findings(project) == Counter({"DG104": 5})
    proc = dispatchguard(project, "fix", "--no-cache", ".")
    assert "Fixed 4 findings in 1 file. 1 finding remains. 1 more fixable with --unsafe-fixes." in proc.stderr
    tools = (project / "desk" / "tools.py").read_text()
    assert "return ensure_json_str(None)" in tools
    assert 'return ensure_json_str({"url": url, "length": len(raw)}), raw' in tools  # the content, not the tuple
    assert "return a * b / 1\n" in tools  # multiply: called directly, so its wrap is unsafe
    assert "from dispatchguard import TOOL_REGISTRY, ensure_json_str\n" in tools

    (project / "tests" / "test_desk.py").write_text(
        (project / "tests" / "test_desk.py").read_text() + "\n\ndef test_direct_invoke():\n"
        '    from desk.tools import tags\n\n    assert tags.invoke({"text": "#a"}) == ["a"]\n'
    )
    fresh = copy_project("desk", tmp_path / "fresh")
    shutil.copyfile(project / "tests" / "test_desk.py", fresh / "tests" / "test_desk.py")
    proc = dispatchguard(fresh, "fix", "--no-cache", "desk/tools.py")  # the tests are still seen
    assert "Nothing to fix." in proc.stderr  # a test that .invoke()s a tool: no wrap is safe any more
    assert "5 more fixable with --unsafe-fixes" in proc.stderr


@pytest.mark.parametrize(
    ("relpath", "text"),
    [
        ("desk/agent.py", "from desk.tools import tags\n\nTOOLS = [tags]  # handed to an agent framework\n"),
        ("desk/alias.py", "from desk.tools import tags as tag_tool\n\nprint(tag_tool.name)\n"),
        (
            "desk/other.py",
            "from desk.tools import tags\n\n\nclass Registry(dict):\n    def register(self, name, tool):\n"
            "        self[name] = tool\n\n\nOTHER = Registry()\nOTHER.register('tags', tags)\n",
        ),
    ],
    ids=["passed-on", "aliased", "other-registry"],
)
def test_desk_a_mention_besides_its_registration_makes_the_wrap_unsafe(relpath: str, text: str, tmp_path: Path):
    project = copy_project("desk", tmp_path)
    (project / relpath).write_text(text)
    proc = dispatchguard(project, "fix", "--no-cache", ".")
    assert "Fixed 3 findings in 1 file. 2 findings remain. 2 more fixable with --unsafe-fixes." in proc.stderr
    tools = (project / "desk" / "tools.py").read_text()
    assert "return sorted(" in tools and "return ensure_json_str(None)" in tools  # tags left, company fixed
