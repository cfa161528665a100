"""`[tool.dispatchguard]` configuration: the one reader of the table (and of its sub-tables, such as
``[tool.dispatchguard.coverage]``), the one project-root finder, validation and the settings.

The configuration lives in the nearest ``pyproject.toml`` (searched upwards from the checked paths)
that has a ``[tool.dispatchguard]`` table, or in a file given explicitly (``--config FILE``, same
table). Keys are kebab-case (``tool-bases``); snake_case spellings are accepted too. Every front end
(the CLI, the flake8 plugin, the fixes and the coverage gate) reads it through :func:`load_config`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pkgutil
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from dispatchguard.globs import compile_glob
from dispatchguard.lint.environment import environment_of
from dispatchguard.lint.errors import ConfigError

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
    "langchain_core.tools.convert.tool",  # where it is defined (imported from there too)
    "langchain.tools.tool",
    "langchain.agents.tool",
    "crewai.tools.tool",
    "crewai.tools.base_tool.tool",
    "crewai.tool",
    "crewai_tools.tool",
)
# Packages whose capitalised exports are tools unless the bundled table says otherwise: the
# libraries of tools, LangChain's partner packages that ship tools among them.
DEFAULT_TOOL_PACKAGES = (
    "crewai_tools",
    "langchain_community.tools",
    "langchain.tools",
    "langchain_tavily",
    "langchain_exa",
    "langchain_experimental.tools",
    "langchain_google_community",
)
# Where tools are made: tool folders and modules, and the modules whose job is to build tools
# (toolkits, registries, factories, loaders such as load_tools.py or my_tools.py).
DEFAULT_TOOL_MODULES = (
    "**/tools/**",
    "**/*tools.py",
    "**/*toolkit*.py",
    "**/*toolkits/**",
    "**/*tool_registry*.py",
    "**/*tool_registry*/**",
    "**/*tool_factory*.py",
    "**/*tool_executor*.py",
    "**/inbuilt_tools.py",
)
DEFAULT_DISPATCHERS = ("dispatch_tool", "adispatch_tool", "dispatch_tool_result", "execute_tool")
DEFAULT_TEST_PATTERNS = ("**/tests/**", "**/test_*.py", "**/*_test.py", "**/conftest.py")
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
    ".ipynb_checkpoints",
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
#: A rule module's file name: its code, then its name (``dg101_direct_call``).
RULE_MODULE = re.compile(r"dg\d{3}_\w+")
# What makes a directory the root of a Python project when no pyproject.toml has the table.
PROJECT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg")


@dataclasses.dataclass(frozen=True)
class CoverageConfig:
    """``[tool.dispatchguard.coverage]``: the coverage gate's defaults (``None``: not configured).
    Relative ``include`` patterns and ``data-file`` are relative to the configuration file."""

    fail_under: float | None = None
    include: tuple[str, ...] = ()
    data_file: str | None = None
    per_file: bool | None = None
    branch: bool | None = None


@dataclasses.dataclass(frozen=True)
class VerifyConfig:
    """``[tool.dispatchguard.verify]``: how ``dispatchguard verify`` runs the project's tools
    (``examples``: tool label -> argument tables tried first; ``exclude``: globs of tool labels;
    ``factories``: tool label -> ``module:function`` that builds the tool, called with no arguments)."""

    cases: int = 10
    timeout: float = 5.0
    output_cap: int = 1_000_000
    pass_env: tuple[str, ...] = ()
    loopback: bool = False
    exclude: tuple[str, ...] = ()
    examples: tuple[tuple[str, tuple[dict, ...]], ...] = ()
    factories: tuple[tuple[str, str], ...] = ()
    #: the interpreter (or environment folder) that runs the tools, made absolute against the
    #: configuration's folder; None: the ``python`` setting of ``[tool.dispatchguard]`` or the one found
    python: str | bool | None = None


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
    #: rules in preview (``Rule(preview=True)``, new ones) run too, not only when selected by code
    preview: bool = False
    tool_bases: tuple[str, ...] = DEFAULT_TOOL_BASES
    tool_decorators: tuple[str, ...] = DEFAULT_TOOL_DECORATORS
    tool_packages: tuple[str, ...] = DEFAULT_TOOL_PACKAGES
    tool_modules: tuple[str, ...] = DEFAULT_TOOL_MODULES
    dispatchers: tuple[str, ...] = DEFAULT_DISPATCHERS
    test_patterns: tuple[str, ...] = DEFAULT_TEST_PATTERNS
    force_exclude: bool = False
    respect_gitignore: bool = True
    #: the project's environment: None finds it (VIRTUAL_ENV, .venv), False uses none, or the
    #: absolute path of an interpreter or environment folder (the loader makes a configured one so)
    python: str | bool | None = None
    coverage: CoverageConfig = CoverageConfig()
    verify: VerifyConfig = VerifyConfig()
    config_file: Path | None = None

    def fingerprint(self) -> str:
        """A stable digest of every setting that can change findings (used in cache keys)."""
        data = {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        data.pop("config_file")
        data.pop("coverage")  # the coverage gate's and verify's settings never change findings
        data.pop("verify")
        # which named files are dropped changes no file's findings (and the pre-commit hooks pass
        # --force-exclude: hook runs and manual runs share one cache)
        data.pop("force_exclude")
        blob = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
        # two checksums of 32 bits, not hashlib: hashlib loads OpenSSL (4 MB, 9 ms) on every run
        return f"{zlib.crc32(blob):08x}{zlib.adler32(blob):08x}"

    @property
    def own_dispatchers(self) -> tuple[str, ...]:
        """The configured dispatchers that are the project's, not dispatchguard's defaults."""
        return tuple(d for d in self.dispatchers if d not in DEFAULT_DISPATCHERS)

    @property
    def dispatchers_configured(self) -> bool:
        """Whether ``dispatchers`` names the project's dispatch points (rather than detection)."""
        return self.dispatchers != DEFAULT_DISPATCHERS

    @property
    def tool_modules_configured(self) -> bool:
        """Whether ``tool-modules`` says where tools live (rather than the defaults guessing it)."""
        return self.tool_modules != DEFAULT_TOOL_MODULES

    def is_enabled(self, code: str, *, preview: bool = False) -> bool:
        """ruff's rule: the most specific matching prefix of select/extend-select vs ignore wins. A
        rule in ``preview`` runs only with ``preview = true`` or when its very code is selected (a
        prefix such as ``DG`` or ``DG1`` does not reach it), as in ruff: a new rule never changes
        what a project that did not ask for it is told."""
        selected = (*self.select, *self.extend_select)
        if preview and not self.preview and code not in selected:
            return False
        chosen = max((len(p) for p in selected if code.startswith(p)), default=-1)
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
    """Whether ``relpath`` (root-relative, POSIX) matches one of the globs (compiled once per list)."""
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
# the project root


