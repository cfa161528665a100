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
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dispatchguard.fix.base import Edit, FileContext, Import

FUTURE, STDLIB, THIRD_PARTY, FIRST_PARTY, LOCAL = range(5)


@dataclass(frozen=True)
class IsortSettings:
    """The isort options that decide where and how a fix's new imports are written.

    Read once per fix run (and per LSP project) by :meth:`from_pyproject`; the defaults are ruff's.
    Immutable.
    """

    known_first_party: frozenset[str] = frozenset()
    known_third_party: frozenset[str] = frozenset()
    known_local_folder: frozenset[str] = frozenset()
    force_sort_within_sections: bool = False
    line_length: int = 88

    @classmethod
    def from_pyproject(cls, root: Path) -> IsortSettings:
        """Return the isort settings of ``root/pyproject.toml`` (ruff's isort table, else
        ``[tool.isort]``); the defaults when the file is missing, unreadable or not valid TOML."""
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
    """Return the isort section (``FUTURE`` ... ``LOCAL``) an import of ``module`` belongs in:
    known-* settings first, then the standard library, then the project's own top-level modules."""
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


class _Wanted:
    """The imports still to add, sorted out: plain ``import m``, new ``from`` statements, and names
    merged into a ``from`` statement the file has."""

    def __init__(self, ctx: FileContext, block: list[ast.Import | ast.ImportFrom]) -> None:
        self.ctx = ctx
        self.block = block
        self.plain: list[str] = []
        self.new_from: dict[str, list[str]] = {}
        self.merged: dict[int, tuple[ast.ImportFrom, list[str]]] = {}

    def add(self, imp: Import) -> str | None:
        """Sort one import out; why it cannot be added, if so."""
        if imp.name is None:
            if not self._has_plain(imp.module) and imp.module not in self.plain:
                self.plain.append(imp.module)
            return None
        existing = self._from_statements(imp.module)
        if any(a.name == imp.name and not a.asname for s in existing for a in s.names):
            return None
        if not existing:
            names = self.new_from.setdefault(imp.module, [])
            if imp.name not in names:
                names.append(imp.name)
            return None
        target = existing[0]
        if "#" in self.ctx.source(target) or any(a.asname for a in target.names):
            return f"the import of {imp.module} has comments or aliases; add `{imp.name}` by hand"
        self.merged.setdefault(id(target), (target, [a.name for a in target.names]))[1].append(imp.name)
        return None

    def _from_statements(self, module: str) -> list[ast.ImportFrom]:
        """The block's ``from <module> import ...`` statements (not ``*``)."""
        return [
            s
            for s in self.block
            if isinstance(s, ast.ImportFrom)
            and s.level == 0
            and s.module == module
            and not any(a.name == "*" for a in s.names)
        ]

    def _has_plain(self, module: str) -> bool:
        """Whether the module imports ``module`` at top level (a function's own ``import json``
        does not serve the others)."""
        return any(
            isinstance(s, ast.Import) and any(a.name == module and not a.asname for a in s.names)
            for s in self.ctx.tree.body
        )

    def merge_edits(self, settings: IsortSettings, newline: str) -> list[Edit]:
        edits = []
        for target, names in self.merged.values():
            names.sort(key=_member_key)
            text = _from_text(target.module or "", names, settings.line_length).replace("\n", newline)
            edits.append(Edit(self.ctx.node_start(target), self.ctx.node_end(target), text))
        return edits

    def statements(self, settings: IsortSettings, project_modules: Any, newline: str) -> list[tuple[int, Any, str]]:
        """The new statements as (section, sort key, text)."""
        out: list[tuple[int, Any, str]] = []
        for module in self.plain:
            stmt: ast.Import | ast.ImportFrom = ast.Import(names=[ast.alias(module)])
            out.append(
                (section_of(module, settings, project_modules), _statement_key(stmt, settings), f"import {module}")
            )
        for module, names in self.new_from.items():
            stmt = ast.ImportFrom(module=module, names=[ast.alias(n) for n in names], level=0)
            text = _from_text(module, sorted(names, key=_member_key), settings.line_length).replace("\n", newline)
            out.append((section_of(module, settings, project_modules), _statement_key(stmt, settings), text))
        return out


def import_edits(
    ctx: FileContext, needed: Iterable[Import], settings: IsortSettings, project_modules: Any
) -> list[Edit] | str:
    """The edits that add ``needed`` to the file, or why they cannot be added."""
    block = _top_imports(ctx.tree)
    newline = "\r\n" if "\r\n" in ctx.text[:1000] else "\n"
    wanted = _Wanted(ctx, block)
    for imp in needed:
        problem = wanted.add(imp)
        if problem is not None:
            return problem
    edits = wanted.merge_edits(settings, newline)
    by_section: dict[int, list[tuple[tuple[Any, ...], str]]] = {}
    for section, key, text in sorted(wanted.statements(settings, project_modules, newline)):
        by_section.setdefault(section, []).append((key, text))
    for section, entries in sorted(by_section.items()):
        edits.extend(_placed(ctx, block, section, entries, settings, project_modules, newline))
    return edits


