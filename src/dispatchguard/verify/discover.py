"""Which tools a project has, found through the checker's project index (no second walker):
tool classes (subclasses of a tool base, through any chain of classes), tool functions (decorated
with a tool decorator), the tools a class body binds (``class SearchTools: @tool("Search") def
search_internet``, a ``@staticmethod`` tool, ``search = SerperDevTool()``), tools built at
module level (``StructuredTool.from_function(...)``, ``search = SearchTool()``) whose class is
not a tool class of the project itself, and the tools a module-level registry holds under a
literal key (``TOOLS = {"calc": Calc(precision=2)}``, ``TOOLS["calc"] = ...``,
``REG.register("calc", ...)``: the instance the project built, with its arguments), read from
the index's registered keys."""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import os
import re
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
    #: a tool class to build, a tool object bound at module level or in a class body, a registry's
    #: entry, or a tool ``check`` names that verify can build only with a factory
    kind: Literal["class", "object", "entry", "listed"]
    import_root: str
    path: str  #: shown as the checker shows paths
    line: int
    key: str | None = None  #: an entry's key in the registry ``name``
    #: for a tool ``check`` names that no binding builds (kind ``listed``): why it is not run, and
    #: the rule whose finding names it
    reason: str | None = None
    code: str | None = None

    @property
    def rule(self) -> str:
        """The rule that judges the same contract by reading: DG103 for tool classes' run methods,
        DG104 for tool functions."""
        return self.code or ("DG104" if self.kind == "object" else "DG103")

    @property
    def label(self) -> str:
        """``module.Name``, or ``module.REGISTRY[key]`` for a registry's entry."""
        return f"{self.module}.{self.name}" + (f"[{self.key!r}]" if self.key is not None else "")


def discover(paths: Sequence[str | os.PathLike[str]], config: LintConfig) -> list[ToolTarget]:
    """The tools defined in the files under ``paths``, in file and line order; then the tools
    ``check`` names in a DG103/DG104 finding that none of them is (a tool made inside a function
    or a method), listed with why they cannot be built."""
    files, keys, _ = project_files(paths, config)
    project = Project(config, files)
    found: list[ToolTarget] = []
    cwd = Path.cwd()
    modules: dict[str, tuple[str, str, dict[str, int], dict[str, str]]] = {}  # path -> what listing needs
    with quiet_parsing():
        for key in keys:
            info = project.load(key)
            if info is None:
                continue
            file = project.files[key]
            lines, arguments = _definitions(file.path)
            tool_classes = _tool_classes(project, info.name, info.defs)
            root = _import_root(file.path, info.name, key.endswith("__init__.py"))
            path = display_path(file.path, cwd)
            modules[path] = (info.name, root, lines, arguments)
            for name, descs in info.defs.items():
                kind = _target_kind(project, info.name, name, descs, tool_classes)
                if kind is not None:
                    found.append(ToolTarget(info.name, name, kind, root, path, lines.get(name, 1)))
            for owner, members in info.members.items():  # ``class SearchTools: @tool(...) def search``
                if owner in tool_classes:
                    continue  # a tool class's own members are its fields, verified with it
                for member, desc in members.items():
                    name = f"{owner}.{member}"
                    if desc[0] == "call" and desc[1].split(".", 1)[0] in tool_classes:
                        continue  # an instance of a tool class verified above
                    if _kind(project, info.name, name) == TOOL:
                        found.append(ToolTarget(info.name, name, "object", root, path, lines.get(name, 1)))
            summary = project.known.get(key, (None, None))[0] or {}
            for registry, entries in summary.get("keys", {}).items():
                for entry, desc in entries:
                    if _built_tool(project, info, desc) and registry in lines:
                        found.append(ToolTarget(info.name, registry, "entry", root, path, lines[registry], entry))
    found += _named_by_check(paths, config, found, modules)
    return sorted(found, key=lambda t: (t.path, t.line, t.key or "", t.name))


