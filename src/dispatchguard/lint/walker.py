"""The walk: one pass over a module's tree that tracks what names are bound to, calling the rules.

The pass keeps a stack of scopes (module, classes, functions). In functions it follows bindings in
order (assignments, annotated parameters, ``for t in REGISTRY.values()``, local imports); at module
level it asks the project's :class:`~dispatchguard.lint.resolve.Resolver`. Every project lookup is
recorded in ``deps`` so that a result can be revalidated against the facts it was computed from.

**The query API of the rules** is the public part of :class:`Context` and :class:`FunctionInfo`;
rules use nothing else of the project:

- ``kind_of(expr)``: what an expression is bound to (:mod:`.kinds`: a tool, a tool class, a
  registry, a tool decorator, or None); ``callee_kind(call)``: the same for a call's callee,
  computed once however many rules ask;
- ``qualified_name(expr, fn=None)``: the dotted name an expression refers to (seen from inside
  ``fn`` when given), or None for locals, builtins and unknown names;
- ``is_class(qualified_name)``: whether it names a class (a tool class, or any class of the
  project);
- ``in_dispatcher``: whether the walk is inside a configured dispatcher function;
- ``is_runtime_lookup(expr)``: whether ``expr`` takes a tool out of a registry by a run-time key
  (a detected dispatch point; never when ``dispatchers`` are configured);
- ``tool_modules_configured``: whether the configuration names the tool modules;
- ``strict``: the configuration's strict mode;
- ``defines_class(expr)``: whether a name refers to a class defined in this module (at top level,
  or in an enclosing function);
- ``module_function(qualified_name)`` and ``method(fn, name)``: the :class:`FunctionInfo` of a
  function of this module or a method of ``fn``'s class, for following calls;
- ``function_returns(qualified_name)``: what a function of another module returns, as its
  module's summary records it (:mod:`.returns`: JSON, never returns, or a description of a value
  that is not a JSON string; None when unknown), imports and re-exports followed. The answer is
  recorded in ``return_deps``, so that a cached result is checked again when that module changes;
- ``module_text(name)`` and ``module_literal(name)``: the text or literal a module-level name is
  bound to (``TEMPLATE = "Error: {}"``, ``SAMPLES = [...]``);
- ``report(node, code, message)``.

Which tool methods a rule wants (``TOOL_METHODS``), whether it checks tool functions
(``check_tool_function``: functions decorated with a tool decorator, and the functions given to a
tool class as ``func=``/``coroutine=`` or to ``from_function``) and which files it skips
(``exempt``) are the rule's own business (:mod:`dispatchguard.lint.rules`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import Any

from dispatchguard.lint.index import ITEM_METHODS, annotation_desc, dotted, import_bindings, options_only
from dispatchguard.lint.inference.flow import outside_instance_class, registry_lookup_by_caller
from dispatchguard.lint.kinds import CLASS, DECORATOR, PLAIN_CLASS, REGISTRY, TOOL
from dispatchguard.lint.resolve import ModuleInfo, Resolver

RawFinding = tuple[int, int, int, int, str, str]  # line, col (0-based, bytes), end_line, end_col, code, message


class Scope:
    __slots__ = ("artifact", "attr_types", "attrs", "classes", "fn", "is_tool", "kind", "name", "names", "quals")

    def __init__(self, kind: str, name: str = "") -> None:
        self.kind = kind  # "module" | "class" | "function"
        self.names: dict[str, str | None] = {}  # local name -> kind (None: bound to a non-tool)
        self.quals: dict[str, str] = {}  # local name -> qualified name (local imports)
        self.classes: set[str] = set()  # function scopes: local names bound by a class statement
        self.attrs: dict[str, str | None] = {}  # class scopes: self.<attr> -> kind
        # class scopes: self.<attr> -> its annotation or the call that built it (what class it is)
        self.attr_types: dict[str, ast.expr] = {}
        self.name = name
        self.is_tool = False  # class scopes: a tool class
        self.artifact = False  # class scopes: response_format = "content_and_artifact"
        self.fn: FunctionInfo | None = None


class FunctionInfo:
    """A function as the rules see it once the walk is over: its node, qualified name, returns,
    local assignments (name -> assigned values, in order) and whether it is a generator."""

    __slots__ = ("artifact", "assigns", "class_name", "is_generator", "key", "node", "qualname", "returns", "scopes")

    def __init__(self, node: ast.AST, qualname: str, class_name: str | None) -> None:
        self.node = node
        self.qualname = qualname
        self.class_name = class_name  # the class the function is a method of, if any
        self.returns: list[ast.Return] = []
        self.assigns: dict[str, list[ast.AST | None]] = {}
        self.scopes: list[Scope] = []
        self.is_generator = False
        self.key: str | None = None  # "name" or "Class.name" for functions callable by name
        # a tool function declared with response_format="content_and_artifact": it returns
        # (content, artifact) and only the content reaches the model
        self.artifact = False

    def shadows(self, name: str) -> bool:
        """Whether ``name`` is bound locally (in this function or an enclosing one)."""
        return any(name in s.names or name in s.quals for s in self.scopes if s.kind == "function")


class Context:
    """The per-file state of the walk, and the rules' query API (see the module docstring)."""

    def __init__(
        self,
        resolver: Resolver,
        info: ModuleInfo,
        *,
        rules: Iterable[Any],
        dispatchers: tuple[str, ...],
        strict: bool,
    ) -> None:
        self.resolver = resolver
        self.info = info
        self.dispatchers = dispatchers
        self.dispatcher_names = frozenset(d.rpartition(".")[2] for d in dispatchers)
        self.strict = strict
        self.deps: dict[str, str | None] = {}  # qualified name -> kind, as asked
        self.class_deps: dict[str, str | None] = {}  # qualified name -> full kind, as asked
        self.return_deps: dict[str, str | None] = {}  # qualified name -> return verdict, as asked
        self.findings: list[RawFinding] = []
        self.scopes: list[Scope] = [Scope("module", info.name)]
        self.functions: dict[str, FunctionInfo] = {}  # key -> info, for same-module calls
        self.tool_methods: list[FunctionInfo] = []
        rules = list(rules)
        self.call_rules = [r.check_call for r in rules if r.check_call]
        self.method_rules = [(r.tool_methods, r.check_tool_method) for r in rules if r.check_tool_method]
        self.function_rules = [r.check_tool_function for r in rules if r.check_tool_function]
        self.tool_functions: list[FunctionInfo] = []
        self.tool_function_refs: list[tuple[str, bool]] = []  # (module-level name, artifact) given to a tool
        self.texts: dict[str, str] = {}  # module-level name -> the str constant it is bound to
        self.literals: dict[str, ast.expr | None] = {}  # module-level name -> its literal (None: rebound)
        self.wanted_methods = frozenset(name for names, _ in self.method_rules for name in names)
        self.dispatcher_depth = 0
        self.created: list[FunctionInfo] = []
        self.callee_node: ast.Call | None = None
        self.callee_result: str | None = None

    # ================================================================ driving

    def run(self, tree: ast.Module) -> list[RawFinding]:
        try:
            self.body(tree.body)
            for fn in self.tool_methods:
                name = fn.qualname.rpartition(".")[2]
                for methods, rule in self.method_rules:
                    if name in methods:
                        rule(self, fn)
            if self.function_rules:
                for fn in self._tool_functions():
                    for function_rule in self.function_rules:
                        function_rule(self, fn)
        finally:
            for fn in self.created:  # scope <-> function links: no cycles left for the GC
                fn.scopes = []
        return self.findings

    def _tool_functions(self) -> list[FunctionInfo]:
        found = {id(fn): fn for fn in self.tool_functions}
        for name, artifact in self.tool_function_refs:
            fn = self.functions.get(name)
            if fn is not None:
                fn.artifact = fn.artifact or artifact
                found.setdefault(id(fn), fn)
        return list(found.values())

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

    def body(self, stmts: list[ast.stmt]) -> None:
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

    def is_class(self, qual: str) -> bool:
        k = self.resolver.full_kind(qual)
        self.class_deps[qual] = k
        return k in (CLASS, PLAIN_CLASS)

    @property
    def function(self) -> FunctionInfo | None:
        for scope in reversed(self.scopes):
            if scope.kind == "function":
                return scope.fn
        return None

    @property
    def in_dispatcher(self) -> bool:
        return self.dispatcher_depth > 0

    def module_function(self, qual: str) -> FunctionInfo | None:
        """A function of this module, or a method of one of its top-level classes (``Class.name``)."""
        prefix = f"{self.info.name}." if self.info.name else ""
        if qual.startswith(prefix) and qual[len(prefix) :].count(".") <= 1:
            return self.functions.get(qual[len(prefix) :])
        return None

    def is_runtime_lookup(self, node: ast.AST) -> bool:
        """Whether ``node`` takes a tool out of a registry by a key known only at run time
        (:func:`.inference.flow.registry_lookup_by_caller`): the project's own dispatch point,
        detected when no ``dispatchers`` are configured."""
        fn = self.function
        if fn is None or self.resolver.config.dispatchers_configured:
            return False
        return registry_lookup_by_caller(self, node, fn)

    @property
    def tool_modules_configured(self) -> bool:
        """Whether the configuration names the tool modules (an explicit setting means what it says)."""
        return self.resolver.config.tool_modules_configured

    def defines_class(self, node: ast.AST) -> bool:
        """Whether a name refers to a class this module defines: a class statement at its top level
        (its only binding), or in a function around the walk's position."""
        if not isinstance(node, ast.Name):
            return False
        name = node.id
        for scope in reversed(self.scopes):
            if scope.kind == "function" and (name in scope.names or name in scope.quals):
                return name in scope.classes
        descs = self.info.defs.get(name)
        return bool(descs) and name not in self.info.imports and all(d[0] == "class" for d in descs)

    def method(self, fn: FunctionInfo, name: str) -> FunctionInfo | None:
        return self.functions.get(f"{fn.class_name}.{name}") if fn.class_name is not None else None

    def function_returns(self, qual: str) -> str | None:
        try:
            return self.return_deps[qual]
        except KeyError:
            verdict = self.return_deps[qual] = self.resolver.function_returns(qual)
            return verdict

    def module_text(self, name: str) -> str | None:
        return self.texts.get(name)

    def declared_returns(self, qual: str) -> str | None:
        """What a function outside the project declares it returns, when that is not JSON text
        (:mod:`.inference.declared`: typeshed, the environment's stubs and sources)."""
        return self.resolver.declared.function_returns(qual) if self.resolver.outside(qual) else None

    def method_returns(self, class_qual: str, method: str) -> str | None:
        return self.resolver.declared.method_returns(class_qual, method)

    def instance_class(self, node: ast.AST, fn: FunctionInfo) -> str | None:
        """The class outside the project that ``node`` is an instance of
        (:func:`.inference.flow.outside_instance_class`)."""
        return outside_instance_class(self, node, fn)

    def module_literal(self, name: str) -> ast.expr | None:
        """The literal (a str constant, a list, dict, set or tuple display) a module-level name is
        bound to, when that is its only module-level binding so far."""
        return self.literals.get(name)

    def qualified_name(self, node: ast.AST, fn: FunctionInfo | None = None) -> str | None:
        """The qualified name of a Name/Attribute chain, or None (locals, builtins, unknown)."""
        name = dotted(node)
        return None if name is None else self.qual_of_name(name, fn.scopes if fn is not None else None)

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

    def kind_of(self, node: ast.AST) -> str | None:
        node_type = type(node)  # parsed trees hold no subclasses of the node types
        if node_type not in _KIND_NODES:
            return None
        if node_type is ast.Name:
            return self.lookup(node.id)  # type: ignore[attr-defined]
        if node_type is ast.Attribute:
            value = node.value  # type: ignore[attr-defined]
            if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                cls = self.class_scope()
                if cls is not None:
                    return cls.attrs.get(node.attr)  # type: ignore[attr-defined]
            qual = self.qualified_name(node)
            return self.kind(qual) if qual is not None else None
        if isinstance(node, ast.Call):
            return self.call_result_kind(node)
        if isinstance(node, ast.Subscript):
            return TOOL if self.kind_of(node.value) == REGISTRY else None
        # a display of tools, as the index reads a module-level one (``["coll", ...]``)
        items = node.elts if isinstance(node, _DISPLAYS) else node.values  # type: ignore[attr-defined]
        return REGISTRY if any(self.kind_of(item) == TOOL for item in items) else None

    def call_result_kind(self, node: ast.Call) -> str | None:
        """What a call gives; a tool decorator called with options only (``tool("name")``,
        ``tool(**options)``) gives a decorator, not a tool (the index's rule for module-level
        bindings: :func:`~dispatchguard.lint.index.options_only`)."""
        func = node.func
        qual = self.qualified_name(func)
        if qual is not None:
            return self.resolver.result_of_call(qual, self.kind, options_only(node))
        if isinstance(func, ast.Attribute):
            if func.attr in ITEM_METHODS:
                return TOOL if self.kind_of(func.value) == REGISTRY else None
            if func.attr.startswith("from_"):
                return TOOL if self.kind_of(func.value) == CLASS else None
        k = self.kind_of(func)
        if k == DECORATOR:
            return DECORATOR if options_only(node) else TOOL
        return TOOL if k == CLASS else None

    def callee_kind(self, node: ast.Call) -> str | None:
        """``kind_of(node.func)``, computed once per call however many rules ask."""
        if self.callee_node is not node:
            self.callee_node = node
            self.callee_result = self.kind_of(node.func)
        return self.callee_result

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
            if attr in ("values", "items") and self.kind_of(iterable.func.value) == REGISTRY:
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
        return (TOOL if self.kind_of(iterable) == REGISTRY else None), None


