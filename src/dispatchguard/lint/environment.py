"""The project's installed Python environment: its libraries' sources, read and never imported.

**Which environment** (the first that applies; the order of ty and pyright):

1. the ``python`` setting (``[tool.dispatchguard] python = ".venv"`` or ``--python``): an
   interpreter (``.venv/bin/python``) or an environment folder; ``python = false`` turns the
   environment off (the bundled table of :mod:`dispatchguard.lint.library` alone is used);
2. ``VIRTUAL_ENV``, the environment an activated shell names (but not under pre-commit when it
   names the checker's own environment: pre-commit sets it to the hook's environment);
3. a ``.venv`` or ``venv`` folder at the project root holding a ``pyvenv.cfg``.

Nothing is run to find it: an interpreter's environment is the folder above its ``bin``
(``Scripts`` on Windows), and its import folders are that environment's ``site-packages`` (or
Debian's ``dist-packages``), the base interpreter's ones when ``pyvenv.cfg`` says
``include-system-site-packages = true``, and the folders the ``.pth`` files there name (editable
installs). Import hooks (``__editable___*_finder.py``) and compiled modules are not followed.

**Which packages are read.** Only *tool libraries*: the public tool libraries themselves (crewai,
crewai-tools, langchain, langchain-core, langchain-community) and every installed distribution
that requires one of them unconditionally (``Requires-Dist`` without an ``extra`` marker), such as
langchain-tavily or a team's own tool package. A module of such a package is summarised with the
project's own indexer when a question reaches it (:meth:`Environment.module`).

Their top-level import names are tool words (see :mod:`dispatchguard.lint.project`): a file that
imports one of them is read, so the word closure stays exact. Two exceptions: a library installed
at a release the bundled table was generated from is not read at all (the table is its exact
answer), and the frameworks' names are not words (:data:`FRAMEWORKS`): a tool class that only a
framework release newer than the table defines is found in the files that name another tool word.
A framework module is parsed only when it names a tool class or decorator of the table (measured on
langchain-community with langchain-core 1.7.2 installed: 23 of 69 modules asked about, CPU 1.26x
-> 1.09x of the run without an environment, same findings).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from dispatchguard.lint.errors import ConfigError
from dispatchguard.lint.index import names_in, summarise
from dispatchguard.lint.library import library_versions, tool_names
from dispatchguard.lint.modules import ModuleInfo
from dispatchguard.lint.parsing import file_stat, parse_bytes

#: The public tool libraries (normalised distribution names, PEP 503).
TOOL_LIBRARIES = frozenset({"crewai", "crewai-tools", "langchain", "langchain-core", "langchain-community"})
#: The frameworks: most files of an app or library import them, so their names are not tool words
#: (measured on langchain-community 0.4.2 with langchain-core 1.7.2 installed: reading every file
#: that imports langchain_core doubled the run's CPU for the same findings). Their tools are the
#: configured bases and decorators and the bundled table's names, which are words already.
FRAMEWORKS = frozenset({"crewai", "langchain", "langchain-core"})
ENVIRONMENT_FOLDERS = (".venv", "venv")
_VERSION_DIR = re.compile(r"python(\d+)\.(\d+)t?$")
_REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_MAX_PTH_LINES = 200


@dataclass(frozen=True)
class Distribution:
    """An installed tool library: its name, version and top-level import names."""

    name: str
    version: str
    packages: tuple[str, ...]
    reason: str  # why it counts: "a tool library" or "requires <name>"

    @property
    def in_table(self) -> bool:
        """Whether the bundled table was generated from this very release."""
        return self.version in library_versions().get(self.name, ())


@dataclass
class Environment:
    """An installed environment, found by :func:`find_environment`."""

    prefix: Path
    reason: str  # why this environment: which setting, variable or folder named it
    import_dirs: tuple[Path, ...]
    distributions: tuple[Distribution, ...]
    stamp_then: list[object] = field(default_factory=list, repr=False)
    #: summaries of library files by path: ``[mtime_ns, size, summary]`` (from a cache, or read)
    summaries: dict[str, list] = field(default_factory=dict, repr=False)
    _modules: dict[str, ModuleInfo | None] = field(default_factory=dict, repr=False)
    _paths: dict[str, tuple[Path, bool] | None] = field(default_factory=dict, repr=False)

    @cached_property
    def packages(self) -> frozenset[str]:
        """The top-level import names of the tool libraries whose sources are read: all but those
        installed at a version the bundled table was generated from (the table is their exact
        answer, and reading them would only cost time)."""
        return frozenset(p for d in self.distributions if not d.in_table for p in d.packages)

    @cached_property
    def word_packages(self) -> frozenset[str]:
        """The top-level import names that are tool words: those of the libraries that are read,
        but the frameworks' (:data:`FRAMEWORKS`)."""
        return frozenset(
            p for d in self.distributions if not d.in_table and d.name not in FRAMEWORKS for p in d.packages
        )

    def stamp(self) -> list[object]:
        """What changes when a package is installed or removed (the cache compares it)."""
        stamps: list[object] = [self.prefix.as_posix()]
        for directory in self.import_dirs:
            try:
                stamps.append([directory.as_posix(), directory.stat().st_mtime_ns])
            except OSError:
                stamps.append([directory.as_posix(), None])
        return stamps

    def covers(self, qual: str) -> bool:
        """Whether a qualified name belongs to one of the environment's tool libraries."""
        return qual.partition(".")[0] in self.packages

    def locate(self, name: str) -> tuple[Path, bool] | None:
        """The file of module ``name`` (``.py``, a package's ``__init__.py``, or a namespace
        package's folder) and whether it is a package; None when no import folder has it."""
        if name in self._paths:
            return self._paths[name]
        found: tuple[Path, bool] | None = None
        parts = name.split(".")
        for directory in self.import_dirs:
            base = directory.joinpath(*parts)
            if (base / "__init__.py").is_file():
                found = (base / "__init__.py", True)
            elif base.with_name(parts[-1] + ".py").is_file():
                found = (base.with_name(parts[-1] + ".py"), False)
            elif base.is_dir() and len(parts) > 1:
                found = (base, True)  # a namespace package: it binds nothing itself
            if found is not None:
                break
        self._paths[name] = found
        return found

    def module(self, name: str) -> ModuleInfo | None:
        """The summary of a module of a tool library, made with the project's indexer (once)."""
        if name in self._modules:
            return self._modules[name]
        info: ModuleInfo | None = None
        if self.covers(name):
            located = self.locate(name)
            if located is not None:
                path, is_package = located
                summary: dict = {"imports": {}, "defs": {}}
                if path.suffix == ".py":
                    summary = self._summary(path, name)
                info = ModuleInfo(name, is_package, summary)
        self._modules[name] = info
        return info

    def forget_modules(self) -> None:
        """Drop the modules found and summarised so far (the summaries by stat stay)."""
        self._modules.clear()
        self._paths.clear()

    @cached_property
    def framework_packages(self) -> frozenset[str]:
        """The top-level import names of the frameworks that are read (see :meth:`_summary`)."""
        return frozenset(p for d in self.distributions if not d.in_table and d.name in FRAMEWORKS for p in d.packages)

    def _summary(self, path: Path, name: str) -> dict:
        """A library file's summary: the one known for its stat, else read with the indexer. A
        framework's module that names no tool class or decorator the table knows binds nothing
        tool-related that the checker could see (most of langchain-core: messages, runnables):
        it is not parsed."""
        key = path.as_posix()
        stat = file_stat(path)
        known = self.summaries.get(key)
        if stat is not None and known is not None and known[:2] == stat:
            return known[2]
        summary: dict = {"imports": {}, "defs": {}}
        try:
            data = path.read_bytes()
        except OSError:
            data = b""
        tree = None
        if data and (
            name.partition(".")[0] not in self.framework_packages
            or not tool_names().isdisjoint(names_in(data))
        ):
            tree, _ = parse_bytes(data)
        if tree is not None:
            summary = summarise(tree)
        if stat is not None:
            self.summaries[key] = [*stat, summary]
        return summary

    def split(self, qual: str) -> tuple[ModuleInfo | None, list[str]]:
        """The longest module prefix of ``qual`` in the environment and the remaining parts."""
        parts = qual.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            info = self.module(".".join(parts[:cut]))
            if info is not None:
                return info, parts[cut:]
        return None, parts


