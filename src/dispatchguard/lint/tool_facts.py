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
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from dispatchguard.lint.config import LintConfig, any_glob
from dispatchguard.lint.discovery import SourceFile
from dispatchguard.lint.index import dotted
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
    function: str
    is_async: bool
    registries: frozenset[str]  # qualified names of the registries its module reads
    runtime: bool = False


#: dispatchguard's global registry (``dispatch_tool``'s default) and its registry class.
RUNTIME_REGISTRIES = frozenset({"dispatchguard.TOOL_REGISTRY", "dispatchguard.runtime.registry.TOOL_REGISTRY"})
RUNTIME_REGISTRY_CLASSES = frozenset({"dispatchguard.ToolRegistry", "dispatchguard.runtime.registry.ToolRegistry"})
RUNTIME_DISPATCHER = Dispatcher("dispatchguard", "dispatch_tool", False, frozenset(), runtime=True)


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
    def dispatcher(self) -> Dispatcher | Unknown:
        """The first configured dispatcher of the project whose signature is ``f(name, args)``."""
        reasons = []
        for entry in self.config.dispatchers:
            module, _, function = entry.rpartition(".")
            key = self.module_key(module) if module else None
            if key is None:
                continue
            found = _function(self.project.files[key].path, function)
            if found is None:
                reasons.append(f"`{entry}` is not a top-level function")
                continue
            params = [a.arg for a in (*found.args.posonlyargs, *found.args.args)]
            if len(params) < 2 or params[0] not in NAME_PARAMS or params[1] not in ARGS_PARAMS:
                reasons.append(f"`{entry}` does not take (name, args)")
                continue
            info = self.info(key)
            assert info is not None
            registries = frozenset(
                self.canonical(q)
                for q in (self.resolver.local_qual(info, n) for n in (*info.imports, *info.defs))
                if q is not None
            )
            return Dispatcher(module, function, isinstance(found, ast.AsyncFunctionDef), registries)
        if reasons:
            return Unknown("no usable dispatcher: " + "; ".join(reasons))
        return RUNTIME_DISPATCHER

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
        words = {q.rsplit(".", 1)[-1].encode() for q in (class_qual, binding_qual) if q}
        names: dict[str, str] = {}
        for key, file in self.project.files.items():
            try:
                data = file.path.read_bytes()
            except OSError:
                continue
            if not any(word in data for word in words):
                continue
            info = self.info(key)
            summary = self.project.known.get(key, (None, None))[0]
            if info is None or not summary or "keys" not in summary:
                continue
            for registry, entries in summary["keys"].items():
                qual = self.canonical(self.resolver.local_qual(info, registry) or registry)
                if not self.reads(dispatcher, qual):
                    continue
                for name, desc in entries:
                    entry_qual = self.resolver.local_qual(info, desc[1])
                    if entry_qual is None:
                        continue
                    entry_qual = self.canonical(entry_qual)
                    if desc[0] == "call" and entry_qual == class_qual:
                        names[name] = qual
                    elif desc[0] == "ref" and (
                        entry_qual == binding_qual or (class_qual and self.instance_class(entry_qual) == class_qual)
                    ):
                        names[name] = qual
        return names

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
                if pattern.search(file.path.read_bytes()):
                    return True
            except OSError:
                return True
        return False

    # ------------------------------------------------------------------ direct callers

    def tree(self, key: str) -> ast.Module | None:
        """The parsed file ``key`` (parsed once per run; None when it cannot be read or parsed)."""
        if key not in self._trees:
            try:
                self._trees[key] = ast.parse(self.project.files[key].path.read_bytes())
            except (OSError, SyntaxError, ValueError):
                self._trees[key] = None
        return self._trees[key]

    def callers(self, function: str, class_qual: str | None = None) -> list[Caller]:
        """The direct calls, anywhere in the project, of the method ``function`` of the tool class
        ``class_qual`` (``x._run(...)``, ``x.run(...)``, ``x.invoke(...)`` on a value of that class),
        or with no class, of the top-level function ``function`` (qualified: ``f(...)``,
        ``f.invoke(...)``, ``f.func(...)``). Calls on ``self`` are the tool's own plumbing."""
        name = function.rsplit(".", 1)[-1]
        names = REACHED_BY.get(name, frozenset({name})) if class_qual else frozenset({name})
        words = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")\b")
        found: list[Caller] = []
        for key, file in self.project.files.items():
            try:
                if not words.search(file.path.read_bytes()):
                    continue
            except OSError:
                continue
            tree = self.tree(key)
            if tree is None:
                continue
            parents = _parents(tree)
            is_test = any_glob(self.config.test_patterns, file.relpath)
            for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
                if self._calls(key, tree, call, names, function, class_qual):
                    use = self._non_string_use(key, tree, call, parents)
                    found.append(Caller(file.relpath, call.lineno, is_test, use))
        return found

    def _calls(
        self, key: str, tree: ast.Module, call: ast.Call, names: frozenset[str], function: str, class_qual: str | None
    ) -> bool:
        func = call.func
        if class_qual is not None:
            if not (isinstance(func, ast.Attribute) and func.attr in names) or _is_self(func.value):
                return False
            return self.value_class(key, tree, func.value) == class_qual
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
        return self._annotated_parameter(key, parent, node)

    def _annotated_parameter(self, key: str, call: ast.Call, argument: ast.AST) -> str | None:
        """``add_resources(result)`` where the project function's parameter is annotated other than
        ``str``: the text of that parameter."""
        spelled = dotted(call.func)
        qual = self.qualify(key, spelled) if spelled else None
        if qual is None:
            return None
        defining = self.module_key(self.canonical(qual).rpartition(".")[0])
        tree = self.tree(defining) if defining else None
        target = _top_function(tree, self.canonical(qual).rpartition(".")[2]) if tree else None
        if target is None:
            return None
        params = [*target.args.posonlyargs, *target.args.args]
        param = None
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
                data = file.path.read_bytes()
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


def _parents(tree: ast.Module) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _scope_of(tree: ast.Module, node: ast.AST) -> ast.AST:
    """The innermost function holding ``node``, else the module."""
    functions = [s for s in _enclosing(tree, node) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return functions[-1] if functions else tree


def _top_function(tree: ast.Module, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
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


def _function(path: Path, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            return stmt
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
    """``self.attr = value`` in the class's methods and class-level ``attr: T [= value]``."""
    values: list[ast.expr] = []
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            values.append(stmt.value if stmt.value is not None and _readable(stmt.value, lookups) else stmt.annotation)
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