# ==================================================================== handlers: expressions, bindings


def _call(ctx: Context, node: ast.Call) -> None:
    for rule in ctx.call_rules:
        rule(ctx, node)
    if ctx.function_rules:
        _tool_function_refs(ctx, node)
    ctx.generic_visit(node)


_FUNCTION_KEYWORDS = frozenset({"func", "coroutine"})


def _tool_function_refs(ctx: Context, node: ast.Call) -> None:
    """Record the functions a call makes into tools: ``Tool(func=f)``, ``StructuredTool.from_function(f)``
    and ``tool(f)`` (a tool decorator called on a function)."""
    func = node.func
    named = [kw.value for kw in node.keywords if kw.arg in _FUNCTION_KEYWORDS]
    from_function = isinstance(func, ast.Attribute) and func.attr == "from_function"
    if not named and not any(isinstance(arg, ast.Name) for arg in node.args[:2]):
        return
    if from_function:
        if ctx.kind_of(func.value) != CLASS:  # type: ignore[attr-defined]
            return
        named.extend(node.args[:1])
    else:
        callee = ctx.callee_kind(node)
        if callee == DECORATOR:
            named.extend(node.args[:2])
        elif callee != CLASS:
            return
    artifact = any(
        kw.arg == "response_format" and isinstance(kw.value, ast.Constant) and kw.value.value == "content_and_artifact"
        for kw in node.keywords
    )
    for value in named:
        if isinstance(value, ast.Name):
            ctx.tool_function_refs.append((value.id, artifact))


