"""Where a value comes from, as far as the rules ask: the class outside the project a value is an
instance of (for declared method types), and whether a tool is taken out of a registry by a key
the function gets from its caller (the mark of a dispatch point). Both are asked of a
:class:`FlowContext`, the part of the walk they read (the walker's ``Context`` answers it)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from dispatchguard.lint.index import ITEM_METHODS
from dispatchguard.lint.inference.module_returns import INSTANCE_MARK
from dispatchguard.lint.inference.returns import CHAT_MODEL, with_source
from dispatchguard.lint.kinds import CLASS, REGISTRY
from dispatchguard.lint.library import chat_model_class, library_tool_output, run_answer

if TYPE_CHECKING:
    from dispatchguard.lint.modules import ModuleInfo
    from dispatchguard.lint.resolve import Resolver
    from dispatchguard.lint.scopes import FunctionInfo


class FlowContext(Protocol):
    """What the questions of this module read of the walk."""

    resolver: Resolver
    info: ModuleInfo

    def kind(self, qual: str) -> str | None:
        """The kind of a qualified name (:mod:`.kinds`), or None."""

    def kind_of(self, node: ast.AST) -> str | None:
        """What an expression is (:mod:`.kinds`), or None."""

    def method_returns(self, class_qual: str, method: str) -> str | None:
        """The recorded verdict of a method of a class of the project or a library, or None."""

    def qualified_name(self, node: ast.AST, fn: FunctionInfo | None = None) -> str | None:
        """The dotted name ``node`` refers to (seen from ``fn``), or None."""

    def function_returns(self, qual: str) -> str | None:
        """What a function of another module of the project returns, as its summary records it."""

#: Whether a qualified name is a class of the kind asked for.
ClassTest = Callable[[str], bool]


def parameter_annotation(node: ast.AST, name: str) -> ast.expr | None:
    """The annotation of the parameter ``name`` of a function node, if it has one."""
    args = getattr(node, "args", None)
    if args is None:
        return None
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name:
            return arg.annotation
    return None


def optional_inner(node: ast.expr) -> ast.expr:
    """``X`` of ``Optional[X]``, ``X | None``, ``ClassVar[X]``, ``Final[X]`` and ``Annotated[X, ...]``;
    a subscripted generic's origin (``Stream[T]``)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        if isinstance(node.right, ast.Constant) and node.right.value is None:
            return optional_inner(node.left)
        if isinstance(node.left, ast.Constant) and node.left.value is None:
            return optional_inner(node.right)
        return node
    if isinstance(node, ast.Subscript):
        origin = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", None)
        if origin in _WRAPPERS:  # ``ClassVar[ChatOpenAI]``, ``Annotated[Exa, ...]``: the class inside
            inner = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
            return optional_inner(inner)
        return node.value
    return node


#: Annotations whose first argument is the value's type.
_WRAPPERS = frozenset({"Optional", "ClassVar", "Final", "Annotated"})


MODEL_CALLS = "tool_calls"


