"""The result cache: one JSON file per configuration, holding for each file what the last run
learnt of it (its summary, or that it names no tool word) and its findings with the project facts
they depend on."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dispatchguard import __version__
from dispatchguard.lint.inference.declared import stubs_stamp
from dispatchguard.lint.parsing import file_stat
from dispatchguard.lint.project import Project, WordSet

# Bump when summaries, deps or cached findings change meaning (the package version is part of the
# cache file's name too, so a release never reads another release's cache).
CACHE_VERSION = 22
CACHE_DIRNAME = ".dispatchguard_cache"

# (line, col, end_line, end_col, code, message, suppressed): 1-based character columns
CachedFinding = list[Any]


@dataclasses.dataclass
class FileResult:
    """A checked file's findings and what they were computed from: the kinds the walk looked up
    (``deps``, ``class_deps``: ``[qualified name, kind]``) and the return verdicts of other
    modules' functions (``return_deps``: ``[qualified name, verdict]``), or, when the walk was skipped because
    the file names no tool word (``gated``: valid while the tool words are those of the cache);
    ``dispatch_points``: ``[line, function]`` of the dispatch points the walk detected."""

    findings: list[CachedFinding]
    module: str | None = None
    deps: list[list[Any]] = dataclasses.field(default_factory=list)
    class_deps: list[list[Any]] = dataclasses.field(default_factory=list)
    gated: bool = False
    return_deps: list[list[Any]] = dataclasses.field(default_factory=list)
    dispatch_points: list[list[Any]] = dataclasses.field(default_factory=list)

    @classmethod
    def from_json(cls, data: Any) -> FileResult | None:
        """The result stored in the cache, or None when it is not of the expected shape."""
        if not isinstance(data, dict):
            return None
        findings, deps, class_deps = data.get("findings"), data.get("deps", []), data.get("class_deps", [])
        return_deps, points = data.get("return_deps", []), data.get("dispatch_points", [])
        module, gated = data.get("module"), data.get("gated", False)
        if not (
            isinstance(findings, list)
            and all(isinstance(f, list) and len(f) == 7 for f in findings)
            and all(_pairs(d) for d in (deps, class_deps, return_deps))
            and (module is None or isinstance(module, str))
            and isinstance(gated, bool)
            and isinstance(points, list)
            and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) for p in points)
        ):
            return None
        return cls(findings, module, deps, class_deps, gated, return_deps, points)


def _pairs(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in value)


@dataclasses.dataclass
class CacheEntry:
    """What is known of one file at a given stat: its summary or error when it was parsed
    (``parsed``), else that it named none of the cache's tool words; its result if checked."""

    stat: list[int]
    parsed: bool
    summary: dict[str, Any] | None = None
    error: list[Any] | None = None
    result: FileResult | None = None

    def to_json(self) -> dict[str, Any]:
        """The entry as the JSON object the cache file stores (its result included)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> CacheEntry | None:
        """The entry the cache file stored, or None when it is not of the expected shape."""
        if not isinstance(data, dict):
            return None
        stat, summary, error = data.get("stat"), data.get("summary"), data.get("error")
        if not (
            isinstance(stat, list)
            and (summary is None or _summary_shape(summary))
            and (error is None or (isinstance(error, list) and len(error) == 3))
        ):
            return None
        return cls(stat, bool(data.get("parsed")), summary, error, FileResult.from_json(data.get("result")))


def _words_of(data: dict[str, Any]) -> WordSet | None:
    """The tool words a cache file records, or None when any part is not of the expected shape."""
    words, joint, scoped = data.get("words"), data.get("joint"), data.get("scoped")
    if not (
        _strings(words)
        and isinstance(joint, list)
        and all(_strings(parts) for parts in joint)
        and isinstance(scoped, list)
        and all(_strings(pair) and len(pair) == 2 for pair in scoped)
    ):
        return None
    return WordSet(words, (tuple(parts) for parts in joint), (tuple(pair) for pair in scoped))


def _library_of(library: Any) -> dict[str, list]:
    """The library summaries a cache file records (``path -> [mtime_ns, size, summary]``), those of
    the expected shape."""
    if not isinstance(library, dict):
        return {}
    return {
        path: item
        for path, item in library.items()
        if isinstance(item, list) and len(item) == 3 and _summary_shape(item[2])
    }


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _summary_shape(summary: Any) -> bool:
    return (
        isinstance(summary, dict) and isinstance(summary.get("imports"), dict) and isinstance(summary.get("defs"), dict)
    )


class ResultCache:
    """One JSON file per configuration under ``<root>/.dispatchguard_cache/v<N>/``.

    Entries are keyed by absolute path. The file also records the installed environment's stamp
    and the tool words of the run that wrote it: files recorded as not parsed named none of them.
    Writes go to a temporary file that is then renamed over the old one, so concurrent runs never
    see a partial file (the last writer wins); anything unreadable is ignored.
    """

    def __init__(self, directory: Path, fingerprint: str, environment: list[Any] | None = None) -> None:
        """``environment``: the stamp of the project's installed environment (see
        :meth:`~dispatchguard.lint.environment.Environment.stamp`); a cache written under another
        stamp (a package installed or removed since) is ignored."""
        self.file = directory / f"v{CACHE_VERSION}" / f"{__version__}-{fingerprint}.json"
        # the declared types read from typeshed change findings too: an upgrade invalidates the cache
        self.environment = [environment, stubs_stamp()]
        #: summaries of the environment's library files: path -> [mtime_ns, size, summary]
        self.library: dict[str, list] = {}
        self.entries: dict[str, CacheEntry] = {}
        self.words: WordSet | None = None
        self.dirty = False

    def load(self) -> None:
        """Read the cache file into :attr:`entries`, the tool words and the library summaries.

        A missing or unreadable file, another ``CACHE_VERSION`` or another environment stamp leaves
        the cache empty; entries of an unexpected shape are dropped one by one.
        """
        data = self._read()
        if data is None:
            return
        self.words = _words_of(data)
        self.library = _library_of(data.get("library"))
        for key, raw in data["files"].items():
            entry = CacheEntry.from_json(raw)
            if entry is not None:
                self.entries[key] = entry

    def _read(self) -> dict[str, Any] | None:
        """The cache file's object, when it can be read and is of this ``CACHE_VERSION``, this
        environment stamp, and has its table of files."""
        try:
            with open(self.file, "rb") as fh:
                data = json.load(fh)
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            return None
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            return None
        if data.get("environment") != self.environment or not isinstance(data.get("files"), dict):
            return None
        return data

    def get(self, key: str) -> CacheEntry | None:
        """The entry of the file at this absolute path, or None when the cache has none."""
        return self.entries.get(key)

    def put(self, key: str, entry: CacheEntry) -> None:
        """Record a file's entry (keyed by its absolute path); the cache is written on :meth:`save`."""
        self.entries[key] = entry
        self.dirty = True

    def save(self, keep: Iterable[str], words: WordSet, library: dict[str, list] | None = None) -> None:
        """Write the cache (``keep``: the files of the project; entries of other files are dropped;
        ``library``: the environment's library summaries known now)."""
        wanted = set(keep)
        stale = [key for key in self.entries if key not in wanted]
        for key in stale:
            del self.entries[key]
        grown = library is not None and len(library) != len(self.library)
        if grown:
            self.library = dict(library or {})
        if not (self.dirty or stale or grown or words != self.words):
            return
        directory = self.file.parent
        try:
            directory.mkdir(parents=True, exist_ok=True)
            gitignore = directory.parent / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text("# created by dispatchguard\n*\n")
            # imported here: it imports tempfile, which a run that writes nothing does not need
            from dispatchguard.atomic import atomic_write

            files = {key: entry.to_json() for key, entry in self.entries.items()}
            blob = json.dumps(
                {
                    "version": CACHE_VERSION,
                    "environment": self.environment,
                    "words": sorted(words.words),
                    "joint": sorted(list(parts) for parts in words.joint),
                    "scoped": sorted(list(pair) for pair in words.scoped),
                    "files": files,
                    "library": self.library,
                },
                separators=(",", ":"),
            )
            atomic_write(self.file, blob.encode("utf-8"))
        except OSError:
            return  # a read-only tree: the cache is an optimisation, never fatal
        self.words = words
        self.dirty = False


def know_cached(project: Project, directory: Path) -> ResultCache:
    """Give ``project`` the summaries ``dispatchguard check`` cached in ``directory`` for the files
    unchanged since (same stat), so that a question about them parses nothing (the editor path,
    a fix pass right after its check); the cache is returned for what else it holds (its words)."""
    cache = ResultCache(directory, project.config.fingerprint(), project.environment_stamp())
    cache.load()
    if project.environment is not None:
        project.environment.summaries.update(cache.library)
    for key, entry in cache.entries.items():
        file = project.files.get(key)
        if file is not None and entry.parsed and entry.stat == file_stat(file.path):
            project.known[key] = (entry.summary, entry.error)
    return cache