def _record_attr_type(ctx: Context, target: ast.AST, typed: ast.expr) -> None:
    """What class a tool's attribute holds: a class-level annotation (``exa: Exa``, a pydantic
    field) or ``self.x: T`` / ``self.x = T(...)`` in a method."""
    scope = ctx.scopes[-1]
    if scope.kind == "class" and isinstance(target, ast.Name):
        scope.attr_types[target.id] = typed
    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        cls = ctx.class_scope()
        if cls is not None and target.attr not in cls.attr_types:
            cls.attr_types[target.attr] = typed


def _bind(ctx: Context, target: ast.AST, kind: str | None, value: ast.AST | None) -> None:
    scope = ctx.scopes[-1]
    if isinstance(target, ast.Name):
        if scope.kind == "function":
            scope.names[target.id] = kind
            scope.quals.pop(target.id, None)
            scope.classes.discard(target.id)
            if scope.fn is not None:
                scope.fn.assigns.setdefault(target.id, []).append(value)
        elif scope.kind == "class":
            scope.attrs[target.id] = kind if kind is not None else scope.attrs.get(target.id)
    elif isinstance(target, ast.Attribute):
        if isinstance(value, ast.Call):
            _record_attr_type(ctx, target, value)
        if isinstance(target.value, ast.Name) and target.value.id == "self" and kind is not None:
            cls = ctx.class_scope()
            if cls is not None:
                cls.attrs[target.attr] = kind
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _bind(ctx, elt, None, None)
    elif isinstance(target, ast.Starred):
        _bind(ctx, target.value, None, None)


