"""The language server: diagnostics for open buffers, code actions on them.

- ``didOpen``/``didChange``/``didSave``: the buffer (saved or not) is checked as the file of its
  project whose URI it has, with the settings of the project's ``pyproject.toml`` (the same root
  finder as the CLI); the diagnostics carry the code, the message, the start and end of the
  finding (in the position encoding agreed with the client) and a link to the rule's page.
  ``didClose`` clears them.
- Saving a ``pyproject.toml`` (or a watched-file notification for one) drops the settings and
  projects read so far, and every open buffer is checked again. Watched-file notifications for
  Python files (the server asks for them when the client offers dynamic registration) make the
  projects read those files again, and re-check the open buffers.
- Notebooks (``notebookDocument/didOpen``/``didChange``/``didSave``, pygls' notebook sync for
  ``jupyter-notebook`` documents with Python cells): the code cells are checked as one module, as
  ``dispatchguard check`` checks the ``.ipynb`` file, and each cell gets its own diagnostics (its
  URI, its lines); ``didClose`` clears them. The ``# noqa`` actions work in cells; the fix actions
  are for files only (``dispatchguard fix`` fixes a notebook on disk).
- ``codeAction``: for each of our diagnostics in the request, the rule's fix (from
  :func:`dispatchguard.fix.rewrite.fix_file`, on the buffer; safe fixes preferred, unsafe ones labelled)
  as an edit of the whole buffer, and "silence on this line" as an edit of the line (``# noqa``
  with the code added to the line's directive, or a new one); for DG002, the removal of the
  unused codes from the directive.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from dispatchguard import __version__
from dispatchguard.lint.config import ConfigError
from dispatchguard.lint.findings import Finding
from dispatchguard.lint.noqa import with_codes, without_codes
from dispatchguard.lint.parsing import quiet_parsing
from dispatchguard.lint.rules import RULES, dg002_unused_noqa
from dispatchguard.lint.rules.dg001_parse_error import RULE as UNPARSABLE
from dispatchguard.lint.rules.dg002_unused_noqa import RULE as UNUSED_NOQA
from dispatchguard.lint.source import check_buffer, editor_config, file_changed, forget_editor_state

SOURCE = "dispatchguard"
#: Codes a line-level noqa comment cannot silence (DG001) or should not (DG002: remove the directive).
NO_NOQA_ACTION = frozenset({UNPARSABLE.code, UNUSED_NOQA.code})
#: The notebooks the server checks: Jupyter notebooks, their Python cells.
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")]
        )
    ],
    save=True,
)


def build_server() -> LanguageServer:
    """Return the pygls server, not started (``start_io()`` serves stdio): diagnostics for open
    Python buffers and Jupyter notebooks, quick fixes as code actions. Needs pygls."""
    server = LanguageServer(
        "dispatchguard",
        __version__,
        text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        notebook_document_sync=NOTEBOOK_SYNC,
    )

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: LanguageServer, params: types.DidOpenNotebookDocumentParams) -> None:
        """Answer ``notebookDocument/didOpen``: check the cells as one module, publish per cell."""
        publish_notebook(ls, params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls: LanguageServer, params: types.DidChangeNotebookDocumentParams) -> None:
        """Answer ``notebookDocument/didChange``: check the cells again, publish per cell."""
        publish_notebook(ls, params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls: LanguageServer, params: types.DidSaveNotebookDocumentParams) -> None:
        """Answer ``notebookDocument/didSave``: check the cells again, publish per cell."""
        publish_notebook(ls, params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls: LanguageServer, params: types.DidCloseNotebookDocumentParams) -> None:
        """Answer ``notebookDocument/didClose``: clear the diagnostics of each of its cells."""
        for cell in params.cell_text_documents:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        """Answer ``textDocument/didOpen``: check the buffer and publish its diagnostics."""
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        """Answer ``textDocument/didChange``: check the buffer again, publish its diagnostics."""
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        """Answer ``textDocument/didSave``: a ``pyproject.toml`` drops the cached settings and
        re-checks every open document; another file is checked and its diagnostics published."""
        if params.text_document.uri.endswith("pyproject.toml"):
            settings_changed(ls)
        else:
            publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        """Answer ``textDocument/didClose``: clear the buffer's diagnostics (an empty list)."""
        uri = params.text_document.uri
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.INITIALIZED)
    def initialized(ls: LanguageServer, params: types.InitializedParams) -> None:
        """Answer the ``initialized`` notification: if the client allows dynamic registration,
        ask it to watch pyproject.toml, *.py and *.pyi (``workspace/didChangeWatchedFiles``)."""
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watched and watched.dynamic_registration:
            watchers = [types.FileSystemWatcher(glob_pattern=g) for g in ("**/pyproject.toml", "**/*.py", "**/*.pyi")]
            options = types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers)
            registration = types.Registration(
                id="dispatchguard-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
            )
            ls.client_register_capability(types.RegistrationParams(registrations=[registration]))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: LanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        """Answer ``workspace/didChangeWatchedFiles``: a pyproject.toml drops the cached settings,
        Python files are read again by the projects; then every open document is re-checked."""
        if any(change.uri.endswith("pyproject.toml") for change in params.changes):
            settings_changed(ls)
            return
        for change in params.changes:
            path = to_fs_path(change.uri)
            if path and change.uri.startswith("file:"):
                file_changed(Path(path))
        recheck_open_documents(ls)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False),
    )
    def code_action(ls: LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        """Answer ``textDocument/codeAction``: per diagnostic of ours in the request, the rule's
        fix (a whole-buffer edit), then the ``# noqa`` or DG002 clean-up action; ``[]`` if none."""
        document = ls.workspace.get_text_document(params.text_document.uri)
        ours = [d for d in params.context.diagnostics if d.source == SOURCE and isinstance(d.data, dict)]
        actions: list[types.CodeAction] = []
        for diagnostic in ours:
            actions += fix_actions(document, diagnostic)
        for diagnostic in ours:
            action = noqa_action(document, diagnostic) or unused_noqa_action(document, diagnostic)
            if action is not None:
                actions.append(action)
        return actions

    return server


def settings_changed(ls: LanguageServer) -> None:
    """Drop the cached settings and projects (pyproject.toml changed); re-check open documents."""
    forget_editor_state()
    recheck_open_documents(ls)


def recheck_open_documents(ls: LanguageServer) -> None:
    """Check every open buffer and notebook again and publish (cells with their notebook)."""
    for uri in list(ls.workspace.text_documents):
        if ls.workspace.get_notebook_document(cell_uri=uri) is None:  # a cell: with its notebook
            publish(ls, uri)
    for uri in list(ls.workspace.notebook_documents):
        publish_notebook(ls, uri)


def publish_notebook(ls: LanguageServer, uri: str) -> None:
    """Check a notebook's cells as one module (the text the editor has); diagnostics per cell."""
    notebook = ls.workspace.get_notebook_document(notebook_uri=uri)
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if notebook is None or not path:
        return
    documents = [ls.workspace.get_text_document(cell.document) for cell in notebook.cells]
    cells = [
        {
            "cell_type": "code" if cell.kind == types.NotebookCellKind.Code else "markdown",
            "source": document.source if document.language_id in (None, "python") else "",
        }
        for cell, document in zip(notebook.cells, documents, strict=True)
    ]
    data = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode("utf-8")
    by_cell: dict[int, list[Finding]] = {}
    for finding in check_data(Path(path), data):
        by_cell.setdefault(finding.cell or 1, []).append(finding)
    for number, document in enumerate(documents, start=1):
        diagnostics = [to_diagnostic(document, finding) for finding in by_cell.get(number, [])]
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=document.uri, diagnostics=diagnostics, version=document.version)
        )


