"""Tool sources and projects that more than one test of tests/verify writes."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from dispatchguard.verify import sandbox

#: Both isolation levels; the namespace sandbox's cases skipped, saying why, where it is missing.
LEVELS = [
    pytest.param(
        "namespaces",
        marks=pytest.mark.skipif(sandbox.unavailable() is not None, reason=f"no sandbox: {sandbox.unavailable()}"),
    ),
    "seal",
]

#: A tool class that cannot be built without its key, and the factory that builds it (for
#: ``[tool.dispatchguard.verify.factories]``); it answers a dict. The module imports ``BaseTool``.
KEYED_TOOL = '''
class Keyed(BaseTool):
    name: str = "keyed"
    description: str = "Needs its key to be built; answers a dict."
    key: str

    def _run(self, q: str) -> dict:
        return {"q": q}


def make_keyed() -> Keyed:
    return Keyed(key="from-the-factory")
'''


def project_with_framework(
    tmp_path: Path, tools: str, framework_module: str, framework: str
) -> tuple[Path, dict[str, str]]:
    """A project whose ``tools.py`` (``tool-decorators = ["tools.tool"]``, 2 cases) imports
    ``framework_module``, a module of its environment outside the project; and the environment
    (``PYTHONPATH``) that has it."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[tool.dispatchguard]\ntool-decorators = ["tools.tool"]\n[tool.dispatchguard.verify]\ncases = 2\n',
        encoding="utf-8",
    )
    (project / "tools.py").write_text(textwrap.dedent(tools), encoding="utf-8")
    site = tmp_path / "site"
    site.mkdir()
    (site / f"{framework_module}.py").write_text(textwrap.dedent(framework), encoding="utf-8")
    inherited = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *([inherited] if inherited else [])])}
    return project, env