def iterates_model_calls(node: ast.AST) -> bool:
    """Whether a loop runs over a model reply's tool calls: ``reply.tool_calls``,
    ``message["tool_calls"]``, ``msg.get("tool_calls", [])``, ``enumerate(...)`` of one."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("enumerate", "reversed"):
        return bool(node.args) and iterates_model_calls(node.args[0])
    if isinstance(node, ast.BoolOp):  # ``reply.tool_calls or []``
        return iterates_model_calls(node.values[0])
    if isinstance(node, ast.Attribute):
        return node.attr == MODEL_CALLS
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == MODEL_CALLS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        first = node.args[0] if node.args else None
        return isinstance(first, ast.Constant) and first.value == MODEL_CALLS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
        second = node.args[1] if len(node.args) > 1 else None  # ``getattr(reply, "tool_calls", None)``
        return isinstance(second, ast.Constant) and second.value == MODEL_CALLS
    return False


def model_call_target(loop: ast.For | ast.AsyncFor | ast.comprehension, fn: FunctionInfo | None = None) -> str | None:
    """The name a loop over a model reply's tool calls binds each call to (the second of an
    ``enumerate``), or None for any other loop. In ``fn``, a local bound only to a reply's tool
    calls counts as them (``calls = getattr(reply, "tool_calls", None) or []``)."""
    iterated = loop.iter
    values = fn.assigns.get(iterated.id) if fn is not None and isinstance(iterated, ast.Name) else None
    bound = bool(values) and all(v is not None and iterates_model_calls(v) for v in values)  # type: ignore[union-attr]
    if not (bound or iterates_model_calls(iterated)):
        return None
    target = loop.target
    if isinstance(target, ast.Tuple) and len(target.elts) == 2:
        target = target.elts[1]
    return target.id if isinstance(target, ast.Name) else None


def rooted_in(node: ast.AST, names: Sequence[str]) -> bool:
    """Whether ``node`` is one of ``names`` or a part of one (``call["args"]``, ``call.name``,
    ``**call["args"]``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return isinstance(node, ast.Name) and node.id in names


def run_time_key(key: ast.AST, fn: FunctionInfo | None, model_calls: Sequence[str] = ()) -> bool:
    """A key known only at run time: a part of the model's tool call being looped over
    (``tools[call["name"]]``), or, in a function, a parameter, a part of one (``action.name``,
    ``call["name"]``), or a local bound to one such value at least (the others being defaults and
    fallbacks: ``name = result.tool`` or ``name = "llm"``); not a constant, and not a variable of
    another loop or comprehension (running every tool of a registry is no dispatch)."""
    if rooted_in(key, model_calls):
        return True
    if fn is not None and fn.requested and requested_name(key, fn.requested):
        return True
    while isinstance(key, (ast.Attribute, ast.Subscript)):
        key = key.value
    if fn is None:
        return False
    if isinstance(key, ast.Call):
        return True
    if not isinstance(key, ast.Name):
        return False
    values = fn.assigns.get(key.id)
    if values:  # one run-time value makes it a choice (constants are defaults and fallbacks)
        return any(v is not None and not isinstance(v, ast.Constant) for v in values)
    return key.id in _parameters(fn.node)


#: the parts of a requested call that name the tool (``call["name"]``, ``action.tool``, ``call.function.name``)
REQUESTED_NAMES = frozenset({"name", "tool", "tool_name", "function_name"})


def requested_name(key: ast.AST, loop_names: Sequence[str] | set[str]) -> bool:
    """Whether ``key`` is the tool name of a call one of ``loop_names`` holds: ``call["name"]``,
    ``call.get("name")``, ``action.tool``, ``call.function.name``."""
    if isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute) and key.func.attr == "get" and key.args:
        first = key.args[0]
        part, key = (first.value if isinstance(first, ast.Constant) else None), key.func.value
    elif isinstance(key, ast.Attribute):
        part = key.attr
    elif isinstance(key, ast.Subscript) and isinstance(key.slice, ast.Constant):
        part = key.slice.value
    else:
        return False
    return part in REQUESTED_NAMES and rooted_in(key, list(loop_names))


def caller_given(node: ast.AST, fn: FunctionInfo, depth: int = 0) -> bool:
    """Whether a loop's iterable is what the caller gave the function, or what a call made in it:
    a parameter (but ``self``/``cls``) or a part of one, a call's result (``self.agent.plan(...)``),
    a display of such values, or a local bound to one (``actions = [output]``)."""
    if depth > 3:
        return False
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("enumerate", "reversed", "list", "tuple"):
            return bool(node.args) and caller_given(node.args[0], fn, depth + 1)
        return True
    if isinstance(node, ast.Await):
        return caller_given(node.value, fn, depth + 1)
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(caller_given(e, fn, depth + 1) for e in node.elts)
    if isinstance(node, ast.BoolOp):
        return caller_given(node.values[0], fn, depth + 1)
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    if not isinstance(node, ast.Name) or node.id in ("self", "cls"):
        return False
    values = fn.assigns.get(node.id)
    if values:
        return any(v is not None and caller_given(v, fn, depth + 1) for v in values)
    return node.id in _parameters(fn.node)