def named_by_check(paths: Sequence[str | os.PathLike[str]], config: LintConfig) -> list[tuple[str, int, str, str]]:
    """``(path, line, code, name)`` of every tool ``check`` names in a DG103 or DG104 finding
    (suppressed ones too): ``name`` is the tool function's qualified name, or the tool class's
    for DG103 (whose finding names its run method)."""
    from dispatchguard.lint import RULES, check_paths

    patterns = {code: _message_pattern(RULES[code].message) for code in ("DG103", "DG104") if code in RULES}
    narrowed = dataclasses.replace(config, select=tuple(patterns), extend_select=(), ignore=(), per_file_ignores=())
    named = []
    for finding in check_paths(paths, narrowed, jobs=1, use_cache=False, nested=False).findings:
        pattern = patterns.get(finding.code)
        match = pattern.match(finding.message) if pattern else None
        if match is None:
            continue
        name = match.group("method")
        if finding.code == "DG103":
            name = name.rpartition(".")[0] or name
        named.append((finding.path, finding.line, finding.code, name))
    return named


def _message_pattern(template: str) -> re.Pattern[str]:
    """A rule's message template as a pattern: ``{method}`` captured, any other field matched."""
    parts = re.split(r"\{(\w+)\}", template)
    pattern = ""
    for index, part in enumerate(parts):
        if index % 2 == 0:
            pattern += re.escape(part)
        else:
            pattern += "(?P<method>[^`]+)" if part == "method" and "(?P<method>" not in pattern else ".*"
    return re.compile(pattern + "$", re.DOTALL)


def _named_by_check(
    paths: Sequence[str | os.PathLike[str]],
    config: LintConfig,
    found: list[ToolTarget],
    modules: dict[str, tuple[str, str, dict[str, int], dict[str, str]]],
) -> list[ToolTarget]:
    """The tools ``check`` names that ``found`` does not hold, as ``listed`` targets with why."""
    have = {(t.path, t.name) for t in found}
    listed: dict[tuple[str, str], ToolTarget] = {}
    for path, line, code, name in named_by_check(paths, config):
        if (path, name) in have or (path, name) in listed or path not in modules:
            continue
        module, root, lines, arguments = modules[path]
        if (path, arguments.get(name, "")) in have:
            continue  # ``queries = StructuredTool.from_function(func=run_queries)``: verified as ``queries``
        head = name.split(".")[0]
        if "." in name and head in lines and head not in {t.name for t in found if t.path == path}:
            where = f"made a tool inside `{name.rpartition('.')[0]}`"
        else:
            where = "it is not a binding verify can build (a name of its module or of a class body, a registry's key)"
        reason = f"check names it ({code}), but {where}; a factory ([tool.dispatchguard.verify.factories]) can build it"
        listed[(path, name)] = ToolTarget(module, name, "listed", root, path, lines.get(name, line), None, reason, code)
    return list(listed.values())


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


def _definitions(path: Path) -> tuple[dict[str, int], dict[str, str]]:
    """Top-level name (and ``Class.member`` of a top-level class) -> the line of its last
    definition (class, def or assignment); and each name given as an argument to the call a
    top-level name is bound to -> that name (``queries = Tool.from_function(func=run_queries)``)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return {}, {}
    lines: dict[str, int] = {}
    arguments: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1:
            if isinstance(node.targets[0], ast.Name):
                call = node.value
                for value in [*call.args, *(k.value for k in call.keywords)]:
                    if isinstance(value, ast.Name):
                        arguments.setdefault(value.id, node.targets[0].id)

    def bind(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                lines[prefix + node.name] = node.lineno
                if isinstance(node, ast.ClassDef) and not prefix:
                    bind(node.body, f"{node.name}.")
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name):
                        lines[prefix + target.id] = node.lineno

    bind(tree.body, "")
    return lines, arguments


def _import_root(path: Path, module: str, is_package_init: bool) -> str:
    """The folder to put on ``sys.path`` for ``module`` (the file's path less the module's parts)."""
    depth = len(module.split(".")) if module else 1
    root = path.parent if is_package_init else path
    for _ in range(depth):
        root = root.parent
    return str(root)
