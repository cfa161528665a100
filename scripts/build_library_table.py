"""Build ``src/dispatchguard/lint/library/tools.json``: which names of the public tool libraries
are tool classes, tool decorators, or neither.

The libraries are never imported: their sdists are downloaded from PyPI (``pip download --no-deps
--no-binary :all:``, into a cache folder) and read with the checker's own indexer and resolver.
A name is a tool class when it derives, through any chain of the libraries' own classes, from one
of the checker's default tool bases; a tool decorator when it is a default tool decorator or an
alias of one. Lazy exports (``__getattr__`` with a ``{"Name": "module.path"}`` table, as in
``langchain_community.tools`` and the legacy ``langchain.tools``) are imports in the indexer's
summaries, followed like any other. Two passes share every library but ``langchain``: one with the legacy 0.3 line (old
import paths), one with the current release; the table is their union.

Usage::

    .venv/bin/python scripts/build_library_table.py [--cache DIR]
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from dispatchguard.lint.config import DEFAULT_TOOL_PACKAGES, LintConfig
from dispatchguard.lint.discovery import SourceFile
from dispatchguard.lint.index import annotation_desc
from dispatchguard.lint.inference.declared import DeclaredTypes
from dispatchguard.lint.inference.returns import TEXTUAL_VERDICTS
from dispatchguard.lint.kinds import CLASS, DECORATOR
from dispatchguard.lint.library import run_answer
from dispatchguard.lint.modules import ModuleInfo
from dispatchguard.lint.project import Project

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "src" / "dispatchguard" / "lint" / "library" / "tools.json"
SHARED = [
    ("crewai", "1.15.30", "crewai"),
    ("crewai-tools", "1.15.30", "crewai_tools"),
    ("langchain-core", "1.8.2", "langchain_core"),
    ("langchain-community", "0.4.2", "langchain_community"),
    # LangChain's partner packages that ship tools applications build directly
    ("langchain-tavily", "0.2.18", "langchain_tavily"),
    ("langchain-experimental", "0.4.2", "langchain_experimental"),
    ("langchain-google-community", "5.1.1", "langchain_google_community"),
    ("langchain-exa", "1.1.0", "langchain_exa"),
    # MCP servers' tools as LangChain tools (``MultiServerMCPClient.get_tools()``, ``load_mcp_tools``)
    ("langchain-mcp-adapters", "0.3.2", "langchain_mcp_adapters"),
]
LANGCHAIN = [("langchain", "0.3.30", "langchain"), ("langchain", "1.5.0", "langchain")]


def download(cache: Path, name: str, version: str) -> Path:
    target = cache / f"{name}-{version}"
    if not target.is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", tmp,
                 f"{name}=={version}"],
                check=True, capture_output=True,
            )  # fmt: skip
            (archive,) = Path(tmp).glob("*.tar.gz")
            with tarfile.open(archive) as tar:
                tar.extractall(target, filter="data")
    return target


def package_dir(tree: Path, import_name: str) -> Path:
    inits = sorted(tree.rglob(f"{import_name}/__init__.py"), key=lambda p: len(p.parts))
    if not inits:
        raise SystemExit(f"no {import_name}/__init__.py in {tree}")
    return inits[0].parent


def classify(root: Path) -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, set[str]]]:
    # the sdists alone: no installed environment, no spelling guess
    config = dataclasses.replace(LintConfig(root=root), tool_packages=(), python=False)
    files = [SourceFile(p, p.relative_to(root).as_posix(), p.as_posix()) for p in sorted(root.rglob("*.py"))]
    files = [f for f in files if "/tests/" not in f"/{f.relpath}"]
    project = Project(config, files)
    kind = project.resolver.kind
    tools: dict[str, set[str]] = {}
    decorators: dict[str, set[str]] = {}
    others: dict[str, set[str]] = {}
    for file in files:
        info = project.load(file.key)
        if info is None:
            continue
        for name in {*info.defs, *info.imports}:
            if name.startswith("_"):
                continue
            k = kind(f"{info.name}.{name}")
            if k == CLASS:
                tools.setdefault(info.name, set()).add(name)
            elif k == DECORATOR:
                decorators.setdefault(info.name, set()).add(name)
            elif name[:1].isupper():
                others.setdefault(info.name, set()).add(name)
    return tools, decorators, others


def tool_lists(root: Path) -> tuple[dict[str, set[str]], dict[str, dict[str, set[str]]]]:
    """Per module, the functions whose return annotation is a container of tool classes
    (``load_tools(...) -> list[BaseTool]``) and per class the methods so annotated (a toolkit's
    ``get_tools``, an MCP client's), each also under the names that import it (re-exports)."""
    config = dataclasses.replace(LintConfig(root=root), tool_packages=(), python=False)
    files = [SourceFile(p, p.relative_to(root).as_posix(), p.as_posix()) for p in sorted(root.rglob("*.py"))]
    files = [f for f in files if "/tests/" not in f"/{f.relpath}"]
    project = Project(config, files)
    resolver = project.resolver
    functions: dict[str, set[str]] = {}
    methods: dict[str, dict[str, set[str]]] = {}
    infos = []
    for file in files:
        info = project.load(file.key)
        if info is None:
            continue
        infos.append(info)

        def makes_tools(node: ast.AST, info=info) -> bool:
            desc = annotation_desc(getattr(node, "returns", None))
            items = desc[2] if desc is not None else []
            return any(resolver.kind(resolver.local_qual(info, item) or item) == CLASS for item in items)

        for stmt in ast.parse(file.path.read_bytes()).body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and makes_tools(stmt):
                functions.setdefault(info.name, set()).add(stmt.name)
            elif isinstance(stmt, ast.ClassDef):
                for method in stmt.body:
                    if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and makes_tools(method):
                        methods.setdefault(info.name, {}).setdefault(stmt.name, set()).add(method.name)
    for _ in range(3):  # re-exports, and re-exports of re-exports
        for info in infos:
            for name, target in info.imports.items():
                module, _, original = resolver.absolute(info, target).rpartition(".")
                if original in functions.get(module, ()):
                    functions.setdefault(info.name, set()).add(name)
                found = methods.get(module, {}).get(original)
                if found:
                    methods.setdefault(info.name, {}).setdefault(name, set()).update(found)
    return functions, methods


def declared_outputs(root: Path, tool_classes: dict[str, set[str]]) -> dict[str, dict[str, str]]:
    """Per module, the tool classes whose ``_run`` declares a return type that is not JSON text (a
    dict, a list: read from the sdists' annotations, see ``run_answer``), with that verdict."""
    declared = DeclaredTypes([root], bundled=False)
    outputs: dict[str, dict[str, str]] = {}
    for module, names in tool_classes.items():
        for name in names:
            verdict = run_answer(declared.method_returns(f"{module}.{name}", "_run"))
            if verdict is not None:
                outputs.setdefault(module, {})[name] = verdict
    return outputs


def tool_outputs(
    root: Path, project: Project, paths: dict[str, Path], tool_classes: dict[str, set[str]]
) -> dict[str, dict[str, str]]:
    """:func:`declared_outputs`, and :func:`wrapper_outputs` where nothing is declared."""
    outputs = declared_outputs(root, tool_classes)
    for module, wrapped in wrapper_outputs(project, paths, tool_classes).items():
        for name, verdict in wrapped.items():  # a declared output wins
            outputs.setdefault(module, {}).setdefault(name, verdict)
    return outputs


def library_project(root: Path) -> tuple[Project, dict[str, Path]]:
    """The libraries under ``root`` as a project of the checker, every module loaded (summarised),
    and each module's file by its name."""
    config = dataclasses.replace(LintConfig(root=root), tool_packages=(), python=False)
    files = [SourceFile(p, p.relative_to(root).as_posix(), p.as_posix()) for p in sorted(root.rglob("*.py"))]
    project = Project(config, files)
    paths = {}
    for file in files:
        info = project.load(file.key)
        if info is not None:
            paths[info.name] = file.path
    return project, paths


def wrapper_returns(project: Project, paths: dict[str, Path]) -> dict[str, dict[str, str]]:
    """Per API wrapper class (a class named ``...Wrapper``), as every module of the libraries binds
    it (``langchain_community.utilities.WikipediaAPIWrapper`` and the module defining it), its public
    methods whose summary (the checker's own return verdicts, from the sdist's source) says text that
    is not JSON (``run``: the results as prose): for projects that call a wrapper directly."""
    found: dict[str, dict[str, str]] = {}
    for module in sorted(paths):
        info = project.module(module, any_module=True)
        if info is None:
            continue
        for name in sorted({*info.imports, *info.defs}):
            if not name.endswith("Wrapper"):
                continue
            defined = _defining_module(project, f"{module}.{name}")
            if defined is None:
                continue
            owner, own_name = defined
            methods = {
                key.partition(".")[2]: verdict
                for key, verdict in owner.returns.items()
                if key.startswith(f"{own_name}.") and not key.partition(".")[2].startswith("_")
                and verdict.startswith(TEXTUAL_VERDICTS)
            }
            if methods:
                found[f"{module}.{name}"] = dict(sorted(methods.items()))
    return found


def wrapper_outputs(
    project: Project, paths: dict[str, Path], tool_classes: dict[str, set[str]]
) -> dict[str, dict[str, str]]:
    """Per module, the tool classes whose ``_run`` declares nothing useful but returns what a method
    of an API wrapper of the libraries returns (``return self.api_wrapper.run(query)``, the field
    annotated with the wrapper's class in the tool class's body), when that method's summary (the
    checker's own return verdicts, from the sdist's source) says text that is not JSON: every return
    of ``_run`` must be such a call."""
    resolver = project.resolver
    outputs: dict[str, dict[str, str]] = {}
    for module, names in tool_classes.items():
        for name in names:
            found = _defining_module(project, f"{module}.{name}")
            if found is None or found[0].name not in paths:
                continue
            info, own_name = found
            tree = ast.parse(paths[info.name].read_bytes())
            cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == own_name), None)
            verdict = _wrapped_run(resolver, info, cls) if cls is not None else None
            if verdict is not None:
                outputs.setdefault(module, {})[name] = verdict
    return outputs


