"""The levels of the package, locked: what may import what, and no import circle anywhere.

Every import counts, at module level or inside a function (an import deferred into a function is
still a dependency), except those under ``if TYPE_CHECKING:``, which never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "dispatchguard"

#: part -> the parts it must never import. A part is the first name below ``dispatchguard``.
FORBIDDEN = {
    "lint": {"runtime", "agent", "http", "server", "tools", "fix", "cli", "lsp", "coverage_gate", "verify", "mcp"},
    "runtime": {"lint", "agent", "http", "server", "tools", "fix", "cli", "lsp", "coverage_gate", "verify", "mcp"},
    "http": {"lint", "agent", "server", "tools", "fix", "cli", "lsp", "coverage_gate", "verify", "mcp"},
    "tools": {"lint", "agent", "server", "fix", "cli", "lsp", "coverage_gate", "verify", "mcp"},
    "agent": {"lint", "server", "fix", "cli", "lsp", "coverage_gate", "verify", "mcp"},
    "fix": {"runtime", "agent", "http", "server", "tools", "cli", "lsp", "coverage_gate", "verify", "mcp"},
    "server": {"lint", "fix", "cli", "lsp", "coverage_gate", "verify", "mcp", "tools"},
    "mcp": {"lint", "fix", "cli", "lsp", "coverage_gate", "verify", "tools"},
    "lsp": {"runtime", "agent", "http", "server", "tools", "cli", "coverage_gate", "verify", "mcp"},
    "verify": {"runtime", "agent", "http", "server", "tools", "cli", "lsp", "coverage_gate", "mcp"},
    "coverage_gate": {"runtime", "agent", "http", "server", "tools", "fix", "cli", "lsp", "verify", "mcp"},
    "pylint": {"runtime", "agent", "http", "server", "tools", "fix", "cli", "lsp", "coverage_gate", "verify", "mcp"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _type_checking_only(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and ast.unparse(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _imports(tree: ast.AST, module: str, is_package: bool) -> Iterator[str]:
    for node in ast.iter_child_nodes(tree):
        if _type_checking_only(node):
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                prefix = ".".join([*base, node.module] if node.module else base)
            else:
                prefix = node.module or ""
            yield prefix
            yield from (f"{prefix}.{alias.name}" for alias in node.names)
        yield from _imports(node, module, is_package)


def dependencies(module: str) -> set[str]:
    """The package's modules ``module`` imports (a name that is no module is not one); a package
    that discovers its modules (``pkgutil.iter_modules(__path__)``, as ``lint.rules`` does)
    imports every one of them."""
    path = MODULES[module]
    text = path.read_text(encoding="utf-8")
    found = {name for name in _imports(ast.parse(text), module, path.name == "__init__.py") if name in MODULES}
    if "pkgutil.iter_modules(__path__)" in text:
        found |= {name for name in MODULES if name.rpartition(".")[0] == module}
    return found - {module}


GRAPH = {module: dependencies(module) for module in MODULES}


def part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_a_layer_never_imports_what_it_must_not(layer: str) -> None:
    wrong = sorted(
        f"{module} -> {dep}"
        for module, deps in GRAPH.items()
        if part(module) == layer
        for dep in deps
        if part(dep) in FORBIDDEN[layer]
    )
    assert not wrong, "\n".join(wrong)


def test_nothing_below_the_cli_imports_it() -> None:
    wrong = sorted(
        f"{module} -> {dep}"
        for module, deps in GRAPH.items()
        if part(module) not in ("cli", "__main__")
        for dep in deps
        if part(dep) == "cli"
    )
    assert not wrong, "\n".join(wrong)


def _cycles() -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in sorted(GRAPH[node]):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    return found


def test_no_import_circle() -> None:
    """A package's ``__init__`` that re-exports its modules is not a circle with them: a module
    imports its own package's ``__init__`` only as the way Python reaches it."""
    cycles = _cycles()
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


def test_the_graph_is_read() -> None:
    """The checks above would pass on an empty graph: make sure the imports are seen."""
    assert "dispatchguard.lint.config" in GRAPH["dispatchguard.lint.engine"]
    assert any(part(dep) == "runtime" for dep in GRAPH["dispatchguard.agent.execute"])
    assert "dispatchguard.lint.rules.dg101_direct_call" in GRAPH["dispatchguard.lint.rules"]
