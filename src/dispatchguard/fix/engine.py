"""The fix engine: findings from the checking core in, rewritten files out.

For each pass (at most :data:`MAX_PASSES`, like ruff): run :func:`dispatchguard.lint.check_paths`,
then for every file with fixable findings parse it with libcst, locate the node each finding
points at (``PositionProvider``), let the rule's fixer build a replacement, and

1. drop a fix whose file would not parse, or that would change code outside the node it targets
   (every fix is also checked on its own, so one bad fix does not sink the others);
2. add the runtime imports the applied fixes use, once, in the file's style
   (``AddImportsVisitor`` merges into an existing ``from dispatchguard import ...``), and check
   that the imports are the only other change;
3. write the file atomically (temporary file in the same directory, ``os.replace``), keeping its
   encoding, newline style and permission bits.

Passes repeat while they change something, so fixes inside fixed code converge; a second run
of the command finds nothing to do (idempotence).
"""

from __future__ import annotations

import difflib
import os
import stat
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from dispatchguard.atomic import atomic_write
from dispatchguard.fix import dg101, dg103
from dispatchguard.fix.base import RUNTIME_IMPORTS, FileContext, Fix, NoFix
from dispatchguard.fix.names import ProjectNames, index_project

FIXERS: dict[str, Callable[[Any, FileContext], Fix | NoFix]] = {
    dg101.CODE: dg101.fix,
    dg103.CODE: dg103.fix,
}
#: Codes that have no automatic fix, and what the user should do instead.
NO_FIX_REASONS = {
    "DG102": "no automatic fix: instantiate the tool in a tool module (tool-modules) and register it; "
    "look it up in the registry or go through the dispatcher elsewhere",
    "DG001": "no automatic fix: the file cannot be read or parsed",
}
MAX_PASSES = 10


@dataclass(frozen=True)
class AppliedFix:
    path: str
    line: int
    col: int
    code: str
    description: str
    safe: bool


@dataclass(frozen=True)
class SkippedFix:
    """A finding that was not fixed, and why (no fix, unsafe without --unsafe-fixes, dropped)."""

    path: str
    line: int
    col: int
    code: str
    reason: str
    kind: str  # "unfixable", "unsafe", "dropped"


@dataclass
class FixReport:
    applied: list[AppliedFix] = field(default_factory=list)
    skipped: list[SkippedFix] = field(default_factory=list)
    changed_files: list[str] = field(default_factory=list)
    remaining: list[Any] = field(default_factory=list)  # unsuppressed Findings left after fixing
    diff: str = ""
    files_checked: int = 0

    @property
    def exit_code(self) -> int:
        """pre-commit semantics: 0 nothing to fix and nothing left, 1 files changed or findings remain."""
        return 1 if self.changed_files or self.remaining else 0

    @property
    def unsafe_available(self) -> int:
        return sum(1 for s in self.skipped if s.kind == "unsafe")


# --------------------------------------------------------------------------- file I/O


@dataclass(frozen=True)
class SourceFile:
    path: Path
    data: bytes
    mode: int


def read_source(path: Path) -> SourceFile:
    data = path.read_bytes()
    return SourceFile(path, data, stat.S_IMODE(path.stat().st_mode))


# --------------------------------------------------------------------------- one file


class _Replace(cst.CSTTransformer):
    def __init__(self, mapping: dict[cst.CSTNode, cst.CSTNode]) -> None:
        self.mapping = mapping

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        return self.mapping.get(original_node, updated_node)


def _offsets(code: str) -> list[int]:
    """Character offset of the start of each line (1-based line numbers index it)."""
    starts = [0, 0]
    for i, ch in enumerate(code):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def _span(rng: Any, starts: list[int]) -> tuple[int, int]:
    return starts[rng.start.line] + rng.start.column, starts[rng.end.line] + rng.end.column


def _apply(module: cst.Module, fixes: Sequence[Fix]) -> tuple[cst.Module | None, str]:
    """Apply non-overlapping fixes; return the new module, or None and why it was refused."""
    old_code = module.code
    old_positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    mapping = {fix.target: fix.replacement for fix in fixes}
    new_module = module.visit(_Replace(mapping))
    new_code = new_module.code
    try:
        reparsed = cst.parse_module(new_code)
    except cst.ParserSyntaxError as exc:
        return None, f"the result would not parse ({str(exc).splitlines()[0]})"
    del reparsed
    # Everything outside the replaced nodes must be byte-for-byte the same.
    new_positions = MetadataWrapper(new_module, unsafe_skip_copy=True).resolve(PositionProvider)
    old_starts, new_starts = _offsets(old_code), _offsets(new_code)
    old_cut, new_cut = 0, 0
    pairs = sorted(
        ((_span(old_positions[f.target], old_starts), f.replacement) for f in fixes), key=lambda p: p[0]
    )
    for (old_start, old_end), replacement in pairs:
        if replacement not in new_positions:
            return None, "the replacement node is not in the result"
        new_start, new_end = _span(new_positions[replacement], new_starts)
        if old_code[old_cut:old_start] != new_code[new_cut:new_start]:
            return None, "it would change code outside the node it targets"
        old_cut, new_cut = old_end, new_end
    if old_code[old_cut:] != new_code[new_cut:]:
        return None, "it would change code outside the node it targets"
    return new_module, ""


