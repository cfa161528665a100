"""Fixtures for the CLI tests: a small CrewAI-style project and a runner for the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PROJECT = {
    "pyproject.toml": """
        [tool.dispatchguard]
        strict = false
    """,
    "app/__init__.py": "",
    "app/tools.py": """
        import json

        from crewai.tools import BaseTool


        class Search(BaseTool):
            name: str = "search"

            def _run(self, query: str) -> str:
                return {"query": query}


        class Clock(BaseTool):
            name: str = "clock"

            def _run(self) -> str:
                return json.dumps({"now": "12:00"})
    """,
    "app/agent.py": """
        from app.tools import Search


        def plan(query):
            tool = Search()
            return tool.run(query=query)


        def quiet(query):
            tool = Search()  # noqa: DG102
            return tool.run(query=query)  # noqa
    """,
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project with one finding of each rule (plus two silenced ones); the cwd is its root."""
    root = write_tree(tmp_path / "proj", PROJECT)
    monkeypatch.chdir(root)
    return root


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The real command, in a fresh interpreter (``env``: variables set on top of this one's;
    ``stdin``: what it reads from standard input)."""
    return subprocess.run(
        [sys.executable, "-m", "dispatchguard", *args],
        cwd=cwd,
        env=None if env is None else {**os.environ, **env},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
