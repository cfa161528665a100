"""The walk's handlers: what each kind of statement and expression does to the walker's state
(bindings, scopes, tool functions) before the rules see it. ``HANDLERS`` maps node types to them;
the walker (``Context.visit``) dispatches through it, handing itself as a :class:`WalkState`."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from dispatchguard.lint.index import dotted, import_bindings
from dispatchguard.lint.inference.flow import (
    caller_given,
    model_call_target,
    name_comparisons,
    rooted_in,
    run_time_key,
)
from dispatchguard.lint.inference.module_returns import loop_value
from dispatchguard.lint.kinds import CLASS, DECORATOR, FACTORY, REGISTRY, TOOL
from dispatchguard.lint.scopes import FunctionInfo, Scope

if TYPE_CHECKING:
    from dispatchguard.lint.modules import ModuleInfo
    from dispatchguard.lint.resolve import Resolver


class WalkState(Protocol):
    """The walker's state the handlers read and update (the walker's ``Context`` is it): named
    here so that the handlers and the walker that dispatches to them do not import each other."""

    resolver: Resolver
    info: ModuleInfo
    scopes: list[Scope]
    functions: dict[str, FunctionInfo]
    created: list[FunctionInfo]
    tool_methods: list[FunctionInfo]
    tool_functions: list[FunctionInfo]
    tool_function_refs: list[tuple[str, bool]]
    texts: dict[str, str]
    literals: dict[str, ast.expr | None]
    wanted_methods: frozenset[str]
    tool_class_rules: list[Callable[..., None]]
    function_rules: list[Callable[..., None]]
    dispatchers: tuple[str, ...]
    dispatcher_names: frozenset[str]
    dispatcher_depth: int
    model_calls: list[str]
    named_by_caller: list[str]
    model_routed: int

    @property
    def function(self) -> FunctionInfo | None:
        """The innermost function the walk is in."""

    def visit(self, node: ast.AST) -> None:
        """Walk a node through its handler."""

    def generic_visit(self, node: ast.AST) -> None:
        """Walk a node's children."""

    def body(self, stmts: list[ast.stmt]) -> None:
        """Walk a list of statements."""

    def kind(self, qual: str) -> str | None:
        """The kind of a qualified name."""

    def kind_of(self, node: ast.AST) -> str | None:
        """What an expression is."""

    def callee_kind(self, node: ast.Call) -> str | None:
        """What a call's callee is."""

    def annotation_kind(self, annotation: ast.AST | None) -> str | None:
        """What an annotation says a value is."""

    def element_kind(self, iterable: ast.AST) -> tuple[str | None, str | None]:
        """What the items (and values) of an iterable are."""

    def class_scope(self) -> Scope | None:
        """The class whose method the walk is directly in."""

    def qualified_name(self, node: ast.AST, fn: FunctionInfo | None = None) -> str | None:
        """The dotted name ``node`` refers to."""

#: Node types the walk never enters (names, constants, operators).
LEAVES = frozenset(
    {ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del, ast.Pass, ast.Break, ast.Continue, ast.Global,
     ast.Nonlocal, ast.alias, str, int, type(None), bool, bytes, float, complex, type(Ellipsis)}
    | {cls for base in (ast.operator, ast.unaryop, ast.cmpop, ast.boolop) for cls in base.__subclasses__()}
)  # fmt: skip


def _call(ctx: WalkState, node: ast.Call) -> None:
    # the rules' call hooks ran before (the walker's node hooks)
    if ctx.function_rules:
        _tool_function_refs(ctx, node)
    ctx.generic_visit(node)


_FUNCTION_KEYWORDS = frozenset({"func", "coroutine"})


def _tool_function_refs(ctx: WalkState, node: ast.Call) -> None:
    """Record the functions a call makes into tools: ``Tool(func=f)``, ``StructuredTool.from_function(f)``
    and ``tool(f)`` (a tool decorator called on a function, or on a method of the class:
    ``tool("name", description=...)(self._action)``)."""
    named = _tool_function_args(ctx, node)
    if not named:
        return
    artifact = any(
        kw.arg == "response_format" and isinstance(kw.value, ast.Constant) and kw.value.value == "content_and_artifact"
        for kw in node.keywords
    )
    for value in named:
        _record_tool_function(ctx, node, value, artifact)


