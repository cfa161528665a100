"""The checking engine: discovery, the two phases, the result cache and parallel jobs.

Phase 1 reads and parses every file of the project (under ``config.root``, minus ``exclude``) and
keeps a summary of what each module binds at top level. Phase 2 resolves tool classes, tools and
registries across the project, then walks only the files to report on. A file's findings are
cached with the project facts it looked up (``deps``): a later run reuses them while the file's
content, the configuration and those facts are unchanged, so editing a base class in one file
re-checks exactly the files that depend on it.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import hashlib
import io
import json
import os
import re
import tokenize
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dispatchguard import __version__
from dispatchguard.lint.analysis import Context, RawFinding
from dispatchguard.lint.config import LintConfig, any_glob
from dispatchguard.lint.findings import CheckReport, Finding
from dispatchguard.lint.index import module_names, summarise
from dispatchguard.lint.noqa import file_suppresses, file_suppression, line_suppresses
from dispatchguard.lint.resolve import ModuleInfo, Resolver
from dispatchguard.lint.rules import AST_RULES, dg001_parse_error

# Bump when summaries, deps or cached findings change meaning (the package version is part of the
# cache file's name too, so a release never reads another release's cache).
CACHE_VERSION = 2
CACHE_DIRNAME = ".dispatchguard_cache"
PYTHON_SUFFIXES = (".py", ".pyi")
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_PRIVATE_RUN = re.compile(rb"\._a?run\b")
_FEW_WORDS = 48
_KEEP_TREES_BYTES = 8_000_000  # source bytes whose trees phase 1 keeps for phase 2 (about 25x in RAM)
_MIN_PARALLEL = 24  # below this many files a process pool costs more than it saves

# (line, col, end_line, end_col, code, message, suppressed): 1-based character columns
CachedFinding = list[Any]


# ============================================================================ discovery


@dataclass
class SourceFile:
    path: Path  # absolute
    relpath: str  # root-relative POSIX path (absolute POSIX path when outside the root)
    key: str  # cache key: absolute POSIX path


def _relpath(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def discover(paths: Iterable[str | os.PathLike[str]], config: LintConfig, root: Path) -> list[Path]:
    """Python files under ``paths`` (files given explicitly count whatever their suffix), minus
    ``exclude`` (matched against root-relative paths and every directory name)."""
    found: list[Path] = []
    seen: set[Path] = set()
    exclude = config.exclude
    for raw in paths:
        path = Path(raw).absolute()
        if path.is_dir():
            if _excluded(path, root, exclude, is_dir=True):
                continue
            for dirpath, dirnames, filenames in os.walk(path):
                base = Path(dirpath)
                dirnames[:] = sorted(d for d in dirnames if not _excluded(base / d, root, exclude, is_dir=True))
                for name in sorted(filenames):
                    if name.endswith(PYTHON_SUFFIXES):
                        file = base / name
                        if file not in seen and not _excluded(file, root, exclude):
                            seen.add(file)
                            found.append(file)
        elif path not in seen and not _excluded(path, root, exclude):
            seen.add(path)
            found.append(path)
    return found


def _excluded(path: Path, root: Path, exclude: Sequence[str], is_dir: bool = False) -> bool:
    if not exclude:
        return False
    rel = _relpath(path, root)
    if rel == ".":
        return False
    return any_glob(exclude, rel)


# ============================================================================ per-file work


@dataclass
class Parsed:
    """Phase-1 result of one file."""

    digest: str
    stat: tuple[int, int]
    summary: dict[str, Any] | None
    error: list[Any] | None  # [line, col, reason] when the file cannot be checked


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def read_and_parse(path: Path) -> tuple[bytes | None, ast.Module | None, Parsed]:
    stat = _stat(path) or (0, 0)
    try:
        data = path.read_bytes()
    except OSError as exc:
        reason = f"cannot read the file: {exc.strerror or exc}"
        return None, None, Parsed("", stat, None, [1, 1, reason])
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
    tree, error = parse_bytes(data)
    summary = summarise(tree) if tree is not None else None
    return data, tree, Parsed(digest, stat, summary, error)


def parse_bytes(data: bytes) -> tuple[ast.Module | None, list[Any] | None]:
    try:
        return ast.parse(data), None
    except SyntaxError as exc:
        msg = exc.msg or "invalid syntax"
        kind = "cannot decode the file" if "unicode error" in msg or "codec" in msg else "syntax error"
        return None, [max(exc.lineno or 1, 1), max(exc.offset or 1, 1), f"{kind}: {msg}"]
    except (ValueError, UnicodeDecodeError) as exc:
        return None, [1, 1, f"cannot decode the file: {exc}"]
    except (RecursionError, MemoryError):
        return None, [1, 1, "the file is too deeply nested to parse"]


def _decode_lines(data: bytes) -> list[str]:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding, errors="replace")
    except (SyntaxError, LookupError):
        text = data.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.splitlines()


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    """1-based character column of a UTF-8 byte offset (ast's col_offset) in a line."""
    if 0 < line <= len(lines):
        text = lines[line - 1]
        if text.isascii():
            return byte_col + 1
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace")) + 1
    return byte_col + 1


# ============================================================================ the project


class Project:
    """Every module's summary and the resolver built on them, plus the per-file settings."""

    def __init__(self, config: LintConfig) -> None:
        self.config = config
        self.root = Path(config.root).absolute()
        self.resolver = Resolver(config)
        self.infos: dict[str, ModuleInfo] = {}  # key -> module
        self.codes = {code: rule for code, rule in AST_RULES.items() if config.is_enabled(code)}
        self.dg001 = config.is_enabled(dg001_parse_error.CODE)
        self.digests: dict[str, str] = {}  # key -> content digest the summary was made from
        self.cached: dict[str, dict[str, Any]] = {}  # key -> cached findings entry (build_project)
        self.package_dirs: frozenset[str] = frozenset()
        self._word_set: frozenset[bytes] | None = None

    def add(
        self, file: SourceFile, summary: dict[str, Any], package_dirs: frozenset[str], *, replace: bool = False
    ) -> ModuleInfo:
        if file.relpath.startswith("/"):
            name, aliases, is_package = _outside_module_name(file.path)
        else:
            name, aliases, is_package = module_names(file.relpath, package_dirs)
        info = self.resolver.add_module(name, aliases, is_package, summary, replace=replace)
        self.infos[file.key] = info
        self._word_set = None
        return info

    # ---------------------------------------------------------------- gate

    @property
    def word_set(self) -> frozenset[bytes]:
        if self._word_set is None:
            self._word_set = frozenset(w.encode() for w in self.resolver.words())
        return self._word_set

    def may_have_findings(self, data: bytes) -> bool:
        """False when the file names nothing tool-related (then its walk is skipped)."""
        if b"_run" in data and _PRIVATE_RUN.search(data):
            return True
        words = self.word_set
        # a substring search first when there are few words (fast); then whole identifiers only
        if len(words) <= _FEW_WORDS and not any(w in data for w in words):
            return False
        return not words.isdisjoint(_IDENT.findall(data))

    def gate_passes(self, private_run: bool, identifiers: frozenset[bytes]) -> bool:
        """:meth:`may_have_findings` from what a phase-1 worker saw in the file."""
        return private_run or not self.word_set.isdisjoint(identifiers)

    # ---------------------------------------------------------------- per-file settings

    def checks_for(self, relpath: str) -> dict[str, Any]:
        config = self.config
        checks = dict(self.codes)
        ignored = config.ignored_for(relpath)
        for code in list(checks):
            if any(code.startswith(prefix) for prefix in ignored):
                del checks[code]
        is_test = any_glob(config.test_patterns, relpath)
        if is_test:
            checks.pop("DG101", None)
            checks.pop("DG102", None)
        if "DG102" in checks and any_glob(config.tool_modules, relpath):
            del checks["DG102"]
        return checks

    # ---------------------------------------------------------------- checking

    def check(
        self,
        file: SourceFile,
        data: bytes,
        tree: ast.Module | None,
        info: ModuleInfo | None,
        *,
        apply_noqa: bool = True,
    ) -> tuple[list[CachedFinding], list[list[Any]] | None, str | None]:
        """Findings of one parsed file (``# noqa`` marks them suppressed unless ``apply_noqa`` is
        false), the project facts it looked up, or the gate digest when its walk was skipped."""
        checks = self.checks_for(file.relpath)
        if not checks or not self.may_have_findings(data):
            return [], None, self.resolver.words_digest()
        if tree is None:
            tree, _ = parse_bytes(data)
            if tree is None:  # pragma: no cover - phase 1 reported it already
                return [], [], None
        if info is None:
            info = self.add(file, summarise(tree), frozenset())
        ctx = Context(
            self.resolver, info, checks=checks, dispatchers=self.config.dispatchers, strict=self.config.strict
        )
        try:
            raw = ctx.run(tree)
        except RecursionError:
            raw = [(1, 0, 1, 0, dg001_parse_error.CODE, dg001_parse_error.MESSAGE.format(reason="too deeply nested"))]
        deps = sorted([q, k] for q, k in ctx.deps.items())
        return self.finish(raw, data, apply_noqa), deps, None

    def finish(self, raw: list[RawFinding], data: bytes, apply_noqa: bool = True) -> list[CachedFinding]:
        if not raw:
            return []
        lines = _decode_lines(data)
        directives = file_suppression(data) if apply_noqa else []
        out = []
        for line, col, end_line, end_col, code, message in sorted(set(raw)):
            suppressed = apply_noqa and (
                file_suppresses(directives, code)
                or (0 < line <= len(lines) and line_suppresses(lines[line - 1], code))
            )
            out.append(
                [line, _char_col(lines, line, col), end_line, _char_col(lines, end_line, end_col), code, message, suppressed]
            )
        return out

    def error_finding(self, file: SourceFile, data: bytes | None, error: list[Any]) -> list[CachedFinding]:
        if not self.dg001 or any(dg001_parse_error.CODE.startswith(p) for p in self.config.ignored_for(file.relpath)):
            return []
        line, col, reason = error
        suppressed = bool(data) and file_suppresses(file_suppression(data), dg001_parse_error.CODE)
        message = dg001_parse_error.MESSAGE.format(reason=reason)
        return [[line, col, line, col, dg001_parse_error.CODE, message, suppressed]]

    def cached_findings(self, key: str, digest: str) -> list[CachedFinding] | None:
        """The findings a previous ``dispatchguard check`` cached for this content, if still valid."""
        cached = self.cached.get(key)
        info = self.infos.get(key)
        if cached is None or info is None or self.digests.get(key) != digest or cached.get("m") != info.name:
            return None
        return cached["x"] if _findings_valid(self, cached, self.resolver.words_digest()) else None

    def deps_valid(self, deps: list[list[Any]]) -> bool:
        kind = self.resolver.kind
        return all(kind(q) == k for q, k in deps)


def _outside_module_name(path: Path) -> tuple[str, tuple[str, ...], bool]:
    parts = [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    is_package = path.stem == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), (), is_package


# ============================================================================ the cache


class ResultCache:
    """One JSON file per configuration under ``<root>/.dispatchguard_cache/v<N>/``.

    Entries are keyed by absolute path and hold the content digest, the stat used to skip reading
    unchanged files, the phase-1 summary and the findings with their deps. Writes go to a temporary
    file that is then renamed over the old one, so concurrent runs never see a partial file (the
    last writer wins); anything unreadable is ignored.
    """

    def __init__(self, directory: Path, fingerprint: str) -> None:
        self.file = directory / f"v{CACHE_VERSION}" / f"{__version__}-{fingerprint}.json"
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False

    def load(self) -> None:
        try:
            with open(self.file, "rb") as fh:
                data = json.load(fh)
        except (OSError, ValueError, UnicodeDecodeError):
            return
        if isinstance(data, dict) and data.get("version") == CACHE_VERSION and isinstance(data.get("files"), dict):
            self.entries = data["files"]

    def get(self, key: str) -> dict[str, Any] | None:
        entry = self.entries.get(key)
        return entry if isinstance(entry, dict) else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        self.entries[key] = entry
        self.dirty = True

    def save(self, keep: Iterable[str] | None = None) -> None:
        """Write the cache (``keep``: the files of the project; entries of other files are dropped)."""
        if keep is not None:
            wanted = set(keep)
            stale = [key for key in self.entries if key not in wanted]
            for key in stale:
                del self.entries[key]
            self.dirty = self.dirty or bool(stale)
        if not self.dirty:
            return
        directory = self.file.parent
        try:
            directory.mkdir(parents=True, exist_ok=True)
            gitignore = directory.parent / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text("# created by dispatchguard\n*\n")
            import tempfile

            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=directory)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump({"version": CACHE_VERSION, "files": self.entries}, fh, separators=(",", ":"))
                os.replace(tmp, self.file)
            except BaseException:
                _unlink(tmp)
                raise
        except OSError:
            return  # a read-only tree: the cache is an optimisation, never fatal
        self.dirty = False


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:  # pragma: no cover
        pass


