"""`dispatchguard check --show-settings`: the effective configuration as TOML, each value with a
comment saying where it came from (the built-in default, the configuration file, or the command
line), and how the project root was chosen; then, as comments, what the checker detected from those
settings and why (the installed environment and its tool libraries, the bundled library table,
import roots, the tool modules), so that a user can pin any of it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from dispatchguard.lint.config import ADDITIVE_KEYS, COVERAGE_KEYS, LintConfig, RootInfo, any_glob, table_of

# the settings shown, in the order of docs/configuration.md (each is the LintConfig field of the
# same name in snake_case)
KEYS = (
    "select", "extend-select", "ignore", "per-file-ignores", "exclude", "force-exclude",
    "respect-gitignore", "strict", "preview", "tool-bases", "tool-decorators", "tool-packages", "tool-modules",
    "dispatchers", "test-patterns",
)  # fmt: skip
# the keys a command-line option of the same name overrides
OPTIONS = frozenset({"select", "extend-select", "ignore", "strict", "preview", "force-exclude", "python"})
_SHOWN_FILES = 30


def _field(key: str) -> str:
    return key.replace("-", "_")


def toml_value(value: Any) -> str:
    """Return a value as TOML: a bool, number or string as such, else an array (``''`` as ALL)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return json.dumps(value)
    return "[" + ", ".join(json.dumps("ALL" if v == "" else v) for v in value) + "]"


def toml_table(pairs: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    """per-file-ignores, ``((glob, codes), ...)``, as an inline table."""
    if not pairs:
        return "{}"
    return "{ " + ", ".join(f"{json.dumps(glob)} = {toml_value(codes)}" for glob, codes in pairs) + " }"


def _given(table: dict[str, Any], key: str) -> bool:
    return key in table or _field(key) in table


def origin(key: str, table: dict[str, Any], file: Path | None, args: argparse.Namespace) -> str:
    """Return where a setting came from, for its comment: ``command line (--KEY)``, ``default``, the
    configuration file, or ``default + FILE`` for keys that add to the default."""
    if key in OPTIONS and getattr(args, _field(key), None):
        return f"command line (--{key})"
    if key == "exclude":
        if _given(table, "exclude"):
            return f"{file}" + (" (exclude + extend-exclude)" if _given(table, "extend-exclude") else "")
        if _given(table, "extend-exclude"):
            return f"default + {file} (extend-exclude)"
        return "default"
    if _given(table, key):
        return f"default + {file}" if key in ADDITIVE_KEYS else str(file)
    return "default"


def render(config: LintConfig, root: RootInfo | None, args: argparse.Namespace) -> str:
    """Return the --show-settings text: the effective settings, then what they led to detect."""
    return settings(config, root, args) + detected(config, args.paths)


def settings(config: LintConfig, root: RootInfo | None, args: argparse.Namespace) -> str:
    """Return the project root, the configuration file and the effective ``[tool.dispatchguard]``
    and ``[tool.dispatchguard.coverage]`` settings as TOML, each value commented with its origin."""
    file = config.config_file
    table = table_of(file) if file is not None else {}
    lines = [
        f"# project root: {config.root}" + (f" ({root.reason})" if root is not None else " (--config)"),
        f"# configuration file: {file if file is not None else 'none (built-in defaults)'}",
        "[tool.dispatchguard]",
    ]
    for key in KEYS:
        value = getattr(config, _field(key))
        text = toml_table(value) if key == "per-file-ignores" else toml_value(value)
        lines.append(f"{key} = {text}  # {origin(key, table, file, args)}")
    if config.python is None:
        lines.append("# python: not set (the environment is found; see below)")
    else:
        lines.append(f"python = {toml_value(config.python)}  # {origin('python', table, file, args)}")
    coverage_table = table.get("coverage", {}) if isinstance(table.get("coverage"), dict) else {}
    lines.append("")
    lines.append("[tool.dispatchguard.coverage]")
    for key in sorted(COVERAGE_KEYS):
        value = getattr(config.coverage, _field(key))
        if value in (None, ()):
            lines.append(f"# {key}: not set")
            continue
        where = str(file) if _given(coverage_table, key) else "default"
        lines.append(f"{key} = {toml_value(value)}  # {where}")
    return "\n".join(lines) + "\n"


def detected(config: LintConfig, paths: list[str]) -> str:
    """What the settings led to, as TOML comments."""
    from dispatchguard.lint.engine import project_files
    from dispatchguard.lint.library import library_versions
    from dispatchguard.lint.project import Project

    files, _, _ = project_files(paths or ["."], config)
    project = Project(config, files)
    lines = ["", "# ---- detected (pin any of it in [tool.dispatchguard]) ----"]
    environment = project.environment
    if environment is None:
        lines.append(f"# environment: {project.environment_reason}")
    else:
        lines.append(f"# environment: {environment.prefix} ({environment.reason}); pin it with python = ...")
        lines.extend(f"#   import folder: {folder}" for folder in environment.import_dirs)
        if not environment.distributions:
            lines.append("#   tool libraries installed: none")
        for dist in environment.distributions:
            source = "the bundled table's release: the table answers" if dist.in_table else "its sources are read"
            lines.append(
                f"#   tool library: {dist.name} {dist.version} ({dist.reason}; imports {', '.join(dist.packages)};"
                f" {source})"
            )
    versions = ", ".join(f"{name} {' and '.join(v)}" for name, v in sorted(library_versions().items()))
    lines.append(f"# bundled library table (for what the environment lacks): {versions}")
    for folder, why in project.import_roots():
        lines.append(f"# import root: {folder} ({why})")
    tool_files = [
        (f.relpath, pattern)
        for f in files
        if not f.relpath.startswith("/")
        for pattern in [next((p for p in config.tool_modules if any_glob((p,), f.relpath)), None)]
        if pattern is not None
    ]
    lines.append(f"# tool modules (DG102 allows instantiation there): {len(tool_files)} files match tool-modules")
    for relpath, pattern in tool_files[:_SHOWN_FILES]:
        lines.append(f"#   {relpath} (matches {pattern})")
    if len(tool_files) > _SHOWN_FILES:
        lines.append(f"#   ... and {len(tool_files) - _SHOWN_FILES} more")
    lines.extend(_dispatch_points(config, paths))
    return "\n".join(lines) + "\n"


def _dispatch_points(config: LintConfig, paths: list[str]) -> list[str]:
    """The dispatch points a check detects (DG101 lets them run tools), or why none are."""
    if config.dispatchers_configured:
        return ["# dispatch points: the configured dispatchers only (detection is off)"]
    from dispatchguard.lint.engine import check_paths

    points = check_paths(paths or ["."], config).dispatch_points
    heading = "# dispatch points detected (DG101 lets them run tools; pin them with dispatchers = [...])"
    lines = [f"{heading}: {len(points)}"]
    lines.extend(f"#   {path}:{line} in {function}" for path, line, function in points[:_SHOWN_FILES])
    if len(points) > _SHOWN_FILES:
        lines.append(f"#   ... and {len(points) - _SHOWN_FILES} more")
    return lines