def _tool_function_args(ctx: WalkState, node: ast.Call) -> list[ast.expr]:
    """The arguments of a call that it makes tools of: ``func=``/``coroutine=`` of a tool class or a
    tool decorator, the first positional one of a tool class's ``from_function``, the first two of
    a tool decorator; none when the call makes no tool (the cheap test of its arguments first)."""
    named = [kw.value for kw in node.keywords if kw.arg in _FUNCTION_KEYWORDS]
    if not named and not any(isinstance(arg, ast.Name) or _own_method(arg) for arg in node.args[:2]):
        return []
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "from_function":
        return [*named, *node.args[:1]] if ctx.kind_of(func.value) == CLASS else []
    callee = ctx.callee_kind(node)
    if callee == DECORATOR:
        return [*named, *node.args[:2]]
    return named if callee == CLASS else []


def _record_tool_function(ctx: WalkState, node: ast.Call, value: ast.expr, artifact: bool) -> None:
    """Record one function the call ``node`` makes a tool: a name (a function defined in the
    function building the tools, or a reference the walk resolves later), ``self.method`` of a
    top-level class, or a lambda."""
    if isinstance(value, ast.Name):
        local = _local_function(ctx, value.id)
        if local is not None:  # a function defined in the function building the tools
            local.artifact = local.artifact or artifact
            ctx.tool_functions.append(local)
        else:
            ctx.tool_function_refs.append((value.id, artifact))
    elif _own_method(value):  # a method of a top-level class, named as the walk keys it
        cls = ctx.class_scope()
        if cls is not None and len(ctx.scopes) >= 2 and ctx.scopes[1] is cls:
            ctx.tool_function_refs.append((f"{cls.name}.{value.attr}", artifact))  # type: ignore[attr-defined]
    elif isinstance(value, ast.Lambda):  # ``Tool(func=lambda city: weather(city))``
        ctx.tool_functions.append(_lambda_function(ctx, value, artifact, _tool_name(node)))


def _tool_name(node: ast.Call) -> str:
    """The literal name a call gives the tool it builds (``name="Weather"``, or ``Tool("Weather", ...)``)."""
    name = next((kw.value for kw in node.keywords if kw.arg == "name"), node.args[0] if node.args else None)
    return name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value else ""


def _lambda_function(ctx: WalkState, node: ast.Lambda, artifact: bool, tool_name: str) -> FunctionInfo:
    """A lambda made a tool, as a function whose one ``return`` is its body, seen from where it is;
    named after the tool when the call names it (what the model sees), else ``<lambda>``."""
    returned = ast.Return(value=node.body)
    ast.copy_location(returned, node.body)
    name = tool_name or "<lambda>"
    as_def = ast.FunctionDef(name=name, args=node.args, body=[returned], decorator_list=[], returns=None)
    ast.copy_location(as_def, node)
    fn = FunctionInfo(as_def, _qualname(ctx, name), None)
    scope = Scope("function", fn.qualname)
    for arg in _all_args(node.args):
        scope.names[arg.arg] = None
    scope.fn = fn
    fn.scopes = [*ctx.scopes, scope]
    fn.returns.append(returned)
    fn.artifact = artifact
    ctx.created.append(fn)
    return fn


def _own_method(node: ast.AST) -> bool:
    """``self.name``: a method of the class the walk is in."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _local_function(ctx: WalkState, name: str) -> FunctionInfo | None:
    """The function a name is bound to by a ``def`` in an enclosing function, if it is not rebound."""
    for scope in reversed(ctx.scopes):
        if scope.kind == "function" and name in scope.names:
            return scope.functions.get(name)
    return None


def _record_attr_type(ctx: WalkState, target: ast.AST, typed: ast.expr) -> None:
    """What class a tool's attribute holds: a class-level annotation (``exa: Exa``, a pydantic
    field) or ``self.x: T`` / ``self.x = T(...)`` in a method."""
    scope = ctx.scopes[-1]
    if scope.kind == "class" and isinstance(target, ast.Name):
        scope.attr_types[target.id] = typed
    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        cls = ctx.class_scope()
        if cls is not None and target.attr not in cls.attr_types:
            cls.attr_types[target.attr] = typed


def _bind(ctx: WalkState, target: ast.AST, kind: str | None, value: ast.AST | None) -> None:
    """Bind an assignment's target (of ``kind``, to ``value`` when known), by the target's kind."""
    binder = _BINDERS.get(type(target))
    if binder is not None:
        binder(ctx, target, kind, value)


def _bind_name(ctx: WalkState, target: ast.Name, kind: str | None, value: ast.AST | None) -> None:
    scope = ctx.scopes[-1]
    if scope.kind == "function":
        _bind_local(ctx, scope, target.id, kind, value)
    elif scope.kind == "class":
        scope.attrs[target.id] = kind if kind is not None else scope.attrs.get(target.id)
    elif target.id not in ctx.info.defs and target.id not in ctx.info.imports:
        # a module-level name the index does not bind (a loop's: ``for tool in TOOLS:``, in
        # scripts and notebooks): the walk knows it from here on
        scope.names[target.id] = kind


def _bind_local(ctx: WalkState, scope: Scope, name: str, kind: str | None, value: ast.AST | None) -> None:
    """A name bound in a function: its kind, whether it holds a tool name the caller picked, and the
    value among the function's assignments of it."""
    scope.names[name] = kind
    scope.quals.pop(name, None)
    scope.classes.discard(name)
    if isinstance(value, ast.Name) and (value.id in ctx.named_by_caller or value.id in scope.picked):
        scope.picked.add(name)
    elif scope.picked:
        scope.picked.discard(name)
    if scope.fn is not None:
        scope.fn.assigns.setdefault(name, []).append(value)


