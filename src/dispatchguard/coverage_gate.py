"""The coverage gate: fail when critical modules drop below a coverage threshold.

``dispatchguard coverage --fail-under 90 --include 'src/**/tool_dispatcher.py'`` reads a coverage.py
data file through coverage's public API, reports the files matching the patterns (one row per file:
statements, branches, missed lines, percentage) and fails below the threshold.

Defaults come from ``[tool.dispatchguard.coverage]`` in the nearest ``pyproject.toml``::

    [tool.dispatchguard.coverage]
    fail-under = 90
    include = ["src/**/tool_dispatcher.py", "src/**/models.py"]
    data-file = ".coverage"      # relative to the pyproject.toml
    per-file = false             # true: every file must reach fail-under, not just the total

Patterns are globs: ``*`` and ``?`` stay within one path segment, ``**`` spans any number of
segments (including none). Patterns given on the command line are relative to the current
directory; those from ``pyproject.toml`` are relative to the file's directory. A file that matches
a pattern on disk but was never imported during the test run counts as 0% covered: a critical
module nobody imports is exactly what the gate is for.

Exit codes: 0 at or above the threshold, 1 below, 2 on errors (no data file, nothing matched,
bad configuration). The module imports ``coverage`` only when the gate runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

CONFIG_TABLE = ("tool", "dispatchguard", "coverage")
_CONFIG_KEYS = {"fail-under", "include", "data-file", "per-file", "branch"}


class GateError(Exception):
    """A problem that makes the gate unable to decide (exit 2)."""


# --------------------------------------------------------------------------- configuration


@dataclass(frozen=True)
class GateOptions:
    """What to check. ``include`` patterns are matched relative to ``base_dir``."""

    fail_under: float
    include: tuple[str, ...]
    data_file: Path
    base_dir: Path
    branch: bool | None = None  # None: use whatever the data file measured
    per_file: bool = False
    rcfile: Path | None = None


@dataclass(frozen=True)
class FileResult:
    path: str  # as displayed (relative to base_dir when below it)
    statements: int
    missing_lines: tuple[int, ...]
    branches: int
    missing_branches: tuple[tuple[int, int], ...]  # (from, to); to < 0 means "exit"
    partial_branches: int
    measured: bool  # False: the file matched on disk but coverage never saw it imported
    branch: bool  # whether branches count in the percentage

    @property
    def covered(self) -> int:
        return self.statements - len(self.missing_lines) + (
            self.branches - len(self.missing_branches) if self.branch else 0
        )

    @property
    def total(self) -> int:
        return self.statements + (self.branches if self.branch else 0)

    @property
    def percent(self) -> float:
        return 100.0 if self.total == 0 else 100.0 * self.covered / self.total

    def missing_text(self) -> str:
        return format_missing(self.missing_lines, self.missing_branches if self.branch else ())


@dataclass
class GateResult:
    files: list[FileResult]
    options: GateOptions
    unmatched_patterns: list[str] = field(default_factory=list)

    @property
    def total_percent(self) -> float:
        total = sum(f.total for f in self.files)
        return 100.0 if total == 0 else 100.0 * sum(f.covered for f in self.files) / total

    @property
    def failing_files(self) -> list[FileResult]:
        return [f for f in self.files if f.percent < self.options.fail_under]

    @property
    def passed(self) -> bool:
        if self.options.per_file:
            return not self.failing_files
        return self.total_percent >= self.options.fail_under


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start``."""
    start = start.resolve()
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def read_config(pyproject: Path) -> dict[str, Any]:
    """The ``[tool.dispatchguard.coverage]`` table, validated; ``{}`` when absent."""
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise GateError(f"{pyproject}: cannot read: {exc}") from exc
    table: Any = data
    for key in CONFIG_TABLE:
        if not isinstance(table, dict) or key not in table:
            return {}
        table = table[key]
    where = f"{pyproject}: [tool.dispatchguard.coverage]"
    if not isinstance(table, dict):
        raise GateError(f"{where} must be a table")
    unknown = sorted(set(table) - _CONFIG_KEYS)
    if unknown:
        raise GateError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_CONFIG_KEYS))})")
    if "fail-under" in table and (
        isinstance(table["fail-under"], bool) or not isinstance(table["fail-under"], (int, float))
    ):
        raise GateError(f"{where}: 'fail-under' must be a number, got {table['fail-under']!r}")
    if "include" in table:
        include = table["include"]
        if isinstance(include, str):
            table["include"] = [include]
        elif not (isinstance(include, list) and all(isinstance(p, str) for p in include)):
            raise GateError(f"{where}: 'include' must be a list of glob strings")
    if "data-file" in table and not isinstance(table["data-file"], str):
        raise GateError(f"{where}: 'data-file' must be a string")
    for key in ("per-file", "branch"):
        if key in table and not isinstance(table[key], bool):
            raise GateError(f"{where}: {key!r} must be true or false")
    if "fail-under" in table and not 0 <= table["fail-under"] <= 100:
        raise GateError(f"{where}: 'fail-under' must be between 0 and 100")
    return table


