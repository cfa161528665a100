"""Facts about the project's tools that the autofixes need, read from the lint index.

Built on :class:`~dispatchguard.lint.project.Project` and its resolver only (``ast``, no libcst,
never the user's code):

- :meth:`ToolFacts.dispatcher`: the configured dispatcher whose signature can be read
  (``run_tool(name, args)``: a project function of two parameters), else dispatchguard's own
  ``dispatch_tool`` bound to the dispatchguard registry the project registers the tool into;
- :meth:`ToolFacts.registered_names`: the keys a tool is registered under in the registries the
  dispatcher reads (``TOOLS = {"calculator": CalculatorTool()}``, ``TOOLS["calc"] = ...``), or
  the name it gives itself in a registry keyed by ``.name`` (``{t.name: t for t in tools}``, a
  dispatcher comparing ``t.name == name``: :mod:`.tool_names`);
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
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from dispatchguard.lint.callers import Caller, CallerSearch
from dispatchguard.lint.config import LintConfig, any_glob
from dispatchguard.lint.discovery import SourceFile
from dispatchguard.lint.index import dotted
from dispatchguard.lint.inference.tree_values import (
    argument_for,
    enclosing,
    local_values,
    lookup_container,
    name_expressions,
    registered_value,
    self_attribute_values,
    single_instance,
    top_function,
)
from dispatchguard.lint.modules import ModuleInfo
from dispatchguard.lint.notebook import virtual_bytes
from dispatchguard.lint.project import Project
from dispatchguard.lint.tool_names import (
    TOOL_DECORATORS,
    class_name_field,
    compared_sources,
    decorated_name,
    keyword_name,
    listed,
    loop_filled_source,
    module_value,
    name_keyed_source,
    names_itself,
    only_returned,
    self_name_keyed_sources,
)

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
    #: canonical names of the lists it picks a tool from by the tool's own ``.name`` (``for t in
    #: TOOLS: if t.name == name``, ``{t.name: t for t in TOOLS}[name]``)
    named: frozenset[str] = frozenset()

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
        self._trees: dict[str, ast.Module | None] = {}
        self._caller_search = CallerSearch(self)
        self._file_bytes: dict[str, bytes] = {}
        self._members: dict[tuple[str, bool], list[tuple[str, ast.expr]]] = {}  # registry keyed by .name -> tools

    # ------------------------------------------------------------------ modules

    def info(self, key: str) -> ModuleInfo | None:
        """The module of the project file ``key``, loaded (parsed if need be) on first use; None if unparsable."""
        return self.project.load(key)

    def module_name(self, key: str) -> str:
        """The module name of the project file ``key`` (its primary name, not an alias)."""
        return self.project.module_names[key][0]

    def module_key(self, module: str) -> str | None:
        """The file key (absolute POSIX path) of the project module ``module``; None for one outside it."""
        return self.project.owners.get(module)

    def qualify(self, key: str, name: str) -> str | None:
        """The qualified name ``name`` written in file ``key`` refers to; None if it is not bound there."""
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
        scopes = enclosing(tree, node)
        if isinstance(node, ast.Name) and node.id in ("self", "cls"):
            classes = [s for s in scopes if isinstance(s, ast.ClassDef)]
            return f"{self.module_name(key)}.{classes[-1].name}" if classes and classes[-1] in tree.body else None
        if isinstance(node, ast.Call):
            callee = dotted(node.func)
            qual = self.qualify(key, callee) if callee else None
            return self.canonical(qual) if qual and self._is_class(qual) else None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            classes = [s for s in scopes if isinstance(s, ast.ClassDef)]
            return self._agree(key, tree, self_attribute_values(classes[-1], node.attr)) if classes else None
        return self._name_class(key, tree, node, scopes) if isinstance(node, ast.Name) else None

    def _name_class(self, key: str, tree: ast.Module, node: ast.Name, scopes: list[ast.AST]) -> str | None:
        """The class of a name: its bindings in the innermost function that binds it, else the module's."""
        for scope in reversed([s for s in scopes if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]):
            values = local_values(scope, node.id)
            if values is not None:
                return self._agree(key, tree, values)
        qual = self.qualify(key, node.id)
        return self.instance_class(qual) if qual else None

    @staticmethod
    def bound_value(tree: ast.Module, node: ast.expr) -> ast.expr | None:
        """The one value a local name or ``self.attr`` is assigned (``tool = REGISTRY["x"]``)."""
        scopes = enclosing(tree, node)
        values: list[ast.expr] | None = None
        if isinstance(node, ast.Name):
            for scope in reversed([s for s in scopes if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]):
                values = local_values(scope, node.id, lookups=True)
                if values is not None:
                    break
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            classes = [s for s in scopes if isinstance(s, ast.ClassDef)]
            values = self_attribute_values(classes[-1], node.attr, lookups=True) if classes else None
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
        for scope in enclosing(tree, node):
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and local_values(scope, node.id) is not None:
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
            target = top_function(tree, function) if tree is not None else None
            if target is None:
                return Unknown(f"`{entry}` is not a top-level function")
            return self._shaped(entry, module, function, None, target, None)
        owner, _, class_name = module.rpartition(".")
        key = self.module_key(owner) if owner else None
        tree = self.tree(key) if key is not None else None
        if tree is None:
            return None
        cls = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == class_name), None)
        method = top_function(cls, function) if cls is not None else None  # type: ignore[arg-type]
        if cls is None or method is None:
            return Unknown(f"`{entry}` is not a method of a top-level class")
        instance = single_instance(tree, class_name)
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
        named = self._picked_by_name(key, scopes, name_key, owner)
        return Dispatcher(
            module, name, is_async, frozenset(registries), method=method, action=action, named=frozenset(named)
        )

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
            keys = name_expressions(scope, name_key)
            for node in ast.walk(scope):
                container = lookup_container(node, keys)
                if container is None:
                    continue
                found |= self._canonical(key, self._container_names(container, owner))
        return found

    def _picked_by_name(
        self,
        key: str,
        scopes: list[ast.AST],
        name_key: tuple[str, str | None],
        owner: tuple[ast.ClassDef, ast.Assign] | None,
    ) -> set[str]:
        """The lists the dispatcher picks a tool from by comparing its ``.name`` with the name it is
        given, or indexes by ``.name`` in a comprehension of its own: canonical names."""
        found: set[str] = set()
        for scope in scopes:
            keys = name_expressions(scope, name_key)
            sources = compared_sources(scope, keys)
            local = {
                t.id: node.value
                for node in ast.walk(scope)
                if isinstance(node, ast.Assign)
                for t in node.targets
                if isinstance(t, ast.Name)
            }
            for node in ast.walk(scope):
                container = lookup_container(node, keys)
                if isinstance(container, ast.Name) and container.id in local:
                    container = local[container.id]  # tools = {t.name: t for t in TOOLS}; tools[name]
                source = name_keyed_source(container) if container is not None else None
                if source is not None:
                    sources.append(source)
                elif owner is not None and _self_attribute(container):
                    sources.extend(self_name_keyed_sources(owner[0], container.attr))  # type: ignore[union-attr]
            for source in sources:
                found |= self._canonical(key, self._source_names(source, owner))
        return found

    def _canonical(self, key: str, spelled_names: list[str]) -> set[str]:
        """The canonical names of the module-level names ``spelled_names`` as the module ``key`` spells them."""
        quals = (self.qualify(key, spelled) for spelled in spelled_names)
        return {self.canonical(qual) for qual in quals if qual is not None}

    def _source_names(self, source: ast.expr, owner: tuple[ast.ClassDef, ast.Assign] | None) -> list[str]:
        """The module-level names a list of tools is: as :meth:`_container_names`, and for a
        parameter of ``__init__`` (``self.tools = {t.name: t for t in tools}``) the instance's argument."""
        if owner is not None and isinstance(source, ast.Name):
            argument = argument_for(owner[0], owner[1].value, source.id)  # type: ignore[arg-type]
            spelled = dotted(argument) if argument is not None else None
            if spelled is not None and "." not in spelled:
                return [spelled]
        return self._container_names(source, owner)

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
        for value in self_attribute_values(cls, container.attr):
            name = dotted(value)
            argument = argument_for(cls, instance.value, name) if name else None  # type: ignore[arg-type]
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
            info = self.info(key) if words and entry.search(self.source_bytes(key)) else None
            summary = self.project.known.get(key, (None, None))[0] if info is not None else None
            for registry, entries in (summary or {}).get("keys", {}).items():
                qual = self.canonical(self.resolver.local_qual(info, registry) or registry)  # type: ignore[arg-type]
                if self.reads(dispatcher, qual):
                    found.extend(self._matching(key, info, registry, qual, entries, class_qual, binding_qual))  # type: ignore[arg-type]
        if not dispatcher.runtime and (class_qual or binding_qual):
            found.extend(self._by_own_name(class_qual, binding_qual, dispatcher))
        return found

    # ------------------------------------------------------------------ registries keyed by the tools' own names

    def _by_own_name(
        self, class_qual: str | None, binding_qual: str | None, dispatcher: Dispatcher
    ) -> list[Registration]:
        """The entries holding the tool in registries keyed by each tool's own name (see
        :mod:`.tool_names`): its ``name=`` keyword, ``@tool("name")``, its class's ``name`` field."""
        out = []
        for registry in sorted(dispatcher.registries | dispatcher.named):
            is_list = registry in dispatcher.named
            if (registry, is_list) not in self._members:
                self._members[registry, is_list] = self._name_keyed_members(registry, is_list)
            for key, element in self._members[registry, is_list]:
                found = self._own_name_entry(key, element, registry, class_qual, binding_qual)
                if found is not None:
                    out.append(found)
        return out

    def _name_keyed_members(self, qual: str, is_list: bool) -> list[tuple[str, ast.expr]]:
        """(file key, element) of the tools a module-level registry keyed by ``.name`` holds:
        ``{t.name: t for t in SOURCE}``, ``{}`` filled by ``for t in SOURCE: REG[t.name] = t``, or
        (``is_list``: the dispatcher compares names) the list itself."""
        _, info, name = self._defining(qual)
        key = self.module_key(info.name) if info is not None else None
        tree = self.tree(key) if key is not None else None
        value = module_value(tree, name) if tree is not None else None
        if key is None or tree is None or value is None:
            return []
        source = name_keyed_source(value)
        if source is not None:
            return self._elements(key, source, 0)
        if isinstance(value, ast.Dict) and not value.keys:
            sources = [s for s in (loop_filled_source(stmt, name) for stmt in tree.body) if s is not None]
            return [member for s in sources for member in self._elements(key, s, 0)]
        return self._elements(key, value, 0) if is_list else []

    def _elements(self, key: str, node: ast.expr, depth: int) -> list[tuple[str, ast.expr]]:
        """The elements of a list display, through ``*OTHER``, module-level names and argument-less
        calls of module-level functions that only return a list display (``def all_tools(): return
        [...]``), in any module."""
        items = listed(node)
        if items is not None:
            out = []
            for item in items:
                if isinstance(item, ast.Starred):
                    out.extend(self._elements(key, item.value, depth + 1))
                else:
                    out.append((key, item))
            return out
        called = isinstance(node, ast.Call) and not node.args and not node.keywords
        spelled = dotted(node.func if called else node)  # type: ignore[attr-defined]
        qual = self.qualify(key, spelled) if spelled and depth < _MAX_DEPTH else None
        if qual is None:
            return []
        _, info, name = self._defining(self.canonical(qual))
        owner = self.module_key(info.name) if info is not None else None
        tree = self.tree(owner) if owner is not None else None
        if called:
            value = only_returned(top_function(tree, name)) if tree is not None else None
        else:
            value = module_value(tree, name) if tree is not None else None
        return self._elements(owner, value, depth + 1) if owner is not None and value is not None else []

    def _own_name_entry(
        self, key: str, element: ast.expr, registry: str, class_qual: str | None, binding_qual: str | None
    ) -> Registration | None:
        """The registration ``element`` (written in file ``key``) makes of the tool asked about, if it is it."""
        if isinstance(element, ast.Call):
            callee = dotted(element.func)
            qual = self.qualify(key, callee) if callee else None
            if class_qual is None or qual is None or self.canonical(qual) != class_qual:
                return None
            name = keyword_name(element) if names_itself(element) else self.class_tool_name(class_qual)
            return Registration(name, registry, False, element) if name else None
        if not isinstance(element, ast.Name):
            return None
        qual = self.qualify(key, element.id)
        qual = self.canonical(qual) if qual is not None else None
        name = self.own_name(qual) if qual is not None else None
        if name is None:
            return None
        if qual == binding_qual:
            return Registration(name, registry, True, None)
        if class_qual and self.instance_class(qual) == class_qual:  # type: ignore[arg-type]
            return Registration(name, registry, False, self.construction(qual))  # type: ignore[arg-type]
        return None

    def own_name(self, qual: str) -> str | None:
        """The name a module-level tool binding gives itself: ``@tool("name")`` or ``@tool`` on a
        function, ``Tool(name="name", ...)``, or its class's ``name`` field for ``x = SearchTool()``."""
        _, info, name = self._defining(qual)
        key = self.module_key(info.name) if info is not None else None
        tree = self.tree(key) if key is not None else None
        if key is None or tree is None:
            return None
        function = top_function(tree, name)
        if function is not None:
            return decorated_name(function, lambda spelled: self._is_tool_decorator(key, spelled))
        value = module_value(tree, name)
        if not isinstance(value, ast.Call):
            return None
        cls = self.instance_class(qual)
        if names_itself(value):
            return keyword_name(value)
        return self.class_tool_name(cls) if cls is not None else None

    def _is_tool_decorator(self, key: str, spelled: str) -> bool:
        qual = self.qualify(key, spelled.split(".", 1)[0])
        if qual is None:
            return False
        qual = self.canonical(qual + spelled[len(spelled.split(".", 1)[0]) :])
        return qual in TOOL_DECORATORS or (
            qual.rsplit(".", 1)[-1] == "tool" and qual.split(".", 1)[0] in ("crewai", "langchain", "langchain_core")
        )

    def class_tool_name(self, class_qual: str, depth: int = 0) -> str | None:
        """The default of a project tool class's ``name`` field (``name: str = "search"``),
        inherited through project bases."""
        _, info, name = self._defining(self.canonical(class_qual))
        key = self.module_key(info.name) if info is not None else None
        tree = self.tree(key) if key is not None else None
        cls = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == name), None) if tree else None
        if cls is None or key is None or depth > _MAX_DEPTH:
            return None
        own = class_name_field(cls)
        if own is not None:
            return own
        for base in cls.bases:
            spelled = dotted(base)
            qual = self.qualify(key, spelled) if spelled else None
            inherited = self.class_tool_name(qual, depth + 1) if qual else None
            if inherited is not None:
                return inherited
        return None

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
            value = registered_value(stmt, registry, name)
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
        return enclosing(tree, node)

    # ------------------------------------------------------------------ direct callers

    def calls_tool_methods(self, method: str | None = None) -> bool:
        """Whether a file of the project calls a tool method directly (see :mod:`.callers`)."""
        return self._caller_search.calls_tool_methods(method)

    def callers(self, function: str, class_qual: str | None = None) -> list[Caller]:
        """The project's direct calls of a tool method or function (see :mod:`.callers`)."""
        return self._caller_search.callers(function, class_qual)

    def tree(self, key: str) -> ast.Module | None:
        """The parsed file ``key`` (parsed once per run; None when it cannot be read or parsed)."""
        if key not in self._trees:
            try:
                self._trees[key] = ast.parse(self.source_bytes(key))
            except (SyntaxError, ValueError):
                self._trees[key] = None
        return self._trees[key]

    def source_bytes(self, key: str) -> bytes:
        """A file's bytes (read once per run; empty when it cannot be read)."""
        if key not in self._file_bytes:
            try:
                self._file_bytes[key] = virtual_bytes(self.project.files[key].path)
            except OSError:
                self._file_bytes[key] = b""
        return self._file_bytes[key]

    def remember(self, key: str, tree: ast.Module) -> None:
        """Use ``tree``, parsed from the file ``key`` as it is on disk, instead of parsing it again."""
        self._trees.setdefault(key, tree)

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


def _self_attribute(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _dependency_text(data: bytes) -> bytes:
    """The ``dependencies = [...]`` arrays of a pyproject (not the optional ones)."""
    found = re.findall(rb"(?m)^dependencies\s*=\s*\[(.*?)\]", data, re.DOTALL)
    return b"\n".join(found)


