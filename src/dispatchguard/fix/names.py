"""Registered tool names, derived statically from the project (for the DG101 fix).

The dispatcher looks tools up by their *registered* name, so rewriting ``tool.run(...)`` into
``dispatch_tool(ToolAction(name=..., args=...))`` needs that name. It is known when:

* the tool is looked up in a registry with a literal key: ``TOOL_REGISTRY["KPI Tracker"]``,
  ``TOOL_REGISTRY.get("KPI Tracker")``;
* the tool class is registered under a literal key somewhere in the project:
  ``REGISTRY = {"kpi": KPITool(), ...}``, ``REGISTRY["kpi"] = KPITool()``,
  ``REGISTRY.register("kpi", KPITool())``; when it is registered under exactly one key;
* otherwise, the tool class (or a base class in the project) has a literal ``name`` class
  attribute: ``name = "KPI Tracker"`` or ``name: str = "KPI Tracker"`` (CrewAI and LangChain);
* a LangChain ``@tool`` function: ``@tool("name")`` or the function's own name.

The project is read with :mod:`ast` (never imported), once per fix run.

Note: the checking core builds a richer index of the same project (``dispatchguard.lint``); if it
exposed "registered name of the tool bound at this expression", this module would reduce to a call.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dispatchguard.lint.config import LintConfig
from dispatchguard.lint.discovery import walk

REGISTER_METHODS = {"register", "add", "add_tool", "register_tool"}
TOOL_DECORATORS = {"tool"}


@dataclass
class ClassInfo:
    name: str
    module: str
    bases: list[str]  # simple names of the bases
    name_attr: str | None


@dataclass
class ProjectNames:
    """What the fixer needs to know about the project's tools, by simple name."""

    classes: dict[str, list[ClassInfo]] = field(default_factory=lambda: defaultdict(list))
    registered_keys: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    tool_functions: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def class_name_attr(self, class_name: str, _seen: frozenset[str] = frozenset()) -> str | None:
        """The literal ``name`` of a class (or of its first project base that has one)."""
        infos = self.classes.get(class_name, [])
        values: set[str] = set()
        for info in infos:
            value = info.name_attr
            if value is None:
                for base in info.bases:
                    if base not in _seen:
                        value = self.class_name_attr(base, _seen | {class_name})
                        if value is not None:
                            break
            if value is not None:
                values.add(value)
        return values.pop() if len(values) == 1 else None

    def registered_name(self, class_name: str) -> str | None:
        keys = self.registered_keys.get(class_name, set())
        if len(keys) == 1:
            return next(iter(keys))
        if len(keys) > 1:
            return None  # registered under several names: which one was meant is not static
        return self.class_name_attr(class_name)

    def function_tool_name(self, func_name: str) -> str | None:
        names = self.tool_functions.get(func_name, set())
        return next(iter(names)) if len(names) == 1 else None


def _str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _simple_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):  # Generic[...] bases
        return _simple_name(node.value)
    return None


def _instantiated_class(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Call):
        return _simple_name(node.func)
    return None


def _index_module(tree: ast.Module, module: str, names: ProjectNames) -> None:
    aliases = {
        alias.asname: alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            name_attr = None
            for stmt in node.body:
                if (isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "name" for t in stmt.targets
                )) or (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and stmt.target.id == "name"
                ):
                    name_attr = _str(stmt.value)
            bases = [b for b in (_simple_name(base) for base in node.bases) if b]
            names.classes[node.name].append(ClassInfo(node.name, module, bases, name_attr))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                simple = _simple_name(target)
                if aliases.get(simple or "", simple) in TOOL_DECORATORS:
                    explicit = _str(deco.args[0]) if isinstance(deco, ast.Call) and deco.args else None
                    names.tool_functions[node.name].add(explicit or node.name)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                cls, k = _instantiated_class(value), _str(key)
                if cls and k is not None:
                    names.registered_keys[cls].add(k)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript):
                    cls, k = _instantiated_class(node.value), _str(target.slice)
                    if cls and k is not None:
                        names.registered_keys[cls].add(k)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in REGISTER_METHODS and len(node.args) >= 2:
                cls, k = _instantiated_class(node.args[1]), _str(node.args[0])
                if cls and k is not None:
                    names.registered_keys[cls].add(k)


def index_project(root: Path, extra_files: Iterable[Path] = (), config: LintConfig | None = None) -> ProjectNames:
    """Index the project's files as the checker's walker lists them (``exclude``, ignore files)."""
    names = ProjectNames()
    seen: set[Path] = set()
    config = config if config is not None else LintConfig(root=root)
    for path in [*walk([root], config, root), *extra_files]:
        resolved = path.resolve()
        if resolved in seen:
            continue
        seen.add(resolved)
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except (OSError, SyntaxError, ValueError):
            continue
        try:
            module = ".".join(path.resolve().relative_to(root.resolve()).with_suffix("").parts)
        except ValueError:
            module = path.stem
        _index_module(tree, module, names)
    return names
