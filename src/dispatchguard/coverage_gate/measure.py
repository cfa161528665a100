"""Reading the coverage data file and measuring the matched files (the only place that imports
``coverage``, and only when the gate runs)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from dispatchguard.coverage_gate.errors import GateError
from dispatchguard.coverage_gate.matching import files_on_disk, match_files
from dispatchguard.coverage_gate.results import FileResult, GateResult
from dispatchguard.coverage_gate.settings import GateOptions


def measure(options: GateOptions) -> GateResult:
    """Load the data file and compute per-file results for the matched files."""
    try:
        import coverage
        from coverage.exceptions import CoverageException
    except ImportError as exc:  # pragma: no cover - coverage is installed wherever tests run
        raise GateError("coverage.py is not installed in this environment: pip install 'coverage[toml]'") from exc

    data_file = options.data_file
    if not data_file.is_file():
        raise GateError(f"no coverage data file at {data_file}{_missing_data_hint(data_file)}")
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
    matched, unmatched = _matched(options, measured)
    order = sorted(matched, key=lambda p: matched[p])
    with tempfile.TemporaryDirectory(prefix="dg-coverage-") as tmp:
        out = Path(tmp, "coverage.json")
        try:
            cov.json_report(morfs=[str(p) for p in order], outfile=str(out))
        except CoverageException as exc:
            raise GateError(f"coverage could not analyse the matched files: {exc}") from exc
        report = json.loads(out.read_text(encoding="utf-8"))
    by_abs = _entries_by_path(report)
    results = [
        _file_result(matched[path], entry, path in measured, use_branch)
        for path in order
        # coverage skipped it (not Python source, say): nothing to measure
        if (entry := by_abs.get(path.resolve())) is not None
    ]
    return GateResult(files=results, options=options, unmatched_patterns=unmatched)


def _missing_data_hint(data_file: Path) -> str:
    siblings = sorted(p.name for p in data_file.parent.glob(data_file.name + ".*"))
    if not siblings:
        return "; run the tests under coverage first (e.g. `pytest --cov` or `coverage run -m pytest`)"
    shown = ", ".join(siblings[:3]) + (", ..." if len(siblings) > 3 else "")
    return f"; found {len(siblings)} parallel data file(s) ({shown}): run `coverage combine` first"


def _matched(options: GateOptions, measured: set[Path]) -> tuple[dict[Path, str], list[str]]:
    """The files the patterns match, in the data or on disk (path -> shown path), and the patterns
    that matched nothing."""
    in_data, _ = match_files(measured, options.include, options.base_dir)
    on_disk, _ = match_files(
        files_on_disk(options.include, options.base_dir, options.config), options.include, options.base_dir
    )
    matched = {**on_disk, **in_data}
    _, unmatched = match_files(matched, options.include, options.base_dir)
    if not matched:
        raise GateError(
            f"no file matched {', '.join(repr(p) for p in options.include)} "
            f"(relative to {options.base_dir}) in {options.data_file} ({len(measured)} measured file(s)) "
            "or on disk"
        )
    return matched, unmatched


def _entries_by_path(report: dict[str, Any]) -> dict[Path, dict[str, Any]]:
    by_abs: dict[Path, dict[str, Any]] = {}
    for name, entry in report.get("files", {}).items():
        path = Path(name)
        if not path.is_absolute():
            path = Path.cwd() / path
        by_abs[path.resolve()] = entry
    return by_abs


def _file_result(shown: str, entry: dict[str, Any], measured: bool, branch: bool) -> FileResult:
    summary = entry["summary"]
    return FileResult(
        path=shown,
        statements=summary["num_statements"],
        missing_lines=tuple(entry["missing_lines"]),
        branches=summary.get("num_branches", 0),
        missing_branches=tuple(tuple(b) for b in entry.get("missing_branches", ())),  # type: ignore[arg-type]
        partial_branches=summary.get("num_partial_branches", 0),
        measured=measured,
        branch=branch,
    )
