"""``rag_search``: BM25 search over a local document index in SQLite FTS5.

An index is one SQLite file (``DISPATCHGUARD_TOOLS_RAG_INDEX``) holding text chunks, each with its
collection and its source (the file it came from). Build or update it with::

    dispatchguard rag index docs/ notes.md --collection handbook --index rag.sqlite

(or :meth:`RagIndex.index_paths` / :meth:`RagIndex.add_document` in code). ``rag_search`` searches
the collection ``DISPATCHGUARD_TOOLS_RAG_COLLECTION`` (``default``), or every collection when
``global`` is true, and answers the best chunks with their source and score (BM25, higher is
better). The query is plain words: they are quoted before they reach FTS5, so its operators
(``NEAR``, ``*``, column filters) cannot be injected, and a chunk matching more words ranks higher.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dispatchguard.runtime.json_text import ensure_json_str

from .errors import ToolArgumentError, ToolNotConfigured
from .settings import get_tool_settings

__all__ = ["RAG_SEARCH_SCHEMA", "TEXT_SUFFIXES", "IndexReport", "RagIndex", "RagSearch", "SearchHit", "rag_search"]

# Files the index command reads; anything else under a directory is skipped (and reported).
TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".rst", ".text", ".adoc"})
CHUNK_CHARS = 1200
MAX_QUERY_WORDS = 32
MAX_DOCUMENT_BYTES = 10 * 1024 * 1024
_WORD = re.compile(r"\w+", re.UNICODE)

_SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    collection TEXT NOT NULL,
    source TEXT NOT NULL,
    position INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_source ON chunks (collection, source);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_added AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_removed AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"""


@dataclass(frozen=True)
class SearchHit:
    """One chunk :meth:`RagIndex.search` found: where it comes from, its score and its text.

    ``position`` is the chunk's index in its source (``chunk`` in the tool's JSON); ``score`` is the
    negated BM25 rank, so higher is better. Immutable.
    """

    collection: str
    source: str
    position: int
    score: float
    text: str

    def as_dict(self) -> dict[str, Any]:
        """The hit as ``rag_search`` answers it (``position`` is called ``chunk`` there)."""
        return {
            "source": self.source,
            "collection": self.collection,
            "chunk": self.position,
            "score": self.score,
            "text": self.text,
        }


@dataclass
class IndexReport:
    """What :meth:`RagIndex.index_paths` added to ``collection``: how many documents and chunks.

    ``skipped`` lists a ``"path: reason"`` for each file left out (not text, too large, unreadable);
    ``dispatchguard rag index`` prints them and then exits 1.
    """

    collection: str
    documents: int = 0
    chunks: int = 0
    skipped: list[str] | None = None


def chunk_text(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """Paragraph-aligned chunks of at most about ``size`` characters (a longer paragraph is cut)."""
    chunks: list[str] = []
    current = ""
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        while len(paragraph) > size:
            cut = paragraph.rfind(" ", 0, size)
            cut = cut if cut > size // 2 else size
            if current:
                chunks.append(current)
                current = ""
            chunks.append(paragraph[:cut].strip())
            paragraph = paragraph[cut:].strip()
        if current and len(current) + 2 + len(paragraph) > size:
            chunks.append(current)
            current = ""
        current = f"{current}\n\n{paragraph}" if current else paragraph
    if current:
        chunks.append(current)
    return chunks


def fts_query(query: str) -> str:
    """Plain words as an FTS5 expression: each word quoted, any of them may match (BM25 ranks)."""
    words = _WORD.findall(query)[:MAX_QUERY_WORDS]
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in words)


