"""Build and query the local document index that the `rag_search` tool reads (SQLite FTS5, BM25).

    dispatchguard rag index docs/ notes.md --collection handbook [--index rag.sqlite]
    dispatchguard rag search "retry policy" [--collection handbook | --global] [--limit 5]
    dispatchguard rag collections

Directories are walked recursively for text files (.txt, .md, .markdown, .rst, .text, .adoc);
re-indexing a file replaces its passages. `--index` defaults to DISPATCHGUARD_TOOLS_RAG_INDEX, else
`rag.sqlite`. Exit 0 on success, 1 when `index` skipped a path or `search` found nothing, 2 on errors.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Sequence

HELP = "build or search the local document index of the rag_search tool"
DEFAULT_INDEX = "rag.sqlite"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --index and the ``index``, ``search`` and ``collections`` actions."""
    parser.add_argument(
        "--index", metavar="FILE", help=f"index file (default: $DISPATCHGUARD_TOOLS_RAG_INDEX or {DEFAULT_INDEX})"
    )
    actions = parser.add_subparsers(dest="rag_action", required=True, metavar="ACTION")
    index = actions.add_parser("index", help="add or refresh text files in a collection")
    index.add_argument("paths", nargs="+", metavar="PATH", help="text files or directories")
    index.add_argument(
        "--collection", default=None, help="collection name (default: $DISPATCHGUARD_TOOLS_RAG_COLLECTION)"
    )
    search = actions.add_parser("search", help="show the best passages for a query, as JSON lines")
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=5)
    scope = search.add_mutually_exclusive_group()
    scope.add_argument("--collection", default=None)
    scope.add_argument("--global", dest="search_all", action="store_true", help="search every collection")
    actions.add_parser("collections", help="list the collections and their number of sources")


def run(args: argparse.Namespace) -> int:
    """Run the rag action and return its exit status: 0 done, 1 ``index`` skipped a path or
    ``search`` found nothing, 2 no index file, an invalid --limit or an SQLite error. ``index``
    creates or updates the index file; ``search`` prints one JSON object per line."""
    # Imported here: building the `dispatchguard` parser must not load the tools (httpx, pydantic).
    from dispatchguard.tools.rag import RagIndex
    from dispatchguard.tools.settings import get_tool_settings

    path = args.index or get_tool_settings().rag_index or DEFAULT_INDEX
    collection = getattr(args, "collection", None) or get_tool_settings().rag_collection
    try:
        with RagIndex(path, create=args.rag_action == "index") as index:
            if args.rag_action == "index":
                report = index.index_paths(collection, args.paths)
                for reason in report.skipped or ():
                    print(f"skipped {reason}", file=sys.stderr)
                counts = f"{report.documents} document(s), {report.chunks} passage(s)"
                print(f"{path}: {counts} in collection {collection!r}")
                return 1 if report.skipped else 0
            if args.rag_action == "search":
                if not 1 <= args.limit <= 100:
                    print("error: --limit must be from 1 to 100", file=sys.stderr)
                    return 2
                hits = index.search(args.query, args.limit, None if args.search_all else collection)
                for hit in hits:
                    print(json.dumps(hit.as_dict(), ensure_ascii=False))
                return 0 if hits else 1
            for name, sources in index.collections().items():
                print(f"{name}\t{sources}")
            return 0
    except FileNotFoundError:
        print(f"error: no index at {path}; build one with `dispatchguard rag index PATH...`", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone entry point: ``python -m dispatchguard.cli.rag ACTION ...``."""
    parser = argparse.ArgumentParser(prog="dispatchguard rag", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