def resolve_options(
    *,
    fail_under: float | None = None,
    include: Sequence[str] | None = None,
    data_file: str | None = None,
    branch: bool | None = None,
    per_file: bool | None = None,
    rcfile: str | None = None,
    cwd: Path | None = None,
    pyproject: Path | None = None,
) -> GateOptions:
    """Merge command-line values over ``[tool.dispatchguard.coverage]`` defaults.

    Command-line patterns and data file are relative to ``cwd``; configured ones to the
    ``pyproject.toml`` that holds them.
    """
    cwd = (cwd or Path.cwd()).resolve()
    pyproject = pyproject if pyproject is not None else find_pyproject(cwd)
    config = read_config(pyproject) if pyproject is not None else {}
    config_dir = pyproject.parent.resolve() if pyproject is not None else cwd

    if fail_under is None:
        fail_under = config.get("fail-under")
    if fail_under is None:
        raise GateError(
            "no threshold: pass --fail-under or set fail-under in [tool.dispatchguard.coverage]"
            + (f" of {pyproject}" if pyproject else "")
        )
    if isinstance(fail_under, float) and math.isnan(fail_under) or not 0 <= fail_under <= 100:
        raise GateError(f"--fail-under must be between 0 and 100, got {fail_under}")

    if include:
        patterns, base_dir = tuple(include), cwd
    elif config.get("include"):
        patterns, base_dir = tuple(config["include"]), config_dir
    else:
        raise GateError(
            "no files to gate: pass --include PATTERN or set include in [tool.dispatchguard.coverage]"
            + (f" of {pyproject}" if pyproject else "")
        )

    if data_file is not None:
        data_path = cwd / data_file
    elif "data-file" in config:
        data_path = config_dir / config["data-file"]
    else:
        data_path = base_dir / ".coverage"

    if branch is None:
        branch = config.get("branch")
    if per_file is None:
        per_file = bool(config.get("per-file", False))

    rc_path: Path | None = None
    if rcfile is not None:
        rc_path = cwd / rcfile
    elif (config_dir / ".coveragerc").is_file():
        rc_path = config_dir / ".coveragerc"
    elif pyproject is not None:
        rc_path = pyproject
    return GateOptions(
        fail_under=float(fail_under),
        include=patterns,
        data_file=data_path,
        base_dir=base_dir,
        branch=branch,
        per_file=per_file,
        rcfile=rc_path,
    )


