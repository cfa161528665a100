"""The side of a tool's run that never imports the project: it runs in ``verify``'s own process
(one thread per tool), draws arguments from the JSON Schema the tool's process sends
(hypothesis, fixed seed, the configured examples first, a failing call shrunk to the smallest
arguments that still break the contract), sends them one call at a time over the tool's socket
and keeps the raw value of each call as a record, for :func:`dispatchguard.verify.runner.judge`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from dispatchguard.verify.worker import Channel, ContractViolation, ToolGone, contract_problem

#: What a call's record holds (anything else the tool's process sends is dropped).
RECORD_KEYS = ("arguments", "type", "text", "shown", "raised", "timeout", "printed")


def drive(job: dict[str, Any], channel: Channel, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Run the tool's side through ``channel``: arguments from its schema, each call's record
    appended to ``records`` and judged (to steer the shrinking); the closing record (``status``:
    ``verified``, ``violation``, ``not_built`` or ``error``). ToolGone when the tool's process
    ended or stopped answering."""
    first = channel.receive()
    if "not_built" in first:
        return {"status": "not_built", "reason": str(first["not_built"])}
    if "error" in first or not isinstance(first.get("schema"), dict):
        return {"status": "error", "reason": str(first.get("error", "no argument schema"))}
    one_call = _caller(job, channel, records)
    try:
        violation = explore(arguments_of(first["schema"]), one_call, job)
    except ToolGone as gone:
        if gone.args:
            return {"status": "error", "reason": str(gone.args[0])}
        raise
    if job.get("dispatch"):
        through_dispatcher(job, first["schema"], channel, records)
    channel.send({"stop": True})
    done = channel.receive()
    if "error" in done:
        return {"status": "error", "reason": str(done["error"])}
    answer: dict[str, Any] = {"status": "verified" if violation is None else "violation"}
    for key in ("threads_left", "output_bytes"):
        if isinstance(done.get(key), int) and not isinstance(done.get(key), bool):
            answer[key] = done[key]
    return answer


def _caller(job: dict[str, Any], channel: Channel, records: list[dict[str, Any]]) -> Callable[[dict], None]:
    """One call of the tool per hypothesis example; a tool that hung is not called again."""
    from hypothesis import reject

    hung = f"did not answer within {job['timeout']:g} s"
    timed_out = [False]

    def one_call(arguments: dict[str, Any]) -> None:
        problem = hung if timed_out[0] else None
        if problem is None:
            channel.send({"arguments": arguments})
            answer = channel.receive()
            if "error" in answer:
                raise ToolGone(answer["error"])
            if answer.get("rejected"):
                reject()
            record = {key: answer[key] for key in RECORD_KEYS if key in answer}
            record["call"] = True
            records.append(record)
            timed_out[0] = bool(record.get("timeout"))
            problem = contract_problem(record, job["timeout"], job["output_cap"], json.loads)
            arguments = record.get("arguments", arguments)
        if problem is not None:  # one place: hypothesis tells failures apart by where they are raised
            raise ContractViolation(problem, arguments)

    return one_call


def explore(strategy: Any, one_call: Callable[[dict], None], job: dict[str, Any]) -> ContractViolation | None:
    """``cases`` calls with arguments drawn from ``strategy``, the configured examples first; the
    smallest failing arguments when one fails."""
    from hypothesis import HealthCheck, example, given, settings

    test = given(strategy)(one_call)
    for arguments in job.get("examples", []):
        test = example(arguments)(test)
    test = settings(
        max_examples=job["cases"],
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=False,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
    )(test)
    try:
        test()
    except ContractViolation as violation:
        return violation
    return None


def through_dispatcher(
    job: dict[str, Any], schema: dict[str, Any], channel: Channel, records: list[dict[str, Any]]
) -> None:
    """``fix --verify`` (issue 35): send the dispatch job's arguments (or ``cases`` drawn from
    ``schema``, failing none) through the tool's process to the project's dispatcher, keeping each
    answer as a ``{"dispatched": True, ...}`` record."""
    arguments = job["dispatch"].get("arguments")
    if arguments is None:
        drawn: list[Any] = []

        def draw(values: Any) -> None:  # hypothesis wraps a Python function, not a bound builtin
            drawn.append(values)

        explore(arguments_of(schema), draw, {**job, "examples": []})
        arguments = list({json.dumps(a, sort_keys=True, default=repr): a for a in drawn}.values())
    for sent in arguments:
        channel.send({"dispatch": sent})
        reply = channel.receive()
        if "error" in reply:
            raise ToolGone(reply["error"])
        if not reply.get("rejected"):
            records.append({"dispatched": True, "arguments": reply.get("arguments"), "answers": reply.get("answers")})


def arguments_of(schema: dict[str, Any]) -> Any:
    """Arguments as a model would send them, from the JSON Schema of a tool's arguments: the
    required fields always, the optional ones sometimes."""
    from hypothesis import strategies as st

    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    return st.fixed_dictionaries(
        {name: strategy_of(sub) for name, sub in properties.items() if name in required},
        optional={name: strategy_of(sub) for name, sub in properties.items() if name not in required},
    )


