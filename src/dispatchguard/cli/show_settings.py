"""`dispatchguard check --show-settings`: the effective configuration as TOML, each value with a
comment saying where it came from (the built-in default, the configuration file, or the command
line), and how the project root was chosen."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from dispatchguard.lint.config import COVERAGE_KEYS, LintConfig, RootInfo, table_of

# the settings shown, in the order of docs/configuration.md: key -> LintConfig field
KEYS = {
    "select": "select",
    "extend-select": "extend_select",
    "ignore": "ignore",
    "per-file-ignores": "per_file_ignores",
    "exclude": "exclude",
    "force-exclude": "force_exclude",
    "respect-gitignore": "respect_gitignore",
    "strict": "strict",
    "tool-bases": "tool_bases",
    "tool-decorators": "tool_decorators",
    "tool-packages": "tool_packages",
    "tool-modules": "tool_modules",
    "dispatchers": "dispatchers",
    "test-patterns": "test_patterns",
}
ADDITIVE = {"tool-bases", "tool-decorators", "tool-packages", "dispatchers"}
# command-line options that override a key
OPTIONS = {
    "select": "select",
    "extend-select": "extend_select",
    "ignore": "ignore",
    "strict": "strict",
    "force-exclude": "force_exclude",
}


def toml_value(value: Any) -> str:
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
    return key in table or key.replace("-", "_") in table


def origin(key: str, table: dict[str, Any], file: Path | None, args: argparse.Namespace) -> str:
    option = OPTIONS.get(key)
    if option is not None and getattr(args, option, None):
        return f"command line (--{key})"
    if key == "exclude":
        if _given(table, "exclude"):
            return f"{file}" + (" (exclude + extend-exclude)" if _given(table, "extend-exclude") else "")
        if _given(table, "extend-exclude"):
            return f"default + {file} (extend-exclude)"
        return "default"
    if _given(table, key):
        return f"default + {file}" if key in ADDITIVE else str(file)
    return "default"


def render(config: LintConfig, root: RootInfo | None, args: argparse.Namespace) -> str:
    file = config.config_file
    table = table_of(file) if file is not None else {}
    lines = [
        f"# project root: {config.root}" + (f" ({root.reason})" if root is not None else " (--config)"),
        f"# configuration file: {file if file is not None else 'none (built-in defaults)'}",
        "[tool.dispatchguard]",
    ]
    for key, field in KEYS.items():
        value = getattr(config, field)
        text = toml_table(value) if key == "per-file-ignores" else toml_value(value)
        lines.append(f"{key} = {text}  # {origin(key, table, file, args)}")
    coverage_table = table.get("coverage", {}) if isinstance(table.get("coverage"), dict) else {}
    lines.append("")
    lines.append("[tool.dispatchguard.coverage]")
    for key in sorted(COVERAGE_KEYS):
        value = getattr(config.coverage, key.replace("-", "_"))
        if value in (None, ()):
            lines.append(f"# {key}: not set")
            continue
        where = str(file) if _given(coverage_table, key) else "default"
        lines.append(f"{key} = {toml_value(value)}  # {where}")
    return "\n".join(lines) + "\n"
