"""A rule is local (issue 36): the rule modules ask the walk only what
:class:`~dispatchguard.lint.rule.RuleContext` declares, and the walker answers all of it. A rule
that needs more adds a documented question there; it never reads the walker's state."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import dispatchguard.lint.rules as rules_package
from dispatchguard.lint.rule import RuleContext

RULES_DIR = Path(rules_package.__file__).parent


def declared() -> set[str]:
    names: set[str] = set()
    for cls in RuleContext.__mro__:
        if cls is object or cls is typing.Protocol or cls.__name__ == "Generic":
            continue
        names |= {n for n in vars(cls) if not n.startswith("_")} | set(getattr(cls, "__annotations__", {}))
    return names


def test_rule_modules_ask_only_what_the_rule_context_declares() -> None:
    allowed = declared()
    asked = {}
    for path in sorted(RULES_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ctx":
                asked.setdefault(node.attr, path.name)
    assert asked, "the rule modules ask the walk nothing: the test reads the wrong folder"
    unknown = {attr: where for attr, where in asked.items() if attr not in allowed}
    assert not unknown, f"rules read the walker outside RuleContext: {unknown}"


def test_the_walker_answers_every_question_of_the_rule_context() -> None:
    from dispatchguard.lint.walker import Context

    missing = sorted(name for name in declared() if not hasattr(Context, name) and name != "strict")
    assert not missing
