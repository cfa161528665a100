"""The project's direct calls of a tool method or function, and how each uses the returned value
when that use needs something other than a string (``left < 0``, ``r["key"]``, a parameter
annotated ``list[dict]``): what an unsafe fix must name. Found by reading the files (a byte search
for the names first, then the trees of the files that may call), through the project facts of
:class:`~dispatchguard.lint.tool_facts.ToolFacts`."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Protocol

from dispatchguard.lint.config import LintConfig, any_glob
from dispatchguard.lint.index import dotted
from dispatchguard.lint.inference.tree_values import enclosing, own_nodes, parents, scope_of, top_function
from dispatchguard.lint.modules import ModuleInfo
from dispatchguard.lint.notebook import virtual_bytes
from dispatchguard.lint.project import Project
from dispatchguard.lint.resolve import Resolver


class CallerFacts(Protocol):
    """What the search asks of the project (:class:`~dispatchguard.lint.tool_facts.ToolFacts`
    answers it; named here so that the two modules do not import each other)."""

    project: Project
    resolver: Resolver
    config: LintConfig

    def info(self, key: str) -> ModuleInfo | None: ...  # noqa: D102
    def tree(self, key: str) -> ast.Module | None: ...  # noqa: D102
    def source_bytes(self, key: str) -> bytes: ...  # noqa: D102
    def module_key(self, module: str) -> str | None: ...  # noqa: D102
    def qualify(self, key: str, name: str) -> str | None: ...  # noqa: D102
    def canonical(self, qual: str) -> str: ...  # noqa: D102
    def value_class(self, key: str, tree: ast.Module, node: ast.expr) -> str | None: ...  # noqa: D102

TOOL_METHODS = frozenset({"run", "_run", "arun", "_arun", "invoke", "ainvoke"})
#: The calls that reach a tool class's method: the framework's public entry points forward to it.
REACHED_BY = {"_run": frozenset({"run", "_run", "invoke"}), "_arun": frozenset({"arun", "_arun", "ainvoke"})}
#: The calls that reach a tool function: calling it, or its tool object's entry points.
FUNCTION_ENTRIES = frozenset({"invoke", "ainvoke", "run", "arun", "func", "coroutine"})
STR_ATTRIBUTES = frozenset(dir(str))
ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
STRING_ANNOTATIONS = frozenset({"str", "Any", "object", "typing.Any"})
_MAX_DEPTH = 20
#: How many containers and callees a raw value is followed through.
_MAX_FLOW = 2


@dataclass(frozen=True)
class Caller:
    """A direct call of a tool's method or function in the project: where it is, whether it is in a
    test, and how it uses the returned value when that use needs a non-string (None: not known to)."""

    relpath: str
    line: int
    is_test: bool
    use: str | None

    @property
    def where(self) -> str:
        """``relpath:line``, as the unsafe fix's message names the call."""
        return f"{self.relpath}:{self.line}"



