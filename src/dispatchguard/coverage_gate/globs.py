"""Path globs as regular expressions: the gate uses the package-wide translation in
:mod:`dispatchguard.globs` (shared with the lint configuration)."""

from __future__ import annotations

from dispatchguard.globs import glob_to_regex

__all__ = ["glob_to_regex"]