def document_path(document: TextDocument) -> Path | None:
    """Return the buffer's file path, or None when its URI is not ``file:`` (untitled buffers)."""
    path = to_fs_path(document.uri)
    return Path(path) if path and document.uri.startswith("file:") else None


def publish(ls: LanguageServer, uri: str) -> None:
    """Check a ``.py``/``.pyi`` buffer and publish its diagnostics for the document's version; does
    nothing for other files and non-``file:`` URIs."""
    document = ls.workspace.get_text_document(uri)
    path = document_path(document)
    if path is None or path.suffix not in (".py", ".pyi"):
        return
    diagnostics = [to_diagnostic(document, finding) for finding in check_document(path, document)]
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=document.version)
    )


def check_document(path: Path, document: TextDocument) -> list[Finding]:
    """The unsuppressed findings of a buffer; a broken configuration is one finding at the top."""
    return check_data(path, document.source.encode("utf-8"))


def check_data(path: Path, data: bytes) -> list[Finding]:
    """:func:`check_document` for a buffer's bytes (a notebook's: its JSON)."""
    try:
        config = editor_config(path)
        findings = check_buffer(path, data, config)
    except (ConfigError, OSError) as exc:
        message = UNPARSABLE.message.format(reason=str(exc))
        return [Finding(str(path), 1, 1, UNPARSABLE.code, message, 1, 1)]
    return [f for f in findings if not f.suppressed]