class CallerSearch:
    """The searches of one project, each made once per fix run."""

    def __init__(self, facts: CallerFacts) -> None:
        self.facts = facts
        self._callers: dict[tuple[str, str | None], list[Caller]] = {}
        self._calls_by_name: dict[str, dict[str, list[ast.Call]]] = {}
        self._direct_calls: dict[str | None, bool] = {}
        self._file_words: dict[str, frozenset[bytes]] = {}
        self._instances: dict[str, dict[str, list[str]]] = {}
        self._syntax_hits: dict[tuple[str, bytes], bool] = {}
        self._parents: dict[tuple[str, int], dict[int, ast.AST]] = {}
        self._receivers: dict[tuple[str, int], str | None] = {}
        self._scope_names: dict[tuple[str, int], frozenset[str]] = {}
        self._def_keys: dict[int, str] = {}  #: id of a callee's def -> the file that defines it

    def calls_tool_methods(self, method: str | None = None) -> bool:
        """Whether a file of the project calls a tool method directly (``x.run(``, ``x._run(``,
        ``x.invoke(`` and their async twins, or ``x.<method>(``), other than on ``self``."""
        known = self._direct_calls.get(method)
        if known is None:
            known = self._direct_calls[method] = self._search_tool_method_calls(method)
        return known

    def _search_tool_method_calls(self, method: str | None) -> bool:
        names = sorted({*TOOL_METHODS, *([method] if method else [])})
        # a call on ``self`` is a tool's own plumbing (``run`` forwarding to ``_run``)
        pattern = re.compile(rb"(?<!\bself)\.\s*(?:" + b"|".join(re.escape(n.encode()) for n in names) + rb")\s*\(")
        for file in self.facts.project.files.values():
            try:
                if pattern.search(virtual_bytes(file.path)):
                    return True
            except OSError:
                return True
        return False

    def callers(self, function: str, class_qual: str | None = None) -> list[Caller]:
        """The direct calls, anywhere in the project, of the method ``function`` of the tool class
        ``class_qual`` (``x._run(...)``, ``x.run(...)``, ``x.invoke(...)`` on a value of that class),
        or with no class, of the top-level function ``function`` (qualified: ``f(...)``,
        ``f.invoke(...)``, ``f.func(...)``). Calls on ``self`` are the tool's own plumbing."""
        known = self._callers.get((function, class_qual))
        if known is None:
            known = self._callers[function, class_qual] = self._search_callers(function, class_qual)
        return known

    def _search_callers(self, function: str, class_qual: str | None) -> list[Caller]:
        name = function.rsplit(".", 1)[-1]
        names = REACHED_BY.get(name, frozenset({name})) if class_qual else frozenset({name})
        # a receiver is proven of the class only where the file names it, or an instance of it
        needed = self._instance_words(class_qual) if class_qual else {name}
        spelled_needed = {n.encode() for n in needed}
        spelled = b"|".join(re.escape(n.encode()) for n in sorted(names))
        # the call's own syntax: ``x.run(``, ``f(`` or ``f.invoke(``
        syntax = re.compile(rb"\.\s*(?:" + spelled + rb")\s*\(" if class_qual else rb"\b(?:" + spelled + rb")\s*[.(]")
        found: list[Caller] = []
        for key, file in self.facts.project.files.items():
            if spelled_needed.isdisjoint(self._words(key)) or not self._spells_call(key, syntax):
                continue
            calls = self._calls_in(key)
            candidates = [c for n in sorted(names) for c in calls.get(n, ())]
            tree = self.facts.tree(key)
            if tree is None:
                continue
            is_test = any_glob(self.facts.config.test_patterns, file.relpath)
            for call in candidates:
                if class_qual and not self._may_name(key, tree, call, needed):
                    continue
                if self._calls(key, tree, call, names, function, class_qual):
                    use = self._non_string_use(key, tree, call, self._parents_of(key, scope_of(tree, call)))
                    found.append(Caller(file.relpath, call.lineno, is_test, use))
        return sorted(found, key=lambda c: (c.relpath, c.line))

    def _instance_words(self, class_qual: str) -> set[str]:
        """The class's name and the module-level names its module assigns an instance of it."""
        module, _, class_name = class_qual.rpartition(".")
        key = self.facts.module_key(module)
        return {class_name, *(self._instances_in(key).get(class_name, ()) if key is not None else ())}

    def _instances_in(self, key: str) -> dict[str, list[str]]:
        """Class name -> the module-level names a module assigns an instance of it (``dotted(call)``),
        read once per module: a fix per tool class of a long module asks for each of them."""
        found = self._instances.get(key)
        if found is None:
            found = self._instances[key] = {}
            tree = self.facts.tree(key)
            for stmt in tree.body if tree is not None else ():
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
                    made = dotted(stmt.value.func)
                    if made is not None:
                        found.setdefault(made, []).extend(t.id for t in stmt.targets if isinstance(t, ast.Name))
        return found

    def _spells_call(self, key: str, syntax: re.Pattern[bytes]) -> bool:
        """Whether a file's bytes spell a call of this syntax, searched once per file and syntax
        (the fixes of every ``_run`` of a module ask the same)."""
        hit = self._syntax_hits.get((key, syntax.pattern))
        if hit is None:
            hit = self._syntax_hits[key, syntax.pattern] = syntax.search(self.facts.source_bytes(key)) is not None
        return hit

    def _words(self, key: str) -> frozenset[bytes]:
        """The identifiers a file's bytes spell."""
        if key not in self._file_words:
            words = re.findall(rb"\w+", self.facts.source_bytes(key))
            self._file_words[key] = frozenset(words)
        return self._file_words[key]

    def _calls_in(self, key: str) -> dict[str, list[ast.Call]]:
        """The file's calls by the name they call (``x.run(...)`` under ``run``; ``f(...)`` and
        ``f.invoke(...)`` under ``f``), indexed once."""
        if key not in self._calls_by_name:
            tree = self.facts.tree(key)
            index: dict[str, list[ast.Call]] = defaultdict(list)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, ast.Call):
                    for called in _called_names(node.func):
                        index[called].append(node)
            self._calls_by_name[key] = index
        return self._calls_by_name[key]

    def _may_name(self, key: str, tree: ast.Module, call: ast.Call, needed: set[str]) -> bool:
        """Whether the scope of a call (or the pytest fixture its receiver is) names the class or an
        instance of it: a cheap test before :meth:`value_class`, which can prove nothing otherwise."""
        scopes = enclosing(tree, call)
        scope = scopes[0] if scopes else tree  # the outermost class or function: self.x is bound in its methods
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        fixture = _fixtures(tree).get(receiver.id) if isinstance(receiver, ast.Name) else None
        if any(not needed.isdisjoint(self._names_in(key, s)) for s in (scope, fixture) if s is not None):
            return True
        return isinstance(receiver, ast.Name) and _parameter_of(scopes, receiver.id) is not None

    def _names_in(self, key: str, scope: ast.AST) -> frozenset[str]:
        slot = (key, id(scope))
        if slot not in self._scope_names:
            self._scope_names[slot] = frozenset(
                n.id if isinstance(n, ast.Name) else n.attr
                for n in ast.walk(scope)
                if isinstance(n, (ast.Name, ast.Attribute))
            )
        return self._scope_names[slot]

    def _receiver_class(self, key: str, tree: ast.Module, receiver: ast.expr) -> str | None:
        """:meth:`value_class` of a call's receiver, once per node (every tool method's search
        asks about the same ``x.run(...)`` calls); for a test's parameter, what the pytest fixture
        of that name in the file returns."""
        slot = (key, id(receiver))
        if slot not in self._receivers:
            found = self.facts.value_class(key, tree, receiver)
            fixture = _fixtures(tree).get(receiver.id) if found is None and isinstance(receiver, ast.Name) else None
            if fixture is not None:
                returned = [n.value for n in own_nodes(fixture) if isinstance(n, (ast.Return, ast.Yield)) and n.value]
                classes = {self.facts.value_class(key, tree, value) for value in returned}
                found = classes.pop() if len(classes) == 1 else None
            elif found is None and isinstance(receiver, ast.Name):
                found = self._argument_class(key, tree, receiver)
            self._receivers[slot] = found
        return self._receivers[slot]

    def _argument_class(self, key: str, tree: ast.Module, receiver: ast.Name) -> str | None:
        """The class of what the project's calls pass for a parameter of a top-level function
        (``priority(DetailsTool(), t)`` for ``def priority(tool, t): tool.run(...)``) or of a method
        of a top-level class (``self.best(SearchTool(), q)``, ``Ranker().best(SearchTool(), q)``
        for ``def best(self, tool, q)``), when the calls that prove a class agree on one: a
        consumer reached through a parameter, in any module."""
        found = _parameter_of(enclosing(tree, receiver), receiver.id)
        if found is None:
            return None
        function, position = found
        owner = next((s for s in tree.body if isinstance(s, ast.ClassDef) and function in s.body), None)
        if owner is None and function not in tree.body:
            return None
        if owner is not None and not _is_static(function):
            position -= 1  # the call's arguments start after ``self``
        owner_qual = f"{self.facts.project.module_names[key][0]}.{owner.name}" if owner is not None else None
        classes = set()
        for other_key, _ in self.facts.project.files.items():
            other = self.facts.tree(other_key) if function.name.encode() in self._words(other_key) else None
            for call in self._calls_in(other_key).get(function.name, ()) if other is not None else ():
                if owner is None or owner_qual is None:
                    calls = isinstance(call.func, ast.Name)
                else:
                    calls = self._calls_method(other_key, other, call, owner, owner_qual)  # type: ignore[arg-type]
                argument = _argument_at(call, receiver.id, position) if calls else None
                if argument is not None:
                    classes.add(self.facts.value_class(other_key, other, argument))  # type: ignore[arg-type]
        classes.discard(None)
        return classes.pop() if len(classes) == 1 else None

    def _calls_method(self, key: str, tree: ast.Module, call: ast.Call, owner: ast.ClassDef, owner_qual: str) -> bool:
        """Whether ``call`` calls a method of ``owner``: on ``self`` inside that class, or on a value
        of the class (``Ranker().best(...)``, ``ranker.best(...)``)."""
        if not isinstance(call.func, ast.Attribute):
            return False
        receiver = call.func.value
        if _is_self(receiver):
            return self.facts.project.module_names[key][0] + "." + owner.name == owner_qual and any(
                s is owner for s in enclosing(tree, call)
            )
        found = self.facts.value_class(key, tree, receiver)
        return found is not None and self.facts.canonical(found) == owner_qual

    def _parents_of(self, key: str, scope: ast.AST) -> dict[int, ast.AST]:
        """The parent of each node of ``scope`` (a function, or the module), built once per scope."""
        slot = (key, id(scope))
        if slot not in self._parents:
            self._parents[slot] = parents(scope)
        return self._parents[slot]

    def _calls(
        self, key: str, tree: ast.Module, call: ast.Call, names: frozenset[str], function: str, class_qual: str | None
    ) -> bool:
        func = call.func
        if class_qual is not None:
            if not (isinstance(func, ast.Attribute) and func.attr in names) or _is_self(func.value):
                return False
            return self._receiver_class(key, tree, func.value) == class_qual
        if isinstance(func, ast.Attribute) and func.attr in FUNCTION_ENTRIES:
            func = func.value
        spelled = dotted(func)
        qual = self.facts.qualify(key, spelled) if spelled else None
        return qual is not None and self.facts.canonical(qual) == function

    def _non_string_use(self, key: str, tree: ast.Module, call: ast.Call, parents: dict[int, ast.AST]) -> str | None:
        """How the code around ``call`` uses its value when that needs something else than a
        ``str``, followed through one local name (``left = compute_sla(...)`` then ``left < 0``)."""
        node: ast.AST = call
        parent = parents.get(id(node))
        if isinstance(parent, ast.Await):
            node, parent = parent, parents.get(id(parent))
        if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            held = _container_name(targets[0]) if len(targets) == 1 else None
            if held is not None:  # ``found[query] = tool.run(...)``
                return self._element_use(key, scope_of(tree, parent), held, parents, 0)
            if len(targets) != 1 or not isinstance(targets[0], ast.Name):
                return "unpacks it" if any(isinstance(t, (ast.Tuple, ast.List)) for t in targets) else None
            scope = scope_of(tree, parent)
            uses = [
                n
                for n in ast.walk(scope)
                if isinstance(n, ast.Name) and n.id == targets[0].id and isinstance(n.ctx, ast.Load)
            ]
            for use in uses:
                how = self._use_of(key, use, parents)
                if how is not None:
                    return how
            return None
        return self._use_of(key, node, parents)

    def _use_of(self, key: str, node: ast.AST, parents: dict[int, ast.AST], depth: int = 0) -> str | None:
        """The non-string use the expression ``node`` is put to by its parent, if any: an operator,
        a container it is kept in and whose element is read so (``found.append(r)`` then
        ``found[0]["title"]``), a parameter annotated other than ``str``, or one the callee reads so."""
        parent = parents.get(id(node))
        how = _operator_use(node, parent)
        if how is not None:
            return how
        held = _held_in(node, parent, parents)
        tree = self.facts.tree(key)
        if held is not None and tree is not None and depth <= _MAX_FLOW:
            return self._element_use(key, scope_of(tree, node), held, parents, depth + 1)
        if not isinstance(parent, ast.Call) or node is parent.func:
            return None
        if isinstance(parent.func, ast.Attribute) and parent.func.attr in ("extend", "update"):
            return f"passes it to `.{parent.func.attr}(...)`"
        return self._parameter_use(key, tree, parent, node, depth, element=False)  # type: ignore[arg-type]

    def _element_use(self, key: str, scope: ast.AST, name: str, parents: dict[int, ast.AST], depth: int) -> str | None:
        """How ``scope`` uses an element of the container ``name`` as a non-string: an element read
        with an operator (``found[0]["title"]``), a loop over it (``for r in found: r["title"]``),
        or the container handed to a callee that does so."""
        for use in ast.walk(scope):
            if not (isinstance(use, ast.Name) and use.id == name and isinstance(use.ctx, ast.Load)):
                continue
            parent = parents.get(id(use))
            how = None
            if isinstance(parent, ast.Subscript) and parent.value is use:
                how = _operator_use(parent, parents.get(id(parent)))
            elif isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is use:
                how = _loop_use(parent, parents)
            elif isinstance(parent, ast.Call) and use is not parent.func and depth <= _MAX_FLOW:
                tree = self.facts.tree(key)
                how = self._parameter_use(key, tree, parent, use, depth, element=True) if tree is not None else None
                if how is not None:
                    return f"keeps it in `{name}` and {how}"
            if how is not None:
                return f"keeps it in `{name}`, then {how}"
        return None

    def _parameter_use(
        self, key: str, tree: ast.Module, call: ast.Call, argument: ast.AST, depth: int, *, element: bool
    ) -> str | None:
        """The use a project callee makes of ``argument``: its parameter's annotation when it is
        not ``str``, else (unannotated) how its body uses the parameter (or, ``element``, the
        parameter's elements) as a non-string."""
        if not element:
            annotated = self._annotated_parameter(key, tree, call, argument)
            if annotated is not None:
                return annotated
        target = self._callee_def(key, tree, call.func)
        param = _parameter_for(target, call, argument) if target is not None else None
        if param is None or param.annotation is not None:
            return None
        defining = self._def_keys.get(id(target), key)
        scope_parents = self._parents_of(defining, target)  # type: ignore[arg-type]
        if element:
            how = self._element_use(defining, target, param.arg, scope_parents, depth + 1)  # type: ignore[arg-type]
        else:
            how = next((h for n in own_nodes(target) if isinstance(n, ast.Name) and n.id == param.arg  # type: ignore[arg-type]
                        and (h := _operator_use(n, scope_parents.get(id(n)))) is not None), None)  # fmt: skip
        return None if how is None else f"passes it to `{target.name}({param.arg})`, which {how}"  # type: ignore[union-attr]

    def _annotated_parameter(self, key: str, tree: ast.Module, call: ast.Call, argument: ast.AST) -> str | None:
        """``add_resources(result)`` or ``self.add_resources(result)`` where the project function's
        (or method's) parameter is annotated other than ``str``: the text of that parameter."""
        target = self._callee_def(key, tree, call.func)
        if target is None:
            return None
        param = _parameter_for(target, call, argument)
        if param is None or param.annotation is None:
            return None
        annotation = ast.unparse(param.annotation)
        if annotation.strip("'\"") in STRING_ANNOTATIONS:
            return None
        return f"passes it to `{target.name}({param.arg}: {annotation})`"

    def _callee_def(self, key: str, tree: ast.Module, func: ast.expr) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The project's definition of what a call calls: a top-level function, or a method of
        ``self``'s class or of one of its project base classes."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            owner = self.facts.value_class(key, tree, func.value)
            return self._method(owner, func.attr) if owner is not None else None
        spelled = dotted(func)
        qual = self.facts.qualify(key, spelled) if spelled else None
        if qual is None:
            return None
        module, _, name = self.facts.canonical(qual).rpartition(".")
        defining = self.facts.module_key(module)
        found = self.facts.tree(defining) if defining else None
        function = top_function(found, name) if found is not None else None
        if function is not None:
            self._def_keys[id(function)] = defining  # type: ignore[assignment]
        return function

    def _method(self, class_qual: str, name: str, depth: int = 0) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        module, _, class_name = self.facts.canonical(class_qual).rpartition(".")
        key = self.facts.module_key(module)
        tree = self.facts.tree(key) if key is not None else None
        cls = (
            next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == class_name), None) if tree else None
        )
        if cls is None or depth > _MAX_DEPTH:
            return None
        found = top_function(cls, name)
        if found is not None:
            self._def_keys[id(found)] = key  # type: ignore[assignment]
        info = self.facts.info(key) if found is None else None  # type: ignore[arg-type]
        for base in cls.bases if info is not None else ():
            spelled = dotted(base)
            base_qual = self.facts.resolver.local_qual(info, spelled) if spelled else None
            found = found or (self._method(base_qual, name, depth + 1) if base_qual else None)
        return found


