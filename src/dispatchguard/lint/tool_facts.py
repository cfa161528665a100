"""Facts about the project's tools that the autofixes need, read from the lint index.

Built on :class:`~dispatchguard.lint.project.Project` and its resolver only (``ast``, no libcst,
never the user's code):

- :meth:`ToolFacts.dispatcher`: the configured dispatcher whose signature can be read
  (``run_tool(name, args)``: a project function of two parameters), else dispatchguard's own
  ``dispatch_tool`` bound to the dispatchguard registry the project registers the tool into;
- :meth:`ToolFacts.registered_names`: the keys a tool is registered under in the registries the
  dispatcher reads (``TOOLS = {"calculator": CalculatorTool()}``, ``TOOLS["calc"] = ...``);
- :meth:`ToolFacts.value_class`: the class of the value an expression denotes (``self``, a call
  of a class, a name assigned once or annotated in the enclosing function or module);
- :meth:`ToolFacts.is_pydantic_model`: whether a class derives from a pydantic model;
- :meth:`ToolFacts.imports_module`: whether a module imports another, directly or not (an import
  the fix would add must not close a cycle);
- :meth:`ToolFacts.runtime_dependency`: whether the project depends on dispatchguard at run time;
- :meth:`ToolFacts.callers`: the project's direct calls of a tool method or function, and how each
  uses the returned value when that use needs a non-string (``left < 0``, ``r["key"]``, a
  parameter annotated ``list[dict]``).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from dispatchguard.lint.config import LintConfig, any_glob
from dispatchguard.lint.discovery import SourceFile
from dispatchguard.lint.index import dotted
from dispatchguard.lint.notebook import virtual_bytes
from dispatchguard.lint.project import Project
from dispatchguard.lint.resolve import ModuleInfo

#: Classes outside the project known to be pydantic (v2) models: ``model_dump_json`` exists.
PYDANTIC_BASES = frozenset(
    {
        "pydantic.BaseModel", "pydantic.main.BaseModel", "pydantic.RootModel", "pydantic.root_model.RootModel",
        "crewai.tools.BaseTool", "crewai.tools.base_tool.BaseTool", "crewai.tools.structured_tool.CrewStructuredTool",
        "langchain_core.tools.BaseTool", "langchain_core.tools.base.BaseTool", "langchain.tools.BaseTool",
    }
)  # fmt: skip
NAME_PARAMS = frozenset({"name", "tool", "tool_name"})
ARGS_PARAMS = frozenset({"args", "arguments", "kwargs", "params", "parameters", "tool_args", "tool_input"})
_MAX_DEPTH = 20
TOOL_METHODS = frozenset({"run", "_run", "arun", "_arun", "invoke", "ainvoke"})
#: The calls that reach a tool class's method: the framework's public entry points forward to it.
REACHED_BY = {"_run": frozenset({"run", "_run", "invoke"}), "_arun": frozenset({"arun", "_arun", "ainvoke"})}
#: The calls that reach a tool function: calling it, or its tool object's entry points.
FUNCTION_ENTRIES = frozenset({"invoke", "ainvoke", "run", "arun", "func", "coroutine"})
STR_ATTRIBUTES = frozenset(dir(str))
ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
STRING_ANNOTATIONS = frozenset({"str", "Any", "object", "typing.Any"})


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
        return f"{self.relpath}:{self.line}"


@dataclass(frozen=True)
class Dispatcher:
    """The dispatcher a DG101 fix calls: a project function ``function(<name>, <args dict>)``, or
    (``runtime``) dispatchguard's ``dispatch_tool(ToolAction(...), registry=...)`` when the project
    has none configured."""

    module: str  # dotted module name
    function: str  # what the fix imports and calls: the function, or the instance whose ``method`` it calls
    is_async: bool
    registries: frozenset[str]  # canonical names of the registries it looks tools up in by name
    runtime: bool = False
    method: str | None = None  # ``DISPATCHER.execute``: the instance's method
    action: tuple[str, str, str] | None = None  # ``f(ToolAction(name=..., args=...))``: class, name and args fields

    @property
    def label(self) -> str:
        """How the project spells it (``app.dispatch.DISPATCHER.execute``)."""
        return f"{self.module}.{self.function}" + (f".{self.method}" if self.method else "")

    @property
    def callee(self) -> str:
        """What the rewritten call calls in the fixed module."""
        return self.function + (f".{self.method}" if self.method else "")


#: dispatchguard's global registry (``dispatch_tool``'s default) and its registry class.
RUNTIME_REGISTRIES = frozenset({"dispatchguard.TOOL_REGISTRY", "dispatchguard.runtime.registry.TOOL_REGISTRY"})
RUNTIME_REGISTRY_CLASSES = frozenset({"dispatchguard.ToolRegistry", "dispatchguard.runtime.registry.ToolRegistry"})
RUNTIME_DISPATCHER = Dispatcher("dispatchguard", "dispatch_tool", False, frozenset(), runtime=True)


@dataclass(frozen=True)
class Registration:
    """A registry entry holding a tool: its key, the registry (canonical name), whether it is the
    very binding asked about (``by_reference``), else the value constructed for it, when known."""

    name: str
    registry: str
    by_reference: bool
    value: ast.expr | None


@dataclass(frozen=True)
class Unknown:
    """No fact, and why (the text goes into the finding's skip reason)."""

    reason: str


class ToolFacts:
    """The facts of one project (built once per fix run; modules are loaded on demand)."""

    def __init__(self, config: LintConfig, files: list[SourceFile]) -> None:
        self.config = config
        self.project = Project(config, files)
        self.resolver = self.project.resolver
        self._direct_calls: dict[str | None, bool] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._callers: dict[tuple[str, str | None], list[Caller]] = {}
        self._calls_by_name: dict[str, dict[str, list[ast.Call]]] = {}
        self._parents: dict[tuple[str, int], dict[int, ast.AST]] = {}
        self._receivers: dict[tuple[str, int], str | None] = {}
        self._file_words: dict[str, frozenset[bytes]] = {}
        self._file_bytes: dict[str, bytes] = {}
        self._scope_names: dict[tuple[str, int], frozenset[str]] = {}

    # ------------------------------------------------------------------ modules

    def info(self, key: str) -> ModuleInfo | None:
        return self.project.load(key)

    def module_name(self, key: str) -> str:
        return self.project.module_names[key][0]

    def module_key(self, module: str) -> str | None:
        return self.project.owners.get(module)

    def qualify(self, key: str, name: str) -> str | None:
        info = self.info(key)
        return self.resolver.local_qual(info, name) if info is not None else None

    def _defining(self, qual: str, depth: int = 0) -> tuple[str, ModuleInfo | None, str]:
        """Follow re-exports (imports not shadowed by a definition) from a qualified name: the
        last qualified name reached, and the project module defining it with the name there (no
        module when the name is not a top-level name of the project)."""
        info, rest = self.resolver.split(qual, any_module=True)
        if depth > _MAX_DEPTH or not isinstance(info, ModuleInfo) or len(rest) != 1:
            return qual, None, ""
        target = info.imports.get(rest[0])
        if target is not None and rest[0] not in info.defs:
            return self._defining(self.resolver.absolute(info, target), depth + 1)
        return qual, info, rest[0]

    def _binding(self, qual: str) -> tuple[ModuleInfo, list[Any]] | None:
        """The module and descriptors of a qualified top-level name of the project, through imports."""
        _, info, name = self._defining(qual)
        descs = info.defs.get(name) if info is not None else None
        return (info, descs) if info is not None and descs else None

    def canonical(self, qual: str) -> str:
        """A qualified name with re-exports followed to where the name is defined."""
        reached, info, name = self._defining(qual)
        if info is None:
            return reached
        return f"{info.name}.{name}" if info.name else name

    # ------------------------------------------------------------------ classes

    def is_pydantic_model(self, qual: str, depth: int = 0) -> bool:
        """Whether the class ``qual`` derives from a pydantic v2 model (through any chain)."""
        qual = self.canonical(qual)
        if qual in PYDANTIC_BASES:
            return True
        if depth > _MAX_DEPTH:
            return False
        found = self._binding(qual)
        if found is None:
            return False
        info, descs = found
        for desc in descs:
            if desc[0] == "class":
                for base in desc[1]:
                    base_qual = self.resolver.local_qual(info, base)
                    if base_qual is not None and self.is_pydantic_model(base_qual, depth + 1):
                        return True
        return False

    def instance_class(self, qual: str) -> str | None:
        """The class of a module-level binding assigned a class instance (``calc = Calc()``)."""
        found = self._binding(self.canonical(qual))
        if found is None:
            return None
        info, descs = found
        classes = {self.resolver.local_qual(info, d[1]) for d in descs if d[0] == "call"}
        if len(classes) != 1 or len(descs) != 1:
            return None
        cls = classes.pop()
        return self.canonical(cls) if cls and self._is_class(cls) else None

    def _is_class(self, qual: str) -> bool:
        found = self._binding(self.canonical(qual))
        if found is None:  # outside the project: a class by its spelling
            return qual.rsplit(".", 1)[-1][:1].isupper()
        return any(d[0] == "class" for d in found[1])

    def value_class(self, key: str, tree: ast.Module, node: ast.expr) -> str | None:
        """The class of the object ``node`` (in the file ``key`` parsed as ``tree``) denotes, when
        it is proven: one binding in the innermost scope that binds the name."""
        scopes = _enclosing(tree, node)
        if isinstance(node, ast.Name) and node.id in ("self", "cls"):
            classes = [s for s in scopes if isinstance(s, ast.ClassDef)]
            if classes and classes[-1] in tree.body:
                return f"{self.module_name(key)}.{classes[-1].name}"
            return None
        if isinstance(node, ast.Call):
            callee = dotted(node.func)
            qual = self.qualify(key, callee) if callee else None
            return self.canonical(qual) if qual and self._is_class(qual) else None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            classes = [s for s in scopes if isinstance(s, ast.ClassDef)]
            if not classes:
                return None
            values = _self_attribute_values(classes[-1], node.attr)
            return self._agree(key, tree, values)
        if isinstance(node, ast.Name):
            for scope in reversed([s for s in scopes if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]):
                values = _local_values(scope, node.id)
                if values is not None:
                    return self._agree(key, tree, values)
            qual = self.qualify(key, node.id)
            return self.instance_class(qual) if qual else None
        return None

    @staticmethod
    def bound_value(tree: ast.Module, node: ast.expr) -> ast.expr | None:
        """The one value a local name or ``self.attr`` is assigned (``tool = REGISTRY["x"]``)."""
        scopes = _enclosing(tree, node)
        values: list[ast.expr] | None = None
        if isinstance(node, ast.Name):
            for scope in reversed([s for s in scopes if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]):
                values = _local_values(scope, node.id, lookups=True)
                if values is not None:
                    break
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            classes = [s for s in scopes if isinstance(s, ast.ClassDef)]
            values = _self_attribute_values(classes[-1], node.attr, lookups=True) if classes else None
        if values and len(values) == 1 and isinstance(values[0], (ast.Subscript, ast.Call)):
            return values[0]
        return None

    def _agree(self, key: str, tree: ast.Module, values: list[ast.expr]) -> str | None:
        classes = set()
        for value in values:
            if isinstance(value, ast.Call):
                classes.add(self.value_class(key, tree, value))
            else:  # an annotation
                name = dotted(value)
                qual = self.qualify(key, name) if name else None
                classes.add(self.canonical(qual) if qual and self._is_class(qual) else None)
        return classes.pop() if len(classes) == 1 else None

    def binding_qual(self, key: str, tree: ast.Module, node: ast.expr) -> str | None:
        """The qualified module-level binding a bare name refers to (not shadowed in a function)."""
        if not isinstance(node, ast.Name):
            return None
        for scope in _enclosing(tree, node):
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and _local_values(scope, node.id) is not None:
                return None
        qual = self.qualify(key, node.id)
        return self.canonical(qual) if qual else None

    # ------------------------------------------------------------------ registries and dispatcher

    @cached_property
    def dispatchers(self) -> list[Dispatcher] | Unknown:
        """The configured dispatchers of the project the fix can call, in configuration order: a
        function ``f(name, args)`` or ``f(action)`` taking a model with a name and an args field,
        or such a method of a class with one module-level instance (``DISPATCHER.execute``);
        dispatchguard's own when none is configured; why none is usable otherwise."""
        found: list[Dispatcher] = []
        reasons = []
        for entry in self.config.dispatchers:
            usable = self._dispatcher(entry)
            if isinstance(usable, Dispatcher):
                found.append(usable)
            elif usable is not None:
                reasons.append(usable.reason)
        if found:
            return found
        if reasons:
            return Unknown("no usable dispatcher: " + "; ".join(reasons))
        return [RUNTIME_DISPATCHER]

    @property
    def dispatcher(self) -> Dispatcher | Unknown:
        """The first usable dispatcher (see :attr:`dispatchers`)."""
        usable = self.dispatchers
        return usable if isinstance(usable, Unknown) else usable[0]

    def dispatcher_for(self, is_async: bool) -> Dispatcher | Unknown:
        """The first usable dispatcher of the call's kind (an async call needs an async one)."""
        usable = self.dispatchers
        if isinstance(usable, Unknown) or usable[0].runtime:
            return usable if isinstance(usable, Unknown) else usable[0]
        same = [d for d in usable if d.is_async == is_async]
        if same:
            return same[0]
        kind = "async" if is_async else "sync"
        return Unknown(f"the call is {kind} and no configured dispatcher is ({', '.join(d.label for d in usable)})")

    def _dispatcher(self, entry: str) -> Dispatcher | Unknown | None:
        """The dispatcher an entry of ``dispatchers`` names, why it is not usable, or None when it
        names no module of the project (dispatchguard's own, a bare name)."""
        module, _, function = entry.rpartition(".")
        key = self.module_key(module) if module else None
        if key is not None:
            tree = self.tree(key)
            target = _top_function(tree, function) if tree is not None else None
            if target is None:
                return Unknown(f"`{entry}` is not a top-level function")
            return self._shaped(entry, module, function, None, target, None)
        owner, _, class_name = module.rpartition(".")
        key = self.module_key(owner) if owner else None
        tree = self.tree(key) if key is not None else None
        if tree is None:
            return None
        cls = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == class_name), None)
        method = _top_function(cls, function) if cls is not None else None  # type: ignore[arg-type]
        if cls is None or method is None:
            return Unknown(f"`{entry}` is not a method of a top-level class")
        instance = _single_instance(tree, class_name)
        if instance is None:
            return Unknown(f"`{entry}`: `{class_name}` has not exactly one module-level instance to call it on")
        return self._shaped(entry, owner, instance.targets[0].id, function, method, (cls, instance))  # type: ignore[attr-defined]

    def _shaped(
        self,
        entry: str,
        module: str,
        name: str,
        method: str | None,
        target: ast.FunctionDef | ast.AsyncFunctionDef,
        owner: tuple[ast.ClassDef, ast.Assign] | None,
    ) -> Dispatcher | Unknown:
        """The dispatcher ``target`` makes, by its parameters: ``(name, args)`` or one action model."""
        params = [*target.args.posonlyargs, *target.args.args][1 if method else 0 :]
        is_async = isinstance(target, ast.AsyncFunctionDef)
        key = self.module_key(module)
        assert key is not None
        action = None
        if len(params) >= 2 and params[0].arg in NAME_PARAMS and params[1].arg in ARGS_PARAMS:
            name_key: tuple[str, str | None] = (params[0].arg, None)
        elif params and params[0].annotation is not None and (action := self._action_model(key, params[0])):
            name_key = (params[0].arg, action[1])
        else:
            return Unknown(f"`{entry}` takes neither (name, args) nor an action model with a name and args field")
        scopes: list[ast.AST] = [target] if owner is None else list(owner[0].body)
        registries = self._looked_up(key, scopes, name_key, owner)
        return Dispatcher(module, name, is_async, frozenset(registries), method=method, action=action)

    def _action_model(self, key: str, param: ast.arg) -> tuple[str, str, str] | None:
        """(qualified class, name field, args field) of a parameter annotated with a project class
        that has a name field and an args field (``action: ToolAction``)."""
        spelled = dotted(param.annotation) if param.annotation is not None else None
        qual = self.qualify(key, spelled) if spelled else None
        if qual is None:
            return None
        qual = self.canonical(qual)
        module, _, class_name = qual.rpartition(".")
        owner = self.module_key(module)
        tree = self.tree(owner) if owner is not None else None
        cls = (
            next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == class_name), None) if tree else None
        )
        if cls is None:
            return None
        fields = [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
        name_field = next((f for f in fields if f in NAME_PARAMS), None)
        args_field = next((f for f in fields if f in ARGS_PARAMS), None)
        return (qual, name_field, args_field) if name_field and args_field else None

    def _looked_up(
        self,
        key: str,
        scopes: list[ast.AST],
        name_key: tuple[str, str | None],
        owner: tuple[ast.ClassDef, ast.Assign] | None,
    ) -> set[str]:
        """The registries the dispatcher looks a tool up in by the name it is given
        (``TOOLS[name]``, ``TOOLS.get(action.name)``, ``self.tools[name]``): canonical names."""
        found: set[str] = set()
        for scope in scopes:
            keys = _name_expressions(scope, name_key)
            for node in ast.walk(scope):
                container = _lookup_container(node, keys)
                if container is None:
                    continue
                for spelled in self._container_names(container, owner):
                    qual = self.qualify(key, spelled)
                    if qual is not None:
                        found.add(self.canonical(qual))
        return found

    @staticmethod
    def _container_names(container: ast.expr, owner: tuple[ast.ClassDef, ast.Assign] | None) -> list[str]:
        """The module-level names a looked-up container is: ``TOOLS``, or for ``self.tools`` what
        ``__init__`` assigns it (a module-level name, or the instance's argument for a parameter)."""
        spelled = dotted(container)
        if spelled is not None and "." not in spelled:
            return [spelled]
        if owner is None or not (
            isinstance(container, ast.Attribute)
            and isinstance(container.value, ast.Name)
            and container.value.id == "self"
        ):
            return []
        cls, instance = owner
        out = []
        for value in _self_attribute_values(cls, container.attr):
            name = dotted(value)
            argument = _argument_for(cls, instance.value, name) if name else None  # type: ignore[arg-type]
            spelled = dotted(argument) if argument is not None else name
            if spelled is not None and "." not in spelled:
                out.append(spelled)
        return out

    def reads(self, dispatcher: Dispatcher, registry: str) -> bool:
        """Whether ``dispatcher`` looks tools up in the registry ``registry`` (canonical name)."""
        if not dispatcher.runtime:
            return registry in dispatcher.registries
        return registry in RUNTIME_REGISTRIES or self.instance_class(registry) in RUNTIME_REGISTRY_CLASSES

    def registered_names(
        self, class_qual: str | None, binding_qual: str | None, dispatcher: Dispatcher
    ) -> dict[str, str]:
        """The keys under which the registries ``dispatcher`` reads hold the tool (an instance of
        ``class_qual``, or the module-level binding ``binding_qual``), with each key's registry."""
        return {r.name: r.registry for r in self.registrations(class_qual, binding_qual, dispatcher)}

    def registrations(
        self, class_qual: str | None, binding_qual: str | None, dispatcher: Dispatcher
    ) -> list[Registration]:
        """The entries of the registries ``dispatcher`` reads that hold the tool: the module-level
        binding ``binding_qual`` itself (the same object), or an instance of ``class_qual``."""
        words = b"|".join(re.escape(q.rsplit(".", 1)[-1].encode()) for q in (class_qual, binding_qual) if q)
        # where an entry can name it: ``"k": Word``, ``"k", Word`` (register) or ``REG["k"] = Word``
        entry = re.compile(rb"""(?:["']\s*[:,]|\]\s*=)\s*(?:""" + words + rb")\b")
        found: list[Registration] = []
        for key in self.project.files:
            info = self.info(key) if words and entry.search(self._bytes(key)) else None
            summary = self.project.known.get(key, (None, None))[0] if info is not None else None
            for registry, entries in (summary or {}).get("keys", {}).items():
                qual = self.canonical(self.resolver.local_qual(info, registry) or registry)  # type: ignore[arg-type]
                if self.reads(dispatcher, qual):
                    found.extend(self._matching(key, info, registry, qual, entries, class_qual, binding_qual))  # type: ignore[arg-type]
        return found

    def _matching(
        self,
        key: str,
        info: ModuleInfo,
        registry: str,
        qual: str,
        entries: list[Any],
        class_qual: str | None,
        binding_qual: str | None,
    ) -> list[Registration]:
        out = []
        for name, desc in entries:
            entry_qual = self.resolver.local_qual(info, desc[1])
            entry_qual = self.canonical(entry_qual) if entry_qual is not None else None
            if entry_qual is None:
                continue
            if desc[0] == "ref" and entry_qual == binding_qual:
                out.append(Registration(name, qual, True, None))
            elif desc[0] == "call" and entry_qual == class_qual:
                out.append(Registration(name, qual, False, self._entry_value(key, registry, name)))
            elif desc[0] == "ref" and class_qual and self.instance_class(entry_qual) == class_qual:
                out.append(Registration(name, qual, False, self.construction(entry_qual)))
        return out

    def _entry_value(self, key: str, registry: str, name: str) -> ast.expr | None:
        """The value registered under ``name`` in the module-level ``registry`` of file ``key``."""
        tree = self.tree(key)
        for stmt in tree.body if tree is not None else ():
            value = _registered_value(stmt, registry, name)
            if value is not None:
                return value
        return None

    def construction(self, qual: str) -> ast.Call | None:
        """The call a module-level binding of the project is assigned (``calc = Calc()``)."""
        _, info, name = self._defining(self.canonical(qual))
        key = self.module_key(info.name) if info is not None else None
        tree = self.tree(key) if key is not None else None
        for stmt in tree.body if tree is not None else ():
            if (
                isinstance(stmt, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
                and isinstance(stmt.value, ast.Call)
            ):
                return stmt.value
        return None

    def imports_module(self, importer: str, imported: str) -> bool:
        """Whether module ``importer`` imports ``imported`` at top level, directly or through
        other project modules."""
        seen: set[str] = set()
        todo = [importer]
        while todo:
            module = todo.pop()
            if module == imported:
                return True
            key = self.module_key(module)
            if key is None or key in seen:
                continue
            seen.add(key)
            info = self.info(key)
            if info is None:
                continue
            for target in info.imports.values():
                absolute = self.resolver.absolute(info, target)
                todo.extend(absolute.rsplit(".", i)[0] for i in range(absolute.count(".") + 1))
        return False

    @staticmethod
    def enclosing(tree: ast.Module, node: ast.AST) -> list[ast.AST]:
        """The classes and functions around ``node``, outermost first."""
        return _enclosing(tree, node)

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
        for file in self.project.files.values():
            try:
                if pattern.search(virtual_bytes(file.path)):
                    return True
            except OSError:
                return True
        return False

    # ------------------------------------------------------------------ direct callers

    def tree(self, key: str) -> ast.Module | None:
        """The parsed file ``key`` (parsed once per run; None when it cannot be read or parsed)."""
        if key not in self._trees:
            try:
                self._trees[key] = ast.parse(self._bytes(key))
            except (SyntaxError, ValueError):
                self._trees[key] = None
        return self._trees[key]

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
        for key, file in self.project.files.items():
            if spelled_needed.isdisjoint(self._words(key)) or not syntax.search(self._bytes(key)):
                continue
            calls = self._calls_in(key)
            candidates = [c for n in sorted(names) for c in calls.get(n, ())]
            tree = self.tree(key)
            if tree is None:
                continue
            is_test = any_glob(self.config.test_patterns, file.relpath)
            for call in candidates:
                if class_qual and not self._may_name(key, tree, call, needed):
                    continue
                if self._calls(key, tree, call, names, function, class_qual):
                    use = self._non_string_use(key, tree, call, self._parents_of(key, _scope_of(tree, call)))
                    found.append(Caller(file.relpath, call.lineno, is_test, use))
        return sorted(found, key=lambda c: (c.relpath, c.line))

    def _instance_words(self, class_qual: str) -> set[str]:
        """The class's name and the module-level names its module assigns an instance of it."""
        module, _, class_name = class_qual.rpartition(".")
        key = self.module_key(module)
        tree = self.tree(key) if key is not None else None
        words = {class_name}
        for stmt in tree.body if tree is not None else ():
            if (
                isinstance(stmt, ast.Assign)
                and isinstance(stmt.value, ast.Call)
                and dotted(stmt.value.func) == class_name
            ):
                words.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        return words

    def _bytes(self, key: str) -> bytes:
        """A file's bytes (read once per run; empty when it cannot be read)."""
        if key not in self._file_bytes:
            try:
                self._file_bytes[key] = virtual_bytes(self.project.files[key].path)
            except OSError:
                self._file_bytes[key] = b""
        return self._file_bytes[key]

    def _words(self, key: str) -> frozenset[bytes]:
        """The identifiers a file's bytes spell."""
        if key not in self._file_words:
            words = re.findall(rb"\w+", self._bytes(key))
            self._file_words[key] = frozenset(words)
        return self._file_words[key]

    def _calls_in(self, key: str) -> dict[str, list[ast.Call]]:
        """The file's calls by the name they call (``x.run(...)`` under ``run``; ``f(...)`` and
        ``f.invoke(...)`` under ``f``), indexed once."""
        if key not in self._calls_by_name:
            tree = self.tree(key)
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
        scopes = _enclosing(tree, call)
        scope = scopes[0] if scopes else tree  # the outermost class or function: self.x is bound in its methods
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        fixture = _fixtures(tree).get(receiver.id) if isinstance(receiver, ast.Name) else None
        return any(not needed.isdisjoint(self._names_in(key, s)) for s in (scope, fixture) if s is not None)

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
            found = self.value_class(key, tree, receiver)
            fixture = _fixtures(tree).get(receiver.id) if found is None and isinstance(receiver, ast.Name) else None
            if fixture is not None:
                returned = [n.value for n in _own_nodes(fixture) if isinstance(n, (ast.Return, ast.Yield)) and n.value]
                classes = {self.value_class(key, tree, value) for value in returned}
                found = classes.pop() if len(classes) == 1 else None
            self._receivers[slot] = found
        return self._receivers[slot]

    def _parents_of(self, key: str, scope: ast.AST) -> dict[int, ast.AST]:
        """The parent of each node of ``scope`` (a function, or the module), built once per scope."""
        slot = (key, id(scope))
        if slot not in self._parents:
            self._parents[slot] = _parents(scope)
        return self._parents[slot]

    def remember(self, key: str, tree: ast.Module) -> None:
        """Use ``tree``, parsed from the file ``key`` as it is on disk, instead of parsing it again."""
        self._trees.setdefault(key, tree)

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
        qual = self.qualify(key, spelled) if spelled else None
        return qual is not None and self.canonical(qual) == function

    def _non_string_use(self, key: str, tree: ast.Module, call: ast.Call, parents: dict[int, ast.AST]) -> str | None:
        """How the code around ``call`` uses its value when that needs something else than a
        ``str``, followed through one local name (``left = compute_sla(...)`` then ``left < 0``)."""
        node: ast.AST = call
        parent = parents.get(id(node))
        if isinstance(parent, ast.Await):
            node, parent = parent, parents.get(id(parent))
        if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if len(targets) != 1 or not isinstance(targets[0], ast.Name):
                return "unpacks it" if any(isinstance(t, (ast.Tuple, ast.List)) for t in targets) else None
            scope = _scope_of(tree, parent)
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

    def _use_of(self, key: str, node: ast.AST, parents: dict[int, ast.AST]) -> str | None:
        """The non-string use the expression ``node`` is put to by its parent, if any."""
        parent = parents.get(id(node))
        how = _operator_use(node, parent)
        if how is not None or not isinstance(parent, ast.Call) or node is parent.func:
            return how
        if isinstance(parent.func, ast.Attribute) and parent.func.attr in ("extend", "update"):
            return f"passes it to `.{parent.func.attr}(...)`"
        return self._annotated_parameter(key, self.tree(key), parent, node)  # type: ignore[arg-type]

    def _annotated_parameter(self, key: str, tree: ast.Module, call: ast.Call, argument: ast.AST) -> str | None:
        """``add_resources(result)`` or ``self.add_resources(result)`` where the project function's
        (or method's) parameter is annotated other than ``str``: the text of that parameter."""
        target = self._callee_def(key, tree, call.func)
        if target is None:
            return None
        on_self = isinstance(call.func, ast.Attribute) and dotted(call.func.value) == "self"
        params = [*target.args.posonlyargs, *target.args.args][1 if on_self else 0 :]
        if argument in call.args:
            index = call.args.index(argument)  # type: ignore[arg-type]
            param = params[index] if index < len(params) else None
        else:
            names = [k.arg for k in call.keywords if k.value is argument]
            param = next((p for p in (*params, *target.args.kwonlyargs) if names and p.arg == names[0]), None)
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
            owner = self.value_class(key, tree, func.value)
            return self._method(owner, func.attr) if owner is not None else None
        spelled = dotted(func)
        qual = self.qualify(key, spelled) if spelled else None
        if qual is None:
            return None
        module, _, name = self.canonical(qual).rpartition(".")
        defining = self.module_key(module)
        found = self.tree(defining) if defining else None
        return _top_function(found, name) if found is not None else None

    def _method(self, class_qual: str, name: str, depth: int = 0) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        module, _, class_name = self.canonical(class_qual).rpartition(".")
        key = self.module_key(module)
        tree = self.tree(key) if key is not None else None
        cls = (
            next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == class_name), None) if tree else None
        )
        if cls is None or depth > _MAX_DEPTH:
            return None
        found = _top_function(cls, name)
        info = self.info(key) if found is None else None  # type: ignore[arg-type]
        for base in cls.bases if info is not None else ():
            spelled = dotted(base)
            base_qual = self.resolver.local_qual(info, spelled) if spelled else None
            found = found or (self._method(base_qual, name, depth + 1) if base_qual else None)
        return found

    @cached_property
    def runtime_dependency(self) -> bool:
        """Whether the project depends on dispatchguard at run time: its pyproject's dependencies
        name it, or a module outside the tests imports it."""
        pyproject = Path(self.config.root) / "pyproject.toml"
        if pyproject.is_file() and re.search(rb"""["']dispatchguard\b""", _dependency_text(pyproject.read_bytes())):
            return True
        for file in self.project.files.values():
            if any_glob(self.config.test_patterns, file.relpath):
                continue
            try:
                data = virtual_bytes(file.path)
            except OSError:
                continue
            if re.search(rb"^\s*(from|import)\s+dispatchguard\b", data, re.MULTILINE):
                return True
        return False


