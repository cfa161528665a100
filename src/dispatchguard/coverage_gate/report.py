"""The report table and the verdict line."""

from __future__ import annotations

import math
from typing import TextIO

from dispatchguard.coverage_gate.results import GateResult


def format_percent(value: float) -> str:
    """Two decimals, never rounded up to the threshold: 89.999 shows as 89.99, not 90.00."""
    return f"{math.floor(value * 100 + 1e-9) / 100:.2f}%"


def render(result: GateResult, out: TextIO, *, quiet: bool = False) -> None:
    """The table, then the verdict; ``quiet``: the verdict alone, after the rows of the files
    below the threshold when the gate fails."""
    opts = result.options
    branch = any(f.branch for f in result.files)
    headers = ["Name", "Stmts", "Miss"]
    if branch:
        headers += ["Branch", "BrPart"]
    headers += ["Cover", "Missing"]
    rows: list[list[str]] = []
    for f in result.files:
        row = [f.path + ("" if f.measured else " (never imported)"), str(f.statements), str(len(f.missing_lines))]
        if branch:
            row += [str(f.branches), str(f.partial_branches)]
        row += [format_percent(f.percent), f.missing_text()]
        rows.append(row)
    total_row = [
        "TOTAL",
        str(sum(f.statements for f in result.files)),
        str(sum(len(f.missing_lines) for f in result.files)),
    ]
    if branch:
        total_row += [
            str(sum(f.branches for f in result.files)),
            str(sum(f.partial_branches for f in result.files)),
        ]
    total_row += [format_percent(result.total_percent), ""]
    widths = [max(len(r[i]) for r in [headers, *rows, total_row]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        parts = [cells[0].ljust(widths[0])] + [cells[i].rjust(widths[i]) for i in range(1, len(cells) - 1)]
        return ("   ".join(parts) + "   " + cells[-1]).rstrip()

    if quiet:
        below = [row for row, f in zip(rows, result.files, strict=True) if f.percent < opts.fail_under]
        rows = [] if result.passed else below
    if rows or not quiet:
        rule = "-" * len(line(headers))
        print(line(headers), file=out)
        print(rule, file=out)
        for row in rows:
            print(line(row), file=out)
        print(rule, file=out)
        print(line(total_row), file=out)
    for pattern in result.unmatched_patterns:
        print(f"warning: pattern {pattern!r} matched no file", file=out)

    threshold = f"{opts.fail_under:g}%"
    kind = "branch" if branch else "line"
    if opts.per_file:
        failing = result.failing_files
        if failing:
            names = ", ".join(f"{f.path} ({format_percent(f.percent)})" for f in failing)
            print(f"FAIL: {len(failing)} file(s) below {threshold} {kind} coverage: {names}", file=out)
        else:
            print(f"OK: every file at or above {threshold} {kind} coverage", file=out)
    elif result.passed:
        print(f"OK: total {kind} coverage {format_percent(result.total_percent)} >= {threshold}", file=out)
    else:
        print(
            f"FAIL: total {kind} coverage {format_percent(result.total_percent)} is below {threshold}",
            file=out,
        )