def name_comparisons(test: ast.AST) -> list[tuple[ast.expr, ast.expr]]:
    """``(subject, other)`` for each ``subject.name == other``, ``subject["name"] == other`` or
    ``subject.get("name") == other`` (either way round) of an ``if`` test, an ``and`` of them
    included: how a tool is told apart by its name."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [pair for value in test.values for pair in name_comparisons(value)]
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return []
    left, right = test.left, test.comparators[0]
    pairs = []
    for side, other in ((left, right), (right, left)):
        subject = _name_of(side)
        if subject is not None:
            pairs.append((subject, other))
    return pairs


def _name_of(node: ast.AST) -> ast.expr | None:
    """``x`` of ``x.name``, ``x["name"]`` or ``x.get("name")``."""
    if isinstance(node, ast.Attribute) and node.attr == "name":
        return node.value
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "name":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        first = node.args[0]
        return node.func.value if isinstance(first, ast.Constant) and first.value == "name" else None
    return None


def found_by_caller_name(node: ast.AST, fn: FunctionInfo | None, model_calls: Sequence[str]) -> bool:
    """``next(t for t in tools if t.name == name)``: a tool searched for by a name known only at
    run time (:func:`run_time_key`)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "next" and node.args):
        return False
    search = node.args[0]
    if not (isinstance(search, ast.GeneratorExp) and len(search.generators) == 1):
        return False
    loop = search.generators[0]
    if not (isinstance(loop.target, ast.Name) and isinstance(search.elt, ast.Name) and search.elt.id == loop.target.id):
        return False
    return any(
        isinstance(subject, ast.Name) and subject.id == loop.target.id and run_time_key(other, fn, model_calls)
        for test in loop.ifs
        for subject, other in name_comparisons(test)
    )


def from_caller_or_loop(name: str, fn: FunctionInfo) -> bool:
    """Whether ``name`` is a parameter of ``fn``, bound by one of its loops or unpackings (a binding
    whose value is unknown), or bound only to what a call looks up by a parameter
    (``tool = get_tool(tool_name)``)."""
    parameters = _parameters(fn.node)
    if name in parameters:
        return True
    values = fn.assigns.get(name, ())
    return None in values or (bool(values) and all(_looked_up_by(v, parameters) for v in values))


def _looked_up_by(value: ast.AST | None, parameters: set[str]) -> bool:
    if isinstance(value, ast.Await):
        value = value.value
    if not isinstance(value, ast.Call):
        return False
    arguments = [*value.args, *(k.value for k in value.keywords)]
    return any(isinstance(a, ast.Name) and a.id in parameters for a in arguments)


def _parameters(node: ast.AST) -> set[str]:
    args = node.args  # type: ignore[attr-defined]
    return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


def registry_lookup_by_caller(
    ctx: FlowContext, node: ast.AST, fn: FunctionInfo | None, model_calls: Sequence[str]
) -> bool:
    """``tools[name]``, ``tools.get(action.name)`` of a registry of tools, with a key known only at
    run time (:func:`run_time_key`), a search by such a name (:func:`found_by_caller_name`), or a
    local name bound only to such lookups."""
    if isinstance(node, ast.Name):
        values = fn.assigns.get(node.id) if fn is not None else None
        return bool(values) and all(v is not None and _registry_lookup(ctx, v, fn, model_calls) for v in values)
    return _registry_lookup(ctx, node, fn, model_calls)


def _registry_lookup(ctx: FlowContext, node: ast.AST, fn: FunctionInfo | None, model_calls: Sequence[str]) -> bool:
    if found_by_caller_name(node, fn, model_calls):
        return True
    if isinstance(node, ast.Subscript):
        container, key = node.value, node.slice
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ITEM_METHODS:
        if not node.args:
            return False
        container, key = node.func.value, node.args[0]
    else:
        return False
    return run_time_key(key, fn, model_calls) and ctx.kind_of(container) == REGISTRY