# --------------------------------------------------------------------------- matching


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Translate a path glob (``*``, ``?``, ``[...]``, ``**``) into a regex over POSIX paths."""
    pattern = pattern.replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**", i):
            at_segment_start = i == 0 or pattern[i - 1] == "/"
            j = i + 2
            if at_segment_start and j < n and pattern[j] == "/":
                out.append("(?:.*/)?")  # '**/' : zero or more whole directories
                i = j + 1
                continue
            out.append(".*")
            i = j
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end == -1:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z")


def display_path(path: Path, base_dir: Path) -> str:
    try:
        return path.relative_to(base_dir).as_posix()
    except ValueError:
        return path.as_posix()


def match_files(
    candidates: Iterable[Path], patterns: Sequence[str], base_dir: Path
) -> tuple[dict[Path, str], list[str]]:
    """Files among ``candidates`` matching any pattern, and the patterns that matched nothing.

    A relative pattern is matched against the path relative to ``base_dir`` (files outside it
    against their absolute path, so ``**/x.py`` still works); an absolute pattern against the
    absolute path.
    """
    compiled = [(p, glob_to_regex(p), os.path.isabs(p)) for p in patterns]
    matched: dict[Path, str] = {}
    hits = dict.fromkeys(patterns, False)
    for path in candidates:
        rel = display_path(path, base_dir)
        absolute = path.as_posix()
        for raw, regex, is_abs in compiled:
            if regex.match(absolute if is_abs else rel):
                matched[path] = rel
                hits[raw] = True
    return matched, [p for p, hit in hits.items() if not hit]


def files_on_disk(patterns: Sequence[str], base_dir: Path) -> list[Path]:
    """Python files below ``base_dir`` (or absolute patterns' roots) that match the patterns."""
    found: list[Path] = []
    for pattern in patterns:
        root = Path(pattern) if os.path.isabs(pattern) else base_dir / pattern
        # walk from the longest wildcard-free prefix of the pattern
        parts = root.parts
        fixed: list[str] = []
        for part in parts:
            if any(ch in part for ch in "*?["):
                break
            fixed.append(part)
        start = Path(*fixed) if fixed else base_dir
        if start.is_file():
            found.append(start.resolve())
            continue
        if not start.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(start):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
            for name in filenames:
                if name.endswith((".py", ".pyw")):
                    found.append(Path(dirpath, name).resolve())
    return found


# --------------------------------------------------------------------------- measuring


def format_missing(lines: Sequence[int], branches: Sequence[tuple[int, int]] = ()) -> str:
    """``3-5, 9, 12->14, 20->exit`` like ``coverage report -m`` (a partial branch from or to a
    missed line is not repeated)."""
    items: list[tuple[int, str]] = []
    ordered = sorted(set(lines))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        start, end = ordered[i], ordered[j]
        items.append((start, str(start) if start == end else f"{start}-{end}"))
        i = j + 1
    missing = set(ordered)
    for src, dst in sorted(branches):
        if src in missing or dst in missing:  # already visible as a missed line
            continue
        items.append((src, f"{src}->{'exit' if dst < 0 else dst}"))
    items.sort(key=lambda item: item[0])
    return ", ".join(text for _, text in items)


def measure(options: GateOptions) -> GateResult:
    """Load the data file and compute per-file results for the matched files."""
    try:
        import coverage
        from coverage.exceptions import CoverageException
    except ImportError as exc:  # pragma: no cover - coverage is installed wherever tests run
        raise GateError(
            "coverage.py is not installed in this environment: pip install 'coverage[toml]'"
        ) from exc

    data_file = options.data_file
    if not data_file.is_file():
        siblings = sorted(p.name for p in data_file.parent.glob(data_file.name + ".*"))
        hint = (
            f"; found {len(siblings)} parallel data file(s) ({', '.join(siblings[:3])}"
            f"{', ...' if len(siblings) > 3 else ''}): run `coverage combine` first"
            if siblings
            else "; run the tests under coverage first (e.g. `pytest --cov` or `coverage run -m pytest`)"
        )
        raise GateError(f"no coverage data file at {data_file}{hint}")

    try:
        cov = coverage.Coverage(
            data_file=str(data_file),
            config_file=str(options.rcfile) if options.rcfile else False,
        )
        cov.load()
        data = cov.get_data()
        measured = {Path(f) for f in data.measured_files()}
        has_arcs = data.has_arcs()
    except CoverageException as exc:
        raise GateError(f"cannot read coverage data {data_file}: {exc}") from exc

    if options.branch and not has_arcs:
        raise GateError(
            f"--branch asked for, but {data_file} was recorded without branch measurement "
            "(run coverage with --branch or `branch = true` in [tool.coverage.run])"
        )
    use_branch = has_arcs if options.branch is None else options.branch

    in_data, _ = match_files(measured, options.include, options.base_dir)
    on_disk, _ = match_files(
        files_on_disk(options.include, options.base_dir), options.include, options.base_dir
    )
    matched = {**on_disk, **in_data}
    _, unmatched = match_files(matched, options.include, options.base_dir)
    if not matched:
        raise GateError(
            f"no file matched {', '.join(repr(p) for p in options.include)} "
            f"(relative to {options.base_dir}) in {data_file} ({len(measured)} measured file(s)) "
            "or on disk"
        )

    order = sorted(matched, key=lambda p: matched[p])
    with tempfile.TemporaryDirectory(prefix="dg-coverage-") as tmp:
        out = Path(tmp, "coverage.json")
        try:
            cov.json_report(morfs=[str(p) for p in order], outfile=str(out))
        except CoverageException as exc:
            raise GateError(f"coverage could not analyse the matched files: {exc}") from exc
        report = json.loads(out.read_text(encoding="utf-8"))

    by_abs: dict[Path, dict[str, Any]] = {}
    for name, entry in report.get("files", {}).items():
        path = Path(name)
        if not path.is_absolute():
            path = Path.cwd() / path
        by_abs[path.resolve()] = entry

    results: list[FileResult] = []
    for path in order:
        entry = by_abs.get(path.resolve())
        if entry is None:  # coverage skipped it (e.g. not Python source): nothing to measure
            continue
        summary = entry["summary"]
        missing_branches = tuple(tuple(b) for b in entry.get("missing_branches", ()))
        results.append(
            FileResult(
                path=matched[path],
                statements=summary["num_statements"],
                missing_lines=tuple(entry["missing_lines"]),
                branches=summary.get("num_branches", 0),
                missing_branches=missing_branches,  # type: ignore[arg-type]
                partial_branches=summary.get("num_partial_branches", 0),
                measured=path in measured,
                branch=use_branch,
            )
        )
    return GateResult(files=results, options=options, unmatched_patterns=unmatched)


# --------------------------------------------------------------------------- reporting


def format_percent(value: float) -> str:
    """Two decimals, never rounded up to the threshold: 89.999 shows as 89.99, not 90.00."""
    return f"{math.floor(value * 100 + 1e-9) / 100:.2f}%"


def render(result: GateResult, out: TextIO) -> None:
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
        parts = [cells[0].ljust(widths[0])] + [
            cells[i].rjust(widths[i]) for i in range(1, len(cells) - 1)
        ]
        return ("   ".join(parts) + "   " + cells[-1]).rstrip()

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


def run_gate(options: GateOptions, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        result = measure(options)
    except GateError as exc:
        print(f"dispatchguard coverage: error: {exc}", file=err)
        return 2
    render(result, out)
    return 0 if result.passed else 1


# --------------------------------------------------------------------------- command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The gate's options (defined in :mod:`dispatchguard.cli.coverage`, which the router imports
    for every subcommand and so must stay light)."""
    from dispatchguard.cli.coverage import add_arguments as add

    add(parser)


def run_args(args: argparse.Namespace) -> int:
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
    return run_gate(options)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point usable as a hook: ``python -m dispatchguard.coverage_gate --fail-under 90 ...``.

    Extra positional arguments (file names pre-commit may pass) are ignored.
    """
    parser = argparse.ArgumentParser(prog="dispatchguard coverage", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("filenames", nargs="*", help=argparse.SUPPRESS)
    return run_args(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
