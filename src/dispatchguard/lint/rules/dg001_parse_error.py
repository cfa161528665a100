"""DG001: a file that cannot be read or decoded, or one that names a tool word and cannot be parsed
(reported once; the other files are checked). A file that names no tool word is never parsed, so
its syntax errors are left to the project's Python linter (E999 in ruff and flake8)."""

from dispatchguard.lint.rule import Rule
from dispatchguard.lint.rules.examples import snippet

RULE = Rule(
    code="DG001",
    name="unparsable-file",
    summary="File cannot be read, decoded or parsed",
    message="cannot check this file: {reason}",
    reporter="engine",
    no_fix_reason="no automatic fix: the file cannot be read or parsed",
    valid=(
        snippet("""
            x = 1
        """),
        snippet("""
            def broken_but_not_about_tools(:
        """),
    ),
    invalid=(
        snippet("""
            from crewai.tools import BaseTool; def broken(:  # error: DG001
        """),
    ),
)