def class_of_instance(
    ctx: FlowContext, node: ast.AST, fn: FunctionInfo | None, accept: ClassTest | None = None
) -> str | None:
    """The class ``node`` is an instance of, among the classes ``accept`` takes (by default the
    classes outside the project that the environment's stubs and sources declare; the walker also
    asks about the project's own classes): a call of it, a local or module-level name bound only
    to such calls, a parameter or a ``self`` attribute annotated with it (``exa: Exa``), or built
    from it in a method (``self.llm = ChatOpenAI()``)."""
    return _InstanceClass(ctx, fn, accept or (lambda qual: _is_outside_class(ctx, qual))).of(node)


def tool_run_output(ctx: FlowContext, node: ast.AST, method: str, fn: FunctionInfo) -> str | None:
    """What running the library tool ``node`` is an instance of gives, when that is not JSON text:
    ``.batch``/``.abatch`` a list of its answers; ``.invoke``/``.run`` (and their async twins) what its
    class's ``_run`` declares it returns, read from the environment's sources or else from the
    bundled table (``TavilySearch``: a dict). None for anything else."""
    if method not in _TOOL_BATCHES and method not in _TOOL_RUNS:
        return None
    cls = class_of_instance(ctx, node, fn, lambda qual: _is_library_tool(ctx, qual))
    if cls is None:
        return None
    name = cls.rpartition(".")[2]
    if method in _TOOL_BATCHES:
        return f"a list (of `{name}` answers, from `.{method}`)"
    output = run_answer(ctx.method_returns(cls, "_run")) or library_tool_output(cls)
    return with_source(output, f"what `{name}` answers") if output is not None else None


def chat_model_of(ctx: FlowContext, node: ast.AST, fn: FunctionInfo) -> str | None:
    """The chat model class outside the project ``node`` is an instance of: a class whose ``invoke``
    is declared to answer a message (the environment's sources, else the bundled SDK table), or a
    chat model class of the library table (:func:`..library.chat_model_class`); or the factory of
    another module of the project that made it, when its summary says it returns a chat model."""

    def is_chat_model(qual: str) -> bool:
        if not ctx.resolver.outside(qual):  # a factory of the project: ``llm = get_llm()``
            made = ctx.function_returns(qual)
            return made is not None and made.startswith(f"{CHAT_MODEL} (")
        if chat_model_class(qual):
            return True
        declared = ctx.method_returns(qual, "invoke")
        return declared is not None and declared.startswith(_MESSAGE_VERDICTS)

    return class_of_instance(ctx, node, fn, is_chat_model)


_MESSAGE_VERDICTS = tuple(f"an instance of `{m}`" for m in ("AIMessage", "BaseMessage", "AIMessageChunk"))
_TOOL_BATCHES = frozenset({"batch", "abatch"})
_TOOL_RUNS = frozenset({"invoke", "ainvoke", "run", "arun"})


def _is_library_tool(ctx: FlowContext, qual: str) -> bool:
    return ctx.resolver.outside(qual) and ctx.kind(qual) == CLASS


