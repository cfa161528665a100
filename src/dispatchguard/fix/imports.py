"""How a file refers to the runtime names the fixes use, and which imports it still needs."""

from __future__ import annotations

import libcst as cst

from dispatchguard.fix.base import RUNTIME_IMPORTS


def _bound_names(module: cst.Module) -> set[str]:
    """Every name the file binds anywhere (so an added import cannot shadow one)."""
    names: set[str] = set()

    class Collector(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    module.visit(Collector())
    return names


def plan_refs(module: cst.Module) -> tuple[dict[str, cst.BaseExpression], dict[str, tuple[str, str | None]]]:
    """How each runtime name is referred to in this file, and the imports that would need adding
    (name -> (module, alias)). An existing ``from dispatchguard... import X [as Y]`` is reused;
    a name the file already uses for something else gets a ``dg_`` alias."""
    existing: dict[str, str] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.ImportFrom) or small.relative or small.module is None:
                continue
            source = cst.helpers.get_full_name_for_node(small.module) or ""
            if not (source == "dispatchguard" or source.startswith("dispatchguard.")):
                continue
            if isinstance(small.names, cst.ImportStar):
                continue
            for alias in small.names:
                imported = cst.helpers.get_full_name_for_node(alias.name)
                if imported in RUNTIME_IMPORTS:
                    bound = alias.asname.name.value if alias.asname else imported  # type: ignore[union-attr]
                    existing.setdefault(imported, bound)
    taken = _bound_names(module)
    refs: dict[str, cst.BaseExpression] = {}
    needed: dict[str, tuple[str, str | None]] = {}
    for name, source in RUNTIME_IMPORTS.items():
        if name in existing:
            refs[name] = cst.Name(existing[name])
        elif name not in taken:
            refs[name] = cst.Name(name)
            needed[name] = (source, None)
        else:
            alias = f"dg_{name}"
            refs[name] = cst.Name(alias)
            needed[name] = (source, alias)
    return refs, needed