def unused_import_edits(ctx: FileContext, edits: list[Edit], added: Iterable[Import] = ()) -> list[Edit]:
    """The removal of the top-level imports whose every use ``edits`` replace (and which the new
    text does not name): ``from app.registry import CREW_TOOLS`` after the only
    ``CREW_TOOLS[...]`` call became a dispatcher call, ``Any`` after ``-> dict[str, Any]``
    became ``-> str``. A statement an edit touches, or with comments, is left alone, and so is the
    last import of a project module nothing else still imports here (directly or through the
    ``added`` imports): importing it may be what registers the tools."""
    replaced = [(e.start, e.end) for e in edits if e.end > e.start]
    if not replaced:
        return []
    inserted = " ".join(e.text for e in edits)
    # only a name the replaced text spells can have lost its uses
    spelled = set(re.findall(r"\w+", " ".join(ctx.text[start:end] for start, end in replaced)))
    out = []
    for stmt in _untouched_imports(ctx, edits):
        gone = [
            a for a in stmt.names if _bound_name(a) in spelled and _left_unused(ctx, _bound_name(a), replaced, inserted)
        ]
        if gone and (len(gone) < len(stmt.names) or _still_imported(ctx, stmt, added)):
            out.extend(_without(ctx, stmt, gone))
    return out


def _untouched_imports(ctx: FileContext, edits: list[Edit]) -> list[ast.Import | ast.ImportFrom]:
    """The module's top-level imports (not ``__future__``) no edit changes, without comments."""
    out = []
    for stmt in ctx.tree.body:
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)) or getattr(stmt, "module", None) == "__future__":
            continue
        start, end = ctx.node_start(stmt), ctx.node_end(stmt)
        if not any(_touches(e, start, end) for e in edits) and "#" not in ctx.source(stmt):
            out.append(stmt)
    return out


def _still_imported(ctx: FileContext, stmt: ast.Import | ast.ImportFrom, added: Iterable[Import]) -> bool:
    """Whether the modules ``stmt`` imports stay imported without it: standard-library modules (no
    registration side effects to keep), or modules the file's new imports import."""
    if isinstance(stmt, ast.Import):
        modules = [a.name for a in stmt.names]
    elif stmt.level:
        return False  # a relative import: its module is the project's, and not worth the risk
    else:
        modules = [stmt.module or ""]
    return all(
        m.split(".", 1)[0] in sys.stdlib_module_names or any(ctx.facts.imports_module(i.module, m) for i in added)
        for m in modules
    )


def _touches(edit: Edit, start: int, end: int) -> bool:
    """Whether ``edit`` changes the text ``[start, end)`` (an insertion before it does not)."""
    if edit.start == edit.end:
        return start < edit.start < end
    return edit.start < end and start < edit.end


def _bound_name(alias: ast.alias) -> str | None:
    if alias.asname:
        return alias.asname
    return None if "." in alias.name or alias.name == "*" else alias.name


def _left_unused(ctx: FileContext, name: str | None, replaced: list[tuple[int, int]], inserted: str) -> bool:
    """Whether ``name`` was used and every use of it lies in a replaced span: its ``Name`` nodes
    (what ruff's F401 counts), with any mention in a string (a forward reference, ``__all__``)
    keeping the import."""
    if name is None or re.search(rf"\b{re.escape(name)}\b", inserted):
        return False
    uses = [ctx.node_start(n) for n in ast.walk(ctx.tree) if isinstance(n, ast.Name) and n.id == name]
    word = re.compile(rf"\b{re.escape(name)}\b")
    in_strings = any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and word.search(n.value) and not _is_docstring(ctx, n)
        for n in ast.walk(ctx.tree)
    )
    return bool(uses) and not in_strings and all(any(s <= m < e for s, e in replaced) for m in uses)


def _is_docstring(ctx: FileContext, node: ast.Constant) -> bool:
    """Whether a string constant is the docstring of the module, a class or a function."""
    owners = [ctx.tree, *ctx.facts.enclosing(ctx.tree, node)]
    return any(
        getattr(owner, "body", None)
        and isinstance(owner.body[0], ast.Expr)  # type: ignore[attr-defined]
        and owner.body[0].value is node  # type: ignore[attr-defined]
        for owner in owners
    )


def _without(ctx: FileContext, stmt: ast.Import | ast.ImportFrom, gone: list[ast.alias]) -> list[Edit]:
    """The statement without the ``gone`` names; its whole lines when none is left."""
    kept = [a for a in stmt.names if a not in gone]
    if not kept:
        return _deleted_lines(ctx, stmt)
    names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in kept)
    if isinstance(stmt, ast.Import):
        text = f"import {names}"
    else:
        text = f"from {'.' * stmt.level}{stmt.module or ''} import {names}"
    return [Edit(ctx.node_start(stmt), ctx.node_end(stmt), text)]


def _deleted_lines(ctx: FileContext, stmt: ast.stmt) -> list[Edit]:
    """The removal of a statement's lines (and of a blank line, so no double blank line is left)."""
    start, end = ctx.node_start(stmt), ctx.node_end(stmt)
    last = stmt.end_lineno or stmt.lineno
    line_start, line_end = ctx.offset(stmt.lineno, 0), ctx.offset(last + 1, 0)
    if ctx.text[line_start:start].strip() or ctx.text[end:line_end].strip():
        return []  # shares its line with other code
    before = ctx.lines[stmt.lineno - 2] if stmt.lineno > 1 else "the file's start"
    after = ctx.lines[last] if last < len(ctx.lines) else "the file's end"
    if not before.strip() and not after.strip():
        line_end += len(after)
    return [Edit(line_start, line_end, "")]


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