def _parameter_for(target: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, argument: ast.AST) -> ast.arg | None:
    """The parameter of ``target`` that ``argument`` of ``call`` fills (``self`` skipped for a
    call on ``self``)."""
    on_self = isinstance(call.func, ast.Attribute) and dotted(call.func.value) == "self"
    params = [*target.args.posonlyargs, *target.args.args][1 if on_self else 0 :]
    if argument in call.args:
        index = call.args.index(argument)  # type: ignore[arg-type]
        return params[index] if index < len(params) else None
    names = [k.arg for k in call.keywords if k.value is argument]
    return next((p for p in (*params, *target.args.kwonlyargs) if names and p.arg == names[0]), None)


def _argument_at(call: ast.Call, name: str, position: int) -> ast.expr | None:
    """What ``call`` passes for the parameter ``name`` at ``position`` (by keyword or position)."""
    keyword = next((k.value for k in call.keywords if k.arg == name), None)
    argument = keyword or (call.args[position] if 0 <= position < len(call.args) else None)
    return None if isinstance(argument, ast.Starred) else argument


def _held_in(node: ast.AST, parent: ast.AST | None, parents: dict[int, ast.AST]) -> str | None:
    """The local container a value is put in: ``found.append(v)`` (``insert``, ``add``,
    ``appendleft``), ``found = [v, ...]`` (a tuple, a set, a dict's value), ``found[k] = v``."""
    if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Attribute):
        if parent.func.attr in ("append", "insert", "add", "appendleft") and isinstance(parent.func.value, ast.Name):
            return parent.func.value.id
        return None
    if isinstance(parent, (ast.List, ast.Tuple, ast.Set)) or (isinstance(parent, ast.Dict) and node in parent.values):
        made = parents.get(id(parent))
        if isinstance(made, ast.Assign) and len(made.targets) == 1 and isinstance(made.targets[0], ast.Name):
            return made.targets[0].id
        if isinstance(made, ast.AnnAssign) and isinstance(made.target, ast.Name):
            return made.target.id
    return None


