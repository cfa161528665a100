"""Syntax only: the return summaries of a module's functions, for the index (judged from the
module's own tree: its functions, imports and constants, nothing of the project)."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Collection, Sequence

from dispatchguard.lint.inference.model_text import asks_json
from dispatchguard.lint.inference.returns import Classifier, Function
from dispatchguard.lint.library import chat_model_class

#: Decorators that keep what a function returns (any other may replace the function).
# decorators that keep what a call gives: caches, and a tool decorator (running the tool, or calling
# it, gives what the function returns)
_TRANSPARENT_DECORATORS = frozenset({"lru_cache", "cache", "staticmethod", "tool"})


class SyntaxFunction:
    """A function seen from its own tree only: its returns and, on demand, its local bindings
    (both found statement by statement: neither needs a walk of the expressions), and whether it
    is opaque (a generator, or binds with ``:=`` a name its verdict may have read; one walk of its
    body, made only for a function whose verdict is otherwise known). ``outer``: the names the
    module binds, which a name the function binds only with ``:=`` would otherwise be read as."""

    __slots__ = ("_assigns", "_returns", "node", "outer")

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef, outer: Collection[str] = ()) -> None:
        self.node = node
        self.outer = outer
        self._returns: list[ast.Return] | None = None
        self._assigns: dict[str, list[ast.AST | None]] | None = None

    @property
    def returns(self) -> list[ast.Return]:
        """The function's return statements, nested scopes left out; collected on first use."""
        if self._returns is None:
            self._returns = []
            _collect_returns(self.node.body, self._returns)
        return self._returns

    @property
    def assigns(self) -> dict[str, list[ast.AST | None]]:
        """Local name -> the values bound to it (None: a parameter or an unknown value); built on first use."""
        if self._assigns is None:
            args = self.node.args
            params = (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
            self._assigns = {a.arg: [None] for a in params if a is not None}
            _collect_bindings(self.node.body, self._assigns)
        return self._assigns

    @property
    def is_generator(self) -> bool:
        """A generator, or a function that binds with ``:=`` a name its verdict may have read
        without that binding: a name :attr:`assigns` holds, one the module binds, a builtin, or
        one a return reads. Then what it returns is not what :attr:`returns` and :attr:`assigns`
        tell (a nested scope counts too: a rare miss). A name bound only by ``:=`` and read
        elsewhere (``if page := fetch(t): summaries.append(page)``) was read as unknown."""
        walrus: set[str] = set()
        stack: list = list(self.node.body)
        while stack:  # ast.walk, without its generators: 3x faster
            node = stack.pop()
            kind = type(node)
            if kind in _YIELDS:
                return True
            if kind is ast.NamedExpr:
                walrus.add(node.target.id)
            for field in getattr(kind, "_fields", ()):  # a list may hold None or names
                value = getattr(node, field, None)
                if type(value) is list:
                    stack.extend(value)
                elif isinstance(value, ast.AST):
                    stack.append(value)
        if not walrus:
            return False
        read = {n.id for r in self.returns if r.value is not None for n in ast.walk(r.value) if type(n) is ast.Name}
        seen = (self.assigns, self.outer, read)
        return any(any(name in names for names in seen) or hasattr(builtins, name) for name in walrus)

    def shadows(self, name: str) -> bool:
        """Whether ``name`` is a parameter or bound in the function's own body (builds :attr:`assigns`)."""
        return name in self.assigns


_YIELDS = frozenset({ast.Yield, ast.YieldFrom})


def _collect_returns(body: list[ast.stmt], out: list[ast.Return]) -> None:
    """The return statements of a block, nested scopes left out (a return is a statement, so the
    walk never needs to enter an expression)."""
    for stmt in body:
        kind = type(stmt)
        if kind is ast.Return:
            out.append(stmt)  # type: ignore[arg-type]
        elif kind in (ast.If, ast.For, ast.AsyncFor, ast.While):
            _collect_returns(stmt.body, out)  # type: ignore[attr-defined]
            _collect_returns(stmt.orelse, out)  # type: ignore[attr-defined]
        elif kind in (ast.With, ast.AsyncWith):
            _collect_returns(stmt.body, out)  # type: ignore[attr-defined]
        elif kind in _TRY:
            _collect_returns(stmt.body, out)  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                _collect_returns(handler.body, out)
            _collect_returns(stmt.orelse, out)  # type: ignore[attr-defined]
            _collect_returns(stmt.finalbody, out)  # type: ignore[attr-defined]
        elif kind is ast.Match:
            for case in stmt.cases:  # type: ignore[attr-defined]
                _collect_returns(case.body, out)


_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))


