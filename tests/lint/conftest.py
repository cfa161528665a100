"""Helpers for the checker's tests. The fixture projects are inputs, never collected as tests."""

from __future__ import annotations

import re
from pathlib import Path

collect_ignore_glob = ["fixtures/*"]

FIXTURES = Path(__file__).parent / "fixtures"
_ERROR = re.compile(r"#\s*error:\s*(?P<codes>DG\d+(?:\s*,\s*DG\d+)*)")
_NOQA_CODES = re.compile(r"#\s*noqa:\s*(?P<codes>DG\d+(?:\s*,\s*DG\d+)*)")


def expectations(text: str, path: str = "") -> tuple[set, set]:
    """(active, suppressed) sets of (path, line, code) from ``# error: DG101`` and ``# noqa: DG101``."""
    active, suppressed = set(), set()
    for number, line in enumerate(text.splitlines(), start=1):
        for rx, bucket in ((_ERROR, active), (_NOQA_CODES, suppressed)):
            match = rx.search(line)
            if match:
                for code in re.split(r"\s*,\s*", match.group("codes")):
                    bucket.add((path, number, code))
    return active, suppressed


def project_expectations(root: Path) -> tuple[set, set]:
    active, suppressed = set(), set()
    for file in sorted(root.rglob("*.py")):
        rel = file.relative_to(root).as_posix()
        try:
            text = file.read_text(encoding="utf-8")
        except (UnicodeDecodeError, ValueError):
            continue
        a, s = expectations(text, rel)
        active |= a
        suppressed |= s
    return active, suppressed