def _bind_attribute(ctx: WalkState, target: ast.Attribute, kind: str | None, value: ast.AST | None) -> None:
    """``obj.attr = value``: the class an attribute holds (or the chain: ``prompt | llm | parser``),
    and the kind of ``self.attr``."""
    if isinstance(value, (ast.Call, ast.BinOp)):
        _record_attr_type(ctx, target, value)
    if isinstance(target.value, ast.Name) and target.value.id == "self" and kind is not None:
        cls = ctx.class_scope()
        if cls is not None:
            cls.attrs[target.attr] = kind


def _bind_elements(ctx: WalkState, target: ast.Tuple | ast.List, kind: str | None, value: ast.AST | None) -> None:
    """``a, b = ...``: each name its own value when the value is a display of as many (no starred
    item), else unknown."""
    values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
    if values is not None and len(values) == len(target.elts) and not any(
        isinstance(v, ast.Starred) for v in (*values, *target.elts)
    ):  # ``name, args = call["name"], call["args"]``: each name its own value
        for elt, item in zip(target.elts, values, strict=True):
            _bind(ctx, elt, ctx.kind_of(item), item)
    else:
        for elt in target.elts:
            _bind(ctx, elt, None, None)


def _bind_starred(ctx: WalkState, target: ast.Starred, kind: str | None, value: ast.AST | None) -> None:
    _bind(ctx, target.value, None, None)


_BINDERS: dict[type[ast.AST], Callable[[WalkState, Any, str | None, ast.AST | None], None]] = {
    ast.Name: _bind_name,
    ast.Attribute: _bind_attribute,
    ast.Tuple: _bind_elements,
    ast.List: _bind_elements,
    ast.Starred: _bind_starred,
}


def _assign(ctx: WalkState, node: ast.Assign) -> None:
    ctx.visit(node.value)
    kind = ctx.kind_of(node.value)
    if ctx.scopes[-1].kind == "module":
        _module_binding(ctx, node)
    for target in node.targets:
        if not isinstance(target, ast.Name):
            ctx.visit(target)
        _bind(ctx, target, kind, node.value)


def _module_binding(ctx: WalkState, node: ast.Assign) -> None:
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


def _ann_assign(ctx: WalkState, node: ast.AnnAssign) -> None:
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


def _aug_assign(ctx: WalkState, node: ast.AugAssign) -> None:
    ctx.visit(node.value)
    if not isinstance(node.target, ast.Name):
        ctx.visit(node.target)
    # the statement stands for the new value (``x += y``: what x was, then y): the rules see it
    _bind(ctx, node.target, None, node)


def _for(ctx: WalkState, node: ast.For | ast.AsyncFor) -> None:
    ctx.visit(node.iter)
    element, second = ctx.element_kind(node.iter)
    _bind_loop_target(ctx, node.target, element, second, node.iter)
    _note_requested(ctx, node, element)
    model_call = model_call_target(node, ctx.function)
    if model_call is not None:
        ctx.model_calls.append(model_call)
    ctx.body(node.body)
    if model_call is not None:
        ctx.model_calls.pop()
    ctx.body(node.orelse)


