"""The rules, one module per code (Fixit's layout), found by their file name ``dgNNN_<name>.py``.

Each rule module binds ``RULE``, a :class:`~dispatchguard.lint.rule.Rule`: its code, name and
message, what it visits (``check_call`` for every call; ``check_tool_method`` for the
``tool_methods`` of tool classes; ``check_tool_function`` for the functions the project makes
tools of), its own exemptions, the fixer that fixes it and a few canonical examples. The cases
that pin its findings (line, column, message) live in ``tests/lint/cases/<CODE>.py``. Rules reach
the project only through :class:`~dispatchguard.lint.rule.RuleContext`, the walk's narrow query API.

Numbering: DG0xx for the checker itself (reported by the engine, not the walk: DG001 unreadable
file, DG002 unused ``# noqa``), DG1xx dispatch and JSON output rules; DG2xx (registry names) and
DG3xx (HTTP hygiene) are reserved.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from dispatchguard.lint.rule import Rule

#: A rule module's file name; the package's other modules are shared helpers.
RULE_MODULE = re.compile(r"dg\d{3}_\w+")


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
