"""The project: every module's summary and the resolver built on them, and checking one file
against it (per-file settings, the word gate, ``# noqa``, cached findings and their deps)."""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path
from typing import Any

from dispatchguard.lint.analysis import Context, RawFinding
from dispatchguard.lint.config import LintConfig, any_glob
from dispatchguard.lint.discovery import SourceFile
from dispatchguard.lint.index import module_names, summarise
from dispatchguard.lint.noqa import file_suppresses, file_suppression, line_suppresses
from dispatchguard.lint.parsing import _char_col, _decode_lines, parse_bytes
from dispatchguard.lint.resolve import ModuleInfo, Resolver
from dispatchguard.lint.rules import AST_RULES, dg001_parse_error

_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_PRIVATE_RUN = re.compile(rb"\._a?run\b")
_FEW_WORDS = 48
_DIGIT_BYTES = frozenset(b"0123456789")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_") | _DIGIT_BYTES

# (line, col, end_line, end_col, code, message, suppressed): 1-based character columns
CachedFinding = list[Any]


class Project:
    """Every module's summary and the resolver built on them, plus the per-file settings."""

    def __init__(self, config: LintConfig) -> None:
        self.config = config
        self.root = Path(config.root).absolute()
        self.resolver = Resolver(config)
        self.infos: dict[str, ModuleInfo] = {}  # key -> module
        self.codes = {code: rule for code, rule in AST_RULES.items() if config.is_enabled(code)}
        self.dg001 = config.is_enabled(dg001_parse_error.CODE)
        self.digests: dict[str, str] = {}  # key -> content digest the summary was made from
        self.cached: dict[str, dict[str, Any]] = {}  # key -> cached findings entry (build_project)
        self.package_dirs: frozenset[str] = frozenset()
        self._word_set: frozenset[bytes] | None = None
        self._anchors: tuple[bytes, ...] | None = None

    def add(
        self, file: SourceFile, summary: dict[str, Any], package_dirs: frozenset[str], *, replace: bool = False
    ) -> ModuleInfo:
        if file.relpath.startswith("/"):
            name, aliases, is_package = _outside_module_name(file.path)
        else:
            name, aliases, is_package = module_names(file.relpath, package_dirs)
        info = self.resolver.add_module(name, aliases, is_package, summary, replace=replace)
        self.infos[file.key] = info
        self._word_set = None
        return info

    # ---------------------------------------------------------------- gate

    @property
    def word_set(self) -> frozenset[bytes]:
        if self._word_set is None:
            # only identifiers can ever be among ``_IDENT.findall(data)``
            encoded = (w.encode() for w in self.resolver.words())
            words = frozenset(w for w in encoded if _IDENT.fullmatch(w))
            # the words that contain no other word: every word contains one of them
            anchors = [w for w in words if not any(o in w and o != w for o in words)] if len(words) <= 256 else []
            self._anchors = tuple(sorted(anchors)) if 0 < len(anchors) <= _FEW_WORDS else None
            self._word_set = words
        return self._word_set

    def may_have_findings(self, data: bytes) -> bool:
        """False when the file names nothing tool-related (then its walk is skipped)."""
        if b"_run" in data and _PRIVATE_RUN.search(data):
            return True
        words = self.word_set
        if not words:
            return False
        if self._anchors is not None:  # few anchors: a substring search for each
            return any(_has_identifier(data, anchor, words) for anchor in self._anchors)
        return not words.isdisjoint(_IDENT.findall(data))

    def gate_passes(self, private_run: bool, identifiers: frozenset[bytes]) -> bool:
        """:meth:`may_have_findings` from what a phase-1 worker saw in the file."""
        return private_run or not self.word_set.isdisjoint(identifiers)

    # ---------------------------------------------------------------- per-file settings

    def checks_for(self, relpath: str) -> dict[str, Any]:
        config = self.config
        checks = dict(self.codes)
        ignored = config.ignored_for(relpath)
        for code in list(checks):
            if any(code.startswith(prefix) for prefix in ignored):
                del checks[code]
        is_test = any_glob(config.test_patterns, relpath)
        if is_test:
            checks.pop("DG101", None)
            checks.pop("DG102", None)
        if "DG102" in checks and any_glob(config.tool_modules, relpath):
            del checks["DG102"]
        return checks

    # ---------------------------------------------------------------- checking

    def check(
        self,
        file: SourceFile,
        data: bytes,
        tree: ast.Module | None,
        info: ModuleInfo | None,
        *,
        apply_noqa: bool = True,
    ) -> tuple[list[CachedFinding], list[list[Any]] | None, str | None]:
        """Findings of one parsed file (``# noqa`` marks them suppressed unless ``apply_noqa`` is
        false), the project facts it looked up, or the gate digest when its walk was skipped."""
        checks = self.checks_for(file.relpath)
        if not checks or not self.may_have_findings(data):
            return [], None, self.resolver.words_digest()
        if tree is None:
            tree, _ = parse_bytes(data)
            if tree is None:  # pragma: no cover - phase 1 reported it already
                return [], [], None
        if info is None:
            info = self.add(file, summarise(tree), frozenset())
        ctx = Context(
            self.resolver, info, checks=checks, dispatchers=self.config.dispatchers, strict=self.config.strict
        )
        try:
            raw = ctx.run(tree)
        except RecursionError:
            raw = [(1, 0, 1, 0, dg001_parse_error.CODE, dg001_parse_error.MESSAGE.format(reason="too deeply nested"))]
        deps = sorted([q, k] for q, k in ctx.deps.items())
        return self.finish(raw, data, apply_noqa), deps, None

    def finish(self, raw: list[RawFinding], data: bytes, apply_noqa: bool = True) -> list[CachedFinding]:
        if not raw:
            return []
        lines = _decode_lines(data)
        directives = file_suppression(data) if apply_noqa else []
        out = []
        for line, col, end_line, end_col, code, message in sorted(set(raw)):
            suppressed = apply_noqa and (
                file_suppresses(directives, code)
                or (0 < line <= len(lines) and line_suppresses(lines[line - 1], code))
            )
            out.append(
                [line, _char_col(lines, line, col), end_line, _char_col(lines, end_line, end_col), code, message, suppressed]
            )
        return out

    def error_finding(self, file: SourceFile, data: bytes | None, error: list[Any]) -> list[CachedFinding]:
        if not self.dg001 or any(dg001_parse_error.CODE.startswith(p) for p in self.config.ignored_for(file.relpath)):
            return []
        line, col, reason = error
        suppressed = bool(data) and file_suppresses(file_suppression(data), dg001_parse_error.CODE)
        message = dg001_parse_error.MESSAGE.format(reason=reason)
        return [[line, col, line, col, dg001_parse_error.CODE, message, suppressed]]

    def cached_findings(self, key: str, digest: str) -> list[CachedFinding] | None:
        """The findings a previous ``dispatchguard check`` cached for this content, if still valid."""
        cached = self.cached.get(key)
        info = self.infos.get(key)
        if cached is None or info is None or self.digests.get(key) != digest or cached.get("m") != info.name:
            return None
        return cached["x"] if _findings_valid(self, cached, self.resolver.words_digest()) else None

    def deps_valid(self, deps: list[list[Any]]) -> bool:
        kind = self.resolver.kind
        return all(kind(q) == k for q, k in deps)