def _assign(ctx: Context, node: ast.Assign) -> None:
    ctx.visit(node.value)
    kind = ctx.kind_of(node.value)
    if ctx.scopes[-1].kind == "module":
        _module_binding(ctx, node)
    for target in node.targets:
        if not isinstance(target, ast.Name):
            ctx.visit(target)
        _bind(ctx, target, kind, node.value)


def _module_binding(ctx: Context, node: ast.Assign) -> None:
    value = node.value
    for target in node.targets:
        if not isinstance(target, ast.Name):
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            ctx.texts[target.id] = value.value
        else:
            ctx.texts.pop(target.id, None)
        if isinstance(value, _LITERALS) and target.id not in ctx.literals:
            ctx.literals[target.id] = value
        else:
            ctx.literals[target.id] = None  # bound twice: unknown


_LITERALS = (ast.Constant, ast.List, ast.Dict, ast.Set, ast.Tuple)


def _ann_assign(ctx: Context, node: ast.AnnAssign) -> None:
    if node.value is not None:
        ctx.visit(node.value)
    ctx.visit(node.annotation)
    if not isinstance(node.target, ast.Name):
        ctx.visit(node.target)
    kind = ctx.annotation_kind(node.annotation)
    if kind is None and node.value is not None:
        kind = ctx.kind_of(node.value)
    _record_attr_type(ctx, node.target, node.annotation)
    if node.value is not None or ctx.scopes[-1].kind != "function":
        _bind(ctx, node.target, kind, node.value)
    elif isinstance(node.target, ast.Name):
        ctx.scopes[-1].names[node.target.id] = kind


