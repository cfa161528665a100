"""Lazy package exports (PEP 562): a package names what it exports and where each name lives, and
the module is imported on first use (so importing the checker never loads pydantic, and building
the CLI's parser never loads the MCP SDK or FastAPI)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: dict[str, Any], homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for a package whose globals are ``package``: a name of ``homes``
    is imported from its module on first use and then kept in the package's globals."""

    def getattr_(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        package[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*package, *package.get("__all__", ())})

    return getattr_, dir_
