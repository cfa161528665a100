"""Running the gate: from parsed arguments or as a hook's entry point."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from dispatchguard.coverage_gate.arguments import add_arguments
from dispatchguard.coverage_gate.errors import GateError
from dispatchguard.coverage_gate.measure import measure
from dispatchguard.coverage_gate.report import render
from dispatchguard.coverage_gate.settings import GateOptions, resolve_options


def run_gate(
    options: GateOptions, out: TextIO | None = None, err: TextIO | None = None, *, quiet: bool = False
) -> int:
    """Measure, print the report to ``out`` (stdout) and return the exit code.

    0 when the gate passes, 1 below the threshold, 2 on a :class:`GateError` (printed to ``err``).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        result = measure(options)
    except GateError as exc:
        print(f"dispatchguard coverage: error: {exc}", file=err)
        return 2
    render(result, out, quiet=quiet)
    return 0 if result.passed else 1


# --------------------------------------------------------------------------- command line


def run_args(args: argparse.Namespace) -> int:
    """Resolve the options (arguments over configuration) and run the gate; 2 on a bad setting."""
    try:
        options = resolve_options(
            fail_under=args.fail_under,
            include=args.include,
            data_file=args.data_file,
            branch=args.branch,
            per_file=args.per_file,
            rcfile=args.rcfile,
        )
    except GateError as exc:
        print(f"dispatchguard coverage: error: {exc}", file=sys.stderr)
        return 2
    return run_gate(options, quiet=args.quiet)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point usable as a hook: ``python -m dispatchguard.coverage_gate --fail-under 90 ...``.

    Extra positional arguments (file names pre-commit may pass) are ignored.
    """
    from dispatchguard import coverage_gate

    description = coverage_gate.__doc__.split("\n\n")[0]
    parser = argparse.ArgumentParser(prog="dispatchguard coverage", description=description)
    add_arguments(parser)
    parser.add_argument("filenames", nargs="*", help=argparse.SUPPRESS)
    return run_args(parser.parse_args(argv))
