"""Fail when the critical modules drop below a coverage threshold.

Reads the coverage.py data file (default `.coverage`) and reports the files matching the
`--include` patterns: statements, branches, missed lines and percentage. Exit 0 at or above
`--fail-under`, 1 below, 2 on errors. Defaults come from `[tool.dispatchguard.coverage]`.
"""

from __future__ import annotations

import argparse

from dispatchguard.coverage_gate.arguments import add_arguments

__all__ = ["HELP", "add_arguments", "run"]

HELP = "gate the coverage of critical modules (exit 1 below --fail-under)"


def run(args: argparse.Namespace) -> int:
    """Run the coverage gate: 0 at or above --fail-under, 1 below, 2 when the settings or the
    coverage data are unusable (one line on stderr)."""
    from dispatchguard.coverage_gate.cli import run_args

    return run_args(args)