# --------------------------------------------------------------------------------------------
# finding it


def find_environment(
    root: Path, python: str | bool | None, environ: Mapping[str, str] | None = None
) -> tuple[Environment | None, str]:
    """The environment of the project at ``root`` (see the module's docstring), or None, and why.

    Raises :class:`~dispatchguard.lint.errors.ConfigError` when the ``python`` setting names
    something that is not an environment (a user's explicit choice is never ignored silently)."""
    if python is False:
        return None, "turned off (`python = false`)"
    env = os.environ if environ is None else environ
    root = root.absolute()
    if isinstance(python, str):
        found = environment_of(python)
        return found, found.reason
    virtual_env = env.get("VIRTUAL_ENV")
    if virtual_env and env.get("PRE_COMMIT") == "1" and _same(Path(virtual_env), Path(sys.prefix)):
        # pre-commit names its own hook environment, where the checker runs, not the project's
        virtual_env = None
    if virtual_env:
        found = _environment(Path(virtual_env), f"VIRTUAL_ENV={virtual_env}")
        if found is not None:
            return found, found.reason
    for name in ENVIRONMENT_FOLDERS:
        candidate = root / name
        if (candidate / "pyvenv.cfg").is_file():
            found = _environment(candidate, f"{name}/pyvenv.cfg at the project root")
            if found is not None:
                return found, found.reason
    looked = "VIRTUAL_ENV " + (f"({virtual_env}) has no site-packages" if virtual_env else "is not set")
    return None, f"none found ({looked}; no .venv or venv with a pyvenv.cfg at {root})"


