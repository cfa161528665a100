"""The fixture projects under projects/ have their own test suites, run by test_projects.py in
copies of them; the outer session must not collect them."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

collect_ignore_glob = ["projects/*"]

PROJECTS = Path(__file__).parent / "projects"


def copy_project(name: str, tmp_path: Path) -> Path:
    """A copy of the fixture project ``name`` (the originals are never written)."""
    target = tmp_path / name
    shutil.copytree(PROJECTS / name, target, ignore=shutil.ignore_patterns("__pycache__", ".dispatchguard_cache"))
    return target


def run_tests(project: Path) -> tuple[int, set[str]]:
    """(tests passed, names of the tests that failed) of the project's own suite (not measured by
    coverage: it runs the project's code; the runtime functions the fixes call are measured
    in-process, and coverage would cost each of these pytest processes seconds of CPU)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider"],
        cwd=project,
        env={k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")},
        capture_output=True,
        text=True,
        check=False,
    )
    passed = re.search(r"(\d+) passed", proc.stdout)
    failed = set(re.findall(r"^FAILED \S+::(\w+)", proc.stdout, re.MULTILINE))
    assert passed or failed, proc.stdout + proc.stderr
    return int(passed.group(1)) if passed else 0, failed


# a LangChain @tool function registered in dispatchguard's registry (the DG104 fix's safe case)
REGISTERED_TOOL = '''\
from dispatchguard import TOOL_REGISTRY
from langchain_core.tools import tool


@tool
def company(domain: str) -> dict:
    """Look up a company."""
    return {"domain": domain}


TOOL_REGISTRY.register("company", company)
'''
