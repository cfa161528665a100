"""Adding the imports a fix needs, where the project's isort settings put them.

The settings come from the project's ``pyproject.toml``: ``[tool.ruff.lint.isort]`` (or the older
``[tool.ruff.isort]``), else ``[tool.isort]``: ``known-first-party``, ``known-third-party``,
``known-local-folder``, ``force-sort-within-sections`` and the line length. A module is first-party
when it is listed, or when its top-level package is a module of the project (as ruff's ``src``
detection finds it); standard-library modules are those of :data:`sys.stdlib_module_names`.

An import of a name from a module the file already imports ``from`` is merged into that statement
(names in ruff's ``order-by-type`` order: constants, classes, then the rest); otherwise a new
statement goes into its section, in order, and a missing section is created with one blank line
around it, so ``ruff check --select I`` stays clean after a fix.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dispatchguard.fix.base import Edit, FileContext, Import

FUTURE, STDLIB, THIRD_PARTY, FIRST_PARTY, LOCAL = range(5)


@dataclass(frozen=True)
class IsortSettings:
    known_first_party: frozenset[str] = frozenset()
    known_third_party: frozenset[str] = frozenset()
    known_local_folder: frozenset[str] = frozenset()
    force_sort_within_sections: bool = False
    line_length: int = 88

    @classmethod
    def from_pyproject(cls, root: Path) -> IsortSettings:
        path = root / "pyproject.toml"
        try:
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # pragma: no cover - exercised on 3.10 only
                import tomli as tomllib
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        tool = data.get("tool", {})
        ruff = tool.get("ruff", {})
        section = ruff.get("lint", {}).get("isort") or ruff.get("isort")
        line_length = ruff.get("line-length", 88)
        if section is None:
            section = {k.replace("_", "-"): v for k, v in tool.get("isort", {}).items()}
            line_length = section.get("line-length", 79 if "isort" in tool else line_length)
        return cls(
            frozenset(section.get("known-first-party", ())),
            frozenset(section.get("known-third-party", ())),
            frozenset(section.get("known-local-folder", ())),
            bool(section.get("force-sort-within-sections", False)),
            int(line_length),
        )


def section_of(module: str, settings: IsortSettings, project_modules: Any) -> int:
    if module.startswith("."):
        return LOCAL
    top = module.split(".", 1)[0]

    def listed(names: frozenset[str]) -> bool:
        return any(module == n or module.startswith(n + ".") for n in names)

    if top == "__future__":
        return FUTURE
    if listed(settings.known_local_folder):
        return LOCAL
    if listed(settings.known_first_party):
        return FIRST_PARTY
    if listed(settings.known_third_party):
        return THIRD_PARTY
    if top in sys.stdlib_module_names:
        return STDLIB
    if top in project_modules:
        return FIRST_PARTY
    return THIRD_PARTY


def _member_key(name: str) -> tuple[int, str]:
    """ruff's order-by-type: CONSTANTS, then Classes, then everything else (case-sensitive)."""
    if name.isupper() and len(name) > 1:
        return 0, name
    if name[:1].isupper():
        return 1, name
    return 2, name


def _statement_key(stmt: ast.Import | ast.ImportFrom, settings: IsortSettings) -> tuple[Any, ...]:
    if isinstance(stmt, ast.Import):
        module, is_from = stmt.names[0].name, 0
    else:
        module, is_from = "." * stmt.level + (stmt.module or ""), 1
    if settings.force_sort_within_sections:
        return (module.lower(), is_from, module)
    return (is_from, module.lower(), module)


