"""The gate's settings: command-line values merged over ``[tool.dispatchguard.coverage]``."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dispatchguard.coverage_gate.errors import GateError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

CONFIG_TABLE = ("tool", "dispatchguard", "coverage")
_CONFIG_KEYS = {"fail-under", "include", "data-file", "per-file", "branch"}


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
