"""Apply the automatic fixes (libcst), keeping comments and formatting, then report what is left.

Safe fixes are applied by default; `--unsafe-fixes` also applies the ones that may change runtime
behaviour (every rule page has a "Fix safety" section). `--diff` prints a unified diff and writes
nothing. Exit status (pre-commit semantics): 0 nothing needed fixing and no findings remain,
1 files changed (or would change, with --diff) or findings remain, 2 usage, configuration or
internal error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dispatchguard.cli.common import (
    add_project_options,
    code_list,
    collector_off,
    effective_config,
    job_count,
    report_notebooks,
    require_paths,
    run_guarded,
    unreadable_notebooks,
)
from dispatchguard.cli.output.text import position
from dispatchguard.lint.rules import RULES

# libcst is imported inside `run`, by the fix engine.

HELP = "apply the automatic fixes ({})".format(", ".join(code for code, rule in RULES.items() if rule.fixer))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the paths, the project and rule options, --unsafe-fixes, --diff and --verify."""
    parser.add_argument(
        "paths", nargs="*", default=["."], metavar="PATH", help="files or directories to fix (default: .)"
    )
    add_project_options(parser)
    parser.add_argument(
        "--unsafe-fixes", action="store_true", help="also apply fixes that may change runtime behaviour"
    )
    parser.add_argument("--diff", action="store_true", help="print a unified diff of the fixes and write nothing")
    parser.add_argument(
        "--verify",
        action="store_true",
        help="run the changed files' tools before and after (dispatchguard verify); take back a file whose fix"
        " made a tool worse",
    )
    parser.add_argument(
        "--select",
        type=code_list,
        metavar="CODES",
        help="fix and report only these codes or prefixes (ALL: every rule)",
    )
    parser.add_argument(
        "--ignore", type=code_list, metavar="CODES", help="neither fix nor report these codes or prefixes"
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the remaining findings")
    parser.add_argument(
        "-j", "--jobs", type=job_count, default=None, metavar="N", help="parallel workers for the check passes"
    )
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")


def run(args: argparse.Namespace) -> int:
    """Run ``dispatchguard fix``: files are rewritten in place (atomically), or with --diff only
    printed. Exit 0 nothing needed fixing and no finding remains, 1 a file changed (or would) or
    a finding remains, 2 usage, configuration or internal error or an unreadable notebook."""
    with collector_off():  # its check passes allocate as `check` does
        return run_guarded(_run, args)


def _run(args: argparse.Namespace) -> int:
    require_paths(args.paths)
    config = effective_config(args)
    notebooks = report_notebooks(unreadable_notebooks(args.paths, config))

    from dispatchguard.fix import apply_fixes

    def apply() -> Any:
        return apply_fixes(
            args.paths,
            config,
            unsafe=args.unsafe_fixes,
            diff=args.diff,
            jobs=args.jobs or None,
            use_cache=not args.no_cache,
        )

    if args.verify and not args.diff:
        from dispatchguard.verify.fixing import verify_fixes
        from dispatchguard.verify.runner import VerifyOptions

        report = verify_fixes(apply, args.paths, config, VerifyOptions.from_settings(config.verify))
    else:
        report = apply()
    out = sys.stdout
    if args.diff:
        out.write(report.diff)
    elif not args.quiet:
        for fix in report.applied:
            print(f"{fix.path}:{position(fix)}: {fix.code} fixed: {fix.description}", file=out)

    reasons = {(s.path, s.cell, s.line, s.col, s.code): s.reason for s in report.skipped}
    for finding in report.remaining:
        reason = reasons.get((finding.path, finding.cell, finding.line, finding.col, finding.code))
        line = f"{finding.path}:{position(finding)}: {finding.code} {finding.message}"
        if reason and not args.quiet:
            line += f" [not fixed: {reason}]"
        print(line, file=out)

    print(fix_summary(report, diff=args.diff), file=sys.stderr)
    return 2 if notebooks else report.exit_code


def fix_summary(report: Any, *, diff: bool) -> str:
    """One line for stderr: what was fixed, what remains, what --unsafe-fixes would add."""
    fixed = len(report.applied)
    files = len(report.changed_files)
    left = len(report.remaining)
    verb = "Would fix" if diff else "Fixed"
    parts = []
    if fixed:
        parts.append(f"{verb} {fixed} finding{'s' if fixed != 1 else ''} in {files} file{'s' if files != 1 else ''}.")
    else:
        parts.append("Nothing to fix.")
    if left:
        parts.append(f"{left} finding{'s' if left != 1 else ''} remain{'s' if left == 1 else ''}.")
    unsafe = report.unsafe_available
    if unsafe:
        parts.append(f"{unsafe} more fixable with --unsafe-fixes.")
    return " ".join(parts)