def _defining_module(project: Project, qual: str) -> tuple[ModuleInfo, str] | None:
    """The module that defines ``qual`` (imports and re-exports followed), and the name there."""
    for _ in range(8):
        info, rest = project.resolver.split(qual, any_module=True)
        if not isinstance(info, ModuleInfo) or len(rest) != 1:
            return None
        target = info.imports.get(rest[0])
        if target is None:
            return info, rest[0]
        qual = project.resolver.absolute(info, target)
    return None


def _wrapped_run(resolver, info: ModuleInfo, cls: ast.ClassDef) -> str | None:
    """``text (from `Wrapper.method`)`` when every return of the class's ``_run`` is
    ``self.<field>.<method>(...)`` of a field annotated with a class whose ``method`` returns text."""
    run = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "_run"), None)
    fields = {
        n.target.id: n.annotation for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    if run is None:
        return None
    returns = [n for n in ast.walk(run) if isinstance(n, ast.Return)]
    found = set()
    for ret in returns:
        wrapped = _wrapper_call(resolver, info, fields, ret.value)
        if wrapped is None:
            return None
        found.add(wrapped)
    return f"text (from `{'`, `'.join(sorted(found))}`)" if found else None


def _wrapper_call(resolver, info: ModuleInfo, fields: dict[str, ast.expr], call: ast.expr | None) -> str | None:
    """``Wrapper.method`` when ``call`` is ``self.<field>.<method>(...)`` of a field annotated with a
    class of the libraries whose ``method`` returns text that is not JSON, else None."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return None
    field = call.func.value
    if not (isinstance(field, ast.Attribute) and isinstance(field.value, ast.Name) and field.value.id == "self"):
        return None
    annotation = fields.get(field.attr)
    written = ast.unparse(annotation) if isinstance(annotation, (ast.Name, ast.Attribute)) else None
    wrapper = resolver.local_qual(info, written) if written is not None else None
    verdict = resolver.function_returns(f"{wrapper}.{call.func.attr}") if wrapper is not None else None
    if verdict is None or not verdict.startswith(TEXTUAL_VERDICTS):
        return None
    return f"{wrapper.rpartition('.')[2]}.{call.func.attr}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "dispatchguard-library")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    tools: dict[str, set[str]] = {}
    decorators: dict[str, set[str]] = {}
    others: dict[str, set[str]] = {}
    versions: dict[str, list[str]] = {}
    outputs: dict[str, dict[str, str]] = {}
    wrappers: dict[str, dict[str, str]] = {}
    list_functions: dict[str, set[str]] = {}
    list_methods: dict[str, dict[str, set[str]]] = {}
    for extra in LANGCHAIN:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for name, version, import_name in (*SHARED, extra):
                tree = download(args.cache, name, version)
                shutil.copytree(package_dir(tree, import_name), root / import_name)
                versions.setdefault(name, [])
                if version not in versions[name]:
                    versions[name].append(version)
            found_here = classify(root)
            for table, found in zip((tools, decorators, others), found_here, strict=True):
                for module, names in found.items():
                    table.setdefault(module, set()).update(names)
            project, paths = library_project(root)
            outputs.update(tool_outputs(root, project, paths, found_here[0]))
            wrappers.update(wrapper_returns(project, paths))
            functions, methods = tool_lists(root)
            for module, names in functions.items():
                list_functions.setdefault(module, set()).update(names)
            for module, classes in methods.items():
                for name, found in classes.items():
                    list_methods.setdefault(module, {}).setdefault(name, set()).update(found)
    for module, names in tools.items():  # a tool in either langchain line is a tool
        others.get(module, set()).difference_update(names)
    data = {
        "generated_by": "scripts/build_library_table.py",
        "libraries": versions,
        "tool_classes": {m: sorted(n) for m, n in sorted(tools.items())},
        "tool_decorators": {m: sorted(n) for m, n in sorted(decorators.items())},
        # what a tool class's ``_run`` declares it returns, when that is not JSON text, or the text
        # its API wrapper's method returns (``return self.api_wrapper.run(query)``)
        "tool_outputs": {m: dict(sorted(o.items())) for m, o in sorted(outputs.items()) if o},
        # the methods of API wrapper classes (as each module binds them) that return text that is
        # not JSON, from their summaries: ``WikipediaAPIWrapper().run(q)`` called by a project's tool
        "wrapper_returns": dict(sorted(wrappers.items())),
        # functions (and methods, per class) declared to return a container of tools
        "tool_lists": {m: sorted(n) for m, n in sorted(list_functions.items())},
        "tool_list_methods": {
            m: {c: sorted(n) for c, n in sorted(classes.items())} for m, classes in sorted(list_methods.items())
        },
        # only where the checker would otherwise guess (a capitalised name of a tool package)
        "not_tools": {m: sorted(n) for m, n in sorted(others.items()) if n and m.startswith(DEFAULT_TOOL_PACKAGES)},
    }
    OUT.write_text(json.dumps(data, indent=0, separators=(",", ":")) + "\n")
    count = sum(len(n) for n in tools.values())
    print(f"{OUT}: {count} tool class names in {len(tools)} modules; libraries {versions}")


if __name__ == "__main__":
    main()