class _InstanceClass:
    """One question of :func:`class_of_instance`: the bindings of ``fn`` followed to a call
    of a class ``accept`` takes."""

    def __init__(self, ctx: FlowContext, fn: FunctionInfo | None, accept: ClassTest) -> None:
        self.ctx = ctx
        self.fn = fn
        self.accept = accept

    def of(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Call):
            return self.called(node.func)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return self.attribute(node.attr)
        return self.name(node.id) if isinstance(node, ast.Name) else None

    def attribute(self, attr: str) -> str | None:
        if self.fn is None:
            return None
        cls = next((s for s in reversed(self.fn.scopes) if s.kind == "class"), None)
        typed = cls.attr_types.get(attr) if cls is not None else None
        return self.of_type(typed) if typed is not None else None

    def name(self, name: str) -> str | None:
        fn = self.fn
        if fn is None:  # module level
            return self.module_name(name)
        values = fn.assigns.get(name)
        if values:
            found = {self.of(v) if isinstance(v, ast.Call) else None for v in values}
            return found.pop() if len(found) == 1 else None
        annotation = parameter_annotation(fn.node, name)
        if annotation is not None:
            return self.of_type(annotation)
        return None if fn.shadows(name) else self.module_name(name)

    def module_name(self, name: str) -> str | None:
        """A module-level name every binding of which is a call of one such class (``MODEL =
        ChatOpenAI()``, or one per branch of an ``if``), or a chat model another module of the
        project builds so and this one imports (:meth:`imported`)."""
        ctx = self.ctx
        info = ctx.info
        if name in info.imports:
            return None if name in info.defs else self.imported(name)
        descs = info.defs.get(name) or []
        if not descs or any(d[0] != "call" for d in descs):
            return None
        quals = {ctx.resolver.local_qual(info, d[1]) for d in descs}
        qual = quals.pop() if len(quals) == 1 else None
        return qual if qual is not None and self.accept(qual) else None

    def imported(self, name: str) -> str | None:
        """The chat model class of a module-level model of another module of the project that this
        one imports (``from app.config import llm``), as that module's summary records it
        (``"=llm"``: :func:`.module_returns.module_models`), when ``accept`` takes it."""
        ctx = self.ctx
        qual = ctx.resolver.local_qual(ctx.info, name)
        if qual is None or "." not in qual or ctx.resolver.outside(qual):
            return None
        module, _, last = qual.rpartition(".")
        made = ctx.function_returns(f"{module}.{INSTANCE_MARK}{last}")
        return made if made is not None and self.accept(made) else None

    def of_type(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Call):
            return self.called(node.func)
        return self.called(optional_inner(node))

    def called(self, node: ast.AST) -> str | None:
        qual = self.ctx.qualified_name(node, self.fn) if isinstance(node, (ast.Name, ast.Attribute)) else None
        return qual if qual is not None and self.accept(qual) else None


def _is_outside_class(ctx: FlowContext, qual: str) -> bool:
    return ctx.resolver.outside(qual) and ctx.resolver.declared.is_class(qual)


def parameter_position(node: ast.AST, name: str, *, is_method: bool) -> int | None:
    """The position of parameter ``name`` in a call of the function (``self``/``cls`` not
    counted for a method), or None when it is not a positional parameter."""
    args = node.args  # type: ignore[attr-defined]
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if is_method and positional:
        positional = positional[1:]
    return positional.index(name) if name in positional else None


def calls_by_callee(tree: ast.Module) -> dict[str, list[ast.Call]]:
    """The module's calls by the name they call: ``f(...)`` under ``f``, ``self.m(...)`` under ``m``;
    ``partial(f, a, k=b)`` as the call ``f(a, k=b)`` that fills those arguments (a graph builder's
    ``add_node("search", partial(search_node, tool=search))``)."""
    found: dict[str, list[ast.Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            node = _partial_call(node) or node
            func = node.func
            if isinstance(func, ast.Name):
                found.setdefault(func.id, []).append(node)
            elif isinstance(func, ast.Attribute) and _is_self_name(func.value):
                found.setdefault(func.attr, []).append(node)
    return found


def _partial_call(node: ast.Call) -> ast.Call | None:
    """``f(a, k=b)`` for ``partial(f, a, k=b)`` or ``functools.partial(...)``; None for any other call."""
    func = node.func
    named = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if named != "partial" or not node.args or isinstance(node.args[0], ast.Starred):
        return None
    return ast.copy_location(ast.Call(func=node.args[0], args=node.args[1:], keywords=node.keywords), node)


def calls_same_function(call: ast.Call, is_method: bool) -> bool:
    """A call of a method through ``self``/``cls``, or of a function by its bare name."""
    return isinstance(call.func, ast.Attribute) if is_method else isinstance(call.func, ast.Name)


def argument_at(call: ast.Call, position: int, name: str) -> ast.expr | None:
    """The argument a call passes for the parameter at ``position`` named ``name``."""
    if any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return None
    if position < len(call.args):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _is_self_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def constructor_parameter(
    cls: ast.ClassDef, attr: str
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, str] | None:
    """``(__init__, parameter)`` when the class's ``__init__`` sets ``self.attr = parameter``."""
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None:
        return None
    for stmt in init.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Attribute) and _is_self_name(target.value) and target.attr == attr:
                return init, stmt.value.id
    return None
