"""DG103 fix: make a tool method's return value JSON text (the rewrite itself, shared with DG104,
is :mod:`.json_return`: ``model_dump_json()`` on proven pydantic models, else the value wrapped in
``ensure_json_str(...)`` when the project depends on dispatchguard at run time, or ``json.dumps(...)``).

Fix safety (ruff's sense: a safe fix cannot change what any caller observes):

* **safe** only for the ``ensure_json_str(v)`` wrap when the project has no dispatcher of its own
  configured (its tools run through dispatchguard's ``dispatch_tool``, which returns
  ``ensure_json_str(result)`` already, and ``ensure_json_str`` is idempotent on its own output) and
  no file of the project calls a tool method directly (``.run(``, ``._run(``, ``.arun(``,
  ``._arun(``, ``.invoke(``, ``.ainvoke(``, or the fixed method's name): then the dispatcher is the
  only caller and it returns the same text as before;
* **unsafe** otherwise: the method's return type changes (a dict, model or ``None`` becomes a
  ``str``), so a direct caller or a test asserting on the dict sees a difference, and a project
  dispatcher that serialises the result itself would encode it twice.
"""

from __future__ import annotations

import ast
from typing import Any

from dispatchguard.fix.base import FileContext, Fix, NoFix
from dispatchguard.fix.json_return import enclosing_function, fix_json_return, runtime_dispatcher_only


def _safe_wrap(ctx: FileContext, ret: ast.Return) -> bool:
    method = enclosing_function(ctx, ret)
    return runtime_dispatcher_only(ctx, method.name if method is not None else None)


def fix(finding: Any, ctx: FileContext) -> Fix | NoFix:
    """Return the rewrite making the flagged return value JSON text (see :mod:`.json_return`), or
    NoFix and why; safe only for an ``ensure_json_str`` wrap when ``dispatch_tool`` is the only
    caller of the method."""
    return fix_json_return(finding, ctx, _safe_wrap)
