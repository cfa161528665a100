"""Autofixes for the DG rules (used by ``dispatchguard fix`` and ``check --fix`` only;
the checker and the flake8 plugin never import this package).

One module per fixable rule, named by the rule (``Rule.fixer``), each documenting its fix safety
(DG103 and DG104 share their rewrite, :mod:`.json_return`);
:mod:`.engine` runs the checker, applies the fixes and writes the files; :mod:`.data` gives each
finding its fix as ruff's fix object (:func:`with_fixes`), for the output formats.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AppliedFix", "FixData", "FixEdit", "FixReport", "SkippedFix", "apply_fixes", "with_fixes"]
_DATA = frozenset({"FixData", "FixEdit", "with_fixes"})


def __getattr__(name: str) -> Any:  # PEP 562: importing the package loads neither libcst nor the lint index
    if name in _DATA:
        from dispatchguard.fix import data

        return getattr(data, name)
    if name in __all__:
        from dispatchguard.fix import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'dispatchguard.fix' has no attribute {name!r}")
