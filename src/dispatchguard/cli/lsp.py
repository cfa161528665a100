"""Run the language server on standard input and output (JSON-RPC), as an editor starts it.

Editors start it as `dispatchguard lsp`; see docs/editors.md for VS Code, Neovim and Helix.
Needs the `lsp` extra: pip install 'dispatchguard[lsp]'. Exit status: 0 after the client's
`exit`, 2 when pygls is missing.
"""

from __future__ import annotations

import argparse

from dispatchguard.cli.common import UsageError, run_guarded

HELP = "run the language server (JSON-RPC over stdio) for editors"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Accept ``--stdio``, which editors' clients pass; stdio is the only transport."""
    # editors' clients often pass --stdio; stdio is the only transport
    parser.add_argument("--stdio", action="store_true", help="talk over standard input and output (the default)")


def run(args: argparse.Namespace) -> int:
    """Serve LSP on stdin/stdout; 0 after the client's ``exit``, 2 when pygls is not installed."""
    return run_guarded(_run, args)


def _run(args: argparse.Namespace) -> int:
    try:
        from dispatchguard.lsp import build_server
    except ImportError as exc:
        if exc.name not in ("pygls", "lsprotocol") and not str(exc.name or "").startswith(("pygls.", "lsprotocol.")):
            raise
        raise UsageError("the language server needs pygls: pip install 'dispatchguard[lsp]'") from None
    build_server().start_io()
    return 0