def _aug_assign(ctx: Context, node: ast.AugAssign) -> None:
    ctx.visit(node.value)
    if not isinstance(node.target, ast.Name):
        ctx.visit(node.target)
    # the statement stands for the new value (``x += y``: what x was, then y): the rules see it
    _bind(ctx, node.target, None, node)


def _for(ctx: Context, node: ast.For | ast.AsyncFor) -> None:
    ctx.visit(node.iter)
    element, second = ctx.element_kind(node.iter)
    _bind_loop_target(ctx, node.target, element, second)
    ctx.body(node.body)
    ctx.body(node.orelse)


def _bind_loop_target(ctx: Context, target: ast.AST, element: str | None, second: str | None) -> None:
    if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 and second is not None:
        _bind(ctx, target.elts[0], None, None)
        _bind(ctx, target.elts[1], second, None)
    else:
        if not isinstance(target, (ast.Name, ast.Tuple, ast.List)):
            ctx.visit(target)
        _bind(ctx, target, element, None)


def _with(ctx: Context, node: ast.With | ast.AsyncWith) -> None:
    for item in node.items:
        ctx.visit(item.context_expr)
        if item.optional_vars is not None:
            if not isinstance(item.optional_vars, ast.Name):
                ctx.visit(item.optional_vars)
            _bind(ctx, item.optional_vars, None, None)
    ctx.body(node.body)


