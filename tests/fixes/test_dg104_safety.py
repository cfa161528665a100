"""When the DG104 wrap is safe: dispatchguard's dispatcher must provably be the tool function's only
caller. A project that depends on dispatchguard registers ``company`` in TOOL_REGISTRY; each case
adds one file, and the safe run (``fix`` without ``--unsafe-fixes``) must apply the wrap only when
that file cannot reach the tool another way."""

from __future__ import annotations

from pathlib import Path

import pytest

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import load_config

from .conftest import REGISTERED_TOOL as TOOLS

PYPROJECT = '[project]\nname = "app"\ndependencies = ["dispatchguard"]\n'

CASES = {
    # nothing else: the dispatcher is the only caller
    "registered only": ("app/other.py", "VALUE = 1\n", True),
    "imported for a registration": (
        "app/more.py",
        "from dispatchguard import TOOL_REGISTRY\n\nfrom app.tools import company\n\n"
        'TOOL_REGISTRY.register("company-2", company)\n',
        True,
    ),
    "called": ("app/other.py", "from app.tools import company\n\nprint(company('x'))\n", False),
    "invoked": ("app/other.py", "from app.tools import company\n\ncompany.invoke({'domain': 'x'})\n", False),
    "through a registry lookup": ("app/other.py", "def f(registry):\n    return registry['company'].run('x')\n", False),
    "its coroutine": ("app/other.py", "def f(tool):\n    return tool.coroutine('x')\n", False),
    "as a module attribute": ("app/other.py", "import app.tools as tools\n\nTOOLS = [tools.company]\n", False),
    "aliased": ("app/other.py", "from app.tools import company as lookup\n\nTOOLS = [lookup]\n", False),
    "a nested namesake": (
        "app/other.py",
        "def outer():\n    def company():\n        return 1\n\n    return company\n",
        False,
    ),
    "another file that does not parse": ("app/broken.py", "company = (\n", False),
    "another registry": (
        "app/other.py",
        "from app.tools import company\n\nREGISTRY = {}\nREGISTRY.register('company', company)\n",
        False,
    ),
}


@pytest.mark.parametrize(("relpath", "text", "safe"), list(CASES.values()), ids=list(CASES))
def test_wrap_is_safe_only_when_the_dispatcher_is_the_only_caller(
    relpath: str, text: str, safe: bool, tmp_path: Path, monkeypatch
):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "tools.py").write_text(TOOLS)
    (tmp_path / relpath).write_text(text)
    monkeypatch.chdir(tmp_path)
    config = load_config(["."])

    report = apply_fixes(["app/tools.py"], config, use_cache=False, select=["DG104"])
    fixed = 'return ensure_json_str({"domain": domain})' in (tmp_path / "app" / "tools.py").read_text()
    assert fixed is safe
    assert [a.safe for a in report.applied] == ([True] if safe else [])
    if not safe:
        assert report.unsafe_available == 1


def test_a_tool_function_that_is_not_at_module_level_is_never_safe(tmp_path: Path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "tools.py").write_text(
        "from langchain_core.tools import tool\n\n\ndef make():\n    @tool\n    def company(domain: str) -> dict:\n"
        '        """Look up a company."""\n        return {"domain": domain}\n\n    return company\n'
    )
    monkeypatch.chdir(tmp_path)
    report = apply_fixes(["."], load_config(["."]), use_cache=False)
    assert report.applied == [] and report.unsafe_available == 1
    report = apply_fixes(["."], load_config(["."]), use_cache=False, unsafe=True)
    assert [a.safe for a in report.applied] == [False]
    assert '        return ensure_json_str({"domain": domain})\n' in (tmp_path / "app" / "tools.py").read_text()
