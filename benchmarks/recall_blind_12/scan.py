"""Candidate sites of a tree for blind labelling, from a plain AST scan (not the project's checker).

Syntax only, deliberately broad: a reader labels each candidate afterwards.

- ``DG101``: every call of ``.run``/``._run``/``.arun``/``._arun``/``.invoke``/``.ainvoke`` on anything;
- ``DG102``: every call of a class defined in the tree whose bases mention ``Tool``, of a name
  ending in ``Tool`` (``SerperDevTool()``), and of ``Tool``/``StructuredTool``/``StructuredTool.from_function``;
- ``DG103``: every ``return`` of ``run``/``_run``/``arun``/``_arun`` in a class whose bases mention
  ``Tool`` (and the ``def`` line when the body can fall off its end);
- ``DG104``: every ``return`` of a function decorated ``@tool``/``@tool(...)`` or given to
  ``StructuredTool.from_function``/``Tool(func=...)``/``tool(f)`` in the same module.

The line is the one a finding would be on: the returned expression's first line, the call's line.

Usage: python benchmarks/recall_blind_12/scan.py TREE_DIR [--rule DG10x]
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", "site-packages"}
TEST_DIRS = {"tests", "test", "TEST"}


def is_test_file(rel: Path) -> bool:
    """Test files are exempt from the rules by design, so they are not labelled."""
    name = rel.name
    return (
        bool(TEST_DIRS & set(rel.parts[:-1]))
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


RUN_METHODS = ("run", "_run", "arun", "_arun")
CALL_METHODS = ("run", "_run", "arun", "_arun", "invoke", "ainvoke")


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return getattr(node, "id", "")


def own_returns(fn: ast.AST):
    """The returns of ``fn`` itself (not of nested functions, lambdas or classes)."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def can_fall_off(body: list[ast.stmt]) -> bool:
    """True when the end of ``body`` can be reached (a rough, syntax-only test)."""
    if not body:
        return True
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return False
    if isinstance(last, ast.If):
        return can_fall_off(last.body) or can_fall_off(last.orelse)
    if isinstance(last, ast.Try):
        if last.finalbody and not can_fall_off(last.finalbody):
            return False
        main = last.orelse or last.body
        return can_fall_off(main) or any(can_fall_off(h.body) for h in last.handlers)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return can_fall_off(last.body)
    if isinstance(last, ast.While) and isinstance(last.test, ast.Constant) and last.test.value is True:
        return False
    if isinstance(last, ast.Match):
        return True
    return True


def is_generator(fn: ast.AST) -> bool:
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def is_tool_decorator(node: ast.expr) -> bool:
    return dotted(node).split(".")[-1] == "tool"


def tool_function_names(tree: ast.Module) -> set[str]:
    """Names given to ``StructuredTool.from_function``, ``Tool(func=...)``, ``tool(f)`` in this module."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = dotted(node.func)
        last = callee.split(".")[-1]
        given: list[ast.expr] = []
        if last == "from_function":
            given += node.args[:1]
            given += [k.value for k in node.keywords if k.arg in ("func", "coroutine")]
        elif last in ("Tool", "StructuredTool"):
            given += [k.value for k in node.keywords if k.arg in ("func", "coroutine")]
        elif last == "tool":
            given += [a for a in node.args if isinstance(a, ast.Name)]
        names.update(g.id for g in given if isinstance(g, ast.Name))
    return names


def sites(path: Path):
    source = path.read_text(errors="replace")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    lines = source.splitlines()

    def text(line: int) -> str:
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""

    tool_classes = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and any("Tool" in ast.unparse(b) for b in node.bases)
    }
    given = tool_function_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name in tool_classes:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in RUN_METHODS:
                    if is_generator(item):
                        continue
                    for ret in own_returns(item):
                        line = ret.value.lineno if ret.value is not None else ret.lineno
                        yield line, "DG103", f"{node.name}.{item.name}", text(line)
                    if can_fall_off(item.body):
                        yield item.lineno, "DG103", f"{node.name}.{item.name} (falls off)", text(item.lineno)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            any(is_tool_decorator(d) for d in node.decorator_list) or node.name in given
        ):
            if is_generator(node):
                continue
            for ret in own_returns(node):
                line = ret.value.lineno if ret.value is not None else ret.lineno
                yield line, "DG104", node.name, text(line)
            if can_fall_off(node.body):
                yield node.lineno, "DG104", f"{node.name} (falls off)", text(node.lineno)
        if isinstance(node, ast.Call):
            callee = dotted(node.func)
            last = callee.split(".")[-1]
            if isinstance(node.func, ast.Attribute) and last in CALL_METHODS:
                yield node.lineno, "DG101", callee, text(node.lineno)
            elif last in tool_classes or last.endswith("Tool") or last == "from_function":
                yield node.lineno, "DG102", callee, text(node.lineno)


def scan(root: Path, rule: str | None = None):
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if SKIP_DIRS & set(rel.parts) or is_test_file(rel):
            continue
        for line, kind, what, code in sorted(set(sites(path))):
            if rule is None or kind == rule:
                yield rel.as_posix(), line, kind, what, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--rule")
    args = parser.parse_args()
    for rel, line, kind, what, code in scan(args.tree, args.rule):
        print(f"{rel}:{line}: {kind} [{what}] {code[:120]}")


if __name__ == "__main__":
    sys.exit(main())
