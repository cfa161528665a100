"""``dispatchguard lsp``: a language server (pygls, JSON-RPC over stdio) for editors that do not run
flake8. It checks open buffers as files of their projects (:func:`dispatchguard.lint.source.check_buffer`)
and offers code actions: the rule's fix where the fix engine has one, and a ``# noqa: CODE``.

Needs the ``lsp`` extra (``pip install 'dispatchguard[lsp]'``); nothing else imports this package.
"""

from __future__ import annotations

from dispatchguard.lsp.server import build_server

__all__ = ["build_server"]