def _import(ctx: Context, node: ast.Import | ast.ImportFrom) -> None:
    scope = ctx.scopes[-1]
    if scope.kind != "function":
        return  # module-level imports are in the summary; class-level ones are rare
    from_import = isinstance(node, ast.ImportFrom)
    for local, target in import_bindings(node):
        if from_import:
            target = ctx.resolver.absolute(ctx.info, target)
            scope.names[local] = ctx.kind(target)
        else:
            scope.names[local] = None
        scope.quals[local] = target


def _attribute(ctx: Context, node: ast.Attribute) -> None:
    value = node.value
    while type(value) is ast.Attribute:
        value = value.value  # type: ignore[attr-defined]
    if type(value) is not ast.Name:  # a.b.c needs no visit; f().b does
        ctx.visit(value)


def _keyword_or_expr(ctx: Context, node: ast.keyword | ast.Expr) -> None:
    value = node.value
    if type(value) not in _LEAVES:
        ctx.visit(value)


def _return(ctx: Context, node: ast.Return) -> None:
    fn = ctx.function
    if fn is not None:
        fn.returns.append(node)
    if node.value is not None:
        ctx.visit(node.value)


def _yield(ctx: Context, node: ast.Yield | ast.YieldFrom) -> None:
    fn = ctx.function
    if fn is not None:
        fn.is_generator = True
    if node.value is not None:
        ctx.visit(node.value)


def _named_expr(ctx: Context, node: ast.NamedExpr) -> None:
    ctx.visit(node.value)
    _bind(ctx, node.target, ctx.kind_of(node.value), node.value)


def _except(ctx: Context, node: ast.ExceptHandler) -> None:
    if node.type is not None:
        ctx.visit(node.type)
    if node.name and ctx.scopes[-1].kind == "function":
        ctx.scopes[-1].names[node.name] = None
    ctx.body(node.body)


