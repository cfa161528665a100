"""Candidate sites for the blind evaluation, from an AST scan of our own (not the checker): every
``.run/._run/.arun/._arun/.invoke/.ainvoke`` call; every instantiation of a class named like a tool
(``...Tool(...)``); every return of a ``run/_run/arun/_arun`` method of a class whose bases mention
``Tool``; every return of a function decorated ``@tool``. Prints ``path:line: KIND | source`` with the
line, for a reader to label before the checker is run.

Usage: python benchmarks/recall_blind/scan.py TREE
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

RUN_METHODS = {"run", "_run", "arun", "_arun", "invoke", "ainvoke"}
TOOL_METHODS = RUN_METHODS - {"invoke", "ainvoke"}


def candidates(path: Path) -> list[tuple[int, str]]:
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return []
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in RUN_METHODS:
                found.append((node.lineno, "call"))
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name.endswith("Tool") and name[:1].isupper():
                found.append((node.lineno, "build"))
        elif isinstance(node, ast.ClassDef) and any("Tool" in ast.unparse(b) for b in node.bases):
            methods = [
                item
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in TOOL_METHODS
            ]
            found += [(_line(r), "method-return") for item in methods for r in _returns(item)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            "tool" in ast.unparse(d).split("(")[0].split(".")[-1] for d in node.decorator_list
        ):
            found += [(_line(r), "tool-return") for r in _returns(node)]
    return sorted(set(found))


def _line(ret: ast.Return) -> int:
    return ret.lineno if ret.value is None else ret.value.lineno


def _returns(fn: ast.AST) -> list[ast.Return]:
    out = []
    stack = list(fn.body)  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            out.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return out


def main(argv: list[str] | None = None) -> int:
    root = Path((sys.argv[1:] if argv is None else argv)[0])
    for path in sorted(root.rglob("*.py")):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for line, kind in candidates(path):
            print(f"{path.relative_to(root)}:{line}: {kind} | {lines[line - 1].strip()[:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
