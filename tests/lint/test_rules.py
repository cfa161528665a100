"""Fixit-style: every rule's VALID/INVALID snippets become tests (``# error: CODE`` marks lines)."""

from __future__ import annotations

import pytest

from dispatchguard.lint import RULES
from dispatchguard.lint.rules import ENGINE_RULES
from dispatchguard.lint.source import check_source

from .conftest import expectations

CASES = [
    pytest.param(code, kind, snippet, id=f"{code}-{kind}-{index}")
    for code, rule in sorted(RULES.items())
    for kind, snippets in (("valid", rule.VALID), ("invalid", rule.INVALID))
    for index, snippet in enumerate(snippets)
]


@pytest.mark.parametrize(("code", "kind", "snippet"), CASES)
def test_snippet(code: str, kind: str, snippet: str) -> None:
    found = {(f.line, f.code) for f in check_source(snippet) if f.code == code and not f.suppressed}
    expected, _ = expectations(snippet)
    assert found == {(line, c) for _, line, c in expected if c == code}
    if kind == "invalid":
        assert found, "an INVALID snippet must report its rule"


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_metadata(code: str) -> None:
    rule = RULES[code]
    assert rule.CODE == code
    assert rule.NAME == rule.NAME.lower() and " " not in rule.NAME
    assert rule.SUMMARY and rule.MESSAGE
    assert rule.VALID and rule.INVALID


def test_codes_leave_room_for_later_rules() -> None:
    assert all(code.startswith(("DG0", "DG1")) for code in RULES)


def test_every_rule_module_is_registered() -> None:
    import pkgutil

    from dispatchguard.lint import rules

    modules = {name for _, name, _ in pkgutil.iter_modules(rules.__path__) if name.startswith("dg")}
    assert modules == {module.__name__.rsplit(".", 1)[-1] for module in RULES.values()}


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_visits_something(code: str) -> None:
    rule = RULES[code]
    if code in ENGINE_RULES:  # the engine's own: unreadable files, unused noqa
        return
    assert (
        hasattr(rule, "check_call")
        or hasattr(rule, "check_tool_function")
        or (rule.TOOL_METHODS and hasattr(rule, "check_tool_method"))
    )
