"""Checking source text in memory, for tests and tools: nothing is read from or written to disk."""

from __future__ import annotations

from collections.abc import Iterator

from dispatchguard.lint.checking import check_tree, error_result, rules_for, skipped_result
from dispatchguard.lint.config import LintConfig
from dispatchguard.lint.discovery import SourceFile
from dispatchguard.lint.findings import Finding
from dispatchguard.lint.index import summarise
from dispatchguard.lint.parsing import parse_bytes, quiet_parsing, readable_source
from dispatchguard.lint.project import Project, WordSet, may_have_findings


def check_source(
    source: str, config: LintConfig | None = None, *, path: str = "snippet.py", extra: dict[str, str] | None = None
) -> list[Finding]:
    """Check one source text as ``path`` under the config root (``extra``: other modules of the
    project, relpath -> source), exactly as ``check_paths`` would check such a project."""
    config = config or LintConfig()
    sources = {**(extra or {}), path: source}
    with quiet_parsing():
        project = Project(config, [SourceFile(config.root / rel, rel, rel) for rel in sources])
        for rel, text in sources.items():
            tree, error = parse_bytes(text.encode("utf-8"))
            project.known[rel] = (summarise(tree) if tree is not None else None, error)

        def scan(words: WordSet, previous: WordSet | None) -> Iterator[tuple[str, bytes | None]]:
            for rel, text in sources.items():
                if rel not in project.infos and words.named_in(text.encode("utf-8")):
                    yield rel, None

        words = project.close_words(scan)
        file, data = project.files[path], source.encode("utf-8")
        tree, error = parse_bytes(data)
        walk = rules_for(project, path) and may_have_findings(data, words)
        if tree is None and (walk or not readable_source(data)):
            result = error_result(project, file, data, error or [1, 1, "syntax error"])
        elif tree is not None and walk:
            result = check_tree(project, file, data, tree)
        else:  # as check_paths: a file that names no tool word is not walked, nor held to its syntax
            result = skipped_result(project, file, data)
    return [Finding(path, *item[:2], item[4], item[5], item[2], item[3], item[6]) for item in result.findings]
