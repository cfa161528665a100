"""Phase 2b: one pass over a module's tree that tracks what names are bound to, calling the rules.

The pass keeps a stack of scopes (module, classes, functions). In functions it follows bindings in
order (assignments, annotated parameters, ``for t in REGISTRY.values()``, local imports); at module
level it asks the project :class:`~dispatchguard.lint.resolve.Resolver`, which knows every
module-level binding of the project. Every project lookup is recorded in ``deps`` so that a cached
result can be revalidated against the facts it was computed from.

This module holds :class:`Context`: driving the walk and answering what a name or an expression is
bound to. What the walk does at each node type is in :mod:`.handlers` (statements and expressions
that bind names, and the handler table) and :mod:`.definitions` (functions, lambdas, classes); the
scope records are in :mod:`.scopes`.
"""

from __future__ import annotations

import ast
from typing import Any

from dispatchguard.lint.handlers import _FIELDS, _HANDLERS, _LEAVES, _child_fields
from dispatchguard.lint.index import ITEM_METHODS, annotation_desc, dotted
from dispatchguard.lint.resolve import (
    CLASS,
    DECORATOR,
    REGISTRY,
    TOOL,
    ModuleInfo,
    Resolver,
)
from dispatchguard.lint.scopes import FunctionInfo, Scope

RawFinding = tuple[int, int, int, int, str, str]  # line, col (0-based, bytes), end_line, end_col, code, message


