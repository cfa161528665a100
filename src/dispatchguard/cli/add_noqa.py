"""``dispatchguard check --add-noqa[=REASON]``: silence every current finding in place, for adopting
the checker on a codebase at once (ruff's ``--add-noqa``).

Each line where a finding starts gets a ``# noqa: CODE`` directive (or the codes its directive
lacks). A line whose end is inside a multi-line string or a backslash continuation cannot carry a
comment there: it is left alone and counted. A file is written only when its new text still
parses (if the old one did), through a temporary file renamed over it (never half-written); then
the files are checked again and whatever is still reported is counted.

DG001 (a broken file; only a file-level directive silences it) and DG002 (the answer to an unused
``# noqa`` is to remove it) are never added.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import tokenize
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dispatchguard.cli.common import UsageError, plural
from dispatchguard.lint.noqa import with_codes
from dispatchguard.lint.parsing import parses

NEVER_ADDED = frozenset({"DG001", "DG002"})


def add_noqa(findings: Sequence[Any], reason: str, recheck: Callable[[list[str]], Any], quiet: bool = False) -> int:
    """Add the directives, check the edited files again and say what happened on stderr (unless
    ``quiet``); 1 when a line was left alone or a finding is still reported."""
    if "\n" in reason or "\r" in reason:
        raise UsageError("--add-noqa: the reason must be on one line")
    by_file = _codes_by_line(findings)
    added = files = 0
    skipped: list[str] = []
    for path, lines in sorted(by_file.items()):
        if path.endswith(".ipynb"):
            count, left = _edit_notebook(Path(path), lines, reason.strip())
        else:
            count, left = _edit_file(Path(path), lines, reason.strip())
        added += count
        files += bool(count)
        skipped += [f"{path}:{line}" for line in left]
    still = 0
    if files:
        report = recheck(sorted(by_file))
        still = sum(1 for f in report.findings if not f.suppressed and f.code not in NEVER_ADDED)
    if not quiet:
        print(_summary(added, files, skipped, still), file=sys.stderr)
    return 1 if still or skipped else 0


def _codes_by_line(findings: Sequence[Any]) -> dict[str, dict[Any, list[str]]]:
    """path -> line (``(cell, line)`` in a notebook) -> the codes a directive there needs, in the
    findings' order."""
    by_file: dict[str, dict[Any, list[str]]] = {}
    for finding in findings:
        if finding.suppressed or finding.code in NEVER_ADDED:
            continue
        line = finding.line if finding.cell is None else (finding.cell, finding.line)
        codes = by_file.setdefault(finding.path, {}).setdefault(line, [])
        if finding.code not in codes:
            codes.append(finding.code)
    return by_file


def _summary(added: int, files: int, skipped: list[str], still: int) -> str:
    text = f"Added {plural(added, 'noqa directive')} in {plural(files, 'file')}."
    if skipped:
        shown = ", ".join(skipped[:5]) + (", ..." if len(skipped) > 5 else "")
        text += (
            f" {plural(len(skipped), 'line')} left alone (the line ends inside a string or a continuation): {shown}."
        )
    if still:
        text += f" {plural(still, 'finding')} still reported after the edit."
    return text


def _edit_notebook(path: Path, lines: dict[tuple[int, int], list[str]], reason: str) -> tuple[int, list[str]]:
    """:func:`_edit_file` for a notebook: the directives added to its code cells' virtual source,
    each changed line written back into its cell (the rest of the notebook keeps its bytes)."""
    from dispatchguard.lint.notebook import NotebookError, read_notebook

    shown = {cell_line: f"cell {cell_line[0]}:{cell_line[1]}" for cell_line in lines}
    try:
        notebook = read_notebook(path)
        virtual = {notebook.virtual_line(*cell_line): codes for cell_line, codes in lines.items()}
    except (OSError, NotebookError, KeyError) as exc:
        print(f"dispatchguard: {path}: not edited: {exc}", file=sys.stderr)
        return 0, [shown[key] for key in sorted(lines)]
    new_lines, done, left = _directives(notebook.source, virtual, reason)
    back = {notebook.virtual_line(*key): shown[key] for key in lines}
    if new_lines is None:
        print(f"dispatchguard: {path}: not edited: the edit would not parse", file=sys.stderr)
    if new_lines is None or not done:
        return 0, [back[line] for line in left]
    edits, offset = [], 0
    for old, new in zip(notebook.source.splitlines(keepends=True), new_lines, strict=True):  # same count
        if old != new:
            edits.append((offset, offset + len(old), new))
        offset += len(old)
    try:
        _write_atomically(path, notebook.with_edits(edits).encode("utf-8"))
    except NotebookError as exc:  # pragma: no cover - a directive never touches an IPython line
        print(f"dispatchguard: {path}: not edited: {exc}", file=sys.stderr)
        return 0, [shown[key] for key in sorted(lines)]
    return done, [back[line] for line in left]


def _directives(text: str, lines: dict[int, list[str]], reason: str) -> tuple[list[str] | None, int, list[int]]:
    """(the new physical lines, directives added or extended, lines that cannot carry one); None
    for the lines when the edit would not parse (nothing is then written)."""
    physical = text.splitlines(keepends=True)
    closed = _comment_ready_lines(text)
    done, left = 0, []
    for number, codes in sorted(lines.items()):
        if not (0 < number <= len(physical)) or (closed is not None and number not in closed):
            left.append(number)
            continue
        line = physical[number - 1]
        body = line.rstrip("\r\n")
        edited = with_codes(body, codes, reason)
        if edited != body:
            physical[number - 1] = edited + line[len(body) :]
            done += 1
    if done and closed is not None and not parses("".join(physical)):  # never write a file we would break
        return None, 0, sorted(lines)
    return physical, done, left


def _edit_file(path: Path, lines: dict[int, list[str]], reason: str) -> tuple[int, list[int]]:
    """(directives added or extended, lines that cannot carry one) for one file."""
    try:
        data = path.read_bytes()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (OSError, SyntaxError, LookupError, UnicodeDecodeError) as exc:
        print(f"dispatchguard: {path}: not edited: {exc}", file=sys.stderr)
        return 0, sorted(lines)
    physical, done, left = _directives(text, lines, reason)
    if physical is None:
        print(f"dispatchguard: {path}: not edited: the edit would not parse", file=sys.stderr)
        return 0, sorted(lines)
    if not done:
        return 0, left
    _write_atomically(path, "".join(physical).encode(encoding))
    return done, left


def _comment_ready_lines(text: str) -> set[int] | None:
    """The lines whose end is outside any string and not a backslash continuation (a comment
    appended there is a comment), or None when the text does not tokenize."""
    open_lines: set[int] = set()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    ends = {token.end[0] for token in tokens if token.type in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT)}
    for token in tokens:
        if token.start[0] != token.end[0]:  # a multi-line string: its inner lines end inside it
            open_lines.update(range(token.start[0], token.end[0]))
    return {line for line in ends if line not in open_lines}


def _write_atomically(path: Path, data: bytes) -> None:
    mode = path.stat().st_mode
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, mode & 0o7777)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
