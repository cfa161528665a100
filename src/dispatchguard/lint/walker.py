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

Which hooks a rule declares (:data:`dispatchguard.lint.rule.HOOKS`: node types, tool classes,
tool methods, tool functions) and which files it skips are the rule's own business; the walk runs
the hooks of the rules it is given, grouped by ``rule.hooks_by_event``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from dispatchguard.lint.index import ITEM_METHODS, TOOL_RUN_METHODS, annotation_desc, dotted, made_by, options_only
from dispatchguard.lint.inference.flow import (
    argument_at,
    calls_by_callee,
    calls_same_function,
    chat_model_of,
    class_of_instance,
    constructor_parameter,
    parameter_position,
    registry_lookup_by_caller,
    rooted_in,
    tool_run_output,
)
from dispatchguard.lint.inference.module_returns import loop_value, top_level_values
from dispatchguard.lint.inference.returns import TEXTUAL_VERDICTS
from dispatchguard.lint.inference.tables import parse_deferred, union
from dispatchguard.lint.kinds import CLASS, DECORATOR, FACTORY, PLAIN_CLASS, REGISTRY, TOOL
from dispatchguard.lint.library import library_tool_list_method, tool_list_method_names
from dispatchguard.lint.modules import ModuleInfo
from dispatchguard.lint.resolve import TOOL_MEMBERS_DEP, Resolver
from dispatchguard.lint.rule import TOOL_CLASS, TOOL_FUNCTION, TOOL_METHOD, hooks_by_event
from dispatchguard.lint.scopes import FunctionInfo, Scope
from dispatchguard.lint.walk_handlers import HANDLERS, LEAVES

#: How many tables of functions of other modules one question follows at once.
_MAX_TABLES = 8
RawFinding = tuple[int, int, int, int, str, str]  # line, col (0-based, bytes), end_line, end_col, code, message