def to_diagnostic(document: TextDocument, finding: Finding) -> types.Diagnostic:
    """Return the finding as an LSP diagnostic, its range in the client's position encoding: Error
    for DG001, else Warning, DG002 tagged Unnecessary; ``data`` lets a code action rebuild it."""
    # findings are 1-based code points, the end exclusive; the client gets its own code units
    where = types.Range(
        start=types.Position(line=finding.line - 1, character=finding.col - 1),
        end=types.Position(line=finding.end_line - 1, character=max(finding.end_col - 1, 0)),
    )
    is_error = finding.code == UNPARSABLE.code
    return types.Diagnostic(
        range=document.range_to_client_units(where),  # type: ignore[arg-type]
        message=finding.message,
        severity=types.DiagnosticSeverity.Error if is_error else types.DiagnosticSeverity.Warning,
        code=finding.code,
        code_description=types.CodeDescription(href=RULES[finding.code].url),
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if finding.code == UNUSED_NOQA.code else None,
        # what a code action needs to rebuild the finding (the range is in client units)
        data={
            "line": finding.line,
            "col": finding.col,
            "end_line": finding.end_line,
            "end_col": finding.end_col,
            "message": finding.message,
        },
    )


def finding_of(document: TextDocument, diagnostic: types.Diagnostic) -> Finding | None:
    """Rebuild the finding from the diagnostic's ``data``; None when ``data`` is malformed."""
    data = diagnostic.data
    try:
        return Finding(
            document.uri,
            int(data["line"]),
            int(data["col"]),
            str(diagnostic.code),
            str(data["message"]),
            int(data["end_line"]),
            int(data["end_col"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def fix_actions(document: TextDocument, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    """The rule's fix for one diagnostic, as an edit of the whole buffer (safe, else unsafe)."""
    finding = finding_of(document, diagnostic)
    path = document_path(document)
    if finding is None or path is None or finding.code in NO_NOQA_ACTION:
        return []
    from dispatchguard.fix.rewrite import fix_file  # the fix engine: only when an action is asked for

    source = document.source.encode("utf-8")
    config = editor_config(path)
    facts, settings = fix_facts(config)
    if not knows_buffer(facts.project, path, source):
        return []
    for unsafe in (False, True):
        with quiet_parsing():
            new, applied, _ = fix_file(
                path.as_posix(),
                str(path),
                source,
                [dataclasses.replace(finding, path=str(path))],
                facts,
                settings,
                unsafe=unsafe,
            )
        if applied and new != source:
            title = f"Fix {finding.code}: {applied[0].description}" + ("" if applied[0].safe else " (unsafe)")
            return [
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=applied[0].safe,
                    edit=whole_buffer_edit(document, new.decode("utf-8")),
                )
            ]
    return []


_FIX_FACTS: dict[str, tuple[Any, Any]] = {}


def fix_facts(config: Any) -> tuple[Any, Any]:
    """What the fixes need of the project (its tool facts and isort settings), once per root."""
    from dispatchguard.fix.imports import IsortSettings
    from dispatchguard.lint.engine import project_files
    from dispatchguard.lint.tool_facts import ToolFacts

    key = str(config.root)
    if key not in _FIX_FACTS:
        files, _, _ = project_files([config.root], config, nested=True)
        _FIX_FACTS[key] = (ToolFacts(config, files), IsortSettings.from_pyproject(Path(config.root)))
    return _FIX_FACTS[key]


def knows_buffer(project: Any, path: Path, source: bytes) -> bool:
    """Make the fixes' project see the buffer as it is in the editor (saved or not); False when it
    does not parse (then there is nothing to fix)."""
    import ast

    from dispatchguard.lint.discovery import SourceFile, relative_path
    from dispatchguard.lint.index import summarise

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    key = path.as_posix()
    if key not in project.files:
        project.register(SourceFile(path, relative_path(path, project.root), key))
    project.known[key] = (summarise(tree), None)
    project.infos.pop(key, None)
    project.resolver.forget()
    return True


def whole_buffer_edit(document: TextDocument, text: str) -> types.WorkspaceEdit:
    """Return a versioned workspace edit that replaces the whole buffer with ``text``."""
    lines = document.lines
    end = types.Position(line=len(lines), character=0)
    edit = types.TextEdit(range=types.Range(start=types.Position(line=0, character=0), end=end), new_text=text)
    return workspace_edit(document, [edit])


def workspace_edit(document: TextDocument, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    """Return a workspace edit of ``edits`` bound to the document's current version."""
    versioned = types.OptionalVersionedTextDocumentIdentifier(uri=document.uri, version=document.version)
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=versioned, edits=edits)])


def line_edit(document: TextDocument, number: int, text: str) -> types.TextEdit:
    """Replace line ``number`` (1-based) but its line ending with ``text``."""
    body = document.lines[number - 1].rstrip("\r\n")
    start = types.Position(line=number - 1, character=0)
    end = document.position_to_client_units(types.Position(line=number - 1, character=len(body)))  # type: ignore[arg-type]
    return types.TextEdit(range=types.Range(start=start, end=end), new_text=text)


def unused_noqa_action(document: TextDocument, diagnostic: types.Diagnostic) -> types.CodeAction | None:
    """DG002: take the unused and unknown codes out of the directive (the directive goes when none
    is left)."""
    finding = finding_of(document, diagnostic)
    if finding is None or finding.code != UNUSED_NOQA.code or not 0 < finding.line <= len(document.lines):
        return None
    body = document.lines[finding.line - 1].rstrip("\r\n")
    edited = without_codes(body, dg002_unused_noqa.listed_codes(finding.message))
    if edited == body:
        return None
    return types.CodeAction(
        title="Remove the unused noqa codes",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=True,
        edit=workspace_edit(document, [line_edit(document, finding.line, edited)]),
    )


def noqa_action(document: TextDocument, diagnostic: types.Diagnostic) -> types.CodeAction | None:
    """``# noqa: CODE`` on the line where the finding starts (the line a directive must be on)."""
    finding = finding_of(document, diagnostic)
    if finding is None or finding.code in NO_NOQA_ACTION or not 0 < finding.line <= len(document.lines):
        return None
    body = document.lines[finding.line - 1].rstrip("\r\n")
    edited = with_codes(body, [finding.code])
    if edited == body:
        return None
    edit = line_edit(document, finding.line, edited)
    return types.CodeAction(
        title=f"Silence {finding.code} on this line (# noqa)",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=workspace_edit(document, [edit]),
    )