def environment_of(python: str) -> Environment:
    """The environment an absolute ``python`` setting names (an interpreter or an environment
    folder); :class:`~dispatchguard.lint.errors.ConfigError` when it names none."""
    given = Path(python)
    if not given.exists():
        raise ConfigError(f"python = {python!r}: {given} does not exist")
    prefix = given if given.is_dir() else _prefix_of_interpreter(given)
    found = _environment(prefix, f"the `python` setting ({python})")
    if found is None:
        raise ConfigError(f"python = {python!r}: no site-packages folder under {prefix}")
    return found


def _prefix_of_interpreter(interpreter: Path) -> Path:
    folder = interpreter.parent
    return folder.parent if folder.name in ("bin", "Scripts") else folder


_FOUND: dict[tuple[str, str], Environment] = {}


def _environment(prefix: Path, reason: str) -> Environment | None:
    """The environment at ``prefix``; the one found before while its stamp holds (a language
    server or a test session asks many times, and keeps the summaries it read)."""
    key = (prefix.as_posix(), reason)
    known = _FOUND.get(key)
    if known is not None and known.stamp() == known.stamp_then:
        return known
    found = _read_environment(prefix, reason)
    if found is not None:
        found.stamp_then = found.stamp()
        _FOUND[key] = found
    return found


def _read_environment(prefix: Path, reason: str) -> Environment | None:
    config = _pyvenv_cfg(prefix)
    version = config.get("version_info") or config.get("version") or ""
    site_dirs = _site_dirs(prefix, version)
    if config.get("include-system-site-packages", "").lower() == "true" and config.get("home"):
        site_dirs += _site_dirs(_prefix_of_interpreter(Path(config["home"]) / "python"), version)
    if not site_dirs:
        return None
    import_dirs = list(site_dirs)
    for site in site_dirs:
        for extra in _pth_dirs(site):
            if extra not in import_dirs:
                import_dirs.append(extra)
    return Environment(prefix, reason, tuple(import_dirs), tuple(_tool_distributions(site_dirs)))


def _pyvenv_cfg(prefix: Path) -> dict[str, str]:
    try:
        text = (prefix / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip().lower()] = value.strip()
    return values


def _site_dirs(prefix: Path, version: str) -> list[Path]:
    """``site-packages`` (and Debian's ``dist-packages``) of an environment: the folder of its own
    Python version when ``pyvenv.cfg`` names one, else of every version, newest first."""
    found: list[Path] = []
    windows = prefix / "Lib" / "site-packages"
    if windows.is_dir():
        found.append(windows)
    wanted = ".".join(version.split(".")[:2])
    for lib in (prefix / "lib", prefix / "lib64", prefix / "local" / "lib"):
        try:
            entries = list(os.scandir(lib))
        except OSError:
            continue
        versions = []
        for entry in entries:
            match = _VERSION_DIR.match(entry.name)
            if match and entry.is_dir():
                versions.append(((int(match[1]), int(match[2])), entry.path))
        versions.sort(reverse=True)
        chosen = [path for v, path in versions if f"{v[0]}.{v[1]}" == wanted] or [path for _, path in versions]
        for path in chosen:
            for leaf in ("site-packages", "dist-packages"):
                candidate = Path(path) / leaf
                if candidate.is_dir() and not any(_same(candidate, f) for f in found):
                    found.append(candidate)
    return found