class Context:
    """The per-file state shared with the rules."""

    def __init__(
        self,
        resolver: Resolver,
        info: ModuleInfo,
        *,
        checks: dict[str, Any],
        dispatchers: tuple[str, ...],
        strict: bool,
    ) -> None:
        self.resolver = resolver
        self.info = info
        self.checks = checks  # code -> rule module
        self.dispatchers = dispatchers
        self.dispatcher_names = frozenset(d.rpartition(".")[2] for d in dispatchers)
        self.strict = strict
        self.deps: dict[str, str | None] = {}
        self.findings: list[RawFinding] = []
        self.scopes: list[Scope] = [Scope("module", info.name)]
        self.functions: dict[str, FunctionInfo] = {}  # key -> info, for same-module calls
        self.tool_methods: list[FunctionInfo] = []
        self._call_rules = [m.check_call for m in checks.values() if hasattr(m, "check_call")]
        self._fn_rules = [m.check_function for m in checks.values() if hasattr(m, "check_function")]
        self._dispatcher_depth = 0
        self._created: list[FunctionInfo] = []
        self._callee_node: ast.Call | None = None
        self._callee_kind: str | None = None

    # ================================================================ driving

    def run(self, tree: ast.Module) -> list[RawFinding]:
        try:
            self._body(tree.body)
            for fn in self.tool_methods:
                for rule in self._fn_rules:
                    rule(self, fn)
        finally:
            for fn in self._created:  # scope <-> function links: no cycles left for the GC
                fn.scopes = []
        return self.findings

    def visit(self, node: ast.AST) -> None:
        handler = _DISPATCH.get(type(node), _generic)
        if handler is not None:
            handler(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        # the hot loop of the checker: leaves (names, constants, contexts, operators) are skipped
        # without a call, one table lookup per child, and only fields that can hold nodes are read
        dispatch = _DISPATCH
        kind = type(node)
        fields = _FIELDS.get(kind)
        for field in fields if fields is not None else _child_fields(kind):
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    handler = dispatch.get(type(item), _generic)
                    if handler is not None:
                        handler(self, item)
            elif value is not None:
                handler = dispatch.get(type(value), _generic)
                if handler is not None:
                    handler(self, value)

    def _body(self, stmts: list[ast.stmt]) -> None:
        dispatch = _DISPATCH
        for stmt in stmts:
            handler = dispatch.get(type(stmt), _generic)
            if handler is not None:
                handler(self, stmt)

    def report(self, node: ast.AST, code: str, message: str) -> None:
        self.findings.append(
            (
                node.lineno,  # type: ignore[attr-defined]
                node.col_offset,  # type: ignore[attr-defined]
                getattr(node, "end_lineno", None) or node.lineno,  # type: ignore[attr-defined]
                getattr(node, "end_col_offset", None) or node.col_offset,  # type: ignore[attr-defined]
                code,
                message,
            )
        )

    # ================================================================ knowledge

    def kind(self, qual: str) -> str | None:
        k = self.resolver.kind(qual)
        self.deps[qual] = k
        return k

    @property
    def function(self) -> FunctionInfo | None:
        for scope in reversed(self.scopes):
            if scope.kind == "function":
                return scope.fn
        return None

    @property
    def in_dispatcher(self) -> bool:
        return self._dispatcher_depth > 0

    def qual_of(self, node: ast.AST, scopes: list[Scope] | None = None) -> str | None:
        """The qualified name of a Name/Attribute chain, or None (locals, builtins, unknown)."""
        name = dotted(node)
        return None if name is None else self.qual_of_name(name, scopes)

    def qual_of_name(self, name: str, scopes: list[Scope] | None = None) -> str | None:
        head, _, tail = name.partition(".")
        for scope in reversed(scopes if scopes is not None else self.scopes):
            if scope.kind != "function":
                continue
            if head in scope.quals:
                base = scope.quals[head]
                return f"{base}.{tail}" if tail else base
            if head in scope.names:
                return None
        return self.resolver.local_qual(self.info, name)

    def lookup(self, name: str) -> str | None:
        for scope in reversed(self.scopes):
            if scope.kind == "function" and name in scope.names:
                return scope.names[name]
        qual = self.resolver.local_qual(self.info, name)
        if qual is not None:
            return self.kind(qual)
        return self.resolver.external_bare(name)

    def class_scope(self) -> Scope | None:
        """The class whose method we are directly in (for ``self.attr``)."""
        for scope in reversed(self.scopes):
            if scope.kind == "class":
                return scope
        return None

    def expr_kind(self, node: ast.AST) -> str | None:
        node_type = type(node)  # parsed trees hold no subclasses of the node types
        if node_type not in _KIND_NODES:
            return None
        if node_type is ast.Name:
            return self.lookup(node.id)  # type: ignore[attr-defined]
        if node_type is ast.Attribute:
            value = node.value
            if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                cls = self.class_scope()
                if cls is not None:
                    return cls.attrs.get(node.attr)
            qual = self.qual_of(node)
            return self.kind(qual) if qual is not None else None
        if isinstance(node, ast.Call):
            return self.call_result_kind(node)
        if isinstance(node, ast.Subscript):
            return TOOL if self.expr_kind(node.value) == REGISTRY else None
        return None

    def call_result_kind(self, node: ast.Call) -> str | None:
        func = node.func
        qual = self.qual_of(func)
        if qual is not None:
            return self.resolver.result_of_call(qual, self.kind)
        if isinstance(func, ast.Attribute):
            if func.attr in ITEM_METHODS:
                return TOOL if self.expr_kind(func.value) == REGISTRY else None
            if func.attr.startswith("from_"):
                return TOOL if self.expr_kind(func.value) == CLASS else None
        k = self.expr_kind(func)
        return TOOL if k in (CLASS, DECORATOR) else None

    def callee_kind(self, node: ast.Call) -> str | None:
        """``expr_kind(node.func)``, computed once per call however many rules ask."""
        if self._callee_node is not node:
            self._callee_node = node
            self._callee_kind = self.expr_kind(node.func)
        return self._callee_kind

    def annotation_kind(self, annotation: ast.AST | None) -> str | None:
        if type(annotation) is ast.Name:  # annotation_desc's answer for a bare name, without lists
            name = annotation.id  # type: ignore[union-attr]
            if name in _PLAIN_TYPES or name in ("None", "object"):
                return None
            return TOOL if self.lookup(name) == CLASS else None
        desc = annotation_desc(annotation)
        if desc is None:
            return None
        return Resolver.annotation_kind(self._annotation_name_kind, desc)

    def _annotation_name_kind(self, name: str) -> str | None:
        if "." not in name:
            return self.lookup(name)
        qual = self.qual_of_name(name)
        return self.kind(qual) if qual else self.resolver.external_bare(name)

    def element_kind(self, iterable: ast.AST) -> tuple[str | None, str | None]:
        """(kind of each element, kind of the second item of each element) of an iterable."""
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute):
            attr = iterable.func.attr
            if attr in ("values", "items") and self.expr_kind(iterable.func.value) == REGISTRY:
                return (TOOL, None) if attr == "values" else (None, TOOL)
        if (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name)
            and iterable.args
            and iterable.func.id in ("enumerate", "reversed", "sorted", "list", "tuple")
        ):
            inner, _ = self.element_kind(iterable.args[0])
            if iterable.func.id == "enumerate":
                return None, inner
            return inner, None
        return (TOOL if self.expr_kind(iterable) == REGISTRY else None), None


_generic = Context.generic_visit
# node type -> handler; None: a leaf, skipped; a type not in the table: the generic walk
_DISPATCH: dict[type, Any] = {**dict.fromkeys(_LEAVES), **_HANDLERS}
_KIND_NODES = frozenset({ast.Name, ast.Attribute, ast.Call, ast.Subscript})
_PLAIN_TYPES = frozenset({"str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set", "object", "Any"})
