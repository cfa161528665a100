"""`dispatchguard check`: the findings of the DG rules on files, folders or standard input
(``DESCRIPTION`` is its ``--help``, its rule list taken from the rule table)."""

from __future__ import annotations

import argparse
import dataclasses
import io
import os
import sys
import time
import tokenize
from typing import Any

from dispatchguard.cli.common import (
    UsageError,
    add_optional_value_option,
    add_project_options,
    code_list,
    collector_off,
    effective_config,
    job_count,
    plural,
    report_notebooks,
    require_paths,
    run_guarded,
)
from dispatchguard.cli.output import FORMATS
from dispatchguard.lint.rules import listed

# Only the standard library at import time: `dispatchguard --help` imports every subcommand module
# to build its parser, and `dispatchguard check` must never load libcst or pydantic.

HELP = "check files for DG rule violations"


def rule_lines(rules: dict) -> list[str]:
    """One line per rule, as ``check --help`` prints them and docs/cli.md shows them."""
    return [f"  {code} {rule.summary}" + (" (preview)" if rule.preview else "") for code, rule in rules.items()]


DESCRIPTION = "\n\n".join(
    [
        "Check Python files and notebooks against the DG rules:\n"
        + "\n".join(rule_lines(listed(preview=True))),
        "`--stdin-filename PATH -` checks standard input as the file PATH of its project (editors);\n"
        "`--add-noqa[=REASON]` adds `# noqa: CODE` to every line with a finding.",
        "Exit status: 0 no findings, 1 findings, 2 usage, configuration or internal error.",
    ]
)