def _only_imports_changed(before: str, after: str) -> bool:
    """True when ``after`` differs from ``before`` only by import statements."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for chunk in ("".join(a[i1:i2]), "".join(b[j1:j2])):
            if not chunk.strip():
                continue
            try:
                statements = cst.parse_module(chunk).body
            except cst.ParserSyntaxError:
                return False
            for statement in statements:
                if not (
                    isinstance(statement, cst.SimpleStatementLine)
                    and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)
                ):
                    return False
    return True


def _bound_names(module: cst.Module) -> set[str]:
    """Every name the file binds anywhere (so an added import cannot shadow one)."""
    names: set[str] = set()

    class Collector(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    module.visit(Collector())
    return names


def _plan_refs(module: cst.Module) -> tuple[dict[str, cst.BaseExpression], dict[str, tuple[str, str | None]]]:
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


def fix_source(
    source: bytes,
    findings: Iterable[Any],
    *,
    path: str = "<string>",
    unsafe: bool = False,
    project: ProjectNames | None = None,
    project_factory: Callable[[], ProjectNames] | None = None,
) -> tuple[bytes, list[AppliedFix], list[SkippedFix]]:
    """Fix one file's source for the given findings. Returns the new bytes (the same bytes when
    nothing applied), the applied fixes and the skipped ones with their reasons."""
    applied: list[AppliedFix] = []
    skipped: list[SkippedFix] = []
    findings = list(findings)

    def skip(finding: Any, reason: str, kind: str) -> None:
        skipped.append(SkippedFix(path, finding.line, finding.col, finding.code, reason, kind))

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        for finding in findings:
            skip(finding, f"libcst cannot parse the file: {str(exc).splitlines()[0]}", "dropped")
        return source, applied, skipped
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    refs, needed = _plan_refs(module)
    if project is None and any(f.code == dg101.CODE for f in findings) and project_factory is not None:
        project = project_factory()
    ctx = FileContext(
        path=path,
        module=module,
        positions=wrapper.resolve(PositionProvider),
        parents=wrapper.resolve(ParentNodeProvider),
        project=project or ProjectNames(),
        refs=refs,
    )

    candidates: list[tuple[Any, Fix]] = []
    for finding in findings:
        fixer = FIXERS.get(finding.code)
        if fixer is None:
            skip(finding, NO_FIX_REASONS.get(finding.code, "no automatic fix for this rule"), "unfixable")
            continue
        try:
            outcome = fixer(finding, ctx)
        except Exception as exc:  # noqa: BLE001 - a fixer bug must never break the run or the file
            skip(finding, f"fix dropped: internal error in the {finding.code} fixer ({type(exc).__name__}: {exc})", "dropped")
            continue
        if isinstance(outcome, NoFix):
            skip(finding, outcome.reason, "unfixable")
        elif not outcome.safe and not unsafe:
            skip(finding, f"unsafe fix available ({outcome.description}); use --unsafe-fixes", "unsafe")
        else:
            candidates.append((finding, outcome))

    # One fix per node, and no fix inside another fix's node this pass (the next pass gets it).
    chosen: list[tuple[Any, Fix]] = []
    spans: list[tuple[int, int]] = []
    starts = _offsets(module.code)
    for finding, fix in candidates:
        if fix.target not in ctx.positions:
            skip(finding, "fix dropped: it targets a node that is not in the file", "dropped")
            continue
        span = _span(ctx.positions[fix.target], starts)
        if any(s < span[1] and span[0] < e for s, e in spans):
            continue  # overlapping: retried on the next pass
        result, reason = _apply(module, [fix])
        if result is None:
            skip(finding, f"fix dropped: {reason}", "dropped")
            continue
        chosen.append((finding, fix))
        spans.append(span)

    if not chosen:
        return source, applied, skipped
    new_module, reason = _apply(module, [fix for _, fix in chosen])
    if new_module is None:  # each fix was fine alone: should not happen, but never write a broken file
        for finding, _ in chosen:
            skip(finding, f"fix dropped: {reason}", "dropped")
        return source, applied, skipped

    used = {name for _, fix in chosen for name in fix.names}
    imports = [(needed[name][0], name, needed[name][1]) for name in sorted(used) if name in needed]
    if imports:
        context = CodemodContext()
        for source_module, name, alias in imports:
            AddImportsVisitor.add_needed_import(context, source_module, name, alias)
        with_imports = new_module.visit(AddImportsVisitor(context))
        if not _only_imports_changed(new_module.code, with_imports.code):
            for finding, _ in chosen:
                skip(finding, "fix dropped: adding the imports would change other code", "dropped")
            return source, applied, skipped
        new_module = with_imports

    try:
        cst.parse_module(new_module.code)
    except cst.ParserSyntaxError as exc:  # pragma: no cover - guarded by _apply and the import check
        for finding, _ in chosen:
            skip(finding, f"fix dropped: the result would not parse ({exc})", "dropped")
        return source, applied, skipped

    for finding, fix in chosen:
        applied.append(AppliedFix(path, finding.line, finding.col, finding.code, fix.description, fix.safe))
    return new_module.bytes, applied, skipped


# --------------------------------------------------------------------------- whole runs


def _selected(code: str, select: Sequence[str] | None, ignore: Sequence[str] | None) -> bool:
    if select and not any(code.startswith(p) for p in select):
        return False
    return not (ignore and any(code.startswith(p) for p in ignore))


def apply_fixes(
    paths: Sequence[str | os.PathLike[str]],
    config: Any,
    *,
    unsafe: bool = False,
    diff: bool = False,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    jobs: int | None = None,
    use_cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
) -> FixReport:
    """Fix the findings of ``check_paths(paths, config)`` in place (or, with ``diff=True``, only
    compute the unified diff). ``select``/``ignore`` restrict the codes fixed and reported, on top
    of the configuration. Returns what was applied, skipped and what remains."""
    from dispatchguard.lint import check_paths

    report = FixReport()
    str_paths = [os.fspath(p) for p in paths]
    root = Path(getattr(config, "root", Path.cwd()))
    project: ProjectNames | None = None

    def project_names() -> ProjectNames:
        nonlocal project
        if project is None:
            project = index_project(root, (Path(p) for p in str_paths if p.endswith(".py")))
        return project

    originals: dict[str, bytes] = {}
    current: dict[str, bytes] = {}  # latest text of every file a fix changed
    applied_keys: set[tuple[str, int, int, str]] = set()
    last_skipped: dict[str, list[SkippedFix]] = {}

    def check(check_paths_: Sequence[str]) -> Any:
        return check_paths(check_paths_, config, jobs=jobs, use_cache=use_cache, cache_dir=cache_dir)

    active: list[Any] = []
    for _ in range(1 if diff else MAX_PASSES):
        result = check(str_paths)
        report.files_checked = max(report.files_checked, result.files_checked)
        active = [f for f in result.findings if not f.suppressed and _selected(f.code, select, ignore)]
        by_file: dict[str, list[Any]] = defaultdict(list)
        for finding in active:
            by_file[finding.path].append(finding)
        changed_this_pass = False
        for file_path, findings in sorted(by_file.items()):
            if not any(f.code in FIXERS for f in findings):
                last_skipped[file_path] = [
                    SkippedFix(file_path, f.line, f.col, f.code,
                               NO_FIX_REASONS.get(f.code, "no automatic fix for this rule"), "unfixable")
                    for f in findings
                ]  # fmt: skip
                continue
            path = Path(file_path)
            try:
                src = read_source(path)
            except OSError as exc:
                last_skipped[file_path] = [
                    SkippedFix(file_path, f.line, f.col, f.code, f"cannot read the file: {exc}", "dropped")
                    for f in findings
                ]
                continue
            originals.setdefault(file_path, src.data)
            new_data, applied, skipped = fix_source(
                src.data, findings, path=file_path, unsafe=unsafe, project_factory=project_names
            )
            last_skipped[file_path] = skipped
            if new_data == src.data:
                continue
            for fix in applied:
                key = (fix.path, fix.line, fix.col, fix.code)
                if key not in applied_keys:
                    applied_keys.add(key)
                    report.applied.append(fix)
            current[file_path] = new_data
            if not diff:
                atomic_write(path, new_data, mode=src.mode)
            changed_this_pass = True
        if not changed_this_pass:
            break

    if diff:
        # Nothing was written: what remains is what the diff does not fix.
        report.remaining = [f for f in active if (f.path, f.line, f.col, f.code) not in applied_keys]
    else:
        report.remaining = active if not changed_this_pass else check(str_paths).findings
        report.remaining = [f for f in report.remaining if not f.suppressed and _selected(f.code, select, ignore)]
    report.skipped = [s for skips in last_skipped.values() for s in skips]
    report.changed_files = sorted(p for p, data in current.items() if data != originals.get(p))
    if diff:
        report.diff = "".join(
            _unified_diff(p, originals[p], current[p]) for p in report.changed_files
        )
    return report


def _unified_diff(path: str, before: bytes, after: bytes) -> str:
    def lines(data: bytes) -> list[str]:
        try:
            text = cst.parse_module(data).code
        except cst.ParserSyntaxError:  # pragma: no cover - both sides parsed before
            text = data.decode("utf-8", "replace")
        return text.splitlines(keepends=True)

    out = difflib.unified_diff(lines(before), lines(after), fromfile=f"a/{path}", tofile=f"b/{path}")
    text = "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in out)
    return text