def _valid_entry(entry: dict[str, Any] | None, stat: tuple[int, int] | None) -> bool:
    if entry is None or stat is None:
        return False
    return entry.get("st") == list(stat) and isinstance(entry.get("h"), str) and "s" in entry


# ============================================================================ workers


_WORKER_PROJECT: Project | None = None


def _phase1_worker(items: list[tuple[str, bool]]) -> list[tuple[str, dict[str, Any], Any]]:
    """Parse and summarise; for files to report on, also what the gate needs (the tree itself
    cannot travel back cheaply, so phase 2 only re-parses the files that pass the gate)."""
    out = []
    for raw, is_target in items:
        data, _, parsed = read_and_parse(Path(raw))
        gate = None
        if is_target and data is not None:
            gate = (bool(_PRIVATE_RUN.search(data)) if b"_run" in data else False, frozenset(_IDENT.findall(data)))
        out.append((raw, _parsed_entry(parsed), gate))
    return out


def _phase2_worker(items: list[tuple[SourceFile, str]]) -> list[tuple[str, dict[str, Any]]]:
    project = _WORKER_PROJECT
    assert project is not None
    out = []
    for file, digest in items:
        out.append((file.key, _check_one(project, file, None, None, digest)))
    return out


def _parsed_entry(parsed: Parsed) -> dict[str, Any]:
    return {"st": list(parsed.stat), "h": parsed.digest, "s": parsed.summary, "e": parsed.error}


