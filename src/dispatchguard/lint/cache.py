"""The result cache: one JSON file per configuration, holding each file's phase-1 summary and its
findings with the project facts they depend on."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dispatchguard import __version__
from dispatchguard.lint.parsing import Parsed

# Bump when summaries, deps or cached findings change meaning (the package version is part of the
# cache file's name too, so a release never reads another release's cache).
CACHE_VERSION = 2
CACHE_DIRNAME = ".dispatchguard_cache"


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
            # imported here: it imports tempfile, which a run that writes nothing does not need
            from dispatchguard.atomic import atomic_write

            blob = json.dumps({"version": CACHE_VERSION, "files": self.entries}, separators=(",", ":"))
            atomic_write(self.file, blob.encode("utf-8"))
        except OSError:
            return  # a read-only tree: the cache is an optimisation, never fatal
        self.dirty = False


def _valid_entry(entry: dict[str, Any] | None, stat: tuple[int, int] | None) -> bool:
    if entry is None or stat is None:
        return False
    return entry.get("st") == list(stat) and isinstance(entry.get("h"), str) and "s" in entry


def _parsed_entry(parsed: Parsed) -> dict[str, Any]:
    return {"st": list(parsed.stat), "h": parsed.digest, "s": parsed.summary, "e": parsed.error}
