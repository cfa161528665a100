"""List the sites a reader should label in a tree (a helper for writing labels, not the measure).

Broad on purpose, by syntax only: every ``return`` of ``run/_run/arun/_arun`` in a class with a
base named ``*Tool*``, every ``return`` of a function decorated ``@tool``/``@tool(...)``, every
call of a capitalised name ending in ``Tool``/``Run``/``Results`` or imported from a tool package,
and every ``.run(``/``._run(``/``.invoke(`` call. Prints ``path:line: KIND code`` lines.

Usage: python benchmarks/recall/candidates.py TREE_DIR
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

TOOL_PACKAGES = ("crewai_tools", "langchain_community.tools", "langchain.tools", "langchain_community.agent_toolkits")


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _returns(fn: ast.AST):
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def sites(path: Path, rel: str):
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return
    lines = path.read_text(errors="replace").splitlines()
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(TOOL_PACKAGES):
            imported.update(a.asname or a.name for a in node.names)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any("Tool" in ast.unparse(b) for b in node.bases):
            for item in node.body:
                is_function = isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                if is_function and item.name in ("run", "_run", "arun", "_arun"):
                    for ret in _returns(item):
                        yield ret.lineno, "DG103", lines[ret.lineno - 1].strip()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            _decorator_name(d) == "tool" for d in node.decorator_list
        ):
            for ret in _returns(node):
                yield ret.lineno, "DG104", lines[ret.lineno - 1].strip()
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name[:1].isupper() and (name.endswith(("Tool", "Run", "Results")) or name in imported):
                yield node.lineno, "DG102", lines[node.lineno - 1].strip()
            elif isinstance(func, ast.Attribute) and name in ("run", "_run", "invoke", "arun", "_arun", "ainvoke"):
                yield node.lineno, "DG101", lines[node.lineno - 1].strip()


def main() -> None:
    root = Path(sys.argv[1])
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for line, kind, code in sorted(set(sites(path, rel))):
            print(f"{rel}:{line}: {kind} {code[:110]}")


if __name__ == "__main__":
    main()