def _check_one(
    project: Project, file: SourceFile, data: bytes | None, tree: ast.Module | None, digest: str
) -> dict[str, Any]:
    """Check one file; returns the ``f`` part of its cache entry."""
    if data is None:
        try:
            data = file.path.read_bytes()
        except OSError as exc:
            return {"x": project.error_finding(file, None, [1, 1, f"cannot read the file: {exc.strerror}"]), "d": []}
        if hashlib.blake2b(data, digest_size=16).hexdigest() != digest:  # changed since phase 1
            tree = None
    findings, deps, gate = project.check(file, data, tree, project.infos.get(file.key))
    info = project.infos.get(file.key)
    return {"x": findings, "d": deps, "g": gate, "m": info.name if info is not None else None}


def _chunks(items: list[Any], jobs: int) -> list[list[Any]]:
    size = max(1, min(64, len(items) // (jobs * 4) or 1))
    return [items[i : i + size] for i in range(0, len(items), size)]


def _fork_context() -> Any:
    import multiprocessing  # only for parallel runs: flake8 imports this module in every process

    try:
        return multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - Windows
        return None


def _pool(jobs: int, context: Any) -> Any:
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=jobs, mp_context=context)


# ============================================================================ the run


def _display_path(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()


def check_paths(
    paths: Sequence[str | os.PathLike[str]],
    config: LintConfig,
    *,
    jobs: int | None = None,
    use_cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> CheckReport:
    """Check the Python files under ``paths`` with knowledge of the whole project under the root."""
    with quiet_parsing():
        return _check_paths(paths, config, jobs, use_cache, cache_dir, progress)


@contextlib.contextmanager
def quiet_parsing() -> Iterator[None]:
    """No cyclic GC and no SyntaxWarnings while parsing many files.

    Parsing allocates millions of acyclic objects; the cyclic GC would rescan the trees kept
    between the phases over and over (measured: 3x the parse time on the standard library), and
    nothing here makes cycles. SyntaxWarnings (``1()``) are the compiler's business, not ours.
    """
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            yield
    finally:
        if gc_was_enabled:
            gc.enable()


def _check_paths(
    paths: Sequence[str | os.PathLike[str]],
    config: LintConfig,
    jobs: int | None,
    use_cache: bool,
    cache_dir: str | os.PathLike[str] | None,
    progress: Callable[[int, int], None] | None,
) -> CheckReport:
    run = _Run(config, list(paths) or ["."], jobs, use_cache, cache_dir, progress)
    run.index()
    project = run.project
    results: dict[str, list[CachedFinding]] = {}
    todo: list[str] = []
    digest = project.resolver.words_digest() if run.targets else ""
    for key in run.targets:
        entry = run.entries[key]
        if entry.get("e"):
            results[key] = project.error_finding(run.files[key], run.kept.get(key, (None,))[0], entry["e"])
            run.tick()
            continue
        cached = entry.get("f")
        info = project.infos.get(key)
        module = info.name if info is not None else None
        if isinstance(cached, dict) and cached.get("m") == module and _findings_valid(project, cached, digest):
            results[key] = cached["x"]
            run.tick()
        elif key in run.gates and not project.gate_passes(*run.gates[key]):
            run.store(results, key, {"x": [], "d": None, "g": digest, "m": module})
            run.tick()
        else:
            todo.append(key)
    # phase 2 re-reads and re-parses in the workers: only worth a pool for more files than phase 1
    pool_context = _fork_context() if run.jobs > 1 and len(todo) >= 3 * _MIN_PARALLEL else None
    if pool_context is not None:
        global _WORKER_PROJECT
        _WORKER_PROJECT = project
        try:
            project.resolver.words()  # computed once, before forking
            with _pool(run.jobs, pool_context) as pool:
                work = [(run.files[k], run.entries[k]["h"]) for k in todo]
                for batch in pool.map(_phase2_worker, _chunks(work, run.jobs)):
                    for key, outcome in batch:
                        run.store(results, key, outcome)
                    run.tick(len(batch))
        finally:
            _WORKER_PROJECT = None
    else:
        for key in todo:
            data, tree = run.kept.pop(key, (None, None))
            run.store(results, key, _check_one(project, run.files[key], data, tree, run.entries[key]["h"]))
            run.tick()
    if use_cache:
        run.cache.save(keep=run.files)

    cwd = Path.cwd()
    findings = []
    for key, items in results.items():
        shown = _display_path(run.files[key].path, cwd)
        for line, col, end_line, end_col, code, message, suppressed in items:
            findings.append(Finding(shown, line, col, code, message, end_line, end_col, suppressed))
    findings.sort(key=lambda f: (f.path, f.line, f.col, f.code, f.message))
    return CheckReport(findings=findings, files_checked=len(run.targets))


def build_project(config: LintConfig, *, use_cache: bool = True) -> Project:
    """Index the whole project under ``config.root`` (phase 1 and resolution) without checking."""
    run = _Run(config, [], 1, use_cache, None, None)
    with quiet_parsing():
        run.index()
    for key, entry in run.entries.items():
        if isinstance(entry.get("f"), dict):
            run.project.cached[key] = entry["f"]
    if use_cache:
        run.cache.save(keep=run.files)
    return run.project


class _Run:
    """The state of one run: files, cache entries, trees kept between the phases, the project."""

    def __init__(
        self,
        config: LintConfig,
        paths: list[str | os.PathLike[str]],
        jobs: int | None,
        use_cache: bool,
        cache_dir: str | os.PathLike[str] | None,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        self.config = config
        self.root = root = Path(config.root).absolute()
        targets = discover(paths, config, root) if paths else []
        self.targets = [p.as_posix() for p in targets]
        every = {p.as_posix(): p for p in (discover([root], config, root) if root.is_dir() else [])}
        for p in targets:
            every.setdefault(p.as_posix(), p)
        self.files = {key: SourceFile(path, _relpath(path, root), key) for key, path in every.items()}
        self.jobs = max(1, jobs if jobs is not None else (os.cpu_count() or 1))
        self.use_cache = use_cache
        self.cache = ResultCache(Path(cache_dir) if cache_dir else root / CACHE_DIRNAME, config.fingerprint())
        if use_cache:
            self.cache.load()
        self.entries: dict[str, dict[str, Any]] = {}
        self.kept: dict[str, tuple[bytes, ast.Module | None]] = {}
        self.gates: dict[str, tuple[bool, frozenset[bytes]]] = {}  # from parallel phase 1
        self.progress = progress
        self.total = len(self.files) + len(self.targets)
        self.done = 0
        self.project = Project(config)

    def tick(self, n: int = 1) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(self.done, self.total)

    def index(self) -> None:
        """Phase 1 (summaries, from the cache when the file's stat is unchanged) and resolution."""
        stale: list[str] = []
        for key, file in self.files.items():
            entry = self.cache.get(key) if self.use_cache else None
            if entry is not None and _valid_entry(entry, _stat(file.path)):
                self.entries[key] = entry
                self.tick()
            else:
                stale.append(key)
        targets = set(self.targets)
        pool_context = _fork_context() if self.jobs > 1 and len(stale) >= _MIN_PARALLEL else None
        if pool_context is not None:
            with _pool(self.jobs, pool_context) as pool:
                work = [(key, key in targets) for key in stale]
                for batch in pool.map(_phase1_worker, _chunks(work, self.jobs)):
                    for key, fresh, gate in batch:
                        self.merge(key, fresh)
                        if gate is not None:
                            self.gates[key] = gate
                    self.tick(len(batch))
        else:
            budget = _KEEP_TREES_BYTES
            for key in stale:
                data, tree, parsed = read_and_parse(self.files[key].path)
                if data is not None and key in targets and budget > 0 and _likely_relevant(data):
                    self.kept[key] = (data, tree)
                    budget -= len(data)
                self.merge(key, _parsed_entry(parsed))
                self.tick()
        project = self.project
        project.package_dirs = frozenset(
            rel[: -len("/__init__.py")] if "/" in rel else ""
            for rel in (f.relpath for f in self.files.values())
            if rel.endswith("/__init__.py") or rel == "__init__.py"
        )
        for key, entry in self.entries.items():
            if entry.get("s") is not None:
                project.add(self.files[key], entry["s"], project.package_dirs)
                project.digests[key] = entry["h"]

    def merge(self, key: str, fresh: dict[str, Any]) -> None:
        old = self.cache.get(key)
        if old is not None and old.get("h") == fresh["h"] and "f" in old:
            fresh["f"] = old["f"]  # content unchanged (only touched): the findings may still be valid
        self.entries[key] = fresh
        self.cache.put(key, fresh)

    def store(self, results: dict, key: str, outcome: dict[str, Any]) -> None:
        results[key] = outcome["x"]
        entry = dict(self.entries[key])
        entry["f"] = outcome
        self.cache.put(key, entry)


def _likely_relevant(data: bytes) -> bool:
    """A cheap guess (phase 1 cannot know the project's tool names yet) of whether phase 2 will
    walk this file: only decides which trees are kept in memory, never what is reported."""
    return b"ool" in data or b"_run" in data or b"egistr" in data


def _findings_valid(project: Project, cached: dict[str, Any], digest: str) -> bool:
    if not isinstance(cached.get("x"), list):
        return False
    if cached.get("g"):
        return cached["g"] == digest
    deps = cached.get("d")
    return isinstance(deps, list) and project.deps_valid(deps)


# ============================================================================ in-memory helpers


def check_source(
    source: str, config: LintConfig | None = None, *, path: str = "snippet.py", extra: dict[str, str] | None = None
) -> list[Finding]:
    """Check one source text as ``path`` under the config root (``extra``: other modules of the
    project, relpath -> source). For tests and tools; nothing is read from or written to disk."""
    with quiet_parsing():
        return _check_source(source, config or LintConfig(), path, extra or {})


def _check_source(source: str, config: LintConfig, path: str, extra: dict[str, str]) -> list[Finding]:
    project = Project(config)
    sources = {**extra, path: source}
    parsed: dict[str, tuple[bytes, ast.Module | None, list[Any] | None]] = {}
    package_dirs = frozenset(rel.rsplit("/", 1)[0] for rel in sources if rel.endswith("/__init__.py"))
    files = {}
    for rel, text in sources.items():
        data = text.encode("utf-8")
        tree, error = parse_bytes(data)
        file = SourceFile(project.root / rel, rel, rel)
        files[rel] = file
        parsed[rel] = (data, tree, error)
        if tree is not None:
            project.add(file, summarise(tree), package_dirs)
    data, tree, error = parsed[path]
    if error is not None:
        items = project.error_finding(files[path], data, error)
    else:
        items, _, _ = project.check(files[path], data, tree, project.infos[path])
    return [Finding(path, l, c, code, msg, el, ec, s) for l, c, el, ec, code, msg, s in items]


__all__ = ["build_project", "check_paths", "check_source", "discover", "Project", "ResultCache"]
