"""One answer per file in the editor too (issue 32): the real language server, opening the files of
the committed invariance projects (``tests/lint/fixtures/invariance``) one after the other in one
session, in reverse order, publishes for each exactly the findings ``dispatchguard check .`` gives
it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration
PROJECTS = Path(__file__).resolve().parents[1] / "lint" / "fixtures" / "invariance"


@pytest.mark.parametrize("name", sorted(p.name for p in PROJECTS.iterdir()))
def test_the_editor_publishes_for_each_file_the_findings_of_check_dot(
    name: str, tmp_path: Path, editor_factory: Any
) -> None:
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root)
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "check", "--no-cache", "--output-format", "json", "."],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    expected: dict[str, set[tuple[int, int, str, str]]] = {}
    for item in json.loads(done.stdout):
        rel = Path(item["filename"]).relative_to(root).as_posix()
        expected.setdefault(rel, set()).add(
            (item["location"]["row"], item["location"]["column"], item["code"], item["message"])
        )
    editor = editor_factory(root)
    editor.initialize(root)
    for path in sorted(root.rglob("*.py"), reverse=True):
        uri = path.as_uri()
        item = {"uri": uri, "languageId": "python", "version": 1, "text": path.read_text()}
        editor.notify("textDocument/didOpen", {"textDocument": item})
        published = {
            (d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["code"], d["message"])
            for d in editor.diagnostics(uri, version=1)
        }
        assert published == expected.get(path.relative_to(root).as_posix(), set()), path
