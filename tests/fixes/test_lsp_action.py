"""The language server's fix action for DG104 goes through the same fixers as `dispatchguard fix`,
on the buffer as the editor has it (unsaved changes included): a real pygls ``TextDocument``, the
server's own diagnostics and code actions."""

from __future__ import annotations

from pathlib import Path

from pygls.workspace import TextDocument

from dispatchguard.lsp.server import check_document, fix_actions, to_diagnostic

from .conftest import REGISTERED_TOOL as TOOLS

PYPROJECT = '[project]\nname = "desk"\ndependencies = ["dispatchguard", "langchain-core"]\n'
UNSAVED = '''

@tool
def tags(text: str) -> list:
    """The #tags of a text (not registered: only the dispatcher would not be its only caller)."""
    return [w for w in text.split() if w.startswith("#")]
'''


def test_dg104_actions_on_an_unsaved_buffer(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "desk").mkdir()
    (tmp_path / "desk" / "__init__.py").write_text("")
    path = tmp_path / "desk" / "tools.py"
    path.write_text(TOOLS)
    document = TextDocument(path.as_uri(), TOOLS + UNSAVED)

    findings = {f.line: f for f in check_document(path, document)}
    assert [f.code for f in findings.values()] == ["DG104", "DG104"]
    company, tags = (fix_actions(document, to_diagnostic(document, findings[line])) for line in sorted(findings))

    (action,) = company
    assert action.title == "Fix DG104: wrap the returned value in ensure_json_str(...)" and action.is_preferred
    text = action.edit.document_changes[0].edits[0].new_text
    assert 'return ensure_json_str({"domain": domain})' in text
    assert "from dispatchguard import TOOL_REGISTRY, ensure_json_str\n" in text
    assert "def tags(" in text  # the unsaved part of the buffer is kept

    (action,) = tags
    assert action.title.endswith("(unsafe)") and not action.is_preferred
    assert 'return ensure_json_str([w for w in text.split() if w.startswith("#")])' in (
        action.edit.document_changes[0].edits[0].new_text
    )
