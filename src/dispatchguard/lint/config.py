"""`[tool.dispatchguard]` configuration: discovery, validation and the effective settings.

The configuration lives in the nearest ``pyproject.toml`` (searched upwards from the checked paths)
that has a ``[tool.dispatchguard]`` table, or in a file given explicitly (``--config FILE``, same
table). Keys are kebab-case (``tool-bases``); snake_case spellings are accepted too.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from dispatchguard.globs import compile_glob

if sys.version_info >= (3, 11):  # pragma: no cover - depends on the interpreter
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_TOOL_BASES = (
    "crewai.tools.BaseTool",
    "crewai.tools.base_tool.BaseTool",
    "crewai.tools.structured_tool.CrewStructuredTool",
    "crewai_tools.BaseTool",
    "langchain_core.tools.BaseTool",
    "langchain_core.tools.base.BaseTool",
    "langchain_core.tools.StructuredTool",
    "langchain_core.tools.structured.StructuredTool",
    "langchain_core.tools.Tool",
    "langchain_core.tools.simple.Tool",
    "langchain.tools.BaseTool",
    "langchain.tools.StructuredTool",
    "langchain.tools.Tool",
    "langchain.agents.Tool",
)
DEFAULT_TOOL_DECORATORS = (
    "langchain_core.tools.tool",
    "langchain.tools.tool",
    "langchain.agents.tool",
    "crewai.tools.tool",
    "crewai.tool",
    "crewai_tools.tool",
)
DEFAULT_TOOL_PACKAGES = ("crewai_tools", "langchain_community.tools")
DEFAULT_TOOL_MODULES = ("**/tools/**", "**/tools.py", "**/inbuilt_tools.py", "**/tool_registry.py")
DEFAULT_DISPATCHERS = ("dispatch_tool", "adispatch_tool", "dispatch_tool_result", "execute_tool")
DEFAULT_TEST_PATTERNS = ("tests/**", "**/test_*.py", "**/*_test.py", "**/conftest.py")
DEFAULT_SELECT = ("DG",)
DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".eggs",
    "*.egg-info",
    "__pycache__",
    "__pypackages__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".dispatchguard_cache",
    "build",
    "dist",
    "node_modules",
    "site-packages",
)

_CODE_RE = re.compile(r"^[A-Z]{1,3}[0-9]{0,3}$")


class ConfigError(Exception):
    """A configuration problem; the message names the file and the key."""


@dataclasses.dataclass(frozen=True)
class LintConfig:
    """Effective settings of one run (front ends override fields with ``dataclasses.replace``)."""

    root: Path = dataclasses.field(default_factory=Path.cwd)
    select: tuple[str, ...] = DEFAULT_SELECT
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    strict: bool = False
    tool_bases: tuple[str, ...] = DEFAULT_TOOL_BASES
    tool_decorators: tuple[str, ...] = DEFAULT_TOOL_DECORATORS
    tool_packages: tuple[str, ...] = DEFAULT_TOOL_PACKAGES
    tool_modules: tuple[str, ...] = DEFAULT_TOOL_MODULES
    dispatchers: tuple[str, ...] = DEFAULT_DISPATCHERS
    test_patterns: tuple[str, ...] = DEFAULT_TEST_PATTERNS
    config_file: Path | None = None

    def fingerprint(self) -> str:
        """A stable digest of every setting that can change findings (used in cache keys)."""
        data = {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        data.pop("config_file")
        blob = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:32]

    def is_enabled(self, code: str) -> bool:
        """ruff's rule: the most specific matching prefix of select/extend-select vs ignore wins."""
        chosen = max((len(p) for p in (*self.select, *self.extend_select) if code.startswith(p)), default=-1)
        ignored = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return chosen >= 0 and chosen > ignored

    def ignored_for(self, relpath: str) -> frozenset[str]:
        """Code prefixes that ``per-file-ignores`` switches off for a root-relative POSIX path."""
        codes: set[str] = set()
        for pattern, pattern_codes in self.per_file_ignores:
            if glob_match(pattern, relpath):
                codes.update(pattern_codes)
        return frozenset(codes)


def _plain(value: object) -> object:
    if isinstance(value, Path):
        return value.as_posix()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


# --------------------------------------------------------------------------------------------
# globs


def glob_match(pattern: str, relpath: str) -> bool:
    """Match a root-relative POSIX path; a pattern without ``/`` matches any path component."""
    pattern = pattern.strip()
    pattern = pattern.removeprefix("./")
    pattern = pattern.rstrip("/")
    if "/" not in pattern:
        rx = compile_glob(pattern)
        return any(rx.match(part) for part in relpath.split("/"))
    return compile_glob(pattern).match(relpath) is not None


def any_glob(patterns: Iterable[str], relpath: str) -> bool:
    return _glob_set(tuple(patterns))(relpath)