#: The formats that end with a summary on stderr and may be coloured (the others are for machines).
HUMAN_FORMATS = ("text", "concise", "full", "grouped")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the paths and the selection, output, execution, fix and baseline options."""
    parser.add_argument(
        "paths",
        nargs="*",
        default=None,
        metavar="PATH",
        help="files or directories to check (default: .); - reads one file from standard input",
    )
    parser.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="check standard input as the file PATH of its project (what editors send for unsaved buffers)",
    )
    add_project_options(parser)
    parser.add_argument(
        "--show-settings",
        action="store_true",
        help="print the effective configuration, with where each value comes from, and exit",
    )
    rules = parser.add_argument_group("rule selection")
    rules.add_argument(
        "--select",
        type=code_list,
        metavar="CODES",
        help="comma-separated codes or prefixes to enable, replacing the configured selection",
    )
    rules.add_argument(
        "--extend-select",
        type=code_list,
        metavar="CODES",
        help="codes or prefixes to enable in addition to the selection",
    )
    rules.add_argument(
        "--ignore",
        type=code_list,
        metavar="CODES",
        help="codes or prefixes to disable, in addition to the configured ones",
    )
    rules.add_argument(
        "--strict", action="store_true", default=None, help="DG103: also flag returned values of unknown origin"
    )
    rules.add_argument(
        "--preview",
        action="store_true",
        default=None,
        help="also run the rules in preview (new rules; otherwise they run only when selected by code)",
    )
    out = parser.add_argument_group("output")
    out.add_argument(
        "--output-format",
        choices=list(FORMATS),
        default="text",
        help="text (default; concise is the same), full (with the source), grouped (by file), json and "
        "json-lines (ruff's fields), github (Actions annotations), gitlab (Code Quality), junit, pylint, "
        "rdjson (reviewdog) or sarif (2.1.0)",
    )
    out.add_argument(
        "-o", "--output-file", metavar="FILE", help="write the findings to FILE instead of standard output"
    )
    out.add_argument(
        "--statistics", action="store_true", help="show the number of findings per code instead of the findings"
    )
    out.add_argument(
        "--show-suppressed",
        action="store_true",
        help="text output: also list findings silenced by # noqa or the baseline, marked as such",
    )
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    out.add_argument(
        "-q", "--quiet", action="store_true", help="print the findings and nothing else (no summaries on stderr)"
    )
    run = parser.add_argument_group("execution")
    run.add_argument(
        "-j",
        "--jobs",
        type=job_count,
        default=None,
        metavar="N",
        help="parallel worker processes (default: all cores; 1 runs in this process)",
    )
    run.add_argument("--no-cache", action="store_true", help="do not read or write the per-file result cache")
    run.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="where the result cache lives (default: .dispatchguard_cache in the project root)",
    )
    fixes = parser.add_argument_group("fixes")
    fixes.add_argument(
        "--fix", action="store_true", help="apply the safe automatic fixes first, then report what is left"
    )
    fixes.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="make the fixes that may change runtime behaviour available: with --fix, they are applied too",
    )
    fixes.add_argument(
        "--show-fixes", action="store_true", help="with --fix: list what was fixed (per file and code) on stderr"
    )
    fixes.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="with --fix: exit 1 when a file was changed, even if no finding remains",
    )
    add_optional_value_option(
        parser,
        "--add-noqa",
        dest="add_noqa",
        help="--add-noqa[=REASON]: add `# noqa: CODE` (followed by REASON) to every line with a finding and exit",
        group=fixes,
    )
    base = parser.add_argument_group("baseline").add_mutually_exclusive_group()
    base.add_argument("--baseline", metavar="FILE", help="report only findings that are not recorded in FILE")
    base.add_argument("--write-baseline", metavar="FILE", help="record the current findings in FILE and exit 0")


def run(args: argparse.Namespace) -> int:
    """Run ``dispatchguard check``: 0 no unsilenced finding (or --exit-zero, --write-baseline), 1
    findings (or, with --exit-non-zero-on-fix, a fixed file), 2 usage, configuration or internal
    error or a notebook that could not be read. A reader that closes the pipe early also gives 1."""
    with collector_off():
        try:
            return run_guarded(_run, args)
        except BrokenPipeError:
            # The reader went away (`dispatchguard check | head`): not an error of ours.
            # Point stdout at /dev/null so the interpreter's final flush does not fail again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1


#: The output formats that show each finding's fix (ruff's fix object, SARIF fixes, rdjson suggestions).
FIX_FORMATS = frozenset({"json", "json-lines", "sarif", "rdjson"})


def _run(args: argparse.Namespace) -> int:
    _check_usage(args)
    stdin_path = _stdin_path(args)
    if stdin_path is None:
        args.paths = args.paths or ["."]
        require_paths(args.paths)
    else:
        args.paths = [stdin_path]
    baseline_known = _load_baseline(args.baseline) if args.baseline else None
    config = effective_config(args)
    if args.show_settings:
        return _show_settings(args, config)
    fixes = _apply_fixes(args, config) if args.fix else None
    sources: dict[str, str] = {}  # what the `full` format shows for a buffer that is not on disk
    if stdin_path is None:
        report = _check_files(args, config)
    else:
        report = _check_stdin(stdin_path, args.stdin_filename is not None, config, sources)
    if stdin_path is None and args.output_format in FIX_FORMATS:
        from dispatchguard.fix import with_fixes  # the fix engine: only for the formats that carry fixes

        report = dataclasses.replace(report, findings=with_fixes(report.findings, config))
    notebooks = report_notebooks(report.notebooks)
    if args.add_noqa is not None:
        return _add_noqa(args, config, report.findings)
    if args.write_baseline:
        return _write_baseline(args, report.findings)
    return _report(args, report, notebooks, baseline_known, fixes, sources)


def _check_usage(args: argparse.Namespace) -> None:
    """The combinations of options that make no sense, before any work."""
    if args.statistics and args.output_format not in ("text", "concise", "json"):
        raise UsageError(f"--statistics works with the text (concise) and json formats, not {args.output_format}")
    if args.add_noqa is not None and (args.fix or args.write_baseline):
        raise UsageError("--add-noqa cannot be combined with --fix or --write-baseline")
    for flag, given in (("--show-fixes", args.show_fixes), ("--exit-non-zero-on-fix", args.exit_non_zero_on_fix)):
        if given and not args.fix:
            raise UsageError(f"{flag} reports on --fix: give --fix too")


def _load_baseline(path: str) -> Any:
    from dispatchguard.cli import baseline as baseline_mod

    try:
        return baseline_mod.load(path)
    except baseline_mod.BaselineError as exc:
        raise UsageError(str(exc)) from None


def _show_settings(args: argparse.Namespace, config: Any) -> int:
    from dispatchguard.cli.show_settings import render as render_settings
    from dispatchguard.lint.config import find_root

    root = None if args.config else find_root(args.paths)
    sys.stdout.write(render_settings(config, root, args))
    return 0


def _check_files(args: argparse.Namespace, config: Any) -> Any:
    from dispatchguard import lint

    progress = _Progress() if sys.stderr.isatty() else None
    try:
        return lint.check_paths(
            args.paths,
            config,
            jobs=args.jobs or None,
            use_cache=not args.no_cache,
            cache_dir=args.cache_dir,
            progress=progress,
            nested=not args.config,  # an explicit --config applies to every file, as in ruff
        )
    finally:
        if progress is not None:
            progress.clear()


def _add_noqa(args: argparse.Namespace, config: Any, findings: list[Any]) -> int:
    from dispatchguard.cli.add_noqa import add_noqa

    return add_noqa(findings, args.add_noqa, recheck=lambda paths: _recheck(paths, args, config), quiet=args.quiet)


def _write_baseline(args: argparse.Namespace, findings: list[Any]) -> int:
    from dispatchguard.cli import baseline as baseline_mod

    try:
        count = baseline_mod.write(args.write_baseline, findings)
    except baseline_mod.BaselineError as exc:
        raise UsageError(str(exc)) from None
    if not args.quiet:
        print(f"Wrote {count} finding(s) to the baseline {args.write_baseline}.", file=sys.stderr)
    return 0


def _report(
    args: argparse.Namespace, report: Any, notebooks: int, baseline_known: Any, fixes: Any, sources: dict[str, str]
) -> int:
    """Render the findings where they go; the exit status: 1 for a finding (or, with
    --exit-non-zero-on-fix, a fixed file) unless --exit-zero."""
    from dispatchguard.cli import baseline as baseline_mod

    findings = list(report.findings)
    baselined: frozenset[int] = frozenset()
    if baseline_known is not None:
        baselined = frozenset(baseline_mod.match(findings, args.baseline, baseline_known))
    _write_output(_render(args, findings, baselined, sources), args.output_file)
    reported = sum(1 for f in findings if not f.suppressed and id(f) not in baselined)
    if args.output_format in HUMAN_FORMATS and not args.quiet:
        files = (report.files_checked, report.files_without_tool_word)
        print(_summary(reported, len(findings) - reported, files, notebooks), file=sys.stderr)
    if notebooks:  # a notebook that is not one is an error, as a file that cannot be read
        return 2
    if args.exit_zero:
        return 0
    changed = args.exit_non_zero_on_fix and fixes is not None and bool(fixes.changed_files)
    return 1 if reported or changed else 0


def _render(args: argparse.Namespace, findings: list[Any], baselined: frozenset[int], sources: dict[str, str]) -> str:
    from dispatchguard import __version__, lint
    from dispatchguard.cli.output import Context, render
    from dispatchguard.cli.output.style import use_colour

    # a file named by --output-file is never coloured, as in ruff
    colour = args.output_format in HUMAN_FORMATS and args.output_file is None and use_colour(sys.stdout)
    context = Context(
        rules=lint.RULES,
        cwd=os.getcwd(),
        baselined=baselined,
        show_suppressed=args.show_suppressed,
        version=__version__,
        colour=colour,
        sources=sources,
    )
    if args.statistics:
        from dispatchguard.cli.output import json_format, text

        module = json_format if args.output_format == "json" else text
        return module.render_statistics(findings, context)
    return render(args.output_format, findings, context)


def _write_output(output: str, output_file: str | None) -> None:
    if output_file is None:
        sys.stdout.write(output)
        sys.stdout.flush()
        return
    try:
        with open(output_file, "w", encoding="utf-8") as handle:
            handle.write(output)
    except OSError as exc:
        raise UsageError(f"--output-file: cannot write {output_file}: {exc.strerror or exc}") from None


def _stdin_path(args: argparse.Namespace) -> str | None:
    """The path standard input is checked as (``-`` in the paths, or ``--stdin-filename`` and no
    paths), or None when the paths are checked on disk."""
    paths = args.paths or []
    if "-" not in paths and not (args.stdin_filename is not None and not paths):
        if args.stdin_filename is not None:
            raise UsageError("--stdin-filename checks standard input: give '-' instead of the paths")
        return None
    if paths != ["-"] and paths:
        raise UsageError("'-' (standard input) cannot be combined with other paths")
    for flag, given in (
        ("--fix", args.fix),
        ("--add-noqa", args.add_noqa is not None),
        ("--write-baseline", args.write_baseline),
    ):
        if given:
            raise UsageError(f"{flag} writes files and cannot be used on standard input")
    name = args.stdin_filename
    if name is None:
        return os.path.join(os.getcwd(), "stdin.py")
    if not name.strip():
        raise UsageError("--stdin-filename: the path is empty")
    if os.path.isdir(name):
        raise UsageError(f"--stdin-filename: {name} is a directory, not a file")
    return name


def _check_stdin(path: str, named: bool, config: Any, sources: dict[str, str]) -> Any:
    """The report of standard input checked as ``path`` (shown as ``-`` when no name was given);
    its text goes into ``sources`` under the path findings show. With ``force-exclude``, an
    excluded ``path`` is not checked, as ruff does."""
    from dispatchguard.lint import CheckReport
    from dispatchguard.lint.discovery import is_excluded
    from dispatchguard.lint.source import check_buffer

    data = sys.stdin.buffer.read()
    if config.force_exclude and is_excluded(path, config, config.root):
        return CheckReport([], 0)
    from dispatchguard.lint.notebook import NotebookError

    try:
        findings = check_buffer(path, data, config)
    except NotebookError as exc:  # --stdin-filename x.ipynb: its JSON on standard input
        return CheckReport([], 0, notebooks=[(path if named else "-", str(exc))])
    if not named:
        findings = [dataclasses.replace(f, path="-") for f in findings]
    for finding in findings[:1]:
        sources[finding.path] = _decoded(data)
    return CheckReport(findings, 1)


def _decoded(data: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding, "replace")
    except (SyntaxError, LookupError):  # a bad coding cookie: the finding is DG001 anyway
        return data.decode("utf-8", "replace")


def _recheck(paths: list[str], args: argparse.Namespace, config: Any) -> Any:
    from dispatchguard import lint

    return lint.check_paths(
        paths, config, jobs=1, use_cache=not args.no_cache, cache_dir=args.cache_dir, nested=not args.config
    )


def _apply_fixes(args: argparse.Namespace, config: Any) -> Any:
    from dispatchguard.cli.fix import fix_summary
    from dispatchguard.fix import apply_fixes

    report = apply_fixes(
        args.paths,
        config,
        unsafe=args.unsafe_fixes,
        jobs=args.jobs or None,
        use_cache=not args.no_cache,
        cache_dir=args.cache_dir,
    )
    if args.show_fixes:
        sys.stderr.write(_fixed_listing(report.applied))
    if not args.quiet:
        print(fix_summary(report, diff=False), file=sys.stderr)
    return report


def _fixed_listing(applied: list[Any]) -> str:
    """ruff's `--show-fixes` block: per file, how many findings of each code were fixed."""
    if not applied:
        return ""
    from dispatchguard.lint import RULES

    by_file: dict[str, dict[str, int]] = {}
    for fix in applied:
        codes = by_file.setdefault(fix.path, {})
        codes[fix.code] = codes.get(fix.code, 0) + 1
    lines = [f"Fixed {plural(len(applied), 'finding')}:"]
    for path, codes in sorted(by_file.items()):
        lines.append(f"- {path}:")
        # ruff's own listing uses the multiplication sign
        lines += [f"    {count} × {code} ({RULES[code].name})" for code, count in sorted(codes.items())]  # noqa: RUF001
    return "\n".join(lines) + "\n"


