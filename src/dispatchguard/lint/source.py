"""In-memory helpers: checking one source text, for tests and tools (nothing read or written)."""

from __future__ import annotations

import ast
from typing import Any

from dispatchguard.lint.config import LintConfig
from dispatchguard.lint.discovery import SourceFile
from dispatchguard.lint.findings import Finding
from dispatchguard.lint.index import summarise
from dispatchguard.lint.parsing import parse_bytes, quiet_parsing
from dispatchguard.lint.project import Project


def check_source(
    source: str, config: LintConfig | None = None, *, path: str = "snippet.py", extra: dict[str, str] | None = None
) -> list[Finding]:
    """Check one source text as ``path`` under the config root (``extra``: other modules of the
    project, relpath -> source). For tests and tools; nothing is read from or written to disk."""
    with quiet_parsing():
        return _check_source(source, config or LintConfig(), path, extra or {})


def _check_source(source: str, config: LintConfig, path: str, extra: dict[str, str]) -> list[Finding]:
    project = Project(config)
    sources = {**extra, path: source}
    parsed: dict[str, tuple[bytes, ast.Module | None, list[Any] | None]] = {}
    package_dirs = frozenset(rel.rsplit("/", 1)[0] for rel in sources if rel.endswith("/__init__.py"))
    files = {}
    for rel, text in sources.items():
        data = text.encode("utf-8")
        tree, error = parse_bytes(data)
        file = SourceFile(project.root / rel, rel, rel)
        files[rel] = file
        parsed[rel] = (data, tree, error)
        if tree is not None:
            project.add(file, summarise(tree), package_dirs)
    data, tree, error = parsed[path]
    if error is not None:
        items = project.error_finding(files[path], data, error)
    else:
        items, _, _ = project.check(files[path], data, tree, project.infos[path])
    return [Finding(path, l, c, code, msg, el, ec, s) for l, c, el, ec, code, msg, s in items]
