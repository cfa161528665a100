"""The report table and the verdict line."""

from __future__ import annotations

import math
from typing import TextIO

from dispatchguard.coverage_gate.results import FileResult, GateResult


def format_percent(value: float) -> str:
    """Two decimals, never rounded up to the threshold: 89.999 shows as 89.99, not 90.00."""
    return f"{math.floor(value * 100 + 1e-9) / 100:.2f}%"


def render(result: GateResult, out: TextIO, *, quiet: bool = False) -> None:
    """The table, then the verdict; ``quiet``: the verdict alone, after the rows of the files
    below the threshold when the gate fails."""
    files = result.files
    if quiet:
        files = [] if result.passed else [f for f in files if f.percent < result.options.fail_under]
    if files or not quiet:
        for line in _table(result, files):
            print(line, file=out)
    for pattern in result.unmatched_patterns:
        print(f"warning: pattern {pattern!r} matched no file", file=out)
    print(_verdict(result), file=out)


def _table(result: GateResult, files: list[FileResult]) -> list[str]:
    """coverage.py's report layout: a row per file, then the total of every matched file."""
    branch = any(f.branch for f in result.files)
    headers = ["Name", "Stmts", "Miss", *(["Branch", "BrPart"] if branch else []), "Cover", "Missing"]
    rows = [_row(f, branch) for f in files]
    every = result.files
    counts = [sum(f.statements for f in every), sum(len(f.missing_lines) for f in every)]
    if branch:
        counts += [sum(f.branches for f in every), sum(f.partial_branches for f in every)]
    total_row = ["TOTAL", *map(str, counts), format_percent(result.total_percent), ""]
    widths = [max(len(r[i]) for r in [headers, *rows, total_row]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        parts = [cells[0].ljust(widths[0])] + [cells[i].rjust(widths[i]) for i in range(1, len(cells) - 1)]
        return ("   ".join(parts) + "   " + cells[-1]).rstrip()

    rule = "-" * len(line(headers))
    return [line(headers), rule, *map(line, rows), rule, line(total_row)]


def _row(f: FileResult, branch: bool) -> list[str]:
    name = f.path + ("" if f.measured else " (never imported)")
    counts = [f.statements, len(f.missing_lines), *([f.branches, f.partial_branches] if branch else [])]
    return [name, *map(str, counts), format_percent(f.percent), f.missing_text()]


def _verdict(result: GateResult) -> str:
    opts = result.options
    threshold = f"{opts.fail_under:g}%"
    kind = "branch" if any(f.branch for f in result.files) else "line"
    total = format_percent(result.total_percent)
    if opts.per_file:
        failing = result.failing_files
        if not failing:
            return f"OK: every file at or above {threshold} {kind} coverage"
        names = ", ".join(f"{f.path} ({format_percent(f.percent)})" for f in failing)
        return f"FAIL: {len(failing)} file(s) below {threshold} {kind} coverage: {names}"
    if result.passed:
        return f"OK: total {kind} coverage {total} >= {threshold}"
    return f"FAIL: total {kind} coverage {total} is below {threshold}"