@dataclasses.dataclass(frozen=True)
class RootInfo:
    """Where the configuration and the project root were found, and why (``--show-settings``)."""

    root: Path
    config_file: Path | None
    kind: str  # "config", "marker" or "parent"
    reason: str


def find_root(paths: Sequence[str | os.PathLike[str]]) -> RootInfo:
    """The one project-root finder.

    Searching upwards from the checked paths' common parent: the nearest ``pyproject.toml`` with a
    ``[tool.dispatchguard]`` table; else the nearest directory with ``.git`` or a Python project
    marker (``pyproject.toml``, ``setup.py``, ``setup.cfg``); else the common parent itself. With no
    paths the search starts at the current directory (the coverage gate's case).
    """
    resolved = [Path(p).resolve() for p in paths] or [Path.cwd().resolve()]
    try:
        start = Path(os.path.commonpath([str(p) for p in resolved]))
    except ValueError:  # pragma: no cover - different drives on Windows
        start = resolved[0]
    if not start.is_dir():
        start = start.parent
    marked: tuple[Path, str] | None = None
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and has_table(candidate):
            return RootInfo(directory, candidate, "config", f"{candidate} has a [tool.dispatchguard] table")
        if marked is None:
            marker = next((m for m in PROJECT_MARKERS if (directory / m).exists()), None)
            if marker is not None:
                marked = (directory, f"nearest directory with {marker} (no pyproject.toml with [tool.dispatchguard])")
    if marked is not None:
        return RootInfo(marked[0], None, "marker", marked[1])
    return RootInfo(start, None, "parent", "the checked paths' common parent (no project marker above it)")


def has_table(pyproject: Path) -> bool:
    """Whether this pyproject.toml has a ``[tool.dispatchguard]`` table.

    Raises :class:`ConfigError` when it cannot be read or is not valid TOML.
    """
    data = read_toml(pyproject)
    return isinstance(data.get("tool"), dict) and "dispatchguard" in data["tool"]


@lru_cache(maxsize=32)
def _read_toml_cached(path: Path, mtime_ns: int, size: int) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration file: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 ({exc.reason})") from None


