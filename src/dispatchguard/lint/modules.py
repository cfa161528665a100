"""What the checker knows of one module: its summary (see :mod:`.index`) under its names. A module
of its own, below the resolver and the environment reader that both make and read it."""

from __future__ import annotations

from typing import Any

__all__ = ["ModuleInfo"]


class ModuleInfo:
    """One module's summary (see :mod:`.index`) under its primary name and aliases."""

    __slots__ = ("aliases", "attrs", "defs", "imports", "is_package", "members", "name", "returns", "stars")

    def __init__(self, name: str, is_package: bool, summary: dict[str, Any], aliases: tuple[str, ...] = ()) -> None:
        self.name = name
        self.aliases = aliases
        self.is_package = is_package
        self.imports: dict[str, str] = summary["imports"]
        self.defs: dict[str, list] = summary["defs"]
        self.returns: dict[str, str] = summary.get("returns", {})
        self.stars: list[str] = summary.get("stars", [])
        self.members: dict[str, dict[str, list]] = summary.get("members", {})
        self.attrs: list[str] = summary.get("attrs", [])
