"""DG002: a line's ``# noqa: DGxxx`` that silences nothing (ruff's RUF100, for our codes).

Reported by the engine (like DG001), not by the walk: once a file's findings are known, every
line-level directive is compared with the findings it suppressed. Only DG codes are judged: other
codes belong to other tools, and a blanket ``# noqa`` may serve any of them. A DG code that is no
rule at all (``# noqa: DG999``) is unused by definition; a code whose rules are all disabled for the
file is not judged. ``DG002`` itself is never reported unused
(it is how a line opts out of this rule).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from dispatchguard.lint.noqa import Noqa, codes_match
from dispatchguard.lint.rule import Rule
from dispatchguard.lint.rules.examples import snippet

OWN_PREFIX = "DG"
_LISTED = re.compile(r"(?:unused|unknown): ([A-Za-z0-9, ]+)")


def listed_codes(message: str) -> list[str]:
    """The codes a DG002 message names (what a fix removes from the directive)."""
    return [code for group in _LISTED.findall(message) for code in group.replace(" ", "").split(",") if code]


def unused(directive: Noqa, used: Collection[str], known: Collection[str], enabled: Collection[str]) -> str | None:
    """The message for a directive whose DG codes include some that suppressed none of the
    line's findings (``used``: the codes of the findings on the line), or None. Codes of rules
    that are not ``enabled`` for the file are not judged (the ``# noqa`` matters once they are);
    codes of no ``known`` rule always are."""
    if directive.codes is None:
        return None
    stale, unknown = [], []
    for code in dict.fromkeys(directive.codes):
        if not code.startswith(OWN_PREFIX) or code == RULE.code:
            continue
        if not any(k.startswith(code) for k in known):
            unknown.append(code)
        elif any(e.startswith(code) for e in enabled) and not any(codes_match((code,), u) for u in used):
            stale.append(code)
    if not stale and not unknown:
        return None
    parts = []
    if stale:
        parts.append(f"unused: {', '.join(stale)}")
    if unknown:
        parts.append(f"unknown: {', '.join(unknown)}")
    return RULE.message.format(detail="; ".join(parts))


RULE = Rule(
    code="DG002",
    name="unused-noqa",
    summary="`# noqa` directive that suppresses no DG finding",
    message="unused `noqa` directive ({detail})",
    reporter="engine",
    fixer="dispatchguard.fix.dg002",
    fix_title="remove the unused codes, or the whole directive",
    valid=(
        snippet("""
            from crewai.tools import BaseTool

            class Search(BaseTool):
                def _run(self, q: str) -> str:
                    return q

            Search()._run("x")  # noqa: DG101
        """),
        snippet("""
            import os

            os.getcwd()  # noqa: E501, F401
        """),
    ),
    invalid=(
        snippet("""
            x = 1  # noqa: DG101  # error: DG002
        """),
        snippet("""
            import os

            os.getcwd()  # noqa: E501, DG999  # error: DG002
        """),
    ),
)
