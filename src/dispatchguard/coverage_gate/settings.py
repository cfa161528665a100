"""The gate's settings: command-line values merged over ``[tool.dispatchguard.coverage]``."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dispatchguard.coverage_gate.errors import GateError
from dispatchguard.lint.config import ConfigError, LintConfig, load_config


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
    config: LintConfig = dataclasses.field(default_factory=LintConfig)  # the project's: root, exclude


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
    """Merge command-line values over ``[tool.dispatchguard.coverage]`` defaults, read by the one
    configuration reader (:func:`dispatchguard.lint.config.load_config`) from the nearest
    ``pyproject.toml`` with a ``[tool.dispatchguard]`` table (or from ``pyproject``).

    Command-line patterns and data file are relative to ``cwd``; configured ones to the
    ``pyproject.toml`` that holds them.
    """
    cwd = (cwd or Path.cwd()).resolve()
    try:
        project = load_config([cwd]) if pyproject is None else load_config([], config_file=pyproject)
    except ConfigError as exc:
        raise GateError(str(exc)) from None
    pyproject = project.config_file
    settings = project.coverage
    config_dir = pyproject.parent if pyproject is not None else cwd
    where = f" of {pyproject}" if pyproject else ""
    patterns, base_dir = _patterns(include, settings.include, cwd, config_dir, where)
    if data_file is not None:
        data_path = cwd / data_file
    elif settings.data_file is not None:
        data_path = config_dir / settings.data_file
    else:
        data_path = base_dir / ".coverage"
    return GateOptions(
        fail_under=_threshold(fail_under if fail_under is not None else settings.fail_under, where),
        include=patterns,
        data_file=data_path,
        base_dir=base_dir,
        branch=settings.branch if branch is None else branch,
        per_file=bool(settings.per_file) if per_file is None else per_file,
        rcfile=_rcfile(rcfile, cwd, config_dir, pyproject, project.root),
        config=project,
    )


def _threshold(fail_under: float | None, where: str) -> float:
    if fail_under is None:
        raise GateError(f"no threshold: pass --fail-under or set fail-under in [tool.dispatchguard.coverage]{where}")
    if (isinstance(fail_under, float) and math.isnan(fail_under)) or not 0 <= fail_under <= 100:
        raise GateError(f"--fail-under must be between 0 and 100, got {fail_under}")
    return float(fail_under)


def _patterns(
    given: Sequence[str] | None, configured: tuple[str, ...] | None, cwd: Path, config_dir: Path, where: str
) -> tuple[tuple[str, ...], Path]:
    """The include patterns and the folder they are relative to: the command line's (``cwd``),
    else the configuration's (its folder)."""
    if given:
        return tuple(given), cwd
    if configured:
        return tuple(configured), config_dir
    raise GateError(f"no files to gate: pass --include PATTERN or set include in [tool.dispatchguard.coverage]{where}")


def _rcfile(rcfile: str | None, cwd: Path, config_dir: Path, pyproject: Path | None, root: Path) -> Path | None:
    """coverage.py's configuration: the one given, a ``.coveragerc`` beside ours, our
    ``pyproject.toml``, or the root's (``[tool.coverage]`` without our table)."""
    if rcfile is not None:
        return cwd / rcfile
    if (config_dir / ".coveragerc").is_file():
        return config_dir / ".coveragerc"
    if pyproject is not None:
        return pyproject
    if (root / "pyproject.toml").is_file():
        return root / "pyproject.toml"
    return None