def _dependency_text(data: bytes) -> bytes:
    """The ``dependencies = [...]`` arrays of a pyproject (not the optional ones)."""
    found = re.findall(rb"(?m)^dependencies\s*=\s*\[(.*?)\]", data, re.DOTALL)
    return b"\n".join(found)


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


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _scope_of(tree: ast.Module, node: ast.AST) -> ast.AST:
    """The innermost function holding ``node``, else the module."""
    functions = [s for s in _enclosing(tree, node) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return functions[-1] if functions else tree


def _top_function(tree: ast.Module | ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            return stmt
    return None


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


def _registered_value(stmt: ast.stmt, registry: str, name: str) -> ast.expr | None:
    """The value ``stmt`` registers under ``name`` in ``registry``: ``REG = {"name": v}``,
    ``REG["name"] = v`` or ``REG.register("name", v)``."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if isinstance(target, ast.Name) and target.id == registry and isinstance(stmt.value, ast.Dict):
            for key, value in zip(stmt.value.keys, stmt.value.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == name:
                    return value
        if isinstance(target, ast.Subscript) and dotted(target.value) == registry:
            return stmt.value if isinstance(target.slice, ast.Constant) and target.slice.value == name else None
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "register"
        and dotted(call.func.value) == registry
        and len(call.args) >= 2
        and isinstance(call.args[0], ast.Constant)
        and call.args[0].value == name
    ):
        return call.args[1]
    return None


def _single_instance(tree: ast.Module, class_name: str) -> ast.Assign | None:
    """The one module-level ``NAME = ClassName(...)`` of a module, if there is exactly one."""
    found = [
        s
        for s in tree.body
        if isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], ast.Name)
        and isinstance(s.value, ast.Call)
        and dotted(s.value.func) == class_name
    ]
    return found[0] if len(found) == 1 else None


def _name_expressions(scope: ast.AST, name_key: tuple[str, str | None]) -> list[str]:
    """How the tool's name is spelled in a dispatcher: its parameter (``name``), the action's field
    (``action.name``), and the locals assigned one of those."""
    param, field = name_key
    spelled = [param if field is None else f"{param}.{field}"]
    for node in ast.walk(scope):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and dotted(node.value) in spelled
        ):
            spelled.append(node.targets[0].id)
    return spelled


def _lookup_container(node: ast.AST, keys: list[str]) -> ast.expr | None:
    """The container of ``container[key]`` or ``container.get(key, ...)`` when ``key`` is the name."""
    if isinstance(node, ast.Subscript) and dotted(node.slice) in keys:
        return node.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("get", "__getitem__")
        and node.args
        and dotted(node.args[0]) in keys
    ):
        return node.func.value
    return None


def _argument_for(cls: ast.ClassDef, call: ast.Call, param: str) -> ast.expr | None:
    """The argument ``call`` (an instance's construction) passes for ``__init__``'s ``param``."""
    init = _top_function(cls, "__init__")  # type: ignore[arg-type]
    if init is None:
        return None
    names = [a.arg for a in (*init.args.posonlyargs, *init.args.args)][1:]
    for keyword in call.keywords:
        if keyword.arg == param:
            return keyword.value
    if param in names and names.index(param) < len(call.args):
        return call.args[names.index(param)]
    return None


def _enclosing(tree: ast.Module, node: ast.AST) -> list[ast.AST]:
    """The classes and functions around ``node``, outermost first."""
    line, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
    chain: list[ast.AST] = []
    body: list[ast.stmt] = tree.body
    while True:
        for stmt in body:
            if not isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            end = (stmt.end_lineno or 0, stmt.end_col_offset or 0)
            if (stmt.lineno, stmt.col_offset) <= (line, col) <= end:
                chain.append(stmt)
                body = stmt.body
                break
        else:
            nested = [s for s in _compound_bodies(body) if _within(s, line, col)]
            if not nested:
                return chain
            body = nested[0]


def _compound_bodies(body: list[ast.stmt]) -> list[list[ast.stmt]]:
    """The statement lists inside if/for/while/with/try statements (where a def may sit)."""
    out = []
    for stmt in body:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if (
                isinstance(block, list)
                and block
                and not isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            ):
                out.append(block)
        for handler in getattr(stmt, "handlers", ()):
            out.append(handler.body)
    return out


def _within(body: list[ast.stmt], line: int, col: int) -> bool:
    first, last = body[0], body[-1]
    return (first.lineno, first.col_offset) <= (line, col) <= (last.end_lineno or 0, last.end_col_offset or 0)


def _readable(value: ast.expr, lookups: bool) -> bool:
    """A call, a dotted name (an annotation), or with ``lookups`` a subscript (a registry lookup)."""
    return isinstance(value, ast.Call) or dotted(value) is not None or (lookups and isinstance(value, ast.Subscript))


def _local_values(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, lookups: bool = False
) -> list[ast.expr] | None:
    """What ``name`` is bound to in ``function``: call values and annotations; [] when it is bound
    in a way that proves nothing (a loop, ``with``, augmented assignment); None when the function
    does not bind it."""
    values: list[ast.expr] = []
    bound = False
    args = function.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if arg is not None and arg.arg == name:
            bound = True
            if arg.annotation is None or arg in (args.vararg, args.kwarg):
                return []
            values.append(arg.annotation)
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    bound = True
                    values.append(node.value)
                elif _binds(target, name):
                    return []
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            bound = True
            values.append(node.value if node.value is not None else node.annotation)
        elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr, ast.comprehension)):
            if _binds(node.target, name):
                return []
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None and any(
                    isinstance(n, ast.Name) and n.id == name for n in ast.walk(item.optional_vars)
                ):
                    return []
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return []
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                return []
    if not bound:
        return None
    return values if all(_readable(v, lookups) for v in values) else []


def _binds(target: ast.AST, name: str) -> bool:
    """Whether an assignment target rebinds ``name`` (``report.html = ...`` only reads it)."""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(target))


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body, not those of nested functions or classes."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _self_attribute_values(cls: ast.ClassDef, attr: str, lookups: bool = False) -> list[ast.expr]:
    """``self.attr = value`` in the class's methods and class-level ``attr: T [= value]`` (not a
    ``= None`` placeholder)."""
    values: list[ast.expr] = []
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            if isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
                continue  # ``_tool: Any = None``: a placeholder until a method sets it; None has no tool method
            # ``tool: T = Field(default_factory=T)``: pydantic builds a T, the annotation says which
            field = isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) in ("Field", "pydantic.Field")
            readable = stmt.value is not None and not field and _readable(stmt.value, lookups)
            values.append(stmt.value if readable else stmt.annotation)  # type: ignore[arg-type]
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in _own_nodes(stmt):
                targets = (
                    node.targets
                    if isinstance(node, ast.Assign)
                    else [node.target]
                    if isinstance(node, ast.AnnAssign)
                    else []
                )
                for target in targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                        and target.attr == attr
                    ):
                        value = getattr(node, "value", None)
                        values.append(value if value is not None else node.annotation)  # type: ignore[union-attr]
    if not all(_readable(v, lookups) for v in values):
        return [ast.Constant(None)]  # something we cannot read: no agreement
    return values