def _collect_bindings(body: list[ast.stmt], assigns: dict[str, list[ast.AST | None]]) -> None:
    """The names a block binds (nested scopes left out), with the assigned value when it is a
    plain assignment (the augmented assignment itself for ``x += y``), else None (``_BINDERS``
    reads each kind of statement)."""
    for stmt in body:
        binder = _BINDERS.get(type(stmt))
        if binder is not None:
            binder(stmt, assigns)


Assigns = dict[str, list[ast.AST | None]]


def _unknown(assigns: Assigns, *names: str) -> None:
    for name in names:
        assigns.setdefault(name, []).append(None)


def _bind_assign(stmt: ast.Assign, assigns: Assigns) -> None:
    for target in stmt.targets:
        _bind_target(assigns, target, stmt.value)


def loop_value(target: ast.expr, iterable: ast.expr) -> tuple[ast.Name, ast.expr] | None:
    """The name a loop binds to each value of a mapping, and that value as an item of it: ``for v
    in X.values()`` and ``for k, v in X.items()`` bind ``v`` to ``X[...]`` (so a table of text
    gives text); None for any other loop."""
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)) or iterable.args:
        return None
    method, mapping = iterable.func.attr, iterable.func.value
    if method == "values" and isinstance(target, ast.Name):
        name = target
    elif method == "items" and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2:
        name = target.elts[1]  # type: ignore[assignment]
    else:
        return None
    if not isinstance(name, ast.Name):
        return None
    item = ast.Subscript(value=mapping, slice=ast.Name(id="<key>", ctx=ast.Load()), ctx=ast.Load())
    return name, ast.copy_location(item, iterable)


def _bind_loop(stmt: ast.For | ast.AsyncFor, assigns: Assigns) -> None:
    _bind_target(assigns, stmt.target, None)
    found = loop_value(stmt.target, stmt.iter)
    if found is not None:  # ``for k, v in TABLE.items()``: ``v`` is an item of the table
        name, item = found
        assigns[name.id][-1] = item
    _collect_bindings(stmt.body, assigns)
    _collect_bindings(stmt.orelse, assigns)


def _bind_branches(stmt: ast.If | ast.While, assigns: Assigns) -> None:
    _collect_bindings(stmt.body, assigns)
    _collect_bindings(stmt.orelse, assigns)


def _bind_with(stmt: ast.With | ast.AsyncWith, assigns: Assigns) -> None:
    for item in stmt.items:
        if item.optional_vars is not None:
            _bind_target(assigns, item.optional_vars, None)
    _collect_bindings(stmt.body, assigns)


def _bind_try(stmt: ast.Try, assigns: Assigns) -> None:
    _collect_bindings(stmt.body, assigns)
    for handler in stmt.handlers:
        if handler.name:
            _unknown(assigns, handler.name)
        _collect_bindings(handler.body, assigns)
    _collect_bindings(stmt.orelse, assigns)
    _collect_bindings(stmt.finalbody, assigns)


def _bind_match(stmt: ast.Match, assigns: Assigns) -> None:
    for case in stmt.cases:
        for node in ast.walk(case.pattern):
            name = getattr(node, "name", None) or getattr(node, "rest", None)
            if name:
                _unknown(assigns, name)
        _collect_bindings(case.body, assigns)


def _bind_delete(stmt: ast.Delete, assigns: Assigns) -> None:
    for target in stmt.targets:
        _bind_target(assigns, target, None)


