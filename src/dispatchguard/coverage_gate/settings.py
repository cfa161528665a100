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

    if fail_under is None:
        fail_under = settings.fail_under
    if fail_under is None:
        raise GateError(
            "no threshold: pass --fail-under or set fail-under in [tool.dispatchguard.coverage]"
            + (f" of {pyproject}" if pyproject else "")
        )
    if (isinstance(fail_under, float) and math.isnan(fail_under)) or not 0 <= fail_under <= 100:
        raise GateError(f"--fail-under must be between 0 and 100, got {fail_under}")

    if include:
        patterns, base_dir = tuple(include), cwd
    elif settings.include:
        patterns, base_dir = settings.include, config_dir
    else:
        raise GateError(
            "no files to gate: pass --include PATTERN or set include in [tool.dispatchguard.coverage]"
            + (f" of {pyproject}" if pyproject else "")
        )

    if data_file is not None:
        data_path = cwd / data_file
    elif settings.data_file is not None:
        data_path = config_dir / settings.data_file
    else:
        data_path = base_dir / ".coverage"

    if branch is None:
        branch = settings.branch
    if per_file is None:
        per_file = bool(settings.per_file)

    rc_path: Path | None = None
    if rcfile is not None:
        rc_path = cwd / rcfile
    elif (config_dir / ".coveragerc").is_file():
        rc_path = config_dir / ".coveragerc"
    elif pyproject is not None:
        rc_path = pyproject
    elif (project.root / "pyproject.toml").is_file():  # [tool.coverage] without our table
        rc_path = project.root / "pyproject.toml"
    return GateOptions(
        fail_under=float(fail_under),
        include=patterns,
        data_file=data_path,
        base_dir=base_dir,
        branch=branch,
        per_file=per_file,
        rcfile=rc_path,
        config=project,
    )
