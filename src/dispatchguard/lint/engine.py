"""The checking engine: one run of ``check_paths``.

1. **Files.** The files to report on (under ``paths``) and the project's files (under the root),
   minus ``exclude``; module names come from the paths alone.
2. **Tool words** (:meth:`Project.close_words`). The bytes of the files are scanned for tool words;
   only the candidates that name one are parsed, in rounds, until the words are complete. Nothing
   else is parsed, but the modules a walk asks about (imports followed outward).
3. **Walks.** A file to report on is walked as soon as it is parsed (each file is parsed at most
   once per run), with what the project knows at that moment; the kinds it looked up are
   recorded. The project parses wherever a question reaches a module first and keeps the trees
   of the files to report on; after each step that may parse, the engine takes them
   (:meth:`Project.take_parsed`) and walks them (:meth:`_CheckRun.walk_parsed`). Once the words
   are complete, a walk whose lookups still hold is final (nearly all are); the others are walked
   again.
4. **The rest** of the files to report on: the gate skips those that name no tool word and no
   ``._run``; those that do are parsed and walked. A skipped file is still held to being readable
   and decodable (DG001), and its ``# noqa: DGxxx`` comments are unused (DG002), but it is never
   parsed: a syntax error in a file that names no tool word is
   the project's Python linter's to report (ruff and flake8: E999), not ours.

Results are cached per file with what they depend on (the kinds looked up, or the tool words for a
skipped walk): a later run reuses them while the file, the configuration and those facts are
unchanged. When no file of the project changed at all, the cached results are reported at once.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dispatchguard.lint.cache import CACHE_DIRNAME, CacheEntry, FileResult, ResultCache
from dispatchguard.lint.checking import check_tree, error_result, may_name_noqa_codes, rules_for, skipped_result
from dispatchguard.lint.config import LintConfig, load_config
from dispatchguard.lint.discovery import Scan, SourceFile, display_path, relative_path, scan, walk
from dispatchguard.lint.findings import CheckReport, Finding, finding_order
from dispatchguard.lint.index import names_in
from dispatchguard.lint.notebook import Notebook, NotebookError, read_notebook
from dispatchguard.lint.parsing import file_stat, parse_bytes, quiet_parsing, readable_source
from dispatchguard.lint.project import (
    DOTS_IMPORT,
    STAR_IMPORT,
    Loaded,
    ParsedFile,
    Project,
    WordSet,
    calls_private_run,
    may_have_findings,
)

Progress = Callable[[int, int], None]


def check_paths(
    paths: Sequence[str | os.PathLike[str]],
    config: LintConfig,
    *,
    jobs: int | None = None,
    use_cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    nested: bool = True,
) -> CheckReport:
    """Check the Python files under ``paths`` with knowledge of the whole project under the root.

    ``jobs`` (default: the machine's cores) processes share the first round of parsing when it is
    large enough to pay for them (:data:`PARALLEL_BYTES`); each file is still parsed once.

    With ``nested`` (not when the configuration file was given explicitly), a folder below the root
    with a configuration of its own is checked as a project of its own, with that configuration
    (see :mod:`.discovery`): a file's findings never depend on the other paths given.
    """
    jobs = max(1, jobs if jobs is not None else (os.cpu_count() or 1))
    with quiet_parsing():
        run = _CheckRun(config, list(paths) or ["."], use_cache, cache_dir, progress, jobs, nested=nested)
        report = run.execute() if run.targets or not run.projects else CheckReport([], 0)
    for folder, inside in sorted(run.projects.items()):
        sub = check_paths(
            inside, load_config([folder]), jobs=jobs, use_cache=use_cache, cache_dir=cache_dir, progress=progress
        )
        report = report.merged(sub)
    return report


def project_files(
    paths: Sequence[str | os.PathLike[str]], config: LintConfig, *, nested: bool = False
) -> tuple[list[SourceFile], list[str], Scan]:
    """(every file of the project, the keys of those under ``paths`` (notebooks among them), the
    scan of ``paths``: its notebooks, and with ``nested`` the projects of their own below the root,
    which are not the project's): the project's files under the root come first, in walk order,
    then files under ``paths`` outside the root."""
    root = Path(config.root).absolute()
    found = scan(paths, config, root, nested=nested) if paths else Scan()
    targets = sorted(found.files + found.notebooks)
    if [Path(p).absolute() for p in paths] == [root] and root.is_dir():
        every = targets  # checking the whole project: one walk of it
    else:
        every = walk([root], config, root, nested=nested) if root.is_dir() else []
    files = {p.as_posix(): SourceFile(p, relative_path(p, root), p.as_posix()) for p in every}
    for p in targets:
        files.setdefault(p.as_posix(), SourceFile(p, relative_path(p, root), p.as_posix()))
    return list(files.values()), [p.as_posix() for p in targets], found


#: Source bytes in a round below which worker processes cost more than they save.
PARALLEL_BYTES = 1_000_000
#: A run that reports on part of the project, at most this many files or this share of its files
#: (pre-commit's staged files, a file named on the command line), checks them *focused*: see
#: ``check_focused``.
FOCUSED_FILES = 20
FOCUSED_SHARE = 0.05


@dataclass
class _Share:
    """What a worker process learnt of its share of a round."""

    known: dict[str, Loaded]
    results: dict[str, FileResult]
    parsed: int
    walked: int


_FORKED: tuple[_CheckRun, list[list[tuple[str, bytes | None]]]] | None = None


def _load_share(index: int) -> _Share:
    assert _FORKED is not None
    run, parts = _FORKED
    project = run.project
    known, results = set(project.known), set(run.results)
    parsed, walked = project.parsed, project.walked
    run.load_share(parts[index])
    return _Share(
        known={k: v for k, v in project.known.items() if k not in known},
        results={k: v for k, v in run.results.items() if k not in results},
        parsed=project.parsed - parsed,
        walked=project.walked - walked,
    )


def _shares(found: list[tuple[str, bytes | None]], jobs: int) -> list[list[tuple[str, bytes | None]]]:
    """Contiguous shares of about the same size in bytes (neighbouring modules often refer to
    each other: together, one process knows both)."""
    total = sum(len(data or b"") for _, data in found)
    shares: list[list[tuple[str, bytes | None]]] = [[]]
    size = 0
    for item in found:
        if size >= total / jobs * len(shares) and len(shares) < jobs:
            shares.append([])
        shares[-1].append(item)
        size += len(item[1] or b"")
    return shares


def _fork_context() -> Any:
    import multiprocessing  # only for parallel runs: flake8 imports this module in every process

    try:
        return multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - no fork (Windows): one process
        return None


class _CheckRun:
    def __init__(
        self,
        config: LintConfig,
        paths: list[str | os.PathLike[str]],
        use_cache: bool,
        cache_dir: str | os.PathLike[str] | None,
        progress: Progress | None,
        jobs: int = 1,
        *,
        nested: bool = False,
    ) -> None:
        self.config = config
        self.jobs = jobs
        files, targets, found = project_files(paths, config, nested=nested)
        self.projects = found.projects
        # notebooks: their code cells as one module (lint/notebook.py); one that is not a notebook
        # is not checked, and the report says why
        self.notebooks: dict[str, Notebook] = {}
        self.unchecked: dict[str, str] = {}
        for path in found.notebooks:
            try:
                self.notebooks[path.as_posix()] = read_notebook(path)
            except NotebookError as exc:
                self.unchecked[path.as_posix()] = str(exc)
            except OSError as exc:
                self.unchecked[path.as_posix()] = f"cannot read the file: {exc.strerror or exc}"
        if self.unchecked:
            targets = [key for key in targets if key not in self.unchecked]
        self.targets = targets
        self.target_set = set(targets)
        # the trees of the files to report on, parsed wherever a question reaches them, wait for
        # the engine to walk them (walk_parsed)
        self.project = project = Project(config, files, keep_trees=self.target_set)
        self.use_cache = use_cache
        directory = Path(cache_dir) if cache_dir else project.root / CACHE_DIRNAME
        self.cache = ResultCache(directory, config.fingerprint(), project.environment_stamp())
        if use_cache:
            self.cache.load()
            if project.environment is not None:
                project.environment.summaries.update(self.cache.library)
        self.stats: dict[str, list[int] | None] = {}
        # key -> (calls ._run, readable, may name a DG code in a noqa comment), from the scan
        self.quick: dict[str, tuple[bool, bool, bool]] = {}
        #: the project's module stems each file (no candidate in the first round) names; None when it
        #: has a relative import of dots only
        self.stems_named: dict[str, frozenset[bytes] | None] = {}
        self.results: dict[str, FileResult] = {}
        self.progress = progress
        self.done = 0

    # ---------------------------------------------------------------- the run

    def execute(self) -> CheckReport:
        project, cache = self.project, self.cache
        if self.use_cache:  # the stats only tell which cache entries still hold
            for key, file in project.files.items():
                self.stats[key] = file_stat(file.path)
        if self.use_cache and self.unchanged():
            for key in self.targets:
                entry = cache.get(key)
                assert entry is not None and entry.result is not None
                self.results[key] = entry.result
                self.tick()
            return self.report()
        for key, entry in self.valid_entries():
            if entry.parsed:
                project.known[key] = (entry.summary, entry.error)
        if self.focused():
            self.check_focused()
            return self.report()
        words = project.close_words(self.scan, self.load_round)
        for key in self.targets:
            self.finish_target(key, words)
            self.tick()
        if self.use_cache:
            self.remember(words)
            environment = project.environment
            cache.save(keep=project.files, words=words, library=environment.summaries if environment else None)
        return self.report()

    def focused(self) -> bool:
        part, whole = len(self.targets), len(self.project.files) - len(self.unchecked)
        return part < whole and (part <= FOCUSED_FILES or part <= FOCUSED_SHARE * whole)

    def check_focused(self) -> None:
        """Walk the files to report on with modules loaded as their names lead to them, as the
        editor path does: a few files of a large project cost what their imports reach, not the
        tool words of the whole project (one generated 5 MB module elsewhere used to cost seconds
        and most of a gigabyte). The walks are final: every question is answered by loading what
        it needs. The words are closed only for a file that does not parse (whether that is DG001
        depends on them). The result cache is neither needed nor written."""
        project = self.project
        words: WordSet | None = None
        for key in self.targets:
            if key not in self.results:  # not walked already, as a module another walk loaded
                data, reason = self.read(key)
                tree = parse_bytes(data)[0] if data is not None else None
                if tree is not None:
                    project.parsed += 1
                    self.walk(key, data, tree)  # type: ignore[arg-type]
                elif data is None:
                    self.results[key] = error_result(project, project.files[key], None, [1, 1, reason])
                else:
                    words = words or project.close_words(self.scan, self.load_round)
                    self.finish_target(key, words)
            self.tick()

    def unchanged(self) -> bool:
        """Whether the cache describes this very project: same files, same stats, every target's
        result recorded (then every result is still valid)."""
        cache = self.cache
        if cache.words is None or len(cache.entries) != len(self.stats):
            return False
        for key, stat in self.stats.items():
            entry = cache.get(key)
            if entry is None or stat is None or entry.stat != stat:
                return False
        return all(cache.entries[key].result is not None for key in self.targets)

    def valid_entries(self) -> Iterator[tuple[str, CacheEntry]]:
        for key, stat in self.stats.items():
            entry = self.cache.get(key) if self.use_cache else None
            if entry is not None and stat is not None and entry.stat == stat:
                yield key, entry

    def tick(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, len(self.targets))

    # ---------------------------------------------------------------- tool words

    def scan(self, words: WordSet, previous: WordSet | None) -> Iterator[tuple[str, bytes | None]]:
        """The files not loaded yet that name one of ``words`` (see :meth:`Project.close_words`)."""
        project = self.project
        new = words if previous is None else words - previous
        # the first round also notes which module stems each file names: a later round skips,
        # unread, the scoped words of the modules a file does not name
        first_round = new.vocabulary | project.module_stems if previous is None else None
        unscoped: dict[WordSet, WordSet] = {}  # a round's words without the scoped ones
        for key in project.files:
            if key in project.infos or key in project.known:
                if self.loaded_candidate(key, words, previous):
                    yield key, None
                continue
            look_for = self.words_to_look_for(key, new, unscoped if first_round is None else None)
            if look_for is None:
                continue
            data, _ = self.read(key)
            if data is None:
                continue
            if first_round is not None and look_for is new:
                found = self.first_look(key, data, new, first_round)
            else:
                found = look_for.named_in(data) or (previous is None and STAR_IMPORT in data)
            if found:
                yield key, data
            elif key not in self.quick:
                self.quick[key] = (calls_private_run(data), readable_source(data), may_name_noqa_codes(data))

    def loaded_candidate(self, key: str, words: WordSet, previous: WordSet | None) -> bool:
        """Whether a file loaded already is a candidate of this round: one a walk's question loaded
        (it was no candidate then) once it names a word; one parsed before (known from the cache),
        as it stands, in the first round."""
        project = self.project
        if key in project.infos:
            return key not in (project.candidates or ()) and self.names_loaded(key, words)
        return previous is None

    def words_to_look_for(
        self, key: str, new: WordSet, unscoped: dict[WordSet, WordSet] | None
    ) -> WordSet | None:
        """The new words a file not loaded yet may name (None: none, it need not be read): those
        not among the cached words when it named none of them, and in a later round (``unscoped``
        given, the memo of a round's words without the scoped ones) not the scoped words of modules
        it does not name."""
        look_for = new
        cached_words = self.cache.words if self.use_cache else None
        if cached_words is not None:
            entry = self.cache.get(key)
            if entry is not None and entry.stat == self.stats[key]:
                # it named none of the cached words: only the words not among them can be in it
                look_for = new - cached_words
                if not look_for:
                    return None
        if unscoped is not None and self.names_no_module_of(key, look_for):
            if not (look_for.words or look_for.joint):
                return None  # only scoped words are new, and it names none of their modules: unread
            look_for = unscoped.setdefault(look_for, WordSet(look_for.words, look_for.joint))
        return look_for

    def first_look(self, key: str, data: bytes, new: WordSet, first_round: frozenset[bytes]) -> bool:
        """Whether a file names one of the first round's words (or star-imports); when it does not,
        note the project's module stems it names (None: it has a relative import of dots only,
        which may reach any scoped word)."""
        hits = first_round.intersection(names_in(data))
        if new.named_among(hits, data) or STAR_IMPORT in data:
            return True
        self.stems_named[key] = None if DOTS_IMPORT.search(data) else hits & self.project.module_stems
        return False

    def names_no_module_of(self, key: str, words: WordSet) -> bool:
        """Whether a file scanned in the first round names no module of the scoped ``words`` (so it
        can name none of them), as noted then."""
        if key not in self.stems_named:
            return False
        named = self.stems_named[key]
        return named is not None and words.scoped_stems.isdisjoint(named)

    def names_loaded(self, key: str, words: WordSet) -> bool:
        """Whether a module the resolver loaded (it was not a candidate then) names one of ``words``:
        it was scanned for the words of the rounds before it was loaded at most, so all are looked for."""
        data, _ = self.read(key)
        return data is not None and words.named_in(data)

    def read(self, key: str) -> tuple[bytes | None, str | None]:
        """A file's bytes (a notebook's: its virtual source), or why it cannot be read."""
        notebook = self.notebooks.get(key)
        if notebook is not None:
            return notebook.source.encode("utf-8"), None
        try:
            data = self.project.files[key].path.read_bytes()
        except OSError as exc:
            return None, f"cannot read the file: {exc.strerror or exc}"
        return data, None

    # ---------------------------------------------------------------- parallel rounds

    def load_round(self, found: list[tuple[str, bytes | None]]) -> None:
        """Load a round's candidates one after the other, each followed by the walks of what it
        parsed (:meth:`load_candidate`); a large round is first shared out (:meth:`share_round`)."""
        self.share_round(found)
        for key, data in found:
            self.load_candidate(key, data)

    def share_round(self, found: list[tuple[str, bytes | None]]) -> None:
        """Share a round's candidates out among ``jobs`` processes when the round is large: each
        process parses and walks its share with what it knows (its own share), and the parent
        takes in the summaries and results. The walks are revalidated like any other
        (:meth:`finish_target`), so what a process could not know costs a walk, never a finding."""
        size = sum(len(data) for _, data in found if data is not None)
        context = _fork_context() if self.jobs > 1 and size >= PARALLEL_BYTES else None
        if context is None:
            return
        parts = _shares(found, self.jobs)
        if len(parts) < 2:
            return
        global _FORKED
        _FORKED = (self, parts)
        try:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=len(parts) - 1, mp_context=context) as pool:
                futures = [pool.submit(_load_share, index) for index in range(1, len(parts))]
                self.load_share(parts[0])
                shares = [future.result() for future in futures]
        finally:
            _FORKED = None
        project = self.project
        for share in shares:
            project.known.update(share.known)
            self.results.update(share.results)
            project.parsed += share.parsed
            project.walked += share.walked

    def load_share(self, share: list[tuple[str, bytes | None]]) -> None:
        project = self.project
        everyone = project.candidates
        project.candidates = set(project.infos) | {key for key, _ in share}
        try:
            for key, data in share:
                self.load_candidate(key, data)
        finally:
            project.candidates = everyone

    # ---------------------------------------------------------------- walks

    def load_candidate(self, key: str, data: bytes | None) -> None:
        """Load a candidate of a round (parsing it unless it is known), then walk what that parsed."""
        self.project.load(key, data)
        self.walk_parsed()

    def walk(self, key: str, data: bytes, tree: ast.Module) -> None:
        """Walk a file to report on, then the files to report on that its questions parsed."""
        self.results[key] = check_tree(self.project, self.project.files[key], data, tree)
        self.walk_parsed()

    def walk_parsed(self) -> None:
        """Walk the files to report on that the last step parsed (:meth:`Project.take_parsed`), and
        those that their walks parse in turn: each after the walk (or lookup) whose question parsed
        it, never in its middle, where it would see the modules under way half-known."""
        queue = self.to_walk(self.project.take_parsed())
        while queue:  # each file is parsed once: it is never in the queue twice
            key, data, tree = queue.pop()
            self.results[key] = check_tree(self.project, self.project.files[key], data, tree)
            queue.extend(self.to_walk(self.project.take_parsed()))

    def to_walk(self, parsed: list[ParsedFile]) -> list[ParsedFile]:
        """Of files to report on just parsed, those to walk now: not walked yet, and a candidate
        (or calling ``._run``) when a walk's question loaded it outside the candidates: its walk
        would not hold (see :meth:`walk_holds`); should it name a later round's word, it is walked
        then."""
        candidates = self.project.candidates
        return [
            item
            for item in parsed
            if item[0] not in self.results
            and (candidates is None or item[0] in candidates or calls_private_run(item[1]))
        ]

    def finish_target(self, key: str, words: WordSet) -> None:
        """Record the final result of a file to report on (:meth:`final_result`), then walk the
        files to report on that its lookups parsed."""
        self.results[key] = self.final_result(key, words)
        self.walk_parsed()

    def final_result(self, key: str, words: WordSet) -> FileResult:
        """A walk made during the rounds whose lookups still hold, a cached result that still
        holds, or a new one."""
        result = self.results.get(key)
        if result is not None and not result.gated and self.walk_holds(key, result):
            return result
        entry = self.cache.get(key) if self.use_cache else None
        if entry is not None and entry.stat == self.stats.get(key) and entry.result is not None:
            if self.cached_valid(key, entry.result, words):
                return entry.result
        return self.new_result(key, words)

    def walk_holds(self, key: str, result: FileResult) -> bool:
        project = self.project
        if not project.deps_valid(result.deps, result.class_deps, result.return_deps):
            return False
        return key in (project.candidates or ()) or self.passes_gate(key)

    def new_result(self, key: str, words: WordSet) -> FileResult:
        """A file's result from its bytes: unreadable or unparsable (DG001), skipped by the gate,
        or walked."""
        project = self.project
        file = project.files[key]
        known = project.known.get(key)
        if known is not None and known[1] is not None:
            return error_result(project, file, None, known[1])
        # a file that is not a candidate names no tool word: Project.close_words made sure of it
        candidate = key in (project.candidates or ())
        quick = None if candidate else self.quick.get(key)
        if quick is not None and quick[1] and not (quick[0] and rules_for(project, file.relpath)) and not quick[2]:
            return skipped_result(project, file)
        data, reason = self.read(key)
        if data is None:
            return error_result(project, file, None, [1, 1, reason])
        walk = rules_for(project, file.relpath) and (
            may_have_findings(data, words) if candidate else calls_private_run(data)
        )
        if not walk and readable_source(data):
            return skipped_result(project, file, data)
        tree, error = parse_bytes(data)
        project.parsed += 1
        if tree is None:
            assert error is not None
            project.known[key] = (None, error)
            return error_result(project, file, data, error)
        return check_tree(project, file, data, tree)

    def passes_gate(self, key: str) -> bool:
        """The gate, for a file that is not a candidate (it names no tool word)."""
        quick = self.quick.get(key)
        if quick is not None:
            return quick[0]
        data, _ = self.read(key)
        return data is not None and calls_private_run(data)

    def cached_valid(self, key: str, result: FileResult, words: WordSet) -> bool:
        name = self.project.module_names[key][0]
        if result.module is not None and result.module != name:
            return False
        if result.gated:
            return words == self.cache.words
        return self.project.deps_valid(result.deps, result.class_deps, result.return_deps)

    # ---------------------------------------------------------------- cache and report

    def remember(self, words: WordSet) -> None:
        project, cache = self.project, self.cache
        for key in project.files:
            stat = self.stats.get(key)
            if stat is None:
                continue
            old = cache.get(key)
            known = project.known.get(key)
            # a file that is not known was scanned (or named none of the cache's words, and was
            # scanned for the others): it names none of the words
            entry = CacheEntry(stat, True, *known) if known is not None else CacheEntry(stat, False)
            entry.result = self.results.get(key)
            if entry.result is None and old is not None and old.stat == stat and old.result is not None:
                # a result of an earlier run: still valid if it holds with these words
                if not old.result.gated or words == cache.words:
                    entry.result = old.result
            if old is None or old != entry:
                cache.put(key, entry)

    def report(self) -> CheckReport:
        cwd = Path.cwd()
        findings = []
        points = []
        for key, result in self.results.items():
            shown = display_path(self.project.files[key].path, cwd)
            notebook = self.notebooks.get(key)
            for line, col, end_line, end_col, code, message, suppressed in result.findings:
                cell = None
                if notebook is not None:  # ruff's positions: the cell, the line in the cell
                    cell, line = notebook.position(line)
                    end_cell, end_line = notebook.position(end_line)
                    if end_cell != cell:
                        end_line, end_col = line, col
                findings.append(Finding(shown, line, col, code, message, end_line, end_col, suppressed, cell=cell))
            points.extend((shown, line, function) for line, function in result.dispatch_points)
        findings.sort(key=finding_order)
        project = self.project
        unchecked = [(display_path(Path(key), cwd), reason) for key, reason in sorted(self.unchecked.items())]
        return CheckReport(
            findings,
            len(self.targets),
            files_parsed=project.parsed,
            files_walked=project.walked,
            notebooks=unchecked,
            files_without_tool_word=sum(1 for key in self.targets if getattr(self.results.get(key), "gated", False)),
            dispatch_points=sorted(set(points)),
        )