_BINDERS = {
    ast.Assign: _bind_assign,
    ast.AnnAssign: lambda stmt, assigns: _bind_target(assigns, stmt.target, stmt.value),
    ast.AugAssign: lambda stmt, assigns: _bind_target(assigns, stmt.target, stmt),
    ast.For: _bind_loop,
    ast.AsyncFor: _bind_loop,
    ast.If: _bind_branches,
    ast.While: _bind_branches,
    ast.With: _bind_with,
    ast.AsyncWith: _bind_with,
    **dict.fromkeys(_TRY, _bind_try),
    ast.Match: _bind_match,
    ast.Import: lambda stmt, assigns: _unknown(assigns, *(a.asname or a.name.split(".", 1)[0] for a in stmt.names)),
    ast.ImportFrom: lambda stmt, assigns: _unknown(assigns, *(a.asname or a.name.split(".", 1)[0] for a in stmt.names)),
    ast.Global: lambda stmt, assigns: _unknown(assigns, *stmt.names),
    ast.Nonlocal: lambda stmt, assigns: _unknown(assigns, *stmt.names),
    ast.FunctionDef: lambda stmt, assigns: _unknown(assigns, stmt.name),
    ast.AsyncFunctionDef: lambda stmt, assigns: _unknown(assigns, stmt.name),
    ast.ClassDef: lambda stmt, assigns: _unknown(assigns, stmt.name),
    ast.Delete: _bind_delete,
}


def _bind_target(assigns: dict[str, list[ast.AST | None]], target: ast.AST, value: ast.AST | None) -> None:
    if isinstance(target, ast.Name):
        assigns.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _bind_target(assigns, elt, None)
    elif isinstance(target, ast.Starred):
        _bind_target(assigns, target.value, None)


