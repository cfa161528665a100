"""The rules, one module per code (Fixit's layout), found by their file name ``dgNNN_<name>.py``.

Each rule module binds ``RULE``, a :class:`~dispatchguard.lint.rule.Rule`: its code, name and
message, the hooks it declares (:data:`~dispatchguard.lint.rule.HOOKS`), its own exemptions, the
fixer that fixes it and a few canonical examples. The cases
that pin its findings (line, column, message) live in ``tests/lint/cases/<CODE>.py``. Rules reach
the project only through :class:`~dispatchguard.lint.rule.RuleContext`, the walk's narrow query API.

Numbering: DG0xx for the checker itself (reported by the engine, not the walk: DG001 unreadable
file, DG002 unused ``# noqa``), DG1xx dispatch and JSON output rules; DG2xx (registry names) and
DG3xx (HTTP hygiene) are reserved.
"""

from __future__ import annotations

import importlib
import pkgutil

from dispatchguard.lint.config import RULE_MODULE
from dispatchguard.lint.rule import Rule


def _load() -> dict[str, Rule]:
    found = {}
    for module_info in pkgutil.iter_modules(__path__):
        if RULE_MODULE.fullmatch(module_info.name):
            rule = importlib.import_module(f"{__name__}.{module_info.name}").RULE
            if not module_info.name.startswith(rule.code.lower() + "_"):
                raise TypeError(f"{module_info.name} defines {rule.code}: a rule module is named after its code")
            found[rule.code] = rule
    return dict(sorted(found.items()))


#: Every rule, by code, in code order.
RULES: dict[str, Rule] = _load()

#: The rules the walk runs (the others are the engine's, reported around the walk).
WALK_RULES: dict[str, Rule] = {code: rule for code, rule in RULES.items() if rule.reporter == "walk"}


def listed(*, preview: bool = False) -> dict[str, Rule]:
    """The rules the documentation lists (the rule index, the README, docs/cli.md): those out of
    preview; with ``preview``, every rule (``check --help`` marks the ones in preview). A rule in
    preview enters the lists when it leaves preview, so adding one changes no other file."""
    return {code: rule for code, rule in RULES.items() if preview or not rule.preview}