def _comprehension(ctx: Context, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
    scope = Scope("function", _qualname(ctx, "<comprehension>"))
    for index, generator in enumerate(node.generators):
        ctx.visit(generator.iter)
        if index == 0:
            ctx.scopes.append(scope)
        element, second = ctx.element_kind(generator.iter)
        _bind_loop_target(ctx, generator.target, element, second)
        for condition in generator.ifs:
            ctx.visit(condition)
    if isinstance(node, ast.DictComp):
        ctx.visit(node.key)
        ctx.visit(node.value)
    else:
        ctx.visit(node.elt)
    ctx.scopes.pop()


# ==================================================================== handlers: scopes


def _function(ctx: Context, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    for decorator in node.decorator_list:
        ctx.visit(decorator)
    _arguments_outside(ctx, node.args)
    if node.returns is not None:
        ctx.visit(node.returns)
    enclosing = ctx.scopes[-1]
    if enclosing.kind == "function":
        enclosing.names[node.name] = TOOL if _is_tool_function(ctx, node) else None
    qualname = _qualname(ctx, node.name)
    scope = Scope("function", qualname)
    class_scope = enclosing if enclosing.kind == "class" else None
    fn = FunctionInfo(node, qualname, class_scope.name if class_scope is not None else None)
    ctx.created.append(fn)
    scope.fn = fn
    if enclosing.kind == "module":
        fn.key = node.name
        ctx.functions.setdefault(node.name, fn)
    elif class_scope is not None and len(ctx.scopes) >= 2 and ctx.scopes[-2].kind == "module":
        fn.key = f"{class_scope.name}.{node.name}"
        ctx.functions.setdefault(fn.key, fn)
    if class_scope is not None and class_scope.is_tool and node.name in ctx.wanted_methods:
        fn.artifact = class_scope.artifact
        ctx.tool_methods.append(fn)
    if ctx.function_rules and node.decorator_list:
        artifact = _tool_decorator_artifact(ctx, node)
        if artifact is not None:
            fn.artifact = artifact
            ctx.tool_functions.append(fn)
    _bind_params(ctx, scope, node.args)
    is_dispatcher = _is_dispatcher(ctx, qualname)
    ctx.scopes.append(scope)
    fn.scopes = list(ctx.scopes)
    ctx.dispatcher_depth += is_dispatcher
    try:
        ctx.body(node.body)
    finally:
        ctx.dispatcher_depth -= is_dispatcher
        ctx.scopes.pop()


def _tool_decorator_artifact(ctx: Context, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool | None:
    """None when no decorator is a tool decorator; else whether it declares
    ``response_format="content_and_artifact"``."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        qual = ctx.qualified_name(target) or dotted(target)
        if qual and (ctx.kind(qual) == DECORATOR or ctx.resolver.is_tool_decorator(qual)):
            return isinstance(decorator, ast.Call) and any(
                kw.arg == "response_format"
                and isinstance(kw.value, ast.Constant)
                and kw.value.value == "content_and_artifact"
                for kw in decorator.keywords
            )
    return None


def _is_tool_function(ctx: Context, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        qual = ctx.qualified_name(target) or dotted(target)
        if qual and (ctx.kind(qual) == DECORATOR or ctx.resolver.is_tool_decorator(qual)):
            return True
    return False


def _lambda(ctx: Context, node: ast.Lambda) -> None:
    _arguments_outside(ctx, node.args)
    scope = Scope("function", _qualname(ctx, "<lambda>"))
    for arg in _all_args(node.args):
        scope.names[arg.arg] = None
    ctx.scopes.append(scope)
    ctx.visit(node.body)
    ctx.scopes.pop()


def _arguments_outside(ctx: Context, args: ast.arguments) -> None:
    for default in (*args.defaults, *args.kw_defaults):
        if default is not None:
            ctx.visit(default)
    for arg in _all_args(args):
        if arg.annotation is not None:
            ctx.visit(arg.annotation)


def _bind_params(ctx: Context, scope: Scope, args: ast.arguments) -> None:
    for arg in _all_args(args):
        scope.names[arg.arg] = ctx.annotation_kind(arg.annotation) if arg.annotation is not None else None
    if args.vararg is not None:
        scope.names[args.vararg.arg] = None
        if args.vararg.annotation is not None and ctx.annotation_kind(args.vararg.annotation) == TOOL:
            scope.names[args.vararg.arg] = REGISTRY
    if args.kwarg is not None:
        scope.names[args.kwarg.arg] = None


def _qualname(ctx: Context, name: str) -> str:
    parts = [s.name for s in ctx.scopes[1:]]
    return ".".join([*parts, name])


def _is_dispatcher(ctx: Context, qualname: str) -> bool:
    if qualname.rpartition(".")[2] not in ctx.dispatcher_names:  # a match ends in the same name
        return False
    for module in (ctx.info.name, *ctx.info.aliases):
        full = f"{module}.{qualname}" if module else qualname
        if any(full == d or full.endswith("." + d) for d in ctx.dispatchers):
            return True
    return False


def _class(ctx: Context, node: ast.ClassDef) -> None:
    for decorator in node.decorator_list:
        ctx.visit(decorator)
    for base in node.bases:
        ctx.visit(base)
    for keyword in node.keywords:
        ctx.visit(keyword.value)
    enclosing = ctx.scopes[-1]
    scope = Scope("class", node.name)
    if enclosing.kind == "module":
        prefix = f"{ctx.info.name}." if ctx.info.name else ""
        scope.is_tool = ctx.kind(prefix + node.name) == CLASS
    else:
        scope.is_tool = any(ctx.kind_of(b.value if isinstance(b, ast.Subscript) else b) == CLASS for b in node.bases)
    # class-level declarations are visible as self.<attr> in every method, whatever the order
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            scope.attrs[stmt.target.id] = ctx.annotation_kind(stmt.annotation) or (
                ctx.kind_of(stmt.value) if stmt.value is not None else None
            )
        if scope.is_tool and _declares_content_and_artifact(stmt):
            # a LangChain tool class returning (content, artifact): only the content reaches the model
            scope.artifact = True
    if enclosing.kind == "function":
        enclosing.names[node.name] = CLASS if scope.is_tool else None
        enclosing.quals.pop(node.name, None)
        enclosing.classes.add(node.name)
    ctx.scopes.append(scope)
    try:
        ctx.body(node.body)
    finally:
        ctx.scopes.pop()


_RESPONSE_FORMAT = "response_format"
_CONTENT_AND_ARTIFACT = "content_and_artifact"


def _declares_content_and_artifact(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    else:
        return False
    return (
        any(isinstance(t, ast.Name) and t.id == _RESPONSE_FORMAT for t in targets)
        and isinstance(value, ast.Constant)
        and value.value == _CONTENT_AND_ARTIFACT
    )


def _all_args(args: ast.arguments) -> list[ast.arg]:
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


# ==================================================================== the handler table

_LEAVES = frozenset(
    {ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del, ast.Pass, ast.Break, ast.Continue, ast.Global,
     ast.Nonlocal, ast.alias, str, int, type(None), bool, bytes, float, complex, type(Ellipsis)}
    | {cls for base in (ast.operator, ast.unaryop, ast.cmpop, ast.boolop) for cls in base.__subclasses__()}
)  # fmt: skip
_NOT_CHILDREN = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "module", "level", "asname",
                           "type_comment", "kind", "conversion", "is_async", "names", "kwd_attrs"})  # fmt: skip
_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(node_type: type) -> tuple[str, ...]:
    fields = _FIELDS.get(node_type)
    if fields is None:
        names = getattr(node_type, "_fields", ())  # not a node (a constant's value): no children
        fields = _FIELDS[node_type] = tuple(f for f in names if f not in _NOT_CHILDREN)
    return fields


def _all_node_types(base: type = ast.AST) -> list[type]:
    out = []
    for sub in base.__subclasses__():
        out.append(sub)
        out.extend(_all_node_types(sub))
    return out


for _type in _all_node_types():  # filled once: the walk then looks fields up without a call
    _child_fields(_type)

_generic = Context.generic_visit
# unbound functions: a table of bound methods would make every Context a reference cycle
_HANDLERS: dict[type, Callable[[Context, Any], None]] = {
    ast.Attribute: _attribute,
    ast.keyword: _keyword_or_expr,
    ast.Expr: _keyword_or_expr,
    ast.Call: _call,
    ast.FunctionDef: _function,
    ast.AsyncFunctionDef: _function,
    ast.Lambda: _lambda,
    ast.ClassDef: _class,
    ast.Assign: _assign,
    ast.AnnAssign: _ann_assign,
    ast.AugAssign: _aug_assign,
    ast.For: _for,
    ast.AsyncFor: _for,
    ast.With: _with,
    ast.AsyncWith: _with,
    ast.Import: _import,
    ast.ImportFrom: _import,
    ast.Return: _return,
    ast.Yield: _yield,
    ast.YieldFrom: _yield,
    ast.NamedExpr: _named_expr,
    ast.ExceptHandler: _except,
    ast.ListComp: _comprehension,
    ast.SetComp: _comprehension,
    ast.GeneratorExp: _comprehension,
    ast.DictComp: _comprehension,
}
# node type -> handler; None: a leaf, skipped; a type not in the table: the generic walk
_DISPATCH: dict[type, Any] = {**dict.fromkeys(_LEAVES), **_HANDLERS}
_KIND_NODES = frozenset({ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.List, ast.Tuple, ast.Set, ast.Dict})
_DISPLAYS = (ast.List, ast.Tuple, ast.Set)
_PLAIN_TYPES = frozenset({"str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set", "object", "Any"})
