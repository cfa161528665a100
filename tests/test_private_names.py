"""No private name crosses a module boundary: no ``from dispatchguard.x import _name`` and no
``module._name`` on an imported dispatchguard module, anywhere in the package."""

from __future__ import annotations

import ast
from pathlib import Path

import dispatchguard

PACKAGE = Path(dispatchguard.__file__).parent


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_is_imported_across_modules() -> None:
    offences = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dispatchguard"):
                offences += [f"{path.name}: {node.module}.{a.name}" for a in node.names if _private(a.name)]
                modules.update(a.asname or a.name for a in node.names)
            elif isinstance(node, ast.Import):
                names = [a for a in node.names if a.name.startswith("dispatchguard")]
                modules.update(a.asname or a.name.split(".")[0] for a in names)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name):
                if node.value.id in modules and node.value.id != "self":
                    offences.append(f"{path.name}: {node.value.id}.{node.attr}")
    assert offences == []
