"""GitLab Code Quality (``artifacts: reports: codequality``): a JSON array of issues, each with
``check_name`` (the code), ``description`` (``CODE: message``), ``severity`` (``major``), a
``fingerprint`` and a ``location`` (``path`` and ``positions``).

``path`` is relative to ``CI_PROJECT_DIR`` when GitLab sets it (else to the current directory), so
the merge request links the file. The fingerprint identifies a finding across commits: a hash of the
path, the code, the message and how many identical findings come before it in the file, not of the
line number, so an edit above a finding does not make it new (GitLab shows only one issue per
fingerprint, so identical findings in a file are counted apart).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dispatchguard.cli.output import Context, is_hidden

#: Where a notebook's issue is placed: its first line.
FIRST = {"line": 1, "column": 1}


def project_path(path: str, context: Context) -> str:
    """Return ``path`` relative to ``$CI_PROJECT_DIR`` if set, else to ``context.cwd`` (POSIX)."""
    absolute = os.path.normpath(os.path.join(context.cwd, path))
    base = os.environ.get("CI_PROJECT_DIR") or context.cwd
    return Path(os.path.relpath(absolute, base)).as_posix()


def render(findings: Sequence[Any], context: Context) -> str:
    """Return the unsilenced findings as a GitLab Code Quality JSON array (``[]`` when none), one
    major issue each; fingerprints hash path, code, message and occurrence, not line numbers."""
    seen: dict[tuple[str, str, str], int] = {}
    issues = []
    for f in findings:
        if is_hidden(f, context):
            continue
        path = project_path(f.path, context)
        key = (path, f.code, f.message)
        seen[key] = seen.get(key, 0) + 1
        fingerprint = hashlib.sha256("\0".join((*key, str(seen[key]))).encode("utf-8")).hexdigest()[:32]
        issues.append(
            {
                "check_name": f.code,
                "description": f"{f.code}: {f.message}" + ("" if f.cell is None else f" (cell {f.cell}:{f.line})"),
                "severity": "major",
                "fingerprint": fingerprint,
                "location": {
                    "path": path,
                    "positions": {
                        # a notebook's lines are not the file's: its first line, as ruff
                        "begin": {"line": f.line, "column": f.col} if f.cell is None else FIRST,
                        "end": {"line": f.end_line, "column": f.end_col} if f.cell is None else FIRST,
                    },
                },
            }
        )
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
