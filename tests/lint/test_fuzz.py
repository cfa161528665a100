"""Valid Python never crashes the checker (hypothesmith generates programs from the grammar)."""

from __future__ import annotations

import ast

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dispatchguard.lint import LintConfig
from dispatchguard.lint.source import check_source

STRICT = LintConfig(strict=True)

# Deferred: building the grammar's parser takes seconds, paid by every xdist worker that collects
# this module, while only the one running these tests needs it.
programs_from_grammar = st.deferred(hypothesmith.from_grammar)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs_from_grammar)
def test_valid_code_never_crashes(source: str) -> None:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return  # the grammar allows a few programs the compiler rejects
    for finding in check_source(source, STRICT):
        assert finding.code != "DG001"
        assert finding.line >= 1 and finding.col >= 1


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_node())
def test_generated_modules_never_crash(source: str) -> None:
    header = "from crewai.tools import BaseTool\nimport json\n"
    for finding in check_source(header + source, STRICT):
        assert finding.code != "DG001"


def _enclosing_by_parents(tree: ast.Module, node: ast.AST) -> list[ast.AST]:
    """The classes and functions whose body (not decorators, arguments or bases) holds ``node``,
    outermost first, ending with ``node`` itself when it is one: the definition, from every
    node's parent."""
    parent: dict[ast.AST, tuple[ast.AST, str]] = {}
    for outer in ast.walk(tree):
        for field, value in ast.iter_fields(outer):
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    parent[child] = (outer, field)
    chain, current = [], node
    while current in parent:
        outer, field = parent[current]
        if isinstance(outer, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and field == "body":
            chain.append(outer)
        current = outer
    own = [node] if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) else []
    return chain[::-1] + own


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs_from_grammar | hypothesmith.from_node())
def test_enclosing_finds_the_definitions_around_every_statement(source: str) -> None:
    """The halving search of a body (fixes ask it once per finding of long modules) agrees with
    the definition on every statement of a generated module."""
    from dispatchguard.lint.inference.tree_values import enclosing

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            assert enclosing(tree, node) == _enclosing_by_parents(tree, node)