class ModuleKnowledge:
    """What one module's tree tells about its names, without the project: its own imports (left
    as written, relative ones with their dots), its top-level functions, its text and literal
    constants. Nothing crosses into another module, so the verdicts depend on the file alone."""

    #: a call through a table of functions imported from elsewhere is recorded, not judged
    defers_tables = True

    def __init__(self, body: list[ast.stmt], imports: dict[str, str], defined: dict[str, list]) -> None:
        self.body = body
        self.imports = imports
        self.defined = defined
        self.functions: dict[str, SyntaxFunction] = {}
        self._constants: dict[str, ast.expr | None] | None = None
        self._values: dict[str, ast.expr] | None = None

    def qualified_name(self, node: ast.AST, fn: Function | None = None) -> str | None:
        """``node``'s dotted name through the module's own imports (as written) or top-level names (bare).

        None when its head is bound locally in ``fn``, or is neither imported nor defined at top level.
        """
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or (fn is not None and fn.shadows(node.id)):
            return None
        head = node.id
        base = self.imports.get(head) or (head if head in self.defined else None)
        if base is None:
            return None
        return ".".join([base, *reversed(parts)])

    def module_function(self, qual: str) -> Function | None:
        """The module's own summarised top-level function named ``qual`` (a bare name), or None."""
        return self.functions.get(qual)

    def method(self, fn: Function, name: str) -> Function | None:
        """Always None: the index does not follow ``self`` calls across a class."""
        return None

    def local_function(self, fn: Function, name: str) -> Function | None:
        """Always None: the index summarises top-level functions only."""
        return None

    def instance_method(self, node: ast.AST, name: str, fn: Function) -> Function | None:
        """Always None: the index does not follow methods of instances."""
        return None

    def instance_method_returns(self, node: ast.AST, name: str, fn: Function) -> str | None:
        """Always None: other modules are the resolver's, so a summary depends on its file alone."""
        return None

    def function_returns(self, qual: str, constants: dict[int | str, str] | None = None) -> str | None:
        """Always None: other modules are the resolver's, so a summary depends on its file alone."""
        return None  # another module: the resolver's business

    def is_class(self, qual: str) -> bool:
        """Always False: an instance of a class stays unknown in the index."""
        return False

    def declared_returns(self, qual: str) -> str | None:
        """Always None: the declared types outside the project are the walker's, not the index's."""
        return None  # outside the file: the resolver's business

    def instance_class(self, node: ast.AST, fn: Function) -> str | None:
        """Always None: the index never asks what outside class a receiver is an instance of."""
        return None

    def method_returns(self, class_qual: str, method: str) -> str | None:
        """Always None: outside classes' declared methods are the walker's, not the index's."""
        return None

    def tool_output(self, node: ast.AST, method: str, fn: Function) -> str | None:
        """Always None: what library tools answer is the walker's question, not the index's."""
        return None

    def instance_of(self, node: ast.AST, fn: Function, makers: frozenset[str]) -> str | None:
        """Which of ``makers`` made ``node``: a call of it, or a name bound once to one (in ``fn``,
        else at the top level), as this module's imports spell it; None otherwise."""
        return self._made_by(node, fn, makers.__contains__)

    def chat_model(self, node: ast.AST, fn: Function) -> str | None:
        """The chat model class of the library table (:func:`..library.chat_model_class`) that made
        ``node`` (as :meth:`instance_of`); the declared types of the environment are the walker's."""
        return self._made_by(node, fn, chat_model_class)

    def _made_by(self, node: ast.AST, fn: Function, accept: Callable[[str], bool]) -> str | None:
        if isinstance(node, ast.Name):
            bound = fn.assigns.get(node.id)
            if bound:
                node = bound[0] if len(bound) == 1 and bound[0] is not None else node
            else:
                node = self.module_value(node.id) or node
        if not isinstance(node, ast.Call):
            return None
        qual = self.qualified_name(node.func, fn)
        return qual if qual is not None and accept(qual) else None

    def attribute_value(self, node: ast.AST, fn: Function) -> ast.expr | None:
        """Always None: the index does not follow ``self`` attributes."""
        return None

    def module_value(self, name: str) -> ast.expr | None:
        """The value of a top-level name's only binding, a plain assignment (:func:`top_level_values`)."""
        if self._values is None:
            self._values = top_level_values(self.body)
        return self._values.get(name)

    def module_text(self, name: str) -> str | None:
        """The text of a top-level name bound once to a str constant, else None."""
        value = self.constants().get(name)
        return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None

    def module_literal(self, name: str) -> ast.expr | None:
        """The literal a top-level name is bound to once (see :meth:`constants`), else None."""
        return self.constants().get(name)

    def constants(self) -> dict[str, ast.expr | None]:
        """Top-level names bound once, to a literal (None: bound otherwise or more than once)."""
        if self._constants is None:
            found: dict[str, ast.expr | None] = {}
            for stmt in self.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                    name = stmt.targets[0].id
                    literal = isinstance(stmt.value, _LITERALS) and name not in found
                    found[name] = stmt.value if literal and len(self.defined.get(name, ())) <= 1 else None
            self._constants = found
        return self._constants


_LITERALS = (ast.Constant, ast.List, ast.Dict, ast.Set, ast.Tuple)


def top_level_values(body: list[ast.stmt]) -> dict[str, ast.expr]:
    """name -> value for the top-level names of a module bound once, by a plain assignment (``chain
    = prompt | llm | StrOutputParser()``); a name bound more than once, or otherwise (a ``def``, an
    import, a loop, an ``if`` at top level), is left out."""
    values: dict[str, ast.expr] = {}
    rebound: set[str] = set()
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            names = [stmt.targets[0].id]
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            names = [stmt.target.id]
        else:
            names = _bound_names(stmt)
            rebound.update(names)
            continue
        for name in names:
            if name in values:
                rebound.add(name)
            values[name] = stmt.value  # type: ignore[assignment]
    return {name: value for name, value in values.items() if name not in rebound}