def _container_name(target: ast.expr) -> str | None:
    """``found`` of an assignment target ``found[k]``."""
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        return target.value.id
    return None


def _loop_use(loop: ast.For | ast.AsyncFor | ast.comprehension, parents: dict[int, ast.AST]) -> str | None:
    """The non-string use the body of a loop over a container makes of its element."""
    if not isinstance(loop.target, ast.Name):
        return None
    element = loop.target.id
    if isinstance(loop, ast.comprehension):
        around = parents.get(id(loop))
        body: list[ast.AST] = [around] if around is not None else []
    else:
        body = list(loop.body)
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id == element and isinstance(node.ctx, ast.Load):
                how = _operator_use(node, parents.get(id(node)))
                if how is not None:
                    return f"{how} (each element)"
    return None


def _is_static(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(dotted(d) == "staticmethod" for d in function.decorator_list)


def _is_self(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"

def _called_names(func: ast.expr) -> list[str]:
    """The names a call is indexed under: the attribute or name it calls, and for ``f.invoke(...)``
    (a tool object's entry point) also ``f``."""
    if isinstance(func, ast.Name):
        return [func.id]
    if not isinstance(func, ast.Attribute):
        return []
    if func.attr in FUNCTION_ENTRIES and isinstance(func.value, ast.Name):
        return [func.attr, func.value.id]
    return [func.attr]

def _fixtures(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """The module's pytest fixtures by name (``@pytest.fixture`` / ``@fixture``, with or without arguments)."""
    found = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            for decorator in stmt.decorator_list:
                spelled = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
                if spelled in ("pytest.fixture", "fixture"):
                    found[stmt.name] = stmt
    return found

def _operator_use(node: ast.AST, parent: ast.AST | None) -> str | None:
    """The non-string use an operator, a subscript, an attribute or a loop makes of ``node``."""
    if isinstance(parent, ast.Compare) and any(isinstance(op, ORDERING) for op in parent.ops):
        return "compares it as a number (`<`, `>`)"
    if isinstance(parent, ast.BinOp) and not isinstance(parent.op, (ast.Add, ast.Mod)):
        return "does arithmetic on it"
    if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, (ast.USub, ast.UAdd)):
        return "does arithmetic on it"
    if isinstance(parent, ast.Subscript) and parent.value is node:
        key = parent.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return f"reads its key {key.value!r}"
        return "indexes it"
    if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr not in STR_ATTRIBUTES:
        return f"reads `.{parent.attr}`"
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
        return "iterates over it"
    return None


def _parameter_of(scopes: list[ast.AST], name: str) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, int] | None:
    """The innermost function around a name and the name's position among its positional
    parameters, when the name is one of them (and is not ``self``/``cls``)."""
    functions = [s for s in scopes if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not functions or name in ("self", "cls"):
        return None
    function = functions[-1]
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    return (function, positional.index(name)) if name in positional else None
