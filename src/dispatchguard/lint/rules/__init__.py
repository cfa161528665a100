"""The rules, one module per code. Each has ``CODE``, ``NAME``, ``MESSAGE``, ``SUMMARY``, its logic
(``check_call(ctx, node)`` and/or ``check_function(ctx, fn)``) and ``VALID``/``INVALID`` snippets.

Numbering: DG0xx for the checker itself (DG001 unreadable file), DG1xx dispatch and JSON output
rules; DG2xx (registry names) and DG3xx (HTTP hygiene) are reserved for later rules.
"""

from __future__ import annotations

from types import ModuleType

from dispatchguard.lint.rules import dg001_parse_error, dg101_direct_call, dg102_instantiation, dg103_json_return

RULES: dict[str, ModuleType] = {
    module.CODE: module
    for module in (dg001_parse_error, dg101_direct_call, dg102_instantiation, dg103_json_return)
}

AST_RULES: dict[str, ModuleType] = {code: module for code, module in RULES.items() if code != "DG001"}
