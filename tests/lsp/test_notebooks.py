"""`dispatchguard lsp` and notebook documents (LSP 3.17 notebook sync, through pygls): the code
cells checked as one module, diagnostics per cell, the ``# noqa`` action in a cell."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.lsp.test_server import workspace  # noqa: F401  (the fixture: app/tools.py defines Search)

NOTEBOOK_TYPE = "jupyter-notebook"


def cell_uri(notebook: Path, index: int) -> str:
    return f"vscode-notebook-cell:{notebook.as_posix()}#C{index}"


def test_a_notebook_session(workspace: Path, editor_factory: Any) -> None:  # noqa: F811
    editor = editor_factory(workspace)
    client = {"general": {"positionEncodings": ["utf-16"]}, "notebookDocument": {"synchronization": {}}}
    result = editor.request("initialize", {"processId": None, "rootUri": workspace.as_uri(), "capabilities": client})
    editor.notify("initialized", {})
    capabilities = result["capabilities"]
    assert capabilities["notebookDocumentSync"]["notebookSelector"] == [
        {"notebook": NOTEBOOK_TYPE, "cells": [{"language": "python"}]}
    ]
    path = workspace / "explore.ipynb"  # never saved: not on disk
    texts = [
        ("markdown", "# Search\nSearch().run('in markdown')"),
        ("python", "%pip install crewai\nfrom app.tools import Search\n"),
        ("python", "!ls\nresult = Search().run('q')\n"),  # Search comes from the cell above
    ]
    cells = [
        {"kind": 1 if language == "markdown" else 2, "document": cell_uri(path, i)}
        for i, (language, _) in enumerate(texts)
    ]
    documents = [
        {"uri": cell_uri(path, i), "languageId": language, "version": 1, "text": text}
        for i, (language, text) in enumerate(texts)
    ]
    notebook = {"uri": path.as_uri(), "notebookType": NOTEBOOK_TYPE, "version": 1, "cells": cells}
    editor.notify("notebookDocument/didOpen", {"notebookDocument": notebook, "cellTextDocuments": documents})
    assert editor.diagnostics(cell_uri(path, 1), version=1) == []  # cells are published in order
    third = editor.diagnostics(cell_uri(path, 2), version=1)
    assert sorted((d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in third) == [
        ("DG101", 1, 9),
        ("DG102", 1, 9),
    ]

    dg101 = next(d for d in third if d["code"] == "DG101")
    actions = editor.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": cell_uri(path, 2)}, "range": dg101["range"], "context": {"diagnostics": [dg101]}},
    )
    noqa = next(a for a in actions if a["title"] == "Silence DG101 on this line (# noqa)")
    ((change,),) = [c["edits"] for c in noqa["edit"]["documentChanges"]]
    assert noqa["edit"]["documentChanges"][0]["textDocument"]["uri"] == cell_uri(path, 2)
    assert change["newText"] == "result = Search().run('q')  # noqa: DG101"

    # the editor applies it to the cell: a notebook change carrying the cell's text change
    content = {
        "document": {"uri": cell_uri(path, 2), "version": 2},
        "changes": [{"range": change["range"], "text": change["newText"]}],
    }
    editor.notify(
        "notebookDocument/didChange",
        {"notebookDocument": {"uri": path.as_uri(), "version": 2}, "change": {"cells": {"textContent": [content]}}},
    )
    assert [d["code"] for d in editor.diagnostics(cell_uri(path, 2), version=2)] == ["DG102"]

    editor.notify(
        "notebookDocument/didClose",
        {"notebookDocument": {"uri": path.as_uri()}, "cellTextDocuments": [{"uri": d["uri"]} for d in documents]},
    )
    assert editor.diagnostics(cell_uri(path, 2)) == []
    assert editor.close() == 0