def _has_identifier(data: bytes, anchor: bytes, words: frozenset[bytes]) -> bool:
    """Whether an identifier around an occurrence of ``anchor`` is one of ``words``, an identifier
    being what ``_IDENT.findall(data)`` yields: a run of word bytes without its leading digits."""
    size = len(data)
    at = data.find(anchor)
    while at >= 0:
        start = at
        while start > 0 and data[start - 1] in _WORD_BYTES:
            start -= 1
        end = at + len(anchor)
        while end < size and data[end] in _WORD_BYTES:
            end += 1
        token = data[start:end]
        if token[0] in _DIGIT_BYTES:
            token = token.lstrip(b"0123456789")
        if token in words:
            return True
        at = data.find(anchor, end)  # the rest of this run is the same identifier
    return False


def _outside_module_name(path: Path) -> tuple[str, tuple[str, ...], bool]:
    parts = [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    is_package = path.stem == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), (), is_package


def _findings_valid(project: Project, cached: dict[str, Any], digest: str) -> bool:
    if not isinstance(cached.get("x"), list):
        return False
    if cached.get("g"):
        return cached["g"] == digest
    deps = cached.get("d")
    return isinstance(deps, list) and project.deps_valid(deps)


def _check_one(
    project: Project, file: SourceFile, data: bytes | None, tree: ast.Module | None, digest: str
) -> dict[str, Any]:
    """Check one file; returns the ``f`` part of its cache entry."""
    if data is None:
        try:
            data = file.path.read_bytes()
        except OSError as exc:
            return {"x": project.error_finding(file, None, [1, 1, f"cannot read the file: {exc.strerror}"]), "d": []}
        if hashlib.blake2b(data, digest_size=16).hexdigest() != digest:  # changed since phase 1
            tree = None
    findings, deps, gate = project.check(file, data, tree, project.infos.get(file.key))
    info = project.infos.get(file.key)
    return {"x": findings, "d": deps, "g": gate, "m": info.name if info is not None else None}
