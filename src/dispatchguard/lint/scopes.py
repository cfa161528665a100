"""Phase 2b, what the pass keeps per scope and per function (the rules read :class:`FunctionInfo`)."""

from __future__ import annotations

import ast


class Scope:
    __slots__ = ("attrs", "fn", "is_tool", "kind", "name", "names", "quals")

    def __init__(self, kind: str, name: str = "") -> None:
        self.kind = kind  # "module" | "class" | "function"
        self.names: dict[str, str | None] = {}  # local name -> kind (None: bound to a non-tool)
        self.quals: dict[str, str] = {}  # local name -> qualified name (local imports)
        self.attrs: dict[str, str | None] = {}  # class scopes: self.<attr> -> kind
        self.name = name
        self.is_tool = False  # class scopes: a tool class
        self.fn: FunctionInfo | None = None


class FunctionInfo:
    """What DG103 needs to know about a function once the pass is over."""

    __slots__ = ("assigns", "class_scope", "is_generator", "key", "node", "qualname", "returns", "scopes")

    def __init__(self, node: ast.AST, qualname: str, class_scope: Scope | None, scopes: list[Scope]) -> None:
        self.node = node
        self.qualname = qualname
        self.class_scope = class_scope
        self.returns: list[ast.Return] = []
        self.assigns: dict[str, list[ast.AST | None]] = {}
        self.scopes = scopes
        self.is_generator = False
        self.key: str | None = None  # "name" or "Class.name" for functions callable by name