def _same(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)  # lib64 is often a link to lib
    except OSError:
        return False


def _pth_dirs(site: Path) -> Iterator[Path]:
    """The folders the ``.pth`` files of a site folder add to ``sys.path``."""
    try:
        names = sorted(n for n in os.listdir(site) if n.endswith(".pth"))
    except OSError:
        return
    for name in names:
        yield from _pth_file_dirs(site, name)


def _pth_file_dirs(site: Path, name: str) -> Iterator[Path]:
    """The folders one ``.pth`` file names (its lines that are paths, not ``import`` lines)."""
    try:
        lines = (site / name).read_text(encoding="utf-8", errors="replace").splitlines()[:_MAX_PTH_LINES]
    except OSError:
        return
    for line in lines:
        line = line.strip()
        if not line or line.startswith(("#", "import ", "import\t")):
            continue
        path = Path(line) if os.path.isabs(line) else site / line
        if path.is_dir():
            yield path


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _tool_distributions(site_dirs: list[Path]) -> Iterator[Distribution]:
    seen: set[str] = set()
    for site in site_dirs:
        try:
            entries = sorted(n for n in os.listdir(site) if n.endswith(".dist-info"))
        except OSError:
            continue
        for entry in entries:
            raw_name, _, version = entry[: -len(".dist-info")].partition("-")
            name = _normalise(raw_name)
            if name in seen:
                continue
            meta = site / entry
            if name in TOOL_LIBRARIES:
                reason = "a tool library"
            else:
                required = _required_tool_library(meta / "METADATA")
                if required is None:
                    continue
                reason = f"requires {required}"
            seen.add(name)
            packages = _top_level_names(meta, site)
            if packages:
                yield Distribution(name, version, packages, reason)


def _required_tool_library(metadata: Path) -> str | None:
    """The first tool library a distribution's METADATA requires without an ``extra`` marker."""
    try:
        with open(metadata, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    headers = data.split(b"\n\n", 1)[0]
    if b"crewai" not in headers and b"langchain" not in headers:  # most distributions: no parse
        return None
    for line in headers.decode("utf-8", "replace").splitlines():
        if line.startswith("Requires-Dist:"):
            requirement, _, marker = line[len("Requires-Dist:") :].partition(";")
            match = _REQUIREMENT_NAME.match(requirement)
            if match and "extra" not in marker and _normalise(match[1]) in TOOL_LIBRARIES:
                return _normalise(match[1])
    return None


def _top_level_names(meta: Path, site: Path) -> tuple[str, ...]:
    """A distribution's top-level import names: ``top_level.txt``, else its ``RECORD``'s first
    path parts that are packages or modules, and, for an editable install, the packages and
    modules of the folders its ``.pth`` file names."""
    folders: list[Path] = [site]
    try:
        text = (meta / "top_level.txt").read_text()
        names = {line.strip() for line in text.splitlines() if line.strip()}
    except OSError:
        try:
            names = _recorded_names(meta / "RECORD", site, folders)
        except OSError:
            return ()
    for folder in folders[1:]:
        names |= _folder_modules(folder)
    def importable(name: str) -> bool:
        return any((f / name).is_dir() or (f / f"{name}.py").is_file() for f in folders)

    return tuple(sorted(n for n in names if n.isidentifier() and importable(n)))


def _recorded_names(record: Path, site: Path, folders: list[Path]) -> set[str]:
    """The first path parts of a ``RECORD``'s files; the folders its ``.pth`` files name go to
    ``folders``."""
    names: set[str] = set()
    with open(record, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            first = line.split(",", 1)[0].split("/", 1)
            head = first[0]
            if len(first) > 1:
                if not head.endswith((".dist-info", ".data")) and head not in ("..", "__pycache__"):
                    names.add(head)
            elif head.endswith(".py"):
                names.add(head[:-3])
            elif head.endswith(".pth"):
                folders.extend(_pth_file_dirs(site, head))
    return names


def _folder_modules(folder: Path) -> set[str]:
    """The modules and packages directly in a folder (an editable install's source folder)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return set()
    return {
        entry.name[:-3] if entry.name.endswith(".py") else entry.name
        for entry in entries
        if entry.name.endswith(".py") or (entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py")))
    }
