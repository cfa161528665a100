"""DG103 fix: make a tool's return value JSON text.

* ``return obj.model_dump(...)`` becomes ``return obj.model_dump_json(...)`` (same arguments).
* Any other flagged value ``v`` becomes ``ensure_json_str(v)``; a bare ``return`` becomes
  ``return ensure_json_str(None)``. ``ensure_json_str`` is imported once, in the file's style.

Fix safety (ruff's sense: does the fix keep runtime behaviour?): **unsafe**, always. The value
a tool method returns changes type (a dict, list, model or ``None`` becomes a ``str``), so a caller
that uses it directly (``tool._run(x)["total"]``, a test asserting on the dict) breaks. Through
the dispatcher nothing changes for the wrapped values: ``dispatch_tool`` already returns
``ensure_json_str(result)`` and ``ensure_json_str`` is idempotent; ``.model_dump_json()`` can
differ from it in whitespace only. Review the direct callers (DG101 findings, tests), then apply
with ``--unsafe-fixes``.

No fix: generator expressions and lambdas (there is no JSON for them), a ``pass``-only body
(nothing to return), ``.model_dump(mode=...)`` (``model_dump_json`` has no ``mode``).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from dispatchguard.fix.base import FileContext, Fix, NoFix

CODE = "DG103"

_NO_FIX = {
    cst.GeneratorExp: "a generator has no JSON form; return a list or json.dumps(list(...))",
    cst.Lambda: "a function has no JSON form",
}


def _is_method_call(node: cst.BaseExpression, method: str) -> bool:
    return m.matches(node, m.Call(func=m.Attribute(attr=m.Name(method))))


def fix_return(ret: cst.Return, ctx: FileContext) -> Fix | NoFix:
    value = ret.value
    if value is None:
        new_value: cst.BaseExpression = cst.Call(func=ctx.ref("ensure_json_str"), args=[cst.Arg(cst.Name("None"))])
        whitespace = ret.whitespace_after_return
        if isinstance(whitespace, cst.MaybeSentinel) or whitespace.deep_equals(cst.SimpleWhitespace("")):
            whitespace = cst.SimpleWhitespace(" ")
        return Fix(
            target=ret,
            replacement=ret.with_changes(value=new_value, whitespace_after_return=whitespace),
            safe=False,
            description="return ensure_json_str(None) (a bare return is often a forgotten value)",
            names=("ensure_json_str",),
        )
    for kind, reason in _NO_FIX.items():
        if isinstance(value, kind):
            return NoFix(reason)
    if _is_method_call(value, "model_dump"):
        assert isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
        if any(arg.keyword is not None and arg.keyword.value == "mode" for arg in value.args):
            return NoFix("model_dump(mode=...) has no model_dump_json equivalent")
        new_call = value.with_changes(func=value.func.with_changes(attr=cst.Name("model_dump_json")))
        return Fix(ret, ret.with_changes(value=new_call), False, "model_dump() -> model_dump_json()")
    wrapped = cst.Call(func=ctx.ref("ensure_json_str"), args=[cst.Arg(value)])
    return Fix(
        target=ret,
        replacement=ret.with_changes(value=wrapped),
        safe=False,
        description="wrap the returned value in ensure_json_str(...)",
        names=("ensure_json_str",),
    )


def find_target(ctx: FileContext, line: int, col: int, end_line: int, end_col: int) -> cst.Return | None:
    """The ``return`` statement whose value (or, for a bare return, itself) the finding points at;
    else the one whose range holds the position (parentheses are counted differently by ast and
    libcst)."""
    pos = (line, col - 1)
    containing: list[tuple[cst.Return, object]] = []
    for node, rng in ctx.positions.items():
        if not isinstance(node, cst.Return):
            continue
        anchor = ctx.positions[node.value] if node.value is not None else rng
        if (anchor.start.line, anchor.start.column) == pos:
            return node
        if (rng.start.line, rng.start.column) <= pos < (rng.end.line, rng.end.column):
            containing.append((node, rng))
    return containing[0][0] if len(containing) == 1 else None


def fix(finding, ctx: FileContext) -> Fix | NoFix:
    target = find_target(ctx, finding.line, finding.col, finding.end_line, finding.end_col)
    if target is None:
        return NoFix("not a return statement (e.g. a pass-only body): write the return value by hand")
    return fix_return(target, ctx)
