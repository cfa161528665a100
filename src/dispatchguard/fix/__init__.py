"""Autofixes for the DG rules (used by ``dispatchguard fix`` and ``check --fix`` only;
the checker and the flake8 plugin never import this package).

One module per fixable rule, named by the rule (``Rule.fixer``), each documenting its fix safety
(DG103 and DG104 share their rewrite, :mod:`.json_return`);
:mod:`.engine` runs the checker, applies the fixes and writes the files.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AppliedFix", "FixReport", "SkippedFix", "apply_fixes"]


def __getattr__(name: str) -> Any:  # PEP 562: importing the package loads neither libcst nor the lint index
    if name in __all__:
        from dispatchguard.fix import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'dispatchguard.fix' has no attribute {name!r}")
