"""The rules, one module per code (Fixit's layout). Each rule module holds:

- ``CODE``, ``NAME`` (kebab-case), ``SUMMARY``, ``MESSAGE``;
- what it visits: ``check_call(ctx, node)`` for every call, and/or ``TOOL_METHODS`` with
  ``check_tool_method(ctx, fn)`` for those methods of tool classes, once the walk is over;
- its own exemptions: ``exempt(file: FileFacts) -> bool`` (optional);
- ``VALID``/``INVALID`` snippets that ``tests/lint/test_rules.py`` expands into tests
  (``# error: CODE`` marks the line of each expected finding).

Rules reach the project only through the query API of :mod:`dispatchguard.lint.walker`.

Numbering: DG0xx for the checker itself (reported by the engine, not the walk: DG001 unreadable
file, DG002 unused ``# noqa``), DG1xx dispatch and JSON output rules (DG103: run methods of tool
classes, DG104: tool functions); DG2xx (registry names) and DG3xx (HTTP hygiene) are reserved.
"""

from __future__ import annotations

from types import ModuleType

from dispatchguard.lint.rules import (
    dg001_parse_error,
    dg002_unused_noqa,
    dg101_direct_call,
    dg102_instantiation,
    dg103_json_return,
    dg104_tool_function,
)

RULES: dict[str, ModuleType] = {
    module.CODE: module
    for module in (
        dg001_parse_error,
        dg002_unused_noqa,
        dg101_direct_call,
        dg102_instantiation,
        dg103_json_return,
        dg104_tool_function,
    )
}

#: The engine's own rules, reported after the walk.
ENGINE_RULES = frozenset({dg001_parse_error.CODE, dg002_unused_noqa.CODE})

#: The rules the walk runs.
WALK_RULES: dict[str, ModuleType] = {code: module for code, module in RULES.items() if code not in ENGINE_RULES}
