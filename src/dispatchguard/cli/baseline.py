"""Baselines: adopt the rules on an existing codebase and fail only on new findings.

``dispatchguard check --write-baseline FILE`` records every current (unsuppressed) finding;
``dispatchguard check --baseline FILE`` then reports only findings that are not in it.

Findings are matched by what they are, not where they are, so that editing a file above a known
finding does not turn it into a "new" one: the key is the file, the code, the message and a hash of
the source line the finding starts on (whitespace-normalised). Line numbers are not part of the key.
A key carries a count, so a second identical violation on an identical line is new.

File format, version 1 (JSON, UTF-8, entries sorted, one key per line, so diffs stay small)::

    {
      "version": 1,
      "generator": "dispatchguard",
      "findings": [
        {
          "path": "crew/agents/planner.py",
          "code": "DG101",
          "message": "...",
          "source_hash": "3b4f0c1d9a2e7f65",
          "count": 1
        }
      ]
    }

``path`` is POSIX and relative to the directory of the baseline file (so the file works from any
working directory and on any machine); ``source_hash`` is the first 16 hex digits of the SHA-256 of
the normalised line text.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from dispatchguard.atomic import atomic_write

VERSION = 1
_FIELDS = ("path", "code", "message", "source_hash")


class BaselineError(Exception):
    """The baseline file cannot be read, parsed or written."""


class Key(NamedTuple):
    """A finding's identity in a baseline: file, code, message and line hash, no line number.

    ``path`` is POSIX and relative to the baseline file's folder; ``source_hash`` is
    :func:`line_hash` of the line the finding starts on. Hashable: :func:`load` counts keys,
    :func:`match` spends them.
    """

    path: str
    code: str
    message: str
    source_hash: str


def normalise(line: str) -> str:
    """Source text as compared across edits: surrounding and repeated whitespace do not count."""
    return " ".join(line.split())


def line_hash(line: str) -> str:
    """Return the baseline ``source_hash``: 16 hex digits of the normalised line's SHA-256."""
    return hashlib.sha256(normalise(line).encode("utf-8", "surrogatepass")).hexdigest()[:16]


class _Sources:
    """Reads each file once; a file that cannot be read hashes as an empty line."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str]] = {}

    def line(self, path: str, lineno: int, cell: int | None = None) -> str:
        """Line ``lineno`` of a file (of a notebook's ``cell``: the text the finding is on)."""
        key = path if cell is None else f"{path}\0{cell}"
        lines = self._lines.get(key)
        if lines is None:
            lines = self._read(path) if cell is None else self._read_cell(path, cell)
            self._lines[key] = lines
        return lines[lineno - 1] if 0 < lineno <= len(lines) else ""

    @staticmethod
    def _read(path: str) -> list[str]:
        try:
            with open(path, encoding="utf-8", errors="replace", newline="") as handle:
                return handle.read().splitlines()
        except OSError:
            return []

    @staticmethod
    def _read_cell(path: str, cell: int) -> list[str]:
        from dispatchguard.lint.notebook import NotebookError, read_notebook

        try:
            notebook = read_notebook(Path(path))
        except (OSError, NotebookError):
            return []
        return next(("".join(c.lines).splitlines() for c in notebook.cells if c.number == cell), [])


def keys_for(findings: Iterable[Any], baseline_file: str | os.PathLike[str]) -> list[tuple[Any, Key]]:
    """Pair each finding with its baseline key (paths relative to the baseline file's folder)."""
    base_dir = os.path.dirname(os.path.abspath(baseline_file))
    sources = _Sources()
    pairs = []
    for finding in findings:
        absolute = os.path.abspath(finding.path)
        rel = Path(os.path.relpath(absolute, base_dir)).as_posix()
        text = sources.line(absolute, finding.line, finding.cell)
        pairs.append((finding, Key(rel, finding.code, finding.message, line_hash(text))))
    return pairs


def load(path: str | os.PathLike[str]) -> Counter[Key]:
    """The keys recorded in a baseline file, with their counts. Raises `BaselineError`."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise BaselineError(f"baseline file {path} not found (create it with --write-baseline {path})") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(f"baseline file {path} is not valid JSON: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"cannot read baseline file {path}: {exc}") from None
    if not isinstance(data, dict) or "version" not in data:
        raise BaselineError(f'baseline file {path} is not a dispatchguard baseline (no "version" key)')
    if data["version"] != VERSION:
        raise BaselineError(
            f"baseline file {path} has version {data['version']!r}; this dispatchguard reads version {VERSION}"
        )
    entries = data.get("findings")
    if not isinstance(entries, list):
        raise BaselineError(f'baseline file {path}: "findings" must be a list')
    counts: Counter[Key] = Counter()
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise BaselineError(f"baseline file {path}: finding {number} is not an object")
        values = [entry.get(name) for name in _FIELDS]
        count = entry.get("count", 1)
        bad = [name for name, value in zip(_FIELDS, values, strict=True) if not isinstance(value, str)]
        if bad:
            raise BaselineError(f"baseline file {path}: finding {number} needs a string {bad[0]!r}")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise BaselineError(f"baseline file {path}: finding {number} has an invalid count {count!r}")
        counts[Key(*values)] += count
    return counts


def dumps(keys: Iterable[Key]) -> str:
    """Return baseline JSON (version 1): equal keys merged with a count, entries sorted."""
    counts = Counter(keys)
    entries = [{**key._asdict(), "count": counts[key]} for key in sorted(counts)]
    data = {"version": VERSION, "generator": "dispatchguard", "findings": entries}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write(path: str | os.PathLike[str], findings: Iterable[Any]) -> int:
    """Record the unsuppressed findings; returns how many. Atomic: readers never see half a file."""
    keys = [key for finding, key in keys_for(findings, path) if not finding.suppressed]
    text = dumps(keys)
    try:
        atomic_write(path, text.encode("utf-8"))
    except OSError as exc:
        raise BaselineError(f"cannot write baseline file {path}: {exc.strerror or exc}") from None
    return len(keys)


def match(findings: Iterable[Any], baseline_file: str | os.PathLike[str], known: Counter[Key]) -> set[int]:
    """Ids of the unsuppressed findings that the baseline covers (each recorded key covers `count`)."""
    budget = Counter(known)
    covered = set()
    for finding, key in keys_for([f for f in findings if not f.suppressed], baseline_file):
        if budget[key] > 0:
            budget[key] -= 1
            covered.add(id(finding))
    return covered
