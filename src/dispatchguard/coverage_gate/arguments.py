"""The gate's command-line options, standard library only: the ``dispatchguard`` router imports
them to build its help without loading the gate (coverage, the checker's walker)."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the gate's options to ``parser``: None for a setting left unset (config decides)."""
    parser.add_argument(
        "--fail-under",
        type=float,
        metavar="PERCENT",
        help="minimum coverage (total of the matched files, or each file with --per-file)",
    )
    parser.add_argument(
        "--include",
        action="append",
        metavar="GLOB",
        help="file pattern to gate, repeatable ('**' spans directories); replaces the configured list",
    )
    parser.add_argument("--data-file", metavar="FILE", help="coverage data file (default: .coverage)")
    branch = parser.add_mutually_exclusive_group()
    branch.add_argument(
        "--branch",
        dest="branch",
        action="store_const",
        const=True,
        default=None,
        help="count branches (the data must have been recorded with branch coverage)",
    )
    branch.add_argument("--no-branch", dest="branch", action="store_const", const=False, help="count lines only")
    parser.add_argument(
        "--per-file",
        dest="per_file",
        action="store_const",
        const=True,
        default=None,
        help="require every matched file to reach the threshold, not just their total",
    )
    parser.add_argument("--rcfile", metavar="FILE", help="coverage configuration file (exclusions)")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print the verdict only (and the files below it when it fails)"
    )
