"""The compiled strict validator of a tool's arguments (built at registration, run per call)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dispatchguard.runtime.schema.core import _BAD, MISSING, ArgsError, _show
from dispatchguard.runtime.schema.params import Param


def compile_validator(params: Sequence[Param], tool: str) -> Callable[[dict, bool], dict]:
    """Build ``validate(args, reject_unknown) -> dict`` raising :class:`ArgsError`.

    Rules: every required argument present; strict types; ``null`` for an optional argument whose
    type does not admit null means the default (absent when it has none); defaults injected;
    unknown arguments dropped, or rejected when ``reject_unknown``.
    """
    from dispatchguard.runtime.models import ToolActionError, check_arg_value

    plan = []
    for p in params:
        null_default = (not p.required) and not p.node.nullable
        d = p.injected_default
        plan.append((p.name, p.node.checker(), p.required, d, type(d) is list, null_default, p.node))
    names = frozenset(p.name for p in params)
    plan_t = tuple(plan)
    n_params = len(plan_t)

    def unknown(args: dict, reject: bool) -> None:
        extra = [k for k in args if k not in names]
        for k in extra:
            try:
                check_arg_value(k, args[k])
            except ToolActionError as exc:
                raise ArgsError(f"tool {tool!r}: {exc.message}", k if isinstance(k, str) else None) from None
        if reject:
            shown = ", ".join(_show(k) for k in extra[:5])
            expected = ", ".join(repr(n) for n in sorted(names)) or "none"
            raise ArgsError(
                f"tool {tool!r}: unknown argument(s) {shown}; expected arguments: {expected}",
                extra[0],
            )

    def validate(args: dict, reject_unknown: bool = False) -> dict:
        out = {}
        seen = 0
        for name, check, required, default, copy_default, null_default, node in plan_t:
            v = args.get(name, MISSING)
            if v is MISSING:
                if required:
                    raise ArgsError(
                        f"tool {tool!r}: missing required argument {name!r} ({node.describe()})", name
                    )
                if default is not MISSING:
                    out[name] = list(default) if copy_default else default
                continue
            seen += 1
            if v is None and null_default:
                if default is not MISSING:
                    out[name] = list(default) if copy_default else default
                continue
            r = check(v)
            if r is _BAD:
                raise ArgsError(f"tool {tool!r}: argument {name!r}: {node.explain(v)}", name)
            out[name] = r
        if seen != len(args):
            unknown(args, reject_unknown)
        return out

    validate.n_params = n_params  # type: ignore[attr-defined]
    return validate