def _note_requested(ctx: WalkState, node: ast.For | ast.AsyncFor, element: str | None) -> None:
    """Note a loop variable that holds the calls the caller gave (``for call in tool_calls``, ``for
    action in actions`` of ``self.agent.plan(...)``), not tools nor the items of a registry: a tool
    looked up by its name is a requested call run (:func:`.inference.flow.requested_name`)."""
    fn = ctx.function
    if fn is None:
        return
    target, iterable = node.target, node.iter
    if isinstance(target, ast.Tuple) and len(target.elts) == 2:  # ``for i, call in enumerate(calls)``
        target = target.elts[1]
    if not isinstance(target, ast.Name):
        return
    if element is None and caller_given(iterable, fn) and ctx.kind_of(iterable) is None:
        fn.requested.add(target.id)
    else:
        fn.requested.discard(target.id)


def _if(ctx: WalkState, node: ast.If) -> None:
    ctx.visit(node.test)
    named, routed = _routed_by_name(ctx, node.test) if type(node.test) in _NAME_TESTS else ((), False)
    if not (named or routed):
        ctx.body(node.body)
        ctx.body(node.orelse)
        return
    ctx.named_by_caller.extend(named)
    ctx.model_routed += routed
    try:
        ctx.body(node.body)
    finally:
        del ctx.named_by_caller[len(ctx.named_by_caller) - len(named) :]
        ctx.model_routed -= routed
    ctx.body(node.orelse)


_NAME_TESTS = frozenset({ast.Compare, ast.BoolOp})


def _routed_by_name(ctx: WalkState, test: ast.expr) -> tuple[list[str], bool]:
    """The names an ``if`` tells a tool apart by a name known only at run time, and whether it
    tests the name of the model's tool call being looped over."""
    named, routed = [], False
    for subject, other in name_comparisons(test):
        if rooted_in(subject, ctx.model_calls):
            routed = True
        elif isinstance(subject, ast.Name) and run_time_key(other, ctx.function, ctx.model_calls):
            named.append(subject.id)
    return named, routed


def _bind_loop_target(
    ctx: WalkState, target: ast.AST, element: str | None, second: str | None, iterable: ast.expr | None = None
) -> None:
    # a value of a mapping (``for k, v in TABLE.items()``) is bound to an item of it
    found = loop_value(target, iterable) if iterable is not None else None  # type: ignore[arg-type]
    item = found[1] if found is not None else None
    if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 and (second is not None or item is not None):
        _bind(ctx, target.elts[0], None, None)
        _bind(ctx, target.elts[1], second, item)
    else:
        if not isinstance(target, (ast.Name, ast.Tuple, ast.List)):
            ctx.visit(target)
        _bind(ctx, target, element, item)


def _with(ctx: WalkState, node: ast.With | ast.AsyncWith) -> None:
    for item in node.items:
        ctx.visit(item.context_expr)
        if item.optional_vars is not None:
            if not isinstance(item.optional_vars, ast.Name):
                ctx.visit(item.optional_vars)
            _bind(ctx, item.optional_vars, None, None)
    ctx.body(node.body)


def _import(ctx: WalkState, node: ast.Import | ast.ImportFrom) -> None:
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


def _attribute(ctx: WalkState, node: ast.Attribute) -> None:
    value = node.value
    while type(value) is ast.Attribute:
        value = value.value  # type: ignore[attr-defined]
    if type(value) is not ast.Name:  # a.b.c needs no visit; f().b does
        ctx.visit(value)


def _keyword_or_expr(ctx: WalkState, node: ast.keyword | ast.Expr) -> None:
    value = node.value
    if type(value) not in LEAVES:
        ctx.visit(value)


def _return(ctx: WalkState, node: ast.Return) -> None:
    fn = ctx.function
    if fn is not None:
        fn.returns.append(node)
    if node.value is not None:
        ctx.visit(node.value)


def _yield(ctx: WalkState, node: ast.Yield | ast.YieldFrom) -> None:
    fn = ctx.function
    if fn is not None:
        fn.is_generator = True
    if node.value is not None:
        ctx.visit(node.value)


def _named_expr(ctx: WalkState, node: ast.NamedExpr) -> None:
    ctx.visit(node.value)
    _bind(ctx, node.target, ctx.kind_of(node.value), node.value)


def _except(ctx: WalkState, node: ast.ExceptHandler) -> None:
    if node.type is not None:
        ctx.visit(node.type)
    if node.name and ctx.scopes[-1].kind == "function":
        ctx.scopes[-1].names[node.name] = None
    ctx.body(node.body)