class Context:
    """The per-file state of the walk, and the rules' query API (see the module docstring)."""

    #: a call through a table of functions is judged here, with the whole project (not recorded)
    defers_tables = False

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
        self.tree: ast.Module | None = None
        self._call_sites: dict[str, list[ast.Call]] | None = None
        self.scopes: list[Scope] = [Scope("module", info.name)]
        self.functions: dict[str, FunctionInfo] = {}  # key -> info, for same-module calls
        self.tool_methods: list[FunctionInfo] = []
        events = hooks_by_event(rules)
        self.dispatch = _dispatch_table({k: tuple(c for _, c in v) for k, v in events.items() if isinstance(k, type)})
        self.tool_class_rules = [check for _, check in events.get(TOOL_CLASS, ())]
        self.method_rules = [(rule.tool_methods, check) for rule, check in events.get(TOOL_METHOD, ())]
        self.function_rules = [check for _, check in events.get(TOOL_FUNCTION, ())]
        self.tool_functions: list[FunctionInfo] = []
        self.tool_function_refs: list[tuple[str, bool]] = []  # (module-level name, artifact) given to a tool
        self.texts: dict[str, str] = {}  # module-level name -> the str constant it is bound to
        self.literals: dict[str, ast.expr | None] = {}  # module-level name -> its literal (None: rebound)
        self.module_values: dict[str, ast.expr] | None = None  # module-level name -> its one value
        self.tables_in_progress: set[str] = set()  # functions whose table is being judged
        self.wanted_methods = frozenset(name for names, _ in self.method_rules for name in names)
        self.dispatcher_depth = 0
        #: names bound by the enclosing loops over a model reply's tool calls (``for call in
        #: reply.tool_calls``): a tool run with one of them routes the model's call
        self.model_calls: list[str] = []
        #: the ``if`` bodies the walk is in that are routed by a name known only at run time: the
        #: names a tool was told apart by (``if tool.name == tool_name:``), and how many of them
        #: test the model's tool call being looped over (``if call["name"] == "send_email":``)
        self.named_by_caller: list[str] = []
        self.model_routed = 0
        #: ``(line, function)`` of each tool run this walk took for the project's dispatch point
        self.dispatch_points: set[tuple[int, str]] = set()
        self.created: list[FunctionInfo] = []
        # a member name -> the one toolkit tool so named (on a receiver of unknown type)
        self.member_named = resolver.source.tool_member
        self.callee_node: ast.Call | None = None
        self.callee_result: str | None = None

    # ================================================================ driving

    def run(self, tree: ast.Module) -> list[RawFinding]:
        """Walk the module and return its raw findings (line, 0-based byte col, end, code, message).

        Call rules run as the walk meets each call; tool-method and tool-function rules run once the
        whole module is walked. The lookups made are left in ``deps``, ``class_deps`` and ``return_deps``.
        """
        self.tree = tree
        # the toolkits' members as the walk starts: a later module that adds one, or a second
        # definition of one, makes the walk's result stale (revalidated as a whole)
        self.deps[TOOL_MEMBERS_DEP] = self.resolver.source.tool_members_stamp()
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
        """Hand ``node`` to its handler (``HANDLERS``: its effect on the walk's state), after the
        rules' node hooks for its type."""
        handler = self.dispatch.get(type(node), _generic)
        if handler is not None:
            handler(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        """Walk the children of a node no handler claims, each through its own handler; leaves are skipped."""
        # the hot loop of the checker: leaves (names, constants, contexts, operators) are skipped
        # without a call, one table lookup per child, and only fields that can hold nodes are read
        dispatch = self.dispatch
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
        """Walk a block's statements in order, each through its handler (bindings take effect in order)."""
        dispatch = self.dispatch
        for stmt in stmts:
            handler = dispatch.get(type(stmt), _generic)
            if handler is not None:
                handler(self, stmt)

    def report(self, node: ast.AST, code: str, message: str) -> None:
        """Record a finding of ``code`` spanning ``node``; ``# noqa`` is applied later, by ``checking``."""
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
        """The resolver's kind of ``qual`` (may load modules), recorded in ``deps`` for revalidation."""
        k = self.resolver.kind(qual)
        self.deps[qual] = k
        return k

    def is_class(self, qual: str) -> bool:
        """Whether ``qual`` is a tool class or a plain class (the resolver's ``full_kind``, which may load
        modules), recorded in ``class_deps``.
        """
        k = self.resolver.full_kind(qual)
        self.class_deps[qual] = k
        return k in (CLASS, PLAIN_CLASS)

    @property
    def function(self) -> FunctionInfo | None:
        """The innermost function the walk is in (a comprehension's or a lambda's is the function
        around it); None at module level and in a top-level class body."""
        for scope in reversed(self.scopes):
            if scope.fn is not None:
                return scope.fn
        return None

    @property
    def in_dispatcher(self) -> bool:
        """Whether the walk is inside a configured dispatcher function (where tools may be run)."""
        return self.dispatcher_depth > 0

    def module_function(self, qual: str) -> FunctionInfo | None:
        """A function of this module, or a method of one of its top-level classes (``Class.name``)."""
        prefix = f"{self.info.name}." if self.info.name else ""
        if qual.startswith(prefix) and qual[len(prefix) :].count(".") <= 1:
            return self.functions.get(qual[len(prefix) :])
        return None

    def is_runtime_lookup(self, node: ast.AST) -> bool:
        """Whether ``node`` takes a tool out of a registry by a key known only at run time
        (:func:`.inference.flow.registry_lookup_by_caller`), or is a tool told apart by such a name
        in the ``if`` around (``if tool.name == tool_name: tool.run(...)``): the project's own
        dispatch point, detected when no ``dispatchers`` are configured."""
        if self.resolver.config.dispatchers_configured:
            return False
        named = isinstance(node, ast.Name) and (node.id in self.named_by_caller or self._picked(node.id))
        return self._dispatch_point(
            node, named or registry_lookup_by_caller(self, node, self.function, self.model_calls)
        )

    def _picked(self, name: str) -> bool:
        """Whether a local name holds the tool an ``if`` told apart by a run-time name (``for tool
        in tools: if tool.name == tool_name: found = tool``, then ``found.invoke(...)``)."""
        scope = self.scopes[-1]
        return scope.kind == "function" and name in scope.picked

    def _dispatch_point(self, node: ast.AST, found: bool) -> bool:
        if found:
            fn = self.function
            self.dispatch_points.add((node.lineno, fn.qualname if fn is not None else "<module>"))  # type: ignore[attr-defined]
        return found

    def routes_model_call(self, node: ast.Call) -> bool:
        """Whether a call passes the model's tool call it is looping over (``convert.invoke(call)``,
        ``tool.run(**call["args"])``), or is in an ``if`` that tests that call's name (``if
        call["name"] == "send_email": send_email.invoke(args)``): the project's own dispatch point,
        detected when no ``dispatchers`` are configured."""
        if not self.model_calls or self.resolver.config.dispatchers_configured:
            return False
        if self.model_routed:
            return self._dispatch_point(node, True)
        values = [*node.args, *(k.value for k in node.keywords)]
        return self._dispatch_point(node, any(rooted_in(v, self.model_calls) for v in values))

    @property
    def own_dispatchers(self) -> tuple[str, ...]:
        """The project's configured dispatchers (dispatchguard's own left out), for messages."""
        return self.resolver.config.own_dispatchers

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

    def local_function(self, fn: FunctionInfo, name: str) -> FunctionInfo | None:
        """The function defined as ``name`` in the body of ``fn`` (``def helper(): ...`` then
        ``return helper()``), when that ``def`` is the name's only binding there; else None."""
        own = fn.scopes[-1] if fn.scopes else None
        found = own.functions.get(name) if own is not None else None
        return found if found is not None and name not in fn.assigns and name not in own.quals else None

    def method(self, fn: FunctionInfo, name: str) -> FunctionInfo | None:
        """The method ``name`` of ``fn``'s class, as walked in this module (for a function defined
        inside a method, that method's class: its ``self`` is the method's); None otherwise."""
        class_name = fn.class_name
        if class_name is None and fn.scopes and "self" not in fn.scopes[-1].names:
            class_name = next((s.name for s in reversed(fn.scopes) if s.kind == "class"), None)
        return self.functions.get(f"{class_name}.{name}") if class_name is not None else None

    def instance_method(self, node: ast.AST, name: str, fn: FunctionInfo) -> FunctionInfo | None:
        """The method ``name`` of this module's class whose instance ``node`` is (a local or a
        module-level name bound only to a call of the class, a ``self`` attribute built by one or
        annotated with it, an annotated parameter: ``self._webhook = WebhookTool(url)`` then
        ``self._webhook._run(...)``); None otherwise."""
        info = self.info
        prefix = f"{info.name}." if info.name else ""

        def defined_here(qual: str) -> bool:
            local = qual[len(prefix) :] if qual.startswith(prefix) else None
            descs = info.defs.get(local) if local else None
            return bool(descs) and local not in info.imports and all(d[0] == "class" for d in descs)  # type: ignore[union-attr]

        cls = class_of_instance(self, node, fn, defined_here)
        return self.functions.get(f"{cls[len(prefix):]}.{name}") if cls is not None else None

    def instance_method_returns(self, node: ast.AST, name: str, fn: FunctionInfo) -> str | None:
        """What the method ``name`` of a project class of another module whose instance ``node`` is
        returns, as that module's summary records it (``self._oauth = OAuthDraftTool()`` imported,
        then ``self._oauth._run(...)``); None when unknown. Only run methods are recorded."""
        if name not in TOOL_RUN_METHODS:
            return None
        resolver = self.resolver
        info = self.info

        def project_class(qual: str) -> bool:
            return not qual.startswith(f"{info.name}.") and not resolver.outside(qual) and self.is_class(qual)

        cls = class_of_instance(self, node, fn, project_class)
        return self.function_returns(f"{cls}.{name}") if cls is not None else None

    def function_returns(self, qual: str, constants: dict[int | str, str] | None = None) -> str | None:
        """Another module's function verdict (JSON, NEVER, a description, or None when unknown), from its
        summary through the resolver (which may load modules); memoised in ``return_deps``. A summary
        that records a call through a table of functions (:class:`.inference.tables.Deferred`) gives
        the union of what those functions return, each asked here (and so recorded too), and of
        the function's other returns; a table keyed by a parameter to which the call passes a
        constant (``constants``, by position or keyword) gives only the functions under that key.
        """
        try:
            verdict = self.return_deps[qual]
        except KeyError:
            verdict = self.return_deps[qual] = self.resolver.function_returns(qual)
        table = parse_deferred(verdict) if verdict is not None else None
        if table is None:
            return verdict
        if qual in self.tables_in_progress or len(self.tables_in_progress) > _MAX_TABLES:
            return None
        self.tables_in_progress.add(qual)
        try:
            quals = self.resolver.written_in_module_of(qual, table.chosen(constants))
            verdicts = [self.function_returns(q) if q is not None else None for q in quals]
        finally:
            self.tables_in_progress.discard(qual)
        return union(table.table, [*verdicts, *table.also], TEXTUAL_VERDICTS)

    def module_text(self, name: str) -> str | None:
        """The str constant a module-level name is bound to, as the walk has seen so far; else None."""
        return self.texts.get(name)

    def declared_returns(self, qual: str) -> str | None:
        """What a function outside the project declares it returns, when that is not JSON text
        (:mod:`.inference.declared`: typeshed, the environment's stubs and sources)."""
        return self.resolver.declared.function_returns(qual) if self.resolver.outside(qual) else None

    def method_returns(self, class_qual: str, method: str) -> str | None:
        """What a method of a class outside the project declares it returns, when not JSON text; else None."""
        return self.resolver.declared.method_returns(class_qual, method)

    def instance_class(self, node: ast.AST, fn: FunctionInfo) -> str | None:
        """The class outside the project that ``node`` is an instance of
        (:func:`.inference.flow.class_of_instance`)."""
        return class_of_instance(self, node, fn)

    def instance_of(self, node: ast.AST, fn: FunctionInfo, makers: frozenset[str]) -> str | None:
        """Which of ``makers`` (classes or factory functions, qualified) made the value of ``node``
        (:func:`.inference.flow.class_of_instance`)."""
        return class_of_instance(self, node, fn, makers.__contains__)

    def chat_model(self, node: ast.AST, fn: FunctionInfo) -> str | None:
        """The chat model class outside the project ``node`` is an instance of
        (:func:`.inference.flow.chat_model_of`)."""
        return chat_model_of(self, node, fn)

    def attribute_value(self, node: ast.AST, fn: FunctionInfo) -> ast.expr | None:
        """The call that builds ``self.<attr>`` or the annotation that declares it, in ``fn``'s class
        (what the walk recorded: ``self.llm = ChatOpenAI(...)``, ``llm: ChatOpenAI = ...``); else None."""
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"):
            return None
        cls = next((s for s in reversed(fn.scopes) if s.kind == "class"), None)
        return cls.attr_types.get(node.attr) if cls is not None else None

    def module_value(self, name: str) -> ast.expr | None:
        """The value of a module-level name's only binding, a plain assignment at the top level."""
        if self.module_values is None:
            self.module_values = top_level_values(self.tree.body if self.tree is not None else [])
        return self.module_values.get(name)

    def tool_output(self, node: ast.AST, method: str, fn: FunctionInfo) -> str | None:
        """What running the library tool ``node`` with ``method`` gives, when not JSON text
        (:func:`.inference.flow.tool_run_output`)."""
        return tool_run_output(self, node, method, fn)

    def module_literal(self, name: str) -> ast.expr | None:
        """The literal (a str constant, a list, dict, set or tuple display) a module-level name is
        bound to, when that is its only module-level binding so far."""
        return self.literals.get(name)

    def qualified_name(self, node: ast.AST, fn: FunctionInfo | None = None) -> str | None:
        """The qualified name of a Name/Attribute chain, or None (locals, builtins, unknown)."""
        name = dotted(node)
        return None if name is None else self.qual_of_name(name, fn.scopes if fn is not None else None)

    def qual_of_name(self, name: str, scopes: list[Scope] | None = None) -> str | None:
        """The qualified name of a dotted ``name`` seen from ``scopes`` (default: the walk's position).

        A function's local import gives its target; any other local binding gives None; else the
        module's imports and definitions tell (None for builtins and unknown names).
        """
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
        """The kind of a bare name at the walk's position: a function's local binding, a module-level
        name only the walk binds (a loop's), else the module's binding through the resolver
        (recorded in ``deps``); else a tool class only if a bare base.
        """
        for scope in reversed(self.scopes):
            if scope.kind == "function" and name in scope.names:
                return scope.names[name]
        module = self.scopes[0].names
        if name in module:  # bound by the walk at module level, not by the index (a loop's)
            return module[name]
        qual = self.resolver.local_qual(self.info, name)
        if qual is not None:
            return self.kind(qual)
        return self.resolver.external_bare(name)

    def filled_with_tools(self, name: str) -> bool:
        """Whether ``name`` is a parameter of the current function that every call of it in this
        module fills with a tool (``run_tool(search, q)``, ``self.ask(SearchTool(), q)``): a tool
        passed in, not looked up by a run-time key. Asked only of run-method receivers."""
        fn = self.function
        if fn is None or self.tree is None:
            return False
        fn = self._parameter_owner(fn, name)
        position = parameter_position(fn.node, name, is_method=fn.class_name is not None) if fn else None
        if fn is None or position is None:
            return False
        callee = fn.qualname.rpartition(".")[2]
        sites = [c for c in self.calls_of(callee) if calls_same_function(c, fn.class_name is not None)]
        return self._every_argument_a_tool(sites, position, name)

    def _parameter_owner(self, fn: FunctionInfo, name: str) -> FunctionInfo | None:
        """The function whose parameter ``name`` is, seen from ``fn``: ``fn`` itself, or the
        enclosing function of a closure that does not bind it itself (``def make_node(tool): def
        node(state): return tool.invoke(...)``)."""
        args = fn.node.args  # type: ignore[attr-defined]
        if any(a.arg == name for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)):
            return fn
        if fn.assigns.get(name) or not fn.scopes:
            return None
        for scope in reversed(fn.scopes[:-1]):
            outer = scope.fn
            if scope.kind != "function" or outer is None or outer is fn:
                continue
            if outer.node is not None and any(
                a.arg == name for a in (*outer.node.args.posonlyargs, *outer.node.args.args)  # type: ignore[attr-defined]
            ):
                return outer
            if name in scope.names or name in scope.quals:
                return None
        return None

    def attribute_filled_with_tools(self, attr: str) -> bool:
        """Whether ``self.attr`` of the current class is set in ``__init__`` from a parameter that
        every call of the class in this module fills with a tool (``Agent(search)``)."""
        scope = self.class_scope()
        if scope is None or self.tree is None:
            return False
        cls = next((s for s in self.tree.body if isinstance(s, ast.ClassDef) and s.name == scope.name), None)
        found = constructor_parameter(cls, attr) if cls is not None else None
        if found is None:
            return False
        init, parameter = found
        position = parameter_position(init, parameter, is_method=True)
        sites = [c for c in self.calls_of(scope.name) if isinstance(c.func, ast.Name)]
        return position is not None and self._every_argument_a_tool(sites, position, parameter)

    def calls_of(self, name: str) -> list[ast.Call]:
        """The calls of ``name`` (or of ``self.name``) in this module, indexed on the first question."""
        if self._call_sites is None:
            self._call_sites = calls_by_callee(self.tree) if self.tree is not None else {}
        return self._call_sites.get(name, [])

    def _every_argument_a_tool(self, sites: list[ast.Call], position: int, name: str) -> bool:
        return bool(sites) and all(self._module_level_kind(argument_at(c, position, name)) == TOOL for c in sites)

    def _module_level_kind(self, node: ast.AST | None) -> str | None:
        """A call site's argument as the module sees it: a tool built right there, or a name or
        attribute of the module (locals of the calling function are not read)."""
        if isinstance(node, ast.Call):
            qual = self.resolver.local_qual(self.info, dotted(node.func) or "")
            return self.resolver.result_of_call(qual, self.kind, options_only(node)) if qual else None
        spelled = dotted(node) if node is not None else None
        qual = self.resolver.local_qual(self.info, spelled) if spelled else None
        return self.kind(qual) if qual is not None else None

    def class_scope(self) -> Scope | None:
        """The class whose method we are directly in (for ``self.attr``)."""
        for scope in reversed(self.scopes):
            if scope.kind == "class":
                return scope
        return None

    def kind_of(self, node: ast.AST) -> str | None:
        """What an expression is (:mod:`.kinds`, or None): names, attributes (``self.x`` from the class's
        attributes), calls by what they give, an item of a registry, a display of tools.
        """
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
            return self.kind(qual) if qual is not None else self.tool_member(node)  # type: ignore[arg-type]
        if isinstance(node, ast.Call):
            return self.call_result_kind(node)
        if node_type is ast.Await:  # an awaited call gives what the coroutine returns
            return self.kind_of(node.value)  # type: ignore[attr-defined]
        if isinstance(node, ast.Subscript):
            return TOOL if self.kind_of(node.value) == REGISTRY else None
        if node_type in _COMPREHENSIONS:
            return self._comprehension_kind(node)  # type: ignore[arg-type]
        # a display of tools, as the index reads a module-level one (``["coll", ...]``)
        items = node.elts if isinstance(node, _DISPLAYS) else node.values  # type: ignore[attr-defined]
        return REGISTRY if any(self.kind_of(item) == TOOL for item in items) else None

    def tool_member(self, node: ast.Attribute) -> str | None:
        """A tool, for ``x.name`` where ``name`` is the member name of one toolkit's tool and of
        nothing else the project or its libraries define (:meth:`Project.tool_member`), and ``x`` is
        not known to be anything (a toolkit handed in from another module:
        ``self.toolkit.get_google_news``). The member's kind is recorded in ``deps``."""
        qual = self.member_named(node.attr)
        if qual is None or self.kind_of(node.value) is not None:
            return None
        return self.kind(qual)

    def _comprehension_kind(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> str | None:
        """A registry for a comprehension that keeps the tools of one: ``{t.name: t for t in tools}``,
        ``[t for t in tools if ...]``, ``{k: v for k, v in REG.items()}``, ``[v for v in REG.values()]``."""
        element = node.value if isinstance(node, ast.DictComp) else node.elt
        if len(node.generators) != 1 or not isinstance(element, ast.Name):
            return None
        target, iterable = node.generators[0].target, node.generators[0].iter
        found = loop_value(target, iterable)  # a value of a mapping: an item of it
        if found is not None:
            name, item = found
            return REGISTRY if name.id == element.id and self.kind_of(item) == TOOL else None
        if isinstance(target, ast.Name) and target.id == element.id:
            return REGISTRY if self.kind_of(iterable) == REGISTRY else None
        return None

    def is_tool_constructor(self, func: ast.Attribute) -> bool:
        """Whether ``func`` is a classmethod constructor of a tool class (``Tool.from_function``,
        CrewAI's ``Tool.from_langchain``): calling it builds a tool of that class."""
        return func.attr.startswith("from_") and self.kind_of(func.value) == CLASS

    def call_result_kind(self, node: ast.Call) -> str | None:
        """What a call gives; a tool decorator called with options only (``tool("name")``,
        ``tool(**options)``) gives a decorator, not a tool (the index's rule for module-level
        bindings: :func:`~dispatchguard.lint.index.options_only`)."""
        func = node.func
        qual = self.qualified_name(func)
        if qual is not None:
            made = self.resolver.result_of_call(qual, self.kind, options_only(node))
            return made if made is not None else self._library_tool_list(func)
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls") and self._method_makes(func.attr):
                return TOOL
            if self._library_tool_list(func):
                return REGISTRY
            if func.attr in ITEM_METHODS:
                return TOOL if self.kind_of(func.value) == REGISTRY else None
            if func.attr.startswith("from_"):
                return TOOL if self.is_tool_constructor(func) else None
        elif isinstance(func, ast.Name) and func.id == "getattr" and len(node.args) >= 2:
            member = node.args[1]  # ``getattr(toolkit, "get_google_news")``
            if isinstance(member, ast.Constant) and isinstance(member.value, str):
                return self.tool_member(ast.Attribute(value=node.args[0], attr=member.value))
        k = self.kind_of(func)
        if k == DECORATOR:
            return DECORATOR if options_only(node) else TOOL
        return TOOL if k == CLASS else None

    def _library_tool_list(self, func: ast.AST) -> str | None:
        """A registry, for a method a library declares to return tools called on an instance of
        its class (``toolkit.get_tools()``, ``await client.get_tools()`` of ``MultiServerMCPClient``)."""
        if not isinstance(func, ast.Attribute) or func.attr not in tool_list_method_names():
            return None
        attr = func.attr
        found = class_of_instance(self, func.value, self.function, lambda q: library_tool_list_method(q, attr))
        return REGISTRY if found is not None else None

    def _method_makes(self, name: str) -> bool:
        """Whether every return of the class's method ``name`` makes a tool (``index.made_by``:
        ``return SearchTool()``, ``@tool def search(...)`` then ``return search``)."""
        cls = self.class_scope()
        if cls is None or name not in cls.methods:
            return False
        made = cls.makers.get(name)
        if made is None:
            made = cls.makers[name] = made_by(cls.methods[name])
        return bool(made) and made[0] == "makes" and all(self._made_kind(desc) == TOOL for desc in made[1])

    def _made_kind(self, desc: list) -> str | None:
        """The kind of a value a method makes (a ``made_by`` descriptor), its lookups recorded in ``deps``."""
        resolver, info = self.resolver, self.info
        tag = desc[0]
        if tag == "def":
            quals = [resolver.local_qual(info, d) or d for d in desc[1]]
            decorated = any(self.kind(q) in (DECORATOR, FACTORY) or resolver.is_tool_decorator(q) for q in quals)
            return TOOL if decorated else None
        qual = resolver.local_qual(info, desc[1])
        if qual is None:
            return None
        if tag == "call":
            return resolver.result_of_call(qual, self.kind, len(desc) > 2 and desc[2] == "options")
        return self.kind(qual) if tag == "ref" else None

    def callee_kind(self, node: ast.Call) -> str | None:
        """``kind_of(node.func)``, computed once per call however many rules ask; but a toolkit's
        member reached only by its name (:meth:`tool_member`) is no tool when it is called as a
        method: any library's client may have a method so named (``es.search(index=...)``), and
        only the project's own definitions are counted."""
        if self.callee_node is not node:
            self.callee_node = node
            func = node.func
            # such a callee could only be a tool by its member name: not asked (a focused run would
            # read every file of the project to answer it)
            self.callee_result = None if self._member_by_name_only(func) else self.kind_of(func)
        return self.callee_result

    def _member_by_name_only(self, node: ast.expr) -> bool:
        """Whether ``kind_of(node)`` knows ``node`` only as a toolkit's member name on a receiver
        of unknown type (:meth:`tool_member`)."""
        if not isinstance(node, ast.Attribute) or self.qualified_name(node) is not None:
            return False
        value = node.value
        return not (isinstance(value, ast.Name) and value.id in ("self", "cls") and self.class_scope() is not None)

    def annotation_kind(self, annotation: ast.AST | None) -> str | None:
        """The kind of a value annotated so: a tool for an instance of a tool class, a registry for a
        container of them, a tool class for ``type[...]`` of one; None otherwise (or no annotation).
        """
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


# ==================================================================== the handler table

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
# node type -> handler; None: a leaf, skipped; a type not in the table: the generic walk
_DISPATCH: dict[type, Any] = {**dict.fromkeys(LEAVES), **HANDLERS}
_TABLES: dict[tuple, dict[type, Any]] = {}


def _dispatch_table(node_hooks: dict[type, tuple[Any, ...]]) -> dict[type, Any]:
    """``_DISPATCH`` with the rules' node hooks run before each hooked type's handler (a leaf's:
    instead of nothing); one table per set of hooks, made once."""
    key = tuple(node_hooks.items())
    table = _TABLES.get(key)
    if table is None:
        table = dict(_DISPATCH)
        for node_type, checks in node_hooks.items():
            table[node_type] = _hooked(checks, _DISPATCH.get(node_type, _generic))
        _TABLES[key] = table
    return table


def _hooked(checks: tuple[Any, ...], handler: Any) -> Any:
    def visit(ctx: Context, node: ast.AST) -> None:
        for check in checks:
            check(ctx, node)
        if handler is not None:
            handler(ctx, node)

    return visit


_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
_KIND_NODES = frozenset(
    {ast.Name, ast.Attribute, ast.Call, ast.Await, ast.Subscript, ast.List, ast.Tuple, ast.Set, ast.Dict}
) | _COMPREHENSIONS
_DISPLAYS = (ast.List, ast.Tuple, ast.Set)
_PLAIN_TYPES = frozenset({"str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set", "object", "Any"})
