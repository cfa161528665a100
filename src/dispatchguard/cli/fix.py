"""Apply the automatic fixes (libcst), keeping comments and formatting, then report what is left.

Safe fixes are applied by default; `--unsafe-fixes` also applies the ones that may change runtime
behaviour (every rule page has a "Fix safety" section). `--diff` prints a unified diff and writes
nothing. Exit status (pre-commit semantics): 0 nothing needed fixing and no findings remain,
1 files changed (or would change, with --diff) or findings remain, 2 usage, configuration or
internal error.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

# Only the standard library at import time: libcst is imported inside `run`.

HELP = "apply the automatic fixes (DG101, DG103) with libcst"

_SELECTOR = re.compile(r"[A-Z]+[0-9]*")


class UsageError(Exception):
    pass


def _code_list(value: str) -> list[str]:
    codes = [part.strip().upper() for part in value.split(",") if part.strip()]
    for code in codes:
        if not _SELECTOR.fullmatch(code):
            raise argparse.ArgumentTypeError(f"invalid rule selector {code!r} (expected a code or prefix such as DG103)")
    return codes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or directories to fix (default: .)")
    parser.add_argument("--config", metavar="FILE", help="read [tool.dispatchguard] from FILE instead of the nearest pyproject.toml")
    parser.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes that may change runtime behaviour")
    parser.add_argument("--diff", action="store_true", help="print a unified diff of the fixes and write nothing")
    parser.add_argument("--select", type=_code_list, metavar="CODES", help="fix and report only these codes or prefixes (ALL: every rule)")
    parser.add_argument("--ignore", type=_code_list, metavar="CODES", help="neither fix nor report these codes or prefixes")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the remaining findings")
    parser.add_argument("-j", "--jobs", type=int, default=None, metavar="N", help="parallel workers for the check passes")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except UsageError as exc:
        _error(str(exc))
        return 2
    except KeyboardInterrupt:
        _error("interrupted")
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug becomes one line and exit 2, never a traceback in a hook
        _error(f"internal error ({type(exc).__name__}: {exc}); please report it with the command you ran")
        return 2


def _error(message: str) -> None:
    print(f"dispatchguard: error: {message}", file=sys.stderr)


def load_effective_config(paths: list[str], config_file: str | None, select: Any, ignore: Any) -> Any:
    import dataclasses

    from dispatchguard import lint

    try:
        config = lint.load_config(paths, config_file=config_file)
    except lint.ConfigError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot read the configuration: {exc}") from None
    select = tuple("" if code == "ALL" else code for code in select or ())
    ignore = tuple("" if code == "ALL" else code for code in ignore or ())
    for flag, codes in (("--select", select), ("--ignore", ignore)):
        for code in codes:
            if not any(known.startswith(code) for known in lint.RULES):
                raise UsageError(f"{flag}: unknown rule code or prefix {code!r} (known: {', '.join(sorted(lint.RULES))})")
    changes: dict[str, Any] = {}
    if select:
        changes["select"] = tuple(select)
        changes["extend_select"] = ()
    if ignore:
        changes["ignore"] = tuple(dict.fromkeys((*config.ignore, *ignore)))
    return dataclasses.replace(config, **changes) if changes else config


def _run(args: argparse.Namespace) -> int:
    for path in args.paths:
        if not os.path.exists(path):
            raise UsageError(f"{path}: no such file or directory")
    config = load_effective_config(args.paths, args.config, args.select, args.ignore)

    from dispatchguard.fix import apply_fixes

    report = apply_fixes(
        args.paths,
        config,
        unsafe=args.unsafe_fixes,
        diff=args.diff,
        jobs=args.jobs,
        use_cache=not args.no_cache,
    )
    out = sys.stdout
    if args.diff:
        out.write(report.diff)
    elif not args.quiet:
        for fix in report.applied:
            print(f"{fix.path}:{fix.line}:{fix.col}: {fix.code} fixed: {fix.description}", file=out)

    reasons = {(s.path, s.line, s.col, s.code): s.reason for s in report.skipped}
    for finding in report.remaining:
        reason = reasons.get((finding.path, finding.line, finding.col, finding.code))
        line = f"{finding.path}:{finding.line}:{finding.col}: {finding.code} {finding.message}"
        if reason and not args.quiet:
            line += f" [not fixed: {reason}]"
        print(line, file=out)

    print(_summary(report, args.diff), file=sys.stderr)
    return report.exit_code


def _summary(report: Any, diff: bool) -> str:
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
