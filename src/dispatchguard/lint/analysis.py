"""Phase 2b: one pass over a module's tree that tracks what names are bound to, calling the rules.

The pass keeps a stack of scopes (module, classes, functions). In functions it follows bindings in
order (assignments, annotated parameters, ``for t in REGISTRY.values()``, local imports); at module
level it asks the project :class:`~dispatchguard.lint.resolve.Resolver`, which knows every
module-level binding of the project. Every project lookup is recorded in ``deps`` so that a cached
result can be revalidated against the facts it was computed from.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from dispatchguard.lint.index import ITEM_METHODS, annotation_desc, dotted
from dispatchguard.lint.resolve import CLASS, DECORATOR, REGISTRY, TOOL, ModuleInfo, Resolver

RawFinding = tuple[int, int, int, int, str, str]  # line, col (0-based, bytes), end_line, end_col, code, message

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


class Scope:
    __slots__ = ("kind", "names", "quals", "attrs", "name", "is_tool", "fn")

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

    __slots__ = ("node", "qualname", "class_scope", "returns", "assigns", "scopes", "is_generator", "key")

    def __init__(self, node: ast.AST, qualname: str, class_scope: Scope | None, scopes: list[Scope]) -> None:
        self.node = node
        self.qualname = qualname
        self.class_scope = class_scope
        self.returns: list[ast.Return] = []
        self.assigns: dict[str, list[ast.AST | None]] = {}
        self.scopes = scopes
        self.is_generator = False
        self.key: str | None = None  # "name" or "Class.name" for functions callable by name


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
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            handler(self, node)
        else:
            self.generic_visit(node)

    def generic_visit(self, node: ast.AST) -> None:
        # the hot loop of the checker: leaves (names, constants, contexts, operators) are skipped
        # without a call, and only fields that can hold child nodes are read
        handlers = _HANDLERS
        for field in _child_fields(type(node)):
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    kind = type(item)
                    if kind in _LEAVES:
                        continue
                    handler = handlers.get(kind)
                    if handler is not None:
                        handler(self, item)
                    elif isinstance(item, ast.AST):
                        self.generic_visit(item)
            elif value is not None:
                kind = type(value)
                if kind in _LEAVES:
                    continue
                handler = handlers.get(kind)
                if handler is not None:
                    handler(self, value)
                elif isinstance(value, ast.AST):
                    self.generic_visit(value)

    def _body(self, stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            self.visit(stmt)

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
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        if isinstance(node, ast.Attribute):
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
        if type(annotation) is ast.Name and annotation.id in _PLAIN_TYPES:  # type: ignore[union-attr]
            return None
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
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.args:
            if iterable.func.id in ("enumerate", "reversed", "sorted", "list", "tuple"):
                inner, _ = self.element_kind(iterable.args[0])
                if iterable.func.id == "enumerate":
                    return None, inner
                return inner, None
        return (TOOL if self.expr_kind(iterable) == REGISTRY else None), None

    # ================================================================ binding

    def bind(self, target: ast.AST, kind: str | None, value: ast.AST | None) -> None:
        scope = self.scopes[-1]
        if isinstance(target, ast.Name):
            if scope.kind == "function":
                scope.names[target.id] = kind
                scope.quals.pop(target.id, None)
                if scope.fn is not None:
                    scope.fn.assigns.setdefault(target.id, []).append(value)
            elif scope.kind == "class":
                scope.attrs[target.id] = kind if kind is not None else scope.attrs.get(target.id)
        elif isinstance(target, ast.Attribute):
            if (
                isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and kind is not None
            ):
                cls = self.class_scope()
                if cls is not None:
                    cls.attrs[target.attr] = kind
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.bind(elt, None, None)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, None, None)

    # ================================================================ handlers

    def _call(self, node: ast.Call) -> None:
        for rule in self._call_rules:
            rule(self, node)
        self.generic_visit(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._arguments_outside(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        enclosing = self.scopes[-1]
        if enclosing.kind == "function":
            enclosing.names[node.name] = TOOL if self._is_tool_function(node) else None
        qualname = self._qualname(node.name)
        scope = Scope("function", qualname)
        class_scope = enclosing if enclosing.kind == "class" else None
        fn = FunctionInfo(node, qualname, class_scope, [])
        self._created.append(fn)
        scope.fn = fn
        if enclosing.kind == "module":
            fn.key = node.name
            self.functions.setdefault(node.name, fn)
        elif class_scope is not None and len(self.scopes) >= 2 and self.scopes[-2].kind == "module":
            fn.key = f"{class_scope.name}.{node.name}"
            self.functions.setdefault(fn.key, fn)
            if class_scope.is_tool and node.name in ("run", "_run", "arun", "_arun"):
                self.tool_methods.append(fn)
        elif class_scope is not None and class_scope.is_tool and node.name in ("run", "_run", "arun", "_arun"):
            self.tool_methods.append(fn)
        self._bind_params(scope, node.args)
        is_dispatcher = self._is_dispatcher(qualname)
        self.scopes.append(scope)
        fn.scopes = list(self.scopes)
        self._dispatcher_depth += is_dispatcher
        try:
            self._body(node.body)
        finally:
            self._dispatcher_depth -= is_dispatcher
            self.scopes.pop()

    def _is_tool_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            qual = self.qual_of(target) or dotted(target)
            if qual and (self.kind(qual) == DECORATOR or self.resolver.is_tool_decorator(qual)):
                return True
        return False

    def _lambda(self, node: ast.Lambda) -> None:
        self._arguments_outside(node.args)
        scope = Scope("function", self._qualname("<lambda>"))
        for arg in _all_args(node.args):
            scope.names[arg.arg] = None
        self.scopes.append(scope)
        self.visit(node.body)
        self.scopes.pop()

    def _arguments_outside(self, args: ast.arguments) -> None:
        for default in (*args.defaults, *args.kw_defaults):
            if default is not None:
                self.visit(default)
        for arg in _all_args(args):
            if arg.annotation is not None:
                self.visit(arg.annotation)

    def _bind_params(self, scope: Scope, args: ast.arguments) -> None:
        for arg in _all_args(args):
            scope.names[arg.arg] = self.annotation_kind(arg.annotation) if arg.annotation is not None else None
        if args.vararg is not None:
            scope.names[args.vararg.arg] = None
            if args.vararg.annotation is not None and self.annotation_kind(args.vararg.annotation) == TOOL:
                scope.names[args.vararg.arg] = REGISTRY
        if args.kwarg is not None:
            scope.names[args.kwarg.arg] = None

    def _qualname(self, name: str) -> str:
        parts = [s.name for s in self.scopes[1:]]
        return ".".join([*parts, name])

    def _is_dispatcher(self, qualname: str) -> bool:
        if not self.dispatchers:
            return False
        for module in (self.info.name, *self.info.aliases):
            full = f"{module}.{qualname}" if module else qualname
            if any(full == d or full.endswith("." + d) for d in self.dispatchers):
                return True
        return False

    def _class(self, node: ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        for base in node.bases:
            self.visit(base)
        for keyword in node.keywords:
            self.visit(keyword.value)
        enclosing = self.scopes[-1]
        scope = Scope("class", node.name)
        if enclosing.kind == "module":
            prefix = f"{self.info.name}." if self.info.name else ""
            scope.is_tool = self.kind(prefix + node.name) == CLASS
        else:
            scope.is_tool = any(
                self.expr_kind(b.value if isinstance(b, ast.Subscript) else b) == CLASS for b in node.bases
            )
        # class-level declarations are visible as self.<attr> in every method, whatever the order
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                scope.attrs[stmt.target.id] = self.annotation_kind(stmt.annotation) or (
                    self.expr_kind(stmt.value) if stmt.value is not None else None
                )
        if enclosing.kind == "function":
            enclosing.names[node.name] = CLASS if scope.is_tool else None
        self.scopes.append(scope)
        try:
            self._body(node.body)
        finally:
            self.scopes.pop()

    def _assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        kind = self.expr_kind(node.value)
        for target in node.targets:
            if not isinstance(target, ast.Name):
                self.visit(target)
            self.bind(target, kind, node.value)

    def _ann_assign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.annotation)
        if not isinstance(node.target, ast.Name):
            self.visit(node.target)
        kind = self.annotation_kind(node.annotation)
        if kind is None and node.value is not None:
            kind = self.expr_kind(node.value)
        if node.value is not None or self.scopes[-1].kind != "function":
            self.bind(node.target, kind, node.value)
        elif isinstance(node.target, ast.Name):
            self.scopes[-1].names[node.target.id] = kind

    def _aug_assign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if not isinstance(node.target, ast.Name):
            self.visit(node.target)
        self.bind(node.target, None, None)

    def _for(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        element, second = self.element_kind(node.iter)
        self._bind_loop_target(node.target, element, second)
        self._body(node.body)
        self._body(node.orelse)

    def _bind_loop_target(self, target: ast.AST, element: str | None, second: str | None) -> None:
        if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 and second is not None:
            self.bind(target.elts[0], None, None)
            self.bind(target.elts[1], second, None)
        else:
            if not isinstance(target, (ast.Name, ast.Tuple, ast.List)):
                self.visit(target)
            self.bind(target, element, None)

    def _with(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                if not isinstance(item.optional_vars, ast.Name):
                    self.visit(item.optional_vars)
                self.bind(item.optional_vars, None, None)
        self._body(node.body)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        scope = self.scopes[-1]
        if scope.kind != "function":
            return  # module-level imports are in the summary; class-level ones are rare
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".", 1)[0]
                scope.quals[local] = alias.name if alias.asname else local
                scope.names[local] = None
        else:
            base = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    continue
                local = alias.asname or alias.name
                sep = "" if base.endswith(".") or not base else "."
                qual = self.resolver.absolute(self.info, f"{base}{sep}{alias.name}")
                scope.names[local] = self.kind(qual)
                scope.quals[local] = qual

    def _attribute(self, node: ast.Attribute) -> None:
        value = node.value
        while type(value) is ast.Attribute:
            value = value.value  # type: ignore[attr-defined]
        if type(value) is not ast.Name:  # a.b.c needs no visit; f().b does
            self.visit(value)

    def _keyword_or_expr(self, node: ast.keyword | ast.Expr) -> None:
        value = node.value
        if type(value) not in _LEAVES:
            self.visit(value)

    def _return(self, node: ast.Return) -> None:
        fn = self.function
        if fn is not None:
            fn.returns.append(node)
        if node.value is not None:
            self.visit(node.value)

    def _yield(self, node: ast.Yield | ast.YieldFrom) -> None:
        fn = self.function
        if fn is not None:
            fn.is_generator = True
        if node.value is not None:
            self.visit(node.value)

    def _named_expr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.bind(node.target, self.expr_kind(node.value), node.value)

    def _except(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name and self.scopes[-1].kind == "function":
            self.scopes[-1].names[node.name] = None
        self._body(node.body)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        scope = Scope("function", self._qualname("<comprehension>"))
        for index, generator in enumerate(node.generators):
            if index == 0:
                self.visit(generator.iter)
                self.scopes.append(scope)
            else:
                self.visit(generator.iter)
            element, second = self.element_kind(generator.iter)
            self._bind_loop_target(generator.target, element, second)
            for condition in generator.ifs:
                self.visit(condition)
        if isinstance(node, ast.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)
        self.scopes.pop()


_LEAVES = frozenset(
    {ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del, ast.Pass, ast.Break, ast.Continue, ast.Global,
     ast.Nonlocal, ast.alias, str, int, type(None)}
    | {cls for base in (ast.operator, ast.unaryop, ast.cmpop, ast.boolop) for cls in base.__subclasses__()}
)  # fmt: skip
_NOT_CHILDREN = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "module", "level", "asname",
                           "type_comment", "kind", "conversion", "is_async", "names", "kwd_attrs"})  # fmt: skip
_FIELDS: dict[type, tuple[str, ...]] = {}
_PLAIN_TYPES = frozenset({"str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set", "object", "Any"})


def _child_fields(node_type: type) -> tuple[str, ...]:
    fields = _FIELDS.get(node_type)
    if fields is None:
        fields = _FIELDS[node_type] = tuple(f for f in node_type._fields if f not in _NOT_CHILDREN)  # type: ignore[attr-defined]
    return fields


# unbound functions: a table of bound methods would make every Context a reference cycle
_HANDLERS: dict[type, Callable[[Context, Any], None]] = {
    ast.Attribute: Context._attribute,
    ast.keyword: Context._keyword_or_expr,
    ast.Expr: Context._keyword_or_expr,
        ast.Call: Context._call,
        ast.FunctionDef: Context._function,
        ast.AsyncFunctionDef: Context._function,
        ast.Lambda: Context._lambda,
        ast.ClassDef: Context._class,
        ast.Assign: Context._assign,
        ast.AnnAssign: Context._ann_assign,
        ast.AugAssign: Context._aug_assign,
        ast.For: Context._for,
        ast.AsyncFor: Context._for,
        ast.With: Context._with,
        ast.AsyncWith: Context._with,
        ast.Import: Context._import,
        ast.ImportFrom: Context._import,
        ast.Return: Context._return,
        ast.Yield: Context._yield,
        ast.YieldFrom: Context._yield,
        ast.NamedExpr: Context._named_expr,
        ast.ExceptHandler: Context._except,
        ast.ListComp: Context._comprehension,
        ast.SetComp: Context._comprehension,
        ast.GeneratorExp: Context._comprehension,
        ast.DictComp: Context._comprehension,
    }


def _all_args(args: ast.arguments) -> list[ast.arg]:
    out = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return out

