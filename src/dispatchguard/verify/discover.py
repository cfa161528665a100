"""Which tools a project has, found through the checker's project index (no second walker):
tool classes (subclasses of a tool base, through any chain of classes), tool functions (decorated
with a tool decorator), tools built at module level (``StructuredTool.from_function(...)``,
``search = SearchTool()``) whose class is not a tool class of the project itself, and the tools a
module-level registry holds under a literal key (``TOOLS = {"calc": Calc(precision=2)}``,
``TOOLS["calc"] = ...``, ``REG.register("calc", ...)``: the instance the project built, with its
arguments), read from the index's registered keys."""

from __future__ import annotations

import ast
import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from dispatchguard.lint.config import LintConfig
from dispatchguard.lint.discovery import display_path
from dispatchguard.lint.engine import project_files
from dispatchguard.lint.kinds import CLASS, TOOL
from dispatchguard.lint.parsing import quiet_parsing
from dispatchguard.lint.project import Project
from dispatchguard.lint.resolve import ModuleInfo


@dataclass(frozen=True)
class ToolTarget:
    """A tool to verify: ``name`` in ``module``, importable with ``import_root`` on ``sys.path``."""

    module: str
    name: str
    #: a tool class to build, a tool object bound at module level, or a registry's entry
    kind: Literal["class", "object", "entry"]
    import_root: str
    path: str  #: shown as the checker shows paths
    line: int
    key: str | None = None  #: an entry's key in the registry ``name``

    @property
    def rule(self) -> str:
        """The rule that judges the same contract by reading: DG103 for tool classes' run methods,
        DG104 for tool functions."""
        return "DG104" if self.kind == "object" else "DG103"

    @property
    def label(self) -> str:
        """``module.Name``, or ``module.REGISTRY[key]`` for a registry's entry."""
        return f"{self.module}.{self.name}" + (f"[{self.key!r}]" if self.key is not None else "")


def discover(paths: Sequence[str | os.PathLike[str]], config: LintConfig) -> list[ToolTarget]:
    """The tools defined in the files under ``paths``, in file and line order."""
    files, keys, _ = project_files(paths, config)
    project = Project(config, files)
    found: list[ToolTarget] = []
    cwd = Path.cwd()
    with quiet_parsing():
        for key in keys:
            info = project.load(key)
            if info is None:
                continue
            file = project.files[key]
            lines = _definition_lines(file.path)
            tool_classes = _tool_classes(project, info.name, info.defs)
            root = _import_root(file.path, info.name, key.endswith("__init__.py"))
            path = display_path(file.path, cwd)
            for name, descs in info.defs.items():
                kind = _target_kind(project, info.name, name, descs, tool_classes)
                if kind is not None and name in lines:
                    found.append(ToolTarget(info.name, name, kind, root, path, lines[name]))
            summary = project.known.get(key, (None, None))[0] or {}
            for registry, entries in summary.get("keys", {}).items():
                for entry, desc in entries:
                    if _built_tool(project, info, desc) and registry in lines:
                        found.append(ToolTarget(info.name, registry, "entry", root, path, lines[registry], entry))
    return sorted(found, key=lambda t: (t.path, t.line, t.key or ""))


def verify_targets(paths: Sequence[str | os.PathLike[str]], config: LintConfig) -> list[ToolTarget]:
    """The tools ``dispatchguard verify``, its pytest plugin and ``fix --verify`` run: those
    ``discover`` finds, less the ones whose label matches a glob of ``[tool.dispatchguard.verify]
    exclude``."""
    patterns = config.verify.exclude
    return [t for t in discover(paths, config) if not any(fnmatch.fnmatch(t.label, p) for p in patterns)]


def _built_tool(project: Project, info: ModuleInfo, desc: list) -> bool:
    """A registry entry that is a tool class built right there (``Calc(precision=2)``): the
    instance the project uses (a name refers to a tool verified as itself)."""
    if not desc or desc[0] != "call":
        return False
    qual = project.resolver.local_qual(info, desc[1])
    return qual is not None and project.resolver.kind(qual) == CLASS


def _tool_classes(project: Project, module: str, defs: dict[str, list]) -> set[str]:
    return {name for name, descs in defs.items() if _is_class(descs) and _kind(project, module, name) == CLASS}


def _kind(project: Project, module: str, name: str) -> str | None:
    return project.resolver.kind(f"{module}.{name}" if module else name)


def _is_class(descs: list) -> bool:
    return len(descs) == 1 and descs[0][0] == "class"


def _target_kind(project: Project, module: str, name: str, descs: list, tool_classes: set[str]) -> str | None:
    if name in tool_classes:
        return "class"
    if len(descs) != 1 or _kind(project, module, name) != TOOL:
        return None
    tag = descs[0][0]
    if tag == "def":
        return "object"  # a decorated function: the decorator made it a tool object
    if tag == "call" and descs[0][1].split(".", 1)[0] not in tool_classes:
        return "object"  # built here from a library class or a factory, not from a class verified above
    return None


def _definition_lines(path: Path) -> dict[str, int]:
    """Top-level name -> the line of its last definition (class, def or assignment)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return {}
    lines: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            lines[node.name] = node.lineno
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    lines[target.id] = node.lineno
    return lines


def _import_root(path: Path, module: str, is_package_init: bool) -> str:
    """The folder to put on ``sys.path`` for ``module`` (the file's path less the module's parts)."""
    depth = len(module.split(".")) if module else 1
    root = path.parent if is_package_init else path
    for _ in range(depth):
        root = root.parent
    return str(root)
