"""A JSON array with ruff's fields, so tools that read ``ruff --output-format json`` read ours.

Each object: ``code``, ``message``, ``filename`` (absolute), ``location`` and ``end_location``
(``{"row", "column"}``, 1-based), ``fix`` (``null``: fixes are applied by ``dispatchguard fix``),
``url`` (the rule's documentation page) and ``noqa_row`` (the line a ``# noqa`` comment would go on).
Findings silenced by ``# noqa`` or the baseline are left out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from dispatchguard.cli.output import Context, is_hidden, rule_url


def to_dict(finding: Any, context: Context) -> dict[str, Any]:
    return {
        "code": finding.code,
        "message": finding.message,
        "filename": os.path.normpath(os.path.join(context.cwd, finding.path)),
        "location": {"row": finding.line, "column": finding.col},
        "end_location": {"row": finding.end_line, "column": finding.end_col},
        "fix": None,
        "url": rule_url(finding.code),
        "noqa_row": finding.line,
    }


def render(findings: Sequence[Any], context: Context) -> str:
    items = [to_dict(f, context) for f in findings if not is_hidden(f, context)]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def render_statistics(findings: Sequence[Any], context: Context) -> str:
    from dispatchguard.cli.output.text import count_by_code

    rows = [
        {"code": code, "name": getattr(context.rules.get(code), "NAME", ""), "count": count}
        for code, count in count_by_code(findings, context)
    ]
    return json.dumps(rows, indent=2) + "\n"
