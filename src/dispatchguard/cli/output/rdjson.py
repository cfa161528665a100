"""reviewdog's Diagnostic Format (``rdjson``, ``reviewdog -f=rdjson``): ``{"source", "severity",
"diagnostics"}``, each diagnostic with its ``message``, ``location`` (the absolute path and a
range whose end is exclusive), ``code`` (``value`` and ``url``) and, when the finding carries a
fix, ``suggestions``. Columns count UTF-8 bytes, as the format specifies (the other formats count
characters)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from dispatchguard.cli.output import PROJECT_URL, Context, is_hidden
from dispatchguard.cli.output.source import Sources


def _position(sources: Sources, path: str, line: int, col: int, cell: int | None = None) -> dict[str, int]:
    return {"line": line, "column": sources.byte_column(path, line, col, cell)}


def diagnostic(finding: Any, context: Context, sources: Sources) -> dict[str, Any]:
    """Return the finding as an rdjson diagnostic (absolute path, columns in UTF-8 bytes), with
    ``suggestions`` when it carries a fix. Raises KeyError for a code not in ``context.rules``."""
    path = finding.path
    item: dict[str, Any] = {
        "message": finding.message,
        "location": {
            "path": "-" if path == "-" else os.path.normpath(os.path.join(context.cwd, path)),
            "range": {
                "start": _position(sources, path, finding.line, finding.col, finding.cell),
                "end": _position(sources, path, finding.end_line, finding.end_col, finding.cell),
            },
        },
        "code": {"value": finding.code, "url": context.rules[finding.code].url},
    }
    if finding.fix is not None:
        item["suggestions"] = [
            {
                "range": {
                    "start": _position(sources, path, edit.line, edit.col, finding.cell),
                    "end": _position(sources, path, edit.end_line, edit.end_col, finding.cell),
                },
                "text": edit.content,
            }
            for edit in finding.fix.edits
        ]
    return item


def render(findings: Sequence[Any], context: Context) -> str:
    """Return the rdjson document: one diagnostic per unsilenced finding, severity ERROR."""
    sources = Sources(context)
    result = {
        "source": {"name": "dispatchguard", "url": PROJECT_URL},
        "severity": "ERROR",
        "diagnostics": [diagnostic(f, context, sources) for f in findings if not is_hidden(f, context)],
    }
    return json.dumps(result, indent=2, ensure_ascii=False) + "\n"
