"""A JSON array with ruff's fields, so tools that read ``ruff --output-format json`` read ours.

Each object: ``code``, ``name`` (the rule's kebab-case name), ``message``, ``filename`` (absolute),
``location`` and ``end_location`` (``{"row", "column"}``, 1-based, the end exclusive), ``fix``,
``url`` (the rule's documentation page) and ``noqa_row`` (the line a ``# noqa`` comment would go on).
Findings silenced by ``# noqa`` or the baseline are left out.

``fix`` is ``null`` when the finding carries no fix, else ruff's object: ``applicability``
(``"safe"``, ``"unsafe"`` or ``"display-only"``), ``message`` and ``edits``, each edit
``{"content", "location", "end_location"}``. The engine attaches fixes to ``Finding.fix`` as an
object with ``applicability``, ``message`` and ``edits`` attributes, each edit with ``content``,
``line``, ``col``, ``end_line`` and ``end_col`` (1-based, the end exclusive).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from dispatchguard.cli.output import Context, is_hidden


def fix_dict(fix: Any) -> dict[str, Any] | None:
    """Return ruff's fix object (applicability, message, edits), or None when ``fix`` is None."""
    if fix is None:
        return None
    return {
        "applicability": fix.applicability,
        "message": fix.message,
        "edits": [
            {
                "content": edit.content,
                "location": {"row": edit.line, "column": edit.col},
                "end_location": {"row": edit.end_line, "column": edit.end_col},
            }
            for edit in fix.edits
        ],
    }


def to_dict(finding: Any, context: Context) -> dict[str, Any]:
    """Return the finding as ruff's JSON object; ``filename`` is absolute (``-`` for unnamed stdin).
    Raises KeyError when ``context.rules`` lacks the finding's code."""
    return {
        "cell": getattr(finding, "cell", None),  # a notebook's cell (rows are in the cell), as ruff
        "code": finding.code,
        "name": context.rules[finding.code].name,
        "message": finding.message,
        # standard input checked without --stdin-filename is "-", as in ruff
        "filename": "-" if finding.path == "-" else os.path.normpath(os.path.join(context.cwd, finding.path)),
        "location": {"row": finding.line, "column": finding.col},
        "end_location": {"row": finding.end_line, "column": finding.end_col},
        "fix": fix_dict(finding.fix),
        "url": context.rules[finding.code].url,
        "noqa_row": finding.line,
    }


def shown(findings: Sequence[Any], context: Context) -> list[dict[str, Any]]:
    """The objects of the findings that are not silenced."""
    return [to_dict(f, context) for f in findings if not is_hidden(f, context)]


def render(findings: Sequence[Any], context: Context) -> str:
    """Return the unsilenced findings as an indented JSON array of ruff's objects."""
    items = shown(findings, context)
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def render_statistics(findings: Sequence[Any], context: Context) -> str:
    """Return ``--statistics`` as a JSON array of ``{code, name, count}``, most frequent first."""
    from dispatchguard.cli.output.text import count_by_code

    rows = [
        {"code": code, "name": context.rules[code].name, "count": count}
        for code, count in count_by_code(findings, context)
    ]
    return json.dumps(rows, indent=2) + "\n"
