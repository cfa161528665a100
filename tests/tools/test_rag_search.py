"""rag_search over a real SQLite FTS5 index built by the `rag` command (run as a subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dispatchguard.agent import summarize_tool_result
from dispatchguard.tools import RagIndex, configure_tools, rag_search
from dispatchguard.tools.rag import CHUNK_CHARS, TEXT_SUFFIXES, chunk_text, fts_query

HANDBOOK = {
    "retries.md": "# Retries\n\nFailed requests are retried with exponential backoff and jitter.\n\n"
    "The retry budget is bounded: a retry never starts after the total deadline. Retry, retry, retry.",
    "cache.md": "# Cache\n\nResponses are cached with a TTL. A retry is mentioned once here.",
    "notes/ssrf.txt": "Private addresses are refused by the SSRF guard unless allow-listed.",
    "image.png": "not text",
    # BM25 needs a corpus: with four passages a word in two of them has no weight at all
    **{f"misc/topic{n}.md": f"Topic {n}: logging, metrics and dashboards, part {n}." for n in range(12)},
}
SUFFIXES = ", ".join(sorted(TEXT_SUFFIXES))
RECIPES = {"soup.md": "Tomato soup: simmer tomatoes, add basil. Backoff from the stove when it boils."}


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def rag_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dispatchguard.cli.rag", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def index_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path / "handbook", HANDBOOK)
    recipes = write(tmp_path / "recipes", RECIPES)
    index = tmp_path / "idx" / "rag.sqlite"
    monkeypatch.chdir(tmp_path)  # sources are the paths as given: relative here
    with RagIndex(index) as rag:
        report = rag.index_paths("handbook", ["handbook"])
        assert (report.documents, report.skipped) == (15, [f"handbook/image.png: not a text file ({SUFFIXES})"])
        assert rag.index_paths("recipes", [recipes / "soup.md"]).documents == 1
    configure_tools(rag_index=str(index), rag_collection="handbook")
    return index


def test_search_one_collection_ranked_by_bm25(index_file, call):
    out = call("rag_search", query="retry backoff", limit=5)
    assert out["query"] == "retry backoff" and out["scope"] == "handbook"
    sources = [hit["source"] for hit in out["results"]]
    assert sources == ["handbook/retries.md", "handbook/cache.md"]  # soup.md mentions backoff, but is elsewhere
    scores = [hit["score"] for hit in out["results"]]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[1] > 0
    assert "exponential backoff" in out["results"][0]["text"] and out["results"][0]["collection"] == "handbook"


def test_global_search_spans_collections(index_file, call):
    out = call("rag_search", query="backoff", **{"global": True})
    assert out["scope"] == "global"
    assert {hit["collection"] for hit in out["results"]} == {"handbook", "recipes"}
    assert call("rag_search", query="backoff", limit=1, **{"global": True})["results"].__len__() == 1


def test_reindexing_a_source_replaces_its_passages(index_file, tmp_path, call):
    (tmp_path / "handbook" / "cache.md").write_text("Entries expire; nothing about that other word.")
    with RagIndex(index_file) as rag:
        assert rag.index_paths("handbook", ["handbook/cache.md"]).documents == 1
        assert rag.collections() == {"handbook": 15, "recipes": 1}
    sources = [hit["source"] for hit in call("rag_search", query="retry")["results"]]
    assert sources == ["handbook/retries.md"]


@pytest.mark.parametrize("query", ['NEAR("retry" "budget")', "text:retry", "retry*", '"unbalanced', "retry AND OR"])
def test_fts_syntax_in_queries_is_plain_text(index_file, call, query):
    out = call("rag_search", query=query)
    assert "error" not in out
    assert fts_query(query).count('"') % 2 == 0


def test_bad_arguments_are_invalid_args(index_file, call):
    assert call("rag_search", query="!!! ???")["kind"] == "invalid_args"
    assert call("rag_search", query="")["kind"] == "invalid_args"
    assert call("rag_search", query="x", limit=0)["kind"] == "invalid_args"
    assert call("rag_search", query="x", limit=21)["kind"] == "invalid_args"
    assert call("rag_search", query="x", **{"global": "yes"})["kind"] == "invalid_args"


def test_missing_configuration_is_not_configured(tmp_path, call):
    out = call("rag_search", query="retry")
    assert out["kind"] == "not_configured" and "DISPATCHGUARD_TOOLS_RAG_INDEX" in out["error"]
    configure_tools(rag_index=str(tmp_path / "missing.sqlite"))
    assert call("rag_search", query="retry")["kind"] == "not_configured"
    assert not (tmp_path / "missing.sqlite").exists()  # a search never creates an index


def test_a_sqlite_file_that_is_not_an_index_is_refused_untouched(tmp_path, call):
    """Issue 23: a search switched any SQLite file to WAL and added the FTS5 tables to it."""
    import hashlib
    import sqlite3

    other = tmp_path / "app.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE users (name TEXT)")
    before = hashlib.sha256(other.read_bytes()).hexdigest()
    configure_tools(rag_index=str(other))
    out = call("rag_search", query="retry")
    assert out["kind"] == "not_configured" and "is not a dispatchguard rag index" in out["error"]
    assert hashlib.sha256(other.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.sqlite"]  # no -wal, no -shm


def test_a_search_opens_the_index_read_only(index_file, call):
    before = index_file.stat().st_mtime_ns
    assert call("rag_search", query="retry")["results"]
    assert index_file.stat().st_mtime_ns == before


def test_unknown_collection_names_the_existing_ones(index_file, call):
    configure_tools(rag_collection="nope")
    out = call("rag_search", query="retry")
    assert out["kind"] == "not_configured" and out["collections"] == ["handbook", "recipes"]
    assert call("rag_search", query="retry", **{"global": True})["results"]


@pytest.mark.integration
def test_cli_index_collections_search_and_errors(index_file, tmp_path):
    index = tmp_path / "cli.sqlite"
    first = rag_cli("--index", str(index), "index", "handbook", "--collection", "handbook", cwd=tmp_path)
    assert first.returncode == 1, first.stderr  # image.png was skipped, and said so
    assert "skipped handbook/image.png: not a text file" in first.stderr
    assert "15 document(s)" in first.stdout and "in collection 'handbook'" in first.stdout
    second = rag_cli("--index", str(index), "index", "recipes/soup.md", "--collection", "recipes", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    listing = rag_cli("--index", str(index), "collections", cwd=tmp_path)
    assert listing.stdout.splitlines() == ["handbook\t15", "recipes\t1"]
    found = rag_cli("--index", str(index_file), "search", "tomato", "--global", cwd=tmp_path)
    assert found.returncode == 0
    assert json.loads(found.stdout.splitlines()[0])["source"].endswith("soup.md")
    nothing = rag_cli("--index", str(index_file), "search", "tomato", "--collection", "handbook", cwd=tmp_path)
    assert nothing.returncode == 1 and nothing.stdout == ""
    assert rag_cli("--index", str(index_file), "search", "x", "--limit", "0", cwd=tmp_path).returncode == 2
    missing = rag_cli("--index", str(tmp_path / "none.sqlite"), "search", "x", cwd=tmp_path)
    assert missing.returncode == 2 and "no index at" in missing.stderr
    (tmp_path / "junk.sqlite").write_text("not a database")
    junk = rag_cli("--index", str(tmp_path / "junk.sqlite"), "collections", cwd=tmp_path)
    assert junk.returncode == 2 and "error:" in junk.stderr
    absent = rag_cli("--index", str(index_file), "index", "no/such/dir", cwd=tmp_path)
    assert absent.returncode == 1 and "no such file or directory" in absent.stderr


def test_summary_for_the_agent_loop(index_file):
    text = rag_search("retry backoff", 5)
    summary = summarize_tool_result("rag_search", text)
    assert summary.startswith("2 passages for 'retry backoff' in handbook: handbook/retries.md#0 (score ")
    assert "handbook/cache.md#0" in summary
    empty = summarize_tool_result("rag_search", rag_search("tomato", 5))
    assert empty == "0 passages for 'tomato' in handbook"


def test_summary_lists_three_and_counts_the_rest(tmp_path):
    with RagIndex(tmp_path / "i.sqlite") as index:
        for n in range(5):
            index.add_document("default", f"doc{n}.md", f"alpha {'beta ' * n}")
    configure_tools(rag_index=str(tmp_path / "i.sqlite"))
    summary = summarize_tool_result("rag_search", rag_search("alpha beta", 10))
    assert summary.startswith("5 passages") and summary.endswith("(+2 more)") and summary.count(" | ") == 2


def test_documents_are_cut_into_bounded_passages(tmp_path):
    long_paragraph = " ".join(f"word{n}" for n in range(1000))
    chunks = chunk_text(f"intro\n\n{long_paragraph}\n\nshort end")
    assert all(len(chunk) <= CHUNK_CHARS for chunk in chunks) and len(chunks) > 3
    assert " ".join(chunks).split() == ["intro", *long_paragraph.split(), "short", "end"]
    assert chunk_text("x" * (CHUNK_CHARS * 2 + 5)) == ["x" * CHUNK_CHARS, "x" * CHUNK_CHARS, "x" * 5]
    with RagIndex(tmp_path / "i.sqlite") as index:
        assert index.add_document("c", "long.md", long_paragraph) == len(chunk_text(long_paragraph))
        assert index.search("word999", 3, "c")[0].position == len(chunk_text(long_paragraph)) - 1
        assert index.search("???", 3) == []
        assert index.remove_collection("c") == len(chunk_text(long_paragraph))
        assert index.collections() == {}


@given(st.lists(st.text(alphabet="abcxyz \n", min_size=0, max_size=40), max_size=60))
def test_chunking_keeps_every_word_in_order(paragraphs):
    text = "\n\n".join(paragraphs)
    chunks = chunk_text(text, size=50)
    assert " ".join(chunks).split() == text.split()
    assert all(0 < len(chunk) <= 50 for chunk in chunks)


def test_unreadable_and_oversized_files_are_skipped(tmp_path):
    from dispatchguard.tools.rag import MAX_DOCUMENT_BYTES

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (docs / "huge.txt").write_bytes(b"a " * (MAX_DOCUMENT_BYTES // 2 + 1))
    (docs / "ok.md").write_text("fine words")
    with RagIndex(tmp_path / "i.sqlite") as index:
        report = index.index_paths("c", [docs])
        assert (report.documents, len(report.skipped)) == (1, 2)
        assert any("latin1.txt" in reason and "utf-8" in reason for reason in report.skipped)
        assert any("huge.txt" in reason and "larger than" in reason for reason in report.skipped)
        assert [hit.source for hit in index.search("fine", 5)] == [(docs / "ok.md").as_posix()]