def _bound_names(stmt: ast.AST) -> list[str]:
    """The names a top-level statement other than a plain assignment binds: its targets, imports
    and definitions (a compound statement's inner bindings too; nested scopes left out)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".", 1)[0] for a in stmt.names]
    if isinstance(stmt, ast.Name):
        return [stmt.id] if isinstance(stmt.ctx, ast.Store) else []
    if isinstance(stmt, (ast.Lambda, ast.expr_context)):
        return []
    return [name for child in ast.iter_child_nodes(stmt) for name in _bound_names(child)]


def summarise_returns(
    body: list[ast.stmt],
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef],
    imports: dict[str, str],
    defined: dict[str, list],
    methods: Sequence[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = (),
) -> dict[str, str]:
    """name -> verdict for the top-level ``functions`` of a module, and ``Class.method`` -> verdict for
    the ``methods`` of its top-level classes, whose verdict is known (JSON, NEVER or not JSON); a
    name bound more than once, or decorated by anything but a decorator that keeps the return
    value, is left out (a method is judged without its class: ``self.helper()`` is unknown)."""
    knowledge = ModuleKnowledge(body, imports, defined)
    module_names = {*defined, *imports}
    for node in functions:
        name = node.name
        if len(defined.get(name, ())) == 1 and name not in imports and _transparent(node):
            knowledge.functions[name] = SyntaxFunction(node, module_names)
    for key, node in methods:
        owner = key.partition(".")[0]
        if len(defined.get(owner, ())) == 1 and owner not in imports and _transparent(node):
            knowledge.functions[key] = SyntaxFunction(node, module_names)
    classifier = Classifier(knowledge)
    out = module_models(body, knowledge, defined)
    for name, fn in knowledge.functions.items():
        verdict = classifier.summary(fn, 0)
        if verdict is not None:
            out[name] = verdict
    return out


#: How a summary's ``"returns"`` records a module-level instance rather than a function: its name
#: after this mark (no function is named so), so that no call of the name reads it as a return.
INSTANCE_MARK = "="


def module_models(body: list[ast.stmt], knowledge: ModuleKnowledge, defined: dict[str, list]) -> dict[str, str]:
    """``"=name"`` -> the chat model class (qualified as the module's imports spell it) for each
    top-level name every binding of which builds a model of that class (``llm = ChatOpenAI(...)``,
    also in the branches of an ``if``/``try`` at top level) and asks it for no JSON
    (:func:`.model_text.asks_json`): another module importing the name runs a chat model."""
    wanted = {
        name for name, descs in defined.items()
        if descs and all(d and d[0] == "call" and _may_build_model(str(d[1])) for d in descs)
    }  # fmt: skip
    if not wanted:
        return {}
    calls: dict[str, list[ast.Call]] = {}
    _top_level_calls(body, wanted, calls)
    out = {}
    for name, built in calls.items():
        if len(built) != len(defined[name]):
            continue
        classes = {knowledge.qualified_name(call.func) for call in built}
        qual = classes.pop() if len(classes) == 1 else None
        if qual is not None and chat_model_class(qual) and not asks_json(knowledge, _MODULE_SCOPE, *built):
            out[f"{INSTANCE_MARK}{name}"] = qual
    return out


def _top_level_calls(body: list[ast.stmt], wanted: set[str], calls: dict[str, list[ast.Call]]) -> None:
    """The calls the names ``wanted`` are assigned at top level (in ``if``/``try``/``with`` blocks too)."""
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            if stmt.targets[0].id in wanted and isinstance(stmt.value, ast.Call):
                calls.setdefault(stmt.targets[0].id, []).append(stmt.value)
        elif isinstance(stmt, (ast.If, ast.Try, ast.With)):
            for block in (stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])):
                _top_level_calls(block, wanted, calls)
            for handler in getattr(stmt, "handlers", []):
                _top_level_calls(handler.body, wanted, calls)


def _may_build_model(callee: str) -> bool:
    """The cheap first cut, on the name as written: a ``Chat...`` class or ``init_chat_model``."""
    last = callee.rpartition(".")[2]
    return "Chat" in last or last == "init_chat_model"


def _module_scope() -> SyntaxFunction:
    """The scope a module-level model is judged in: a function with no parameters and no body."""
    node = ast.parse("def _():\n    pass").body[0]
    node.body = []  # type: ignore[attr-defined]
    return SyntaxFunction(node)  # type: ignore[arg-type]


_MODULE_SCOPE = _module_scope()


def _transparent(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if name not in _TRANSPARENT_DECORATORS:
            return False
    return True
