"""What a rule's fixer receives and returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

#: Where each runtime name the fixes need is imported from.
RUNTIME_IMPORTS = {
    "ensure_json_str": "dispatchguard",
    "ToolAction": "dispatchguard",
    "dispatch_tool": "dispatchguard",
    "adispatch_tool": "dispatchguard",
}


@dataclass(frozen=True)
class Fix:
    """Replace ``target`` by ``replacement``; ``names`` are the runtime names the replacement uses
    (keys of :data:`RUNTIME_IMPORTS`), which the engine imports once per file."""

    target: cst.CSTNode
    replacement: cst.CSTNode
    safe: bool
    description: str
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class NoFix:
    """No fix for this finding, and why."""

    reason: str


@dataclass
class FileContext:
    """One parsed file, handed to the fixers."""

    path: str
    module: cst.Module
    positions: Mapping[cst.CSTNode, Any]  # PositionProvider results
    parents: Mapping[cst.CSTNode, cst.CSTNode]  # ParentNodeProvider results
    project: Any = None  # fix.names.ProjectNames, built lazily by the engine
    refs: dict[str, cst.BaseExpression] = field(default_factory=dict)

    def ref(self, name: str) -> cst.BaseExpression:
        """The expression that refers to runtime ``name`` in this file (see engine.ImportPlan)."""
        return self.refs[name]