def read_toml(path: Path) -> dict:
    """A TOML file's data (parsed once per content: the flake8 plugin asks per directory)."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration file: {exc.strerror or exc}") from None
    return _read_toml_cached(path, stat.st_mtime_ns, stat.st_size)


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
_BOOL_KEYS = {
    "strict": "strict",
    "preview": "preview",
    "force-exclude": "force_exclude",
    "respect-gitignore": "respect_gitignore",
}
# keys whose values are added to the built-in defaults rather than replacing them
ADDITIVE_KEYS = frozenset({"tool-bases", "tool-decorators", "tool-packages", "dispatchers"})
_CODE_KEYS = {"select", "ignore", "extend-select"}
SUBTABLES = frozenset({"coverage", "verify"})
KNOWN_KEYS = frozenset({*_LIST_KEYS, *_BOOL_KEYS, "per-file-ignores", "python"})


def table_of(file: Path) -> dict:
    """The raw ``[tool.dispatchguard]`` table of a TOML file (``{}`` when it has none)."""
    data = read_toml(file)
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        return {}
    table = tool.get("dispatchguard", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{file}: [tool.dispatchguard] must be a table")
    return table


def load_config(
    paths: Sequence[str | os.PathLike[str]], config_file: str | os.PathLike[str] | None = None
) -> LintConfig:
    """Find and validate the configuration for the given paths (or read ``config_file``)."""
    if config_file is not None:
        file = Path(config_file).resolve()
        if not file.is_file():
            raise ConfigError(f"{file}: configuration file not found")
        return _from_table(table_of(file), file, file.parent)
    info = find_root(paths)
    if info.config_file is None:
        return LintConfig(root=info.root)
    return _from_table(table_of(info.config_file), info.config_file, info.root)


def _from_table(table: dict, file: Path, root: Path) -> LintConfig:
    values: dict[str, object] = {"root": root, "config_file": file}
    extend_exclude: tuple[str, ...] = ()
    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        where = f"{file}: key 'tool.dispatchguard.{raw_key}'"
        if key == "coverage":
            values["coverage"] = _coverage(value, f"{file}: [tool.dispatchguard.{raw_key}]")
        elif key == "verify":
            values["verify"] = _verify(value, f"{file}: [tool.dispatchguard.{raw_key}]", file.parent)
        elif key not in KNOWN_KEYS:
            known = ", ".join(sorted(KNOWN_KEYS | {f"[{t}]" for t in SUBTABLES}))
            raise ConfigError(f"{where}: unknown key (known keys: {known})")
        elif key in _BOOL_KEYS:
            values[_BOOL_KEYS[key]] = _bool(value, where)
        elif key == "per-file-ignores":
            values["per_file_ignores"] = _per_file_ignores(value, where)
        elif key == "python":
            values["python"] = _python(value, where, file.parent)
        else:
            items = _str_list(value, where)
            if key in _CODE_KEYS:
                items = tuple(_code(item, where) for item in items)
            if key == "extend-exclude":
                extend_exclude = items
                continue
            field = _LIST_KEYS[key]
            default = getattr(LintConfig, field)
            values[field] = tuple(dict.fromkeys((*default, *items))) if key in ADDITIVE_KEYS else items
    if extend_exclude:
        values["exclude"] = (*values.get("exclude", DEFAULT_EXCLUDE), *extend_exclude)  # type: ignore[misc]
    return LintConfig(**values)  # type: ignore[arg-type]


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    return value


def _python(value: object, where: str, base: Path) -> str | bool:
    """An interpreter or environment path (made absolute against the configuration's folder) that
    names an environment, or ``false`` (no environment)."""
    if value is False:
        return False
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: expected the path of an interpreter or environment, or false, got {value!r}")
    path = Path(os.path.expanduser(value.strip()))
    python = Path(os.path.normpath(path if path.is_absolute() else base / path)).as_posix()
    try:
        environment_of(python)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return python


def _str_list(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):  # ``select = "DG101"`` ran silently as one code: say what to write
        raise ConfigError(f"{where}: expected a list of strings, got the string {value!r} (write [{value!r}])")
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{where}: expected a list of non-empty strings, got {value!r}")
    return tuple(v.strip() for v in value)


def known_codes() -> tuple[str, ...]:
    """Every rule code, from the rule modules' file names (``dg101_direct_call.py``: DG101), which
    is how :mod:`.rules` finds them: read without importing the rules, which build on this module."""
    folder = Path(__file__).with_name("rules")
    return tuple(sorted(name.split("_", 1)[0].upper() for _, name, _ in pkgutil.iter_modules([str(folder)])
                        if RULE_MODULE.fullmatch(name)))  # fmt: skip


def check_selector(selector: str) -> str | None:
    """Why a rule code or prefix (already upper-cased; ``""`` is ALL) selects nothing, or None."""
    codes = known_codes()
    if selector and not _CODE_RE.match(selector):
        return f"{selector!r} is not a rule code or prefix (for example DG101 or DG1)"
    if not any(code.startswith(selector) for code in codes):
        return f"unknown rule code or prefix {selector!r} (known: {', '.join(codes)})"
    return None


def _code(item: str, where: str) -> str:
    code = item.strip().upper()
    if code == "ALL":
        return ""
    problem = check_selector(code)
    if problem is not None:
        raise ConfigError(f"{where}: {problem}")
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


def _subtable(value: object, where: str, readers: dict[str, Callable[[object, str], object]]) -> dict[str, object]:
    """A sub-table's values, each key read by its reader, as field names (``data-file`` -> ``data_file``)."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table")
    values: dict[str, object] = {}
    for raw_key, item in value.items():
        key = raw_key.replace("_", "-")
        at = f"{where}: key {raw_key!r}"
        if key not in readers:
            raise ConfigError(f"{at}: unknown key (known keys: {', '.join(sorted(readers))})")
        values[key.replace("-", "_")] = readers[key](item, at)
    return values


def _verify(value: object, where: str, base: Path) -> VerifyConfig:
    readers = {**_VERIFY_READERS, "python": lambda item, at: _python(item, at, base)}
    return VerifyConfig(**_subtable(value, where, readers))  # type: ignore[arg-type]


def _coverage(value: object, where: str) -> CoverageConfig:
    return CoverageConfig(**_subtable(value, where, _COVERAGE_READERS))  # type: ignore[arg-type]


def _percent(item: object, at: str) -> float:
    if isinstance(item, bool) or not isinstance(item, (int, float)) or not 0 <= item <= 100:
        raise ConfigError(f"{at}: expected a number between 0 and 100, got {item!r}")
    return float(item)


def _file_name(item: object, at: str) -> str:
    if not isinstance(item, str) or not item.strip():
        raise ConfigError(f"{at}: expected a file name, got {item!r}")
    return item


def _positive(kind: type) -> Callable[[object, str], object]:
    def read(item: object, at: str) -> object:
        number = isinstance(item, (int, float)) and not isinstance(item, bool)
        if not number or item <= 0 or (kind is int and item != int(item)):  # type: ignore[operator]
            raise ConfigError(f"{at}: expected a positive {'whole ' if kind is int else ''}number, got {item!r}")
        return kind(item)

    return read


def _examples(item: object, at: str) -> tuple[tuple[str, tuple[dict, ...]], ...]:
    """``{"module.Tool" = [{q = "x"}, ...]}``: argument tables per tool label."""
    if not isinstance(item, dict) or not all(
        isinstance(v, list) and all(isinstance(e, dict) for e in v) for v in item.values()
    ):
        raise ConfigError(f"{at}: expected a table of tool labels to lists of argument tables, got {item!r}")
    return tuple((label, tuple(cases)) for label, cases in item.items())


def _factories(item: object, at: str) -> tuple[tuple[str, str], ...]:
    """``{"module.Tool" = "module:function"}``: how to build a tool that needs arguments."""
    if not isinstance(item, dict) or not all(
        isinstance(v, str) and re.fullmatch(r"[\w.]+:[\w.]+", v) for v in item.values()
    ):
        raise ConfigError(f"{at}: expected a table of tool labels to 'module:function' strings, got {item!r}")
    return tuple(item.items())


_COVERAGE_READERS: dict[str, Callable[[object, str], object]] = {
    "fail-under": _percent,
    "include": lambda item, at: _str_list(item, at),
    "data-file": _file_name,
    "per-file": lambda item, at: _bool(item, at),
    "branch": lambda item, at: _bool(item, at),
}
_VERIFY_READERS: dict[str, Callable[[object, str], object]] = {
    "cases": _positive(int),
    "timeout": _positive(float),
    "output-cap": _positive(int),
    "pass-env": lambda item, at: _str_list(item, at),
    "loopback": lambda item, at: _bool(item, at),
    "exclude": lambda item, at: _str_list(item, at),
    "examples": _examples,
    "factories": _factories,
}
#: The keys of ``[tool.dispatchguard.coverage]`` (``--show-settings`` lists them).
COVERAGE_KEYS = frozenset(_COVERAGE_READERS)