@lru_cache(maxsize=64)
def _glob_set(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """One compiled matcher for a list of globs (the same semantics as :func:`glob_match`)."""
    whole: list[str] = []
    component: list[str] = []
    for raw in patterns:
        pattern = raw.strip()
        pattern = pattern.removeprefix("./")
        pattern = pattern.rstrip("/")
        (component if "/" not in pattern else whole).append(compile_glob(pattern).pattern)
    whole_rx = re.compile("|".join(f"(?:{p})" for p in whole)) if whole else None
    part_rx = re.compile("|".join(f"(?:{p})" for p in component)) if component else None

    def match(relpath: str) -> bool:
        if whole_rx is not None and whole_rx.match(relpath):
            return True
        if part_rx is not None:
            return any(part_rx.match(part) for part in relpath.split("/"))
        return False

    return match


# --------------------------------------------------------------------------------------------
# loading

_LIST_KEYS = {
    "select": "select",
    "ignore": "ignore",
    "extend-select": "extend_select",
    "exclude": "exclude",
    "extend-exclude": None,
    "tool-bases": "tool_bases",
    "tool-decorators": "tool_decorators",
    "tool-packages": "tool_packages",
    "tool-modules": "tool_modules",
    "dispatchers": "dispatchers",
    "test-patterns": "test_patterns",
}
# keys whose values are added to the built-in defaults rather than replacing them
_ADDITIVE = {"tool-bases", "tool-decorators", "tool-packages", "dispatchers"}
_CODE_KEYS = {"select", "ignore", "extend-select"}
KNOWN_KEYS = frozenset({*_LIST_KEYS, "per-file-ignores", "strict"})


def find_config_file(paths: Sequence[str | os.PathLike[str]]) -> tuple[Path | None, Path]:
    """Return (pyproject with a [tool.dispatchguard] table or None, project root)."""
    resolved = [Path(p).resolve() for p in paths] or [Path.cwd().resolve()]
    try:
        start = Path(os.path.commonpath([str(p) for p in resolved]))
    except ValueError:  # pragma: no cover - different drives on Windows
        start = resolved[0]
    if not start.is_dir():
        start = start.parent
    first_project: Path | None = None
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            if first_project is None:
                first_project = directory
            data = _read_toml(candidate)
            if isinstance(data.get("tool"), dict) and "dispatchguard" in data["tool"]:
                return candidate, directory
    return None, (first_project or Path.cwd().resolve())


def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration file: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def load_config(
    paths: Sequence[str | os.PathLike[str]], config_file: str | os.PathLike[str] | None = None
) -> LintConfig:
    """Find and validate the configuration for the given paths (or read ``config_file``)."""
    if config_file is not None:
        file = Path(config_file).resolve()
        if not file.is_file():
            raise ConfigError(f"{file}: configuration file not found")
        data = _read_toml(file)
        table = data.get("tool", {}).get("dispatchguard", {}) if isinstance(data.get("tool"), dict) else {}
        return _from_table(table, file, file.parent)
    file_or_none, root = find_config_file(paths)
    if file_or_none is None:
        return LintConfig(root=root)
    table = _read_toml(file_or_none)["tool"]["dispatchguard"]
    return _from_table(table, file_or_none, root)


def _from_table(table: object, file: Path, root: Path) -> LintConfig:
    if not isinstance(table, dict):
        raise ConfigError(f"{file}: [tool.dispatchguard] must be a table")
    values: dict[str, object] = {"root": root, "config_file": file}
    extend_exclude: tuple[str, ...] = ()
    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        where = f"{file}: key 'tool.dispatchguard.{raw_key}'"
        if key not in KNOWN_KEYS:
            raise ConfigError(f"{where}: unknown key (known keys: {', '.join(sorted(KNOWN_KEYS))})")
        if key == "strict":
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: expected true or false, got {value!r}")
            values["strict"] = value
        elif key == "per-file-ignores":
            values["per_file_ignores"] = _per_file_ignores(value, where)
        else:
            items = _str_list(value, where)
            if key in _CODE_KEYS:
                items = tuple(_code(item, where) for item in items)
            if key == "extend-exclude":
                extend_exclude = items
                continue
            field = _LIST_KEYS[key]
            default = getattr(LintConfig, field)
            values[field] = tuple(dict.fromkeys((*default, *items))) if key in _ADDITIVE else items
    if extend_exclude:
        values["exclude"] = (*values.get("exclude", DEFAULT_EXCLUDE), *extend_exclude)  # type: ignore[misc]
    return LintConfig(**values)  # type: ignore[arg-type]


def _str_list(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{where}: expected a list of non-empty strings, got {value!r}")
    return tuple(v.strip() for v in value)


def _code(item: str, where: str) -> str:
    code = item.strip().upper()
    if code == "ALL":
        return ""
    if not _CODE_RE.match(code):
        raise ConfigError(f"{where}: {item!r} is not a rule code or prefix (for example DG101 or DG1)")
    return code


def _per_file_ignores(value: object, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a table of glob = [codes], got {value!r}")
    out = []
    for pattern, codes in value.items():
        items = codes.replace(",", " ").split() if isinstance(codes, str) else codes
        parsed = _str_list(items, f"{where} (pattern {pattern!r})")
        out.append((pattern, tuple(_code(c, f"{where} (pattern {pattern!r})") for c in parsed)))
    return tuple(out)