def _comprehension(ctx: WalkState, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
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


def _function(ctx: WalkState, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
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
    if enclosing.kind == "function":
        enclosing.functions[node.name] = fn
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
    loops, ctx.model_calls = ctx.model_calls, []  # a function defined in a loop runs elsewhere
    try:
        ctx.body(node.body)
    finally:
        ctx.dispatcher_depth -= is_dispatcher
        ctx.model_calls = loops
        ctx.scopes.pop()


#: what a function decorated with it is a tool for: a tool decorator, or a factory of the project
#: used as one (``def as_tool(fn): return tool(fn)``, then ``@as_tool``)
_DECORATING = (DECORATOR, FACTORY)


def _tool_decorator_artifact(ctx: WalkState, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool | None:
    """None when no decorator is a tool decorator; else whether it declares
    ``response_format="content_and_artifact"``."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        qual = ctx.qualified_name(target) or dotted(target)
        if qual and (ctx.kind(qual) in _DECORATING or ctx.resolver.is_tool_decorator(qual)):
            return isinstance(decorator, ast.Call) and any(
                kw.arg == "response_format"
                and isinstance(kw.value, ast.Constant)
                and kw.value.value == "content_and_artifact"
                for kw in decorator.keywords
            )
    return None


def _is_tool_function(ctx: WalkState, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        qual = ctx.qualified_name(target) or dotted(target)
        if qual and (ctx.kind(qual) in _DECORATING or ctx.resolver.is_tool_decorator(qual)):
            return True
    return False


def _lambda(ctx: WalkState, node: ast.Lambda) -> None:
    _arguments_outside(ctx, node.args)
    scope = Scope("function", _qualname(ctx, "<lambda>"))
    for arg in _all_args(node.args):
        scope.names[arg.arg] = None
    ctx.scopes.append(scope)
    ctx.visit(node.body)
    ctx.scopes.pop()


def _arguments_outside(ctx: WalkState, args: ast.arguments) -> None:
    for default in (*args.defaults, *args.kw_defaults):
        if default is not None:
            ctx.visit(default)
    for arg in _all_args(args):
        if arg.annotation is not None:
            ctx.visit(arg.annotation)


def _bind_params(ctx: WalkState, scope: Scope, args: ast.arguments) -> None:
    for arg in _all_args(args):
        scope.names[arg.arg] = ctx.annotation_kind(arg.annotation) if arg.annotation is not None else None
    if args.vararg is not None:
        scope.names[args.vararg.arg] = None
        if args.vararg.annotation is not None and ctx.annotation_kind(args.vararg.annotation) == TOOL:
            scope.names[args.vararg.arg] = REGISTRY
    if args.kwarg is not None:
        scope.names[args.kwarg.arg] = None


def _qualname(ctx: WalkState, name: str) -> str:
    # a function scope's name is already qualified (``Class.method``); a class scope's is bare
    parts = [name]
    for scope in reversed(ctx.scopes[1:]):
        parts.append(scope.name)
        if scope.kind == "function":
            break
    return ".".join(reversed(parts))


def _is_dispatcher(ctx: WalkState, qualname: str) -> bool:
    if qualname.rpartition(".")[2] not in ctx.dispatcher_names:  # a match ends in the same name
        return False
    for module in (ctx.info.name, *ctx.info.aliases):
        full = f"{module}.{qualname}" if module else qualname
        if any(full == d or full.endswith("." + d) for d in ctx.dispatchers):
            return True
    return False


def _class(ctx: WalkState, node: ast.ClassDef) -> None:
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
    _declare_members(ctx, scope, node)
    if enclosing.kind == "function":
        enclosing.names[node.name] = CLASS if scope.is_tool else None
        enclosing.quals.pop(node.name, None)
        enclosing.classes.add(node.name)
    if scope.is_tool:
        for check in ctx.tool_class_rules:
            check(ctx, node)
    ctx.scopes.append(scope)
    try:
        ctx.body(node.body)
    finally:
        ctx.scopes.pop()


def _declare_members(ctx: WalkState, scope: Scope, node: ast.ClassDef) -> None:
    """Class-level declarations are visible as self.<attr> in every method, whatever the order,
    and so are the methods that make tools (self.tool = self._create_tool() in __init__)."""
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope.methods[stmt.name] = stmt
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            scope.attrs[stmt.target.id] = ctx.annotation_kind(stmt.annotation) or (
                ctx.kind_of(stmt.value) if stmt.value is not None else None
            )
        if scope.is_tool and _declares_content_and_artifact(stmt):
            # a LangChain tool class returning (content, artifact): only the content reaches the model
            scope.artifact = True


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


# unbound functions: a table of bound methods would make every Context a reference cycle
HANDLERS: dict[type, Callable[[WalkState, Any], None]] = {
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
    ast.If: _if,
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
