"""`dispatchguard lsp` as an editor sees it: a real subprocess spoken to over stdio."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import about

TOOLS = """\
from crewai.tools import BaseTool


class Search(BaseTool):
    name: str = "search"

    def _run(self, query: str) -> str:
        return query
"""
BUFFER = "from app.tools import Search\n\n\ndef plan(q):\n    return Search().run(q)\n"
DOCS = "https://github.com/dispatchguard/dispatchguard/blob/main/docs/rules/{}.md"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.dispatchguard]\n")
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "tools.py").write_text(TOOLS)
    return root


def _summary(diagnostics: list[dict[str, Any]]) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
    return sorted(
        (d["code"], (d["range"]["start"]["line"], d["range"]["start"]["character"]),
         (d["range"]["end"]["line"], d["range"]["end"]["character"]))
        for d in diagnostics
    )  # fmt: skip


def _open(editor: Any, uri: str, text: str, version: int = 1) -> None:
    item = {"uri": uri, "languageId": "python", "version": version, "text": text}
    editor.notify("textDocument/didOpen", {"textDocument": item})


def test_an_editor_session(workspace: Path, editor_factory: Any) -> None:
    editor = editor_factory(workspace)
    capabilities = editor.initialize(workspace)["capabilities"]
    assert capabilities["codeActionProvider"]["codeActionKinds"] == ["quickfix"]
    assert capabilities["positionEncoding"] == "utf-16"
    uri = (workspace / "app" / "agent.py").as_uri()  # never saved: not on disk
    _open(editor, uri, BUFFER)
    diagnostics = editor.diagnostics(uri, version=1)
    assert _summary(diagnostics) == [("DG101", (4, 11), (4, 26)), ("DG102", (4, 11), (4, 19))]
    for d in diagnostics:
        assert d["source"] == "dispatchguard" and d["severity"] == 2
        assert d["codeDescription"]["href"] == DOCS.format(d["code"])
    assert "bypasses the dispatcher" in next(d["message"] for d in diagnostics if d["code"] == "DG101")

    # an incremental change that puts characters of two UTF-16 units before the finding
    change = {
        "range": {"start": {"line": 4, "character": 4}, "end": {"line": 4, "character": 4}},
        "text": 'x = "\U0001f600"; ',
    }
    editor.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]})
    diagnostics = editor.diagnostics(uri, version=2)
    shift = len('x = "\U0001f600"; ') + 1  # the emoji is two UTF-16 code units
    assert _summary(diagnostics) == [
        ("DG101", (4, 11 + shift), (4, 26 + shift)),
        ("DG102", (4, 11 + shift), (4, 19 + shift)),
    ]

    dg101 = next(d for d in diagnostics if d["code"] == "DG101")
    actions = editor.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": dg101["range"], "context": {"diagnostics": [dg101]}},
    )
    by_title = {a["title"]: a for a in actions}
    noqa = by_title["Silence DG101 on this line (# noqa)"]
    (change_set,) = noqa["edit"]["documentChanges"]
    assert change_set["textDocument"] == {"uri": uri, "version": 2}
    (edit,) = change_set["edits"]
    line = '    x = "\U0001f600"; return Search().run(q)'
    assert edit == {
        "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": len(line) + 1}},
        "newText": line + "  # noqa: DG101",
    }
    # the editor applies it: DG101 is gone, DG102 stays
    editor.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 3},
            "contentChanges": [{"range": edit["range"], "text": edit["newText"]}],
        },
    )
    assert [d["code"] for d in editor.diagnostics(uri, version=3)] == ["DG102"]

    editor.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert editor.diagnostics(uri) == []
    assert editor.close() == 0


def test_fix_action_and_unused_noqa(workspace: Path, editor_factory: Any) -> None:
    editor = editor_factory(workspace)
    editor.initialize(workspace)
    uri = (workspace / "app" / "agent.py").as_uri()
    text = "import json\n\n\ndef f():\n    return {'a': 1}\n\n\nx = 1  # noqa: DG101, DG999\n"
    tools_uri = (workspace / "app" / "tools.py").as_uri()
    _open(editor, tools_uri, TOOLS.replace("return query", "return {'q': query}"))
    (dg103,) = about(editor.diagnostics(tools_uri))
    assert dg103["code"] == "DG103"
    actions = editor.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": tools_uri}, "range": dg103["range"], "context": {"diagnostics": [dg103]}},
    )
    fix = next(a for a in actions if a["title"].startswith("Fix DG103"))
    (edit,) = fix["edit"]["documentChanges"][0]["edits"]
    assert edit["range"] == {"start": {"line": 0, "character": 0}, "end": {"line": 8, "character": 0}}
    assert "json.dumps" in edit["newText"] or "ensure_json_str" in edit["newText"]
    assert "return {'q': query}" not in edit["newText"]

    _open(editor, uri, text)
    (unused,) = editor.diagnostics(uri)
    assert unused["code"] == "DG002" and unused["tags"] == [1]
    assert unused["message"] == "unused `noqa` directive (unused: DG101; unknown: DG999)"
    assert unused["range"] == {"start": {"line": 7, "character": 7}, "end": {"line": 7, "character": 27}}
    foreign = {**unused, "source": "ruff", "code": "RUF100"}
    actions = editor.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": unused["range"], "context": {"diagnostics": [unused, foreign]}},
    )
    (remove,) = actions  # nothing for another tool's diagnostic, no noqa action for DG002 itself
    assert remove["title"] == "Remove the unused noqa codes" and remove["diagnostics"] == [unused]
    (edit,) = remove["edit"]["documentChanges"][0]["edits"]
    assert edit == {
        "range": {"start": {"line": 7, "character": 0}, "end": {"line": 7, "character": 27}},
        "newText": "x = 1",
    }
    assert editor.close() == 0


def test_settings_come_from_the_workspace_and_follow_its_changes(workspace: Path, editor_factory: Any) -> None:
    editor = editor_factory(workspace)
    editor.initialize(workspace)
    uri = (workspace / "app" / "agent.py").as_uri()
    _open(editor, uri, BUFFER)
    assert {d["code"] for d in editor.diagnostics(uri)} == {"DG101", "DG102"}
    pyproject = workspace / "pyproject.toml"
    pyproject.write_text('[tool.dispatchguard]\nignore = ["DG102"]\n')
    editor.notify("textDocument/didSave", {"textDocument": {"uri": pyproject.as_uri()}})
    assert {d["code"] for d in editor.diagnostics(uri)} == {"DG101"}
    pyproject.write_text("[tool.dispatchguard]\nbogus = 1\n")
    editor.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": pyproject.as_uri(), "type": 2}]})
    (broken,) = editor.diagnostics(uri)
    assert broken["code"] == "DG001" and broken["severity"] == 1 and "bogus" in broken["message"]
    assert editor.close() == 0


def test_non_python_and_remote_documents_are_left_alone(workspace: Path, editor_factory: Any) -> None:
    editor = editor_factory(workspace)
    editor.initialize(workspace)
    _open(editor, (workspace / "notes.txt").as_uri(), "y._run()\n")
    _open(editor, "untitled:Untitled-1", "y._run()\n")
    uri = (workspace / "app" / "agent.py").as_uri()
    _open(editor, uri, "y._run()\n")
    # the first diagnostics the server sends are those of the Python file
    message = editor.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    assert message["params"]["uri"] == uri
    assert editor.close() == 0


def test_lsp_help_and_missing_pygls(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "dispatchguard", "lsp", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "--stdio" in done.stdout
    # pygls made unimportable: a clear message and exit 2, not a traceback
    (tmp_path / "pygls.py").write_text("raise ImportError('no pygls here', name='pygls')\n")
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "lsp"],
        capture_output=True, text=True, env={"PYTHONPATH": str(tmp_path)}, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2
    assert (
        done.stderr.strip() == "dispatchguard: error: the language server needs pygls: pip install 'dispatchguard[lsp]'"
    )


def test_a_buffer_with_a_syntax_error(workspace: Path, editor_factory: Any) -> None:
    editor = editor_factory(workspace)
    editor.initialize(workspace)
    uri = (workspace / "app" / "broken.py").as_uri()
    _open(editor, uri, "from crewai.tools import BaseTool\n\ndef f(:\n")
    (broken,) = editor.diagnostics(uri)
    assert (broken["code"], broken["severity"]) == ("DG001", 1)
    assert broken["message"].startswith("cannot check this file: syntax error")
    assert broken["range"]["start"]["line"] == 2
    # no fix and no noqa for DG001
    actions = editor.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": broken["range"], "context": {"diagnostics": [broken]}},
    )
    assert actions == []
    assert editor.close() == 0


def test_files_changed_on_disk_are_read_again(workspace: Path, editor_factory: Any) -> None:
    editor = editor_factory(workspace)
    editor.initialize(workspace)
    uri = (workspace / "app" / "agent.py").as_uri()
    _open(editor, uri, BUFFER)
    assert {d["code"] for d in editor.diagnostics(uri)} == {"DG101", "DG102"}
    # Search is no tool any more (changed outside the editor): the open buffer is clean
    tools = workspace / "app" / "tools.py"
    tools.write_text("class Search:\n    def run(self, q):\n        return q\n")
    editor.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": tools.as_uri(), "type": 2}]})
    assert editor.diagnostics(uri) == []
    # a module created outside the editor is known from then on
    (workspace / "app" / "extra.py").write_text(TOOLS)
    editor.notify(
        "workspace/didChangeWatchedFiles", {"changes": [{"uri": (workspace / "app" / "extra.py").as_uri(), "type": 1}]}
    )
    editor.diagnostics(uri)
    change = {"text": BUFFER.replace("app.tools", "app.extra")}
    editor.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]})
    assert {d["code"] for d in editor.diagnostics(uri, version=2)} == {"DG101", "DG102"}
    assert editor.close() == 0


def test_the_server_asks_to_watch_files_when_the_client_can(workspace: Path, editor_factory: Any) -> None:
    editor = editor_factory(workspace)
    editor.request(
        "initialize",
        {
            "processId": None,
            "rootUri": workspace.as_uri(),
            "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}},
        },
    )
    editor.notify("initialized", {})
    ask = editor.wait(lambda m: m.get("method") == "client/registerCapability")
    (registration,) = ask["params"]["registrations"]
    assert registration["method"] == "workspace/didChangeWatchedFiles"
    globs = [w["globPattern"] for w in registration["registerOptions"]["watchers"]]
    assert globs == ["**/pyproject.toml", "**/*.py", "**/*.pyi"]
    editor.send({"id": ask["id"], "result": None})
    assert editor.close() == 0