class RagIndex:
    """One index file. Thread-safe (one connection under a lock); readers in other processes see
    committed documents (WAL mode)."""

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True) -> None:
        """Open (``create``: create or upgrade) the index at ``path``. Without ``create`` the file is
        opened read-only and must be an index: any other SQLite file is refused, untouched."""
        self.path = os.fspath(path)
        if not create and not os.path.isfile(self.path):
            raise FileNotFoundError(self.path)
        self._lock = threading.Lock()
        if create:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
            with self._lock:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.executescript(_SCHEMA_SQL)
            return
        uri = f"{Path(os.path.abspath(self.path)).as_uri()}?mode=ro"
        self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None, timeout=10)
        tables = {row[0] for row in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"chunks", "chunks_fts"} <= tables:
            self._conn.close()
            raise sqlite3.DatabaseError(f"{self.path} is not a dispatchguard rag index (no chunks tables)")

    def close(self) -> None:
        """Close the connection; the index cannot be used afterwards."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> RagIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_document(self, collection: str, source: str, text: str) -> int:
        """Index ``text`` as ``source`` in ``collection``, replacing what that source had; returns chunks."""
        chunks = chunk_text(text)
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute("DELETE FROM chunks WHERE collection = ? AND source = ?", (collection, source))
                self._conn.executemany(
                    "INSERT INTO chunks (collection, source, position, text) VALUES (?, ?, ?, ?)",
                    [(collection, source, position, chunk) for position, chunk in enumerate(chunks)],
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return len(chunks)

    def remove_collection(self, collection: str) -> int:
        """Delete every chunk of ``collection``: the number of chunks removed (0 if none).

        An index opened without ``create`` is read-only: ``sqlite3.OperationalError``.
        """
        with self._lock:
            return self._conn.execute("DELETE FROM chunks WHERE collection = ?", (collection,)).rowcount

    def collections(self) -> dict[str, int]:
        """Collection name -> number of distinct sources."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT collection, COUNT(DISTINCT source) FROM chunks GROUP BY collection ORDER BY collection"
            ).fetchall()
        return dict(rows)

    def index_paths(self, collection: str, paths: Iterable[str | os.PathLike[str]]) -> IndexReport:
        """Index text files (directories walked recursively, sorted); sources are the paths as given."""
        report = IndexReport(collection, skipped=[])
        assert report.skipped is not None
        for file in _text_files(paths, report.skipped):
            try:
                if file.stat().st_size > MAX_DOCUMENT_BYTES:
                    report.skipped.append(f"{file}: larger than {MAX_DOCUMENT_BYTES} bytes")
                    continue
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                report.skipped.append(f"{file}: {exc}")
                continue
            report.chunks += self.add_document(collection, file.as_posix(), text)
            report.documents += 1
        return report

    def search(self, query: str, limit: int = 5, collection: str | None = None) -> list[SearchHit]:
        """The ``limit`` best chunks for ``query`` (in ``collection``, or all when None), best first."""
        expression = fts_query(query)
        if not expression:
            return []
        sql = (
            "SELECT c.collection, c.source, c.position, c.text, bm25(chunks_fts) AS rank"
            " FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?"
        )
        parameters: list[Any] = [expression]
        if collection is not None:
            sql += " AND c.collection = ?"
            parameters.append(collection)
        sql += " ORDER BY rank, c.id LIMIT ?"
        parameters.append(limit)
        with self._lock:
            rows = self._conn.execute(sql, parameters).fetchall()
        # bm25() is lower-is-better (negative); the score shown is its negation, higher is better.
        return [
            SearchHit(collection, source, position, float(f"{-rank:.4g}"), text)
            for collection, source, position, text, rank in rows
        ]


def _text_files(paths: Iterable[str | os.PathLike[str]], skipped: list[str]) -> Iterator[Path]:
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for file in sorted(p for p in path.rglob("*") if p.is_file()):
                if file.suffix.lower() in TEXT_SUFFIXES:
                    yield file
                else:
                    skipped.append(f"{file}: not a text file ({', '.join(sorted(TEXT_SUFFIXES))})")
        elif path.is_file():
            yield path  # named explicitly: read whatever its suffix
        else:
            skipped.append(f"{path}: no such file or directory")


RAG_SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": 500,
            "description": "what to look for, in plain words",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": 20,
            "default": 5,
            "description": "how many passages to return (1 to 20)",
        },
        "global": {
            "type": "boolean",
            "default": False,
            "description": "search every collection instead of the configured one",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}


def rag_search(query: str, limit: int = 5, *, search_all: bool = False) -> str:
    """Search the local document index; returns JSON {"query", "scope", "results": [{"source",
    "collection", "chunk", "score", "text"}]}, best first.

    ``search_all`` is the tool's ``global`` argument (a Python keyword, hence the name here).
    """
    query = query.strip()
    if not _WORD.search(query):
        raise ToolArgumentError("query has no words to search for", argument="query")
    settings = get_tool_settings()
    if not settings.rag_index:
        raise ToolNotConfigured(
            "rag_search has no index: set DISPATCHGUARD_TOOLS_RAG_INDEX (build one with `dispatchguard rag index`)",
            setting="rag_index",
        )
    try:
        index = RagIndex(settings.rag_index, create=False)
    except (FileNotFoundError, sqlite3.Error) as exc:
        raise ToolNotConfigured(
            f"rag_search cannot open the index {settings.rag_index!r}: {exc}", setting="rag_index"
        ) from None
    with index:
        if not search_all and settings.rag_collection not in index.collections():
            raise ToolNotConfigured(
                f"the index has no collection {settings.rag_collection!r}; set DISPATCHGUARD_TOOLS_RAG_COLLECTION"
                " or search with global=true",
                setting="rag_collection",
                collections=sorted(index.collections()),
            )
        hits = index.search(query, limit, None if search_all else settings.rag_collection)
    scope = "global" if search_all else settings.rag_collection
    return ensure_json_str({"query": query, "scope": scope, "results": [hit.as_dict() for hit in hits]})


class RagSearch:
    """The tool object registered as ``rag_search``: its arguments are ``query``, ``limit`` and
    ``global`` (a name a Python function cannot take), checked by :data:`RAG_SEARCH_SCHEMA`."""

    name = "rag_search"
    description = (
        "Search the local document index (BM25); returns JSON with the best passages, each with its source"
        " and score. global=true searches every collection."
    )
    args_schema = RAG_SEARCH_SCHEMA

    def run(self, **args: Any) -> str:
        """:func:`rag_search` with the checked arguments (``limit`` 5, ``global`` false by default).

        Raises :class:`ToolArgumentError` or :class:`ToolNotConfigured` as :func:`rag_search` does.
        """
        return rag_search(args["query"], args.get("limit", 5), search_all=args.get("global", False))
