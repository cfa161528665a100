"""DG001: a file that cannot be read or decoded, or one that names a tool word and cannot be parsed
(reported once; the other files are checked). A file that names no tool word is never parsed, so
its syntax errors are left to the project's Python linter (E999 in ruff and flake8)."""

from dispatchguard.lint.rules.examples import snippet

CODE = "DG001"
NAME = "unparsable-file"
SUMMARY = "File cannot be read, decoded or parsed"
MESSAGE = "cannot check this file: {reason}"


VALID: list[str] = [
    snippet("""
        x = 1
    """),
    snippet("""
        def broken_but_not_about_tools(:
    """),
]

INVALID: list[str] = [
    snippet("""
        from crewai.tools import BaseTool; def broken(:  # error: DG001
    """),
]