def strategy_of(schema: Any, root: Any = None, depth: int = 0) -> Any:
    """A hypothesis strategy for the JSON values ``schema`` describes (``$ref`` into ``$defs``,
    ``enum``, ``const``, ``anyOf``/``oneOf``, the JSON types with their bounds; any JSON value
    for what it does not describe): the tool's own schema refuses what does not fit."""
    root = schema if root is None else root
    if not isinstance(schema, dict) or depth > 10:
        return _json_values()
    combined = _combined(schema, root, depth)
    if combined is not None:
        return combined
    kind = schema.get("type")
    made = _TYPED.get(kind) if isinstance(kind, str) else None
    return made(_Schema(schema, root, depth)) if made is not None else _json_values()


def _combined(schema: dict[str, Any], root: Any, depth: int) -> Any:
    """The strategy of a schema that refers or combines (``$ref``, ``const``, ``enum``,
    ``anyOf``/``oneOf``, one ``allOf``, a list of types); None for a schema of one type."""
    from hypothesis import strategies as st

    if isinstance(schema.get("$ref"), str):
        target = _resolve(root, schema["$ref"])
        return strategy_of(target, root, depth + 1) if target is not None else _json_values()
    if "const" in schema:
        return st.just(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return st.one_of([strategy_of(s, root, depth + 1) for s in schema[key]])
    if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
        return strategy_of(schema["allOf"][0], root, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list) and kind:
        return st.one_of([strategy_of({**schema, "type": k}, root, depth + 1) for k in kind])
    return None


class _Schema:
    """One schema of a JSON type, with its numeric bounds read safely and its sub-schemas drawn."""

    def __init__(self, schema: dict[str, Any], root: Any, depth: int) -> None:
        self.schema, self.root, self.depth = schema, root, depth

    def bound(self, name: str) -> Any:
        value = self.schema.get(name)
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def inner(self, schema: Any) -> Any:
        return strategy_of(schema, self.root, self.depth + 1)


def _string(s: _Schema) -> Any:
    from hypothesis import strategies as st

    made = _FORMATS.get(s.schema.get("format", ""))
    if made is not None:
        return made()
    low, high = s.bound("minLength") or 0, s.bound("maxLength")
    return st.text(min_size=int(low), max_size=None if high is None else max(int(high), int(low)))


def _integer(s: _Schema) -> Any:
    from hypothesis import strategies as st

    low = s.bound("minimum") if s.bound("exclusiveMinimum") is None else s.bound("exclusiveMinimum") + 1
    high = s.bound("maximum") if s.bound("exclusiveMaximum") is None else s.bound("exclusiveMaximum") - 1
    low = None if low is None else int(-(-low // 1))
    high = None if high is None else int(high // 1)
    return st.integers(min_value=low, max_value=high if low is None or high is None or high >= low else low)


def _number(s: _Schema) -> Any:
    from hypothesis import strategies as st

    low, high = s.bound("minimum"), s.bound("maximum")
    if low is not None and high is not None and high < low:
        high = low
    return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)


def _array(s: _Schema) -> Any:
    from hypothesis import strategies as st

    items = s.schema.get("prefixItems")
    if isinstance(items, list) and items:
        return st.tuples(*(s.inner(item) for item in items)).map(list)
    low = int(s.bound("minItems") or 0)
    high = s.bound("maxItems")
    return st.lists(s.inner(s.schema.get("items", {})), min_size=low,
                    max_size=max(low, int(high) if high is not None else 5))  # fmt: skip


def _object(s: _Schema) -> Any:
    from hypothesis import strategies as st

    properties = s.schema.get("properties")
    if isinstance(properties, dict) and properties:
        required = set(s.schema.get("required") or ())
        return st.fixed_dictionaries(
            {n: s.inner(sub) for n, sub in properties.items() if n in required},
            optional={n: s.inner(sub) for n, sub in properties.items() if n not in required},
        )
    values = s.schema.get("additionalProperties")
    return st.dictionaries(st.text(), s.inner(values) if isinstance(values, dict) else _json_values(), max_size=3)


def _constant(name: str) -> Callable[[_Schema], Any]:
    def made(s: _Schema) -> Any:
        from hypothesis import strategies as st

        return getattr(st, name)()

    return made


#: The strategy of each JSON type.
_TYPED: dict[str, Callable[[_Schema], Any]] = {
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": _constant("booleans"),
    "null": _constant("none"),
    "array": _array,
    "object": _object,
}


def _resolve(root: Any, ref: str) -> Any:
    if not ref.startswith("#/"):
        return None
    value = root
    for part in ref[2:].split("/"):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _json_values() -> Any:
    from hypothesis import strategies as st

    return st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=6,
    )


def _formats() -> dict[str, Any]:
    from hypothesis import strategies as st

    return {
        "date-time": lambda: st.datetimes().map(lambda d: d.isoformat()),
        "date": lambda: st.dates().map(lambda d: d.isoformat()),
        "time": lambda: st.times().map(lambda t: t.isoformat()),
        "uuid": lambda: st.uuids().map(str),
        "email": lambda: st.emails(),
        "uri": lambda: st.sampled_from(["https://example.com/", "https://example.org/a?b=c"]),
    }


class _LazyFormats(dict):  # hypothesis is imported on first use, not with this module
    def get(self, key: Any, default: Any = None) -> Any:  # type: ignore[override]
        if not self:
            self.update(_formats())
        return super().get(key, default)


_FORMATS: dict[str, Any] = _LazyFormats()
