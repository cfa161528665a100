"""DG002 fix: take the unused and unknown codes out of a line's ``# noqa`` directive, and the
directive itself when no code is left (text after it, such as another tool's comment, stays):
``x = 1  # noqa: DG101, E501`` becomes ``x = 1  # noqa: E501``; ``x = 1  # noqa: DG101`` becomes
``x = 1``. The same edit as the language server's code action (:func:`dispatchguard.lint.noqa.without_codes`).

Fix safety: **safe**. A comment changes nothing at run time, and the codes taken out silence no
finding of the line, so the check reports the same findings after the fix.
"""

from __future__ import annotations

from typing import Any

from dispatchguard.fix.base import Edit, FileContext, Fix, NoFix
from dispatchguard.lint.noqa import without_codes
from dispatchguard.lint.rules.dg002_unused_noqa import listed_codes


def fix(finding: Any, ctx: FileContext) -> Fix | NoFix:
    """Return a safe edit taking the listed codes (or the whole directive) out of the line's
    ``# noqa``; NoFix when the line is outside the file or its directive lacks those codes."""
    if not 0 < finding.line <= len(ctx.lines):
        return NoFix("the finding's line is not in the file")
    body = ctx.lines[finding.line - 1].rstrip("\r\n")
    codes = listed_codes(finding.message)
    edited = without_codes(body, codes)
    if edited == body:
        return NoFix("the line's directive does not name the codes the finding lists")
    same = 0  # replace from the first changed character: the rest of the line stays another fix's
    while same < min(len(body), len(edited)) and body[same] == edited[same]:
        same += 1
    start = ctx.offset(finding.line, same)
    what = f"remove {', '.join(codes)} from the noqa directive" if "noqa" in edited else "remove the noqa directive"
    return Fix((Edit(start, ctx.offset(finding.line, len(body)), edited[same:]),), True, what)
