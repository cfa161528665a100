"""``dispatchguard fix --verify``: a fix after which a tool works worse than before is taken back.

The fixes are applied as usual; then the tools of the files they changed (less those
``[tool.dispatchguard.verify] exclude`` names, as for ``dispatchguard verify``) are verified twice
with the same seed, on the fixed files and on the originals (written back for the while, then the
fixed bytes again). A file in which a tool got worse gets its original bytes back, and the report
says which tool and why. A tool got worse when it:

- kept the contract before and no longer does (a violation, a crash, a hang);
- could be built before and no longer can;
- answered a value before (a dict, say: the finding the fix was for) and now raises, crashes or
  hangs: the fix turned a wrong answer into no answer (``json.dumps`` of a ``datetime``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from dispatchguard.atomic import atomic_write
from dispatchguard.fix.report import FixReport, SkippedFix
from dispatchguard.lint.config import LintConfig
from dispatchguard.verify.discover import verify_targets
from dispatchguard.verify.runner import ToolReport, VerifyOptions, verify_tools

#: Statuses in which a tool gave no answer at all.
_NO_ANSWER = ("crashed", "hung", "error")


def regression(was: ToolReport, now: ToolReport) -> str | None:
    """How a tool got worse from ``was`` (the originals) to ``now`` (the fixed files), or None."""
    if was.status == "not_built":
        return None
    if now.status == "not_built":
        return f"it can no longer be built ({now.detail})"
    if was.status == "verified" and now.status != "verified":
        return f"it kept the contract before; now {now.status}: {now.detail}"
    answered = was.status == "violation" and not was.detail.startswith("raised")
    if answered and (now.status in _NO_ANSWER or now.detail.startswith("raised")):
        return f"it answered a value before; now {now.status}: {now.detail}"
    return None


def verify_fixes(
    apply: Callable[[], FixReport],
    paths: Sequence[str | os.PathLike[str]],
    config: LintConfig,
    options: VerifyOptions,
    *,
    jobs: int = 1,
) -> FixReport:
    """Run ``apply`` (the fixer) over ``paths``, then take back the files whose fix made a tool
    worse (see the module docstring); their fixes are reported as skipped, with why."""
    from dispatchguard.lint.discovery import walk

    originals = {path: path.read_bytes() for path in walk(list(paths), config, Path(config.root))}
    report = apply()
    fixed = {path: data for path, old in originals.items() if (data := _read(path)) not in (old, None)}
    if not fixed:
        return report
    targets = verify_targets([str(path) for path in fixed], config)
    if not targets:
        return report
    after = verify_tools(targets, options, jobs=jobs)
    for path in fixed:
        atomic_write(path, originals[path])
    try:
        before = verify_tools(targets, options, jobs=jobs)
    finally:
        for path, data in fixed.items():
            atomic_write(path, data)
    worse: dict[Path, str] = {}
    for was, now in zip(before, after, strict=True):
        why = regression(was, now)
        if why is not None:  # paths are shown as the checker shows them: relative to the cwd
            file = Path(now.target.path).resolve()
            worse.setdefault(file, f"taken back by --verify: the fix made tool `{now.target.label}` worse: {why}")
    taken_back = [path for path in fixed if path.resolve() in worse]
    for path in taken_back:
        atomic_write(path, originals[path])
    return _without(report, worse, taken_back, config)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _without(report: FixReport, worse: dict[Path, str], taken_back: list[Path], config: LintConfig) -> FixReport:
    """The report with the taken-back files' fixes moved to ``skipped`` (with why) and their
    findings among the remaining ones again."""
    if not taken_back:
        return report
    from dispatchguard.lint import check_paths

    applied, skipped = [], list(report.skipped)
    for fix in report.applied:
        why = worse.get(Path(fix.path).resolve())
        if why is None:
            applied.append(fix)
        else:
            skipped.append(SkippedFix(fix.path, fix.line, fix.col, fix.code, why, "dropped", fix.cell))
    changed = [path for path in report.changed_files if Path(path).resolve() not in worse]
    again = [f for f in check_paths([str(p) for p in taken_back], config, nested=False).findings if not f.suppressed]
    return dataclasses.replace(
        report, applied=applied, skipped=skipped, changed_files=changed, remaining=[*report.remaining, *again]
    )
