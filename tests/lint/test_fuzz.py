"""Valid Python never crashes the checker (hypothesmith generates programs from the grammar)."""

from __future__ import annotations

import ast

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings

from dispatchguard.lint import LintConfig
from dispatchguard.lint.source import check_source

STRICT = LintConfig(strict=True)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
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