def _summary(reported: int, hidden: int, files: tuple[int, int], notebooks: int = 0) -> str:
    """The last line: findings, files (those without a tool word apart), what was silenced or skipped."""
    total, gated = files
    # the files the gate skipped were read, not checked by any rule: say so apart
    files_text = f"{plural(total, 'file')}: {total - gated} checked, {gated} without a tool word" if gated else ""
    if reported == 0 and notebooks:  # never "passed" while something given was not looked at
        text = f"No findings in {files_text or plural(total, 'file') + ' checked'}."
    elif reported == 0:
        text = f"All checks passed ({files_text or plural(total, 'file') + ' checked'})."
    else:
        text = f"Found {plural(reported, 'finding')} in {plural(total, 'file')}" + (
            f" ({total - gated} checked, {gated} without a tool word)." if gated else "."
        )
    if hidden:
        text += f" {hidden} silenced by # noqa or the baseline."
    if notebooks:
        text += f" {plural(notebooks, 'notebook')} (.ipynb) not checked."
    return text


class _Progress:
    """`checked 340/1200 files` on stderr, shown only once a run is long (many files or > 1 s)."""

    def __init__(self, min_files: int = 200, min_seconds: float = 1.0) -> None:
        self.start = time.monotonic()
        self.min_files = min_files
        self.min_seconds = min_seconds
        self.shown = False
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self.shown and total <= self.min_files and now - self.start < self.min_seconds:
            return
        if self.shown and now - self.last < 0.1 and done < total:
            return
        self.shown, self.last = True, now
        sys.stderr.write(f"\rdispatchguard: checked {done}/{total} files")
        sys.stderr.flush()

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