def _top_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The module's leading import block (after the docstring), as ruff's isort sees it."""
    block: list[ast.Import | ast.ImportFrom] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            block.append(stmt)
        elif block or not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            break
    return block


def _from_text(module: str, names: list[str], line_length: int) -> str:
    one_line = f"from {module} import {', '.join(names)}"
    if len(one_line) <= line_length:
        return one_line
    return f"from {module} import (\n" + "".join(f"    {n},\n" for n in names) + ")"


def import_edits(
    ctx: FileContext, needed: Iterable[Import], settings: IsortSettings, project_modules: Any
) -> list[Edit] | str:
    """The edits that add ``needed`` to the file, or why they cannot be added."""
    block = _top_imports(ctx.tree)
    newline = "\r\n" if "\r\n" in ctx.text[:1000] else "\n"
    edits: list[Edit] = []
    plain: list[str] = []
    new_from: dict[str, list[str]] = {}
    merged: dict[int, tuple[ast.ImportFrom, list[str]]] = {}
    for imp in needed:
        if imp.name is None:
            if (
                not any(
                    isinstance(s, ast.Import) and any(a.name == imp.module and not a.asname for a in s.names)
                    for s in ctx.tree.body  # a function's own `import json` does not serve the others
                )
                and imp.module not in plain
            ):
                plain.append(imp.module)
            continue
        existing = [
            s
            for s in block
            if isinstance(s, ast.ImportFrom)
            and s.level == 0
            and s.module == imp.module
            and not any(a.name == "*" for a in s.names)
        ]
        if any(a.name == imp.name and not a.asname for s in existing for a in s.names):
            continue
        if existing:
            target = existing[0]
            if "#" in ctx.source(target) or any(a.asname for a in target.names):
                return f"the import of {imp.module} has comments or aliases; add `{imp.name}` by hand"
            merged.setdefault(id(target), (target, [a.name for a in target.names]))[1].append(imp.name)
        elif imp.name not in new_from.setdefault(imp.module, []):
            new_from[imp.module].append(imp.name)
    for target, names in merged.values():
        names.sort(key=_member_key)
        text = _from_text(target.module or "", names, settings.line_length).replace("\n", newline)
        edits.append(Edit(ctx.node_start(target), ctx.node_end(target), text))
    statements: list[tuple[int, tuple[Any, ...], str]] = []
    for module in plain:
        stmt: ast.Import | ast.ImportFrom = ast.Import(names=[ast.alias(module)])
        statements.append(
            (section_of(module, settings, project_modules), _statement_key(stmt, settings), f"import {module}")
        )
    for module, names in new_from.items():
        stmt = ast.ImportFrom(module=module, names=[ast.alias(n) for n in names], level=0)
        text = _from_text(module, sorted(names, key=_member_key), settings.line_length).replace("\n", newline)
        statements.append((section_of(module, settings, project_modules), _statement_key(stmt, settings), text))
    by_section: dict[int, list[tuple[tuple[Any, ...], str]]] = {}
    for section, key, text in sorted(statements):
        by_section.setdefault(section, []).append((key, text))
    for section, entries in sorted(by_section.items()):
        edits.extend(_placed(ctx, block, section, entries, settings, project_modules, newline))
    return edits


def _placed(
    ctx: FileContext,
    block: list[ast.Import | ast.ImportFrom],
    section: int,
    entries: list[tuple[tuple[Any, ...], str]],
    settings: IsortSettings,
    project_modules: Any,
    newline: str,
) -> list[Edit]:
    """Edits inserting a section's new statements (sorted ``(key, text)``) where isort puts them."""

    def sec(stmt: ast.Import | ast.ImportFrom) -> int:
        module = stmt.names[0].name if isinstance(stmt, ast.Import) else "." * stmt.level + (stmt.module or "")
        return section_of(module, settings, project_modules)

    joined = newline.join(text for _, text in entries)
    if not block:
        position = _after_docstring(ctx)
        following = ctx.tree.body[0] if ctx.tree.body and position == 0 else _next_statement(ctx)
        gap = 2 if isinstance(following, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else 1
        if following is None:
            gap = 0
        return [Edit(position, position, joined + newline + newline * gap)]
    same = [s for s in block if sec(s) == section]
    if same:
        edits = []
        for key, text in entries:
            later = [s for s in same if _statement_key(s, settings) > key]
            at = ctx.offset(later[0].lineno, 0) if later else ctx.offset(same[-1].end_lineno + 1, 0)  # type: ignore[operator]
            edits.append(Edit(at, at, text + newline))
        return edits
    before = [s for s in block if sec(s) < section]
    if before:
        end = ctx.offset(before[-1].end_lineno + 1, 0)  # type: ignore[operator]
        return [Edit(end, end, newline + joined + newline)]
    start = ctx.offset(block[0].lineno, 0)
    return [Edit(start, start, joined + newline + newline)]


def _after_docstring(ctx: FileContext) -> int:
    body = ctx.tree.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return ctx.offset(body[0].end_lineno + 1, 0)  # type: ignore[operator]
    return 0


def _next_statement(ctx: FileContext) -> ast.stmt | None:
    body = ctx.tree.body
    return body[1] if len(body) > 1 else None
