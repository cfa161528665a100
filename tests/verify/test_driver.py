"""The arguments `verify` draws from a tool's JSON Schema (dispatchguard.verify.driver): every
value fits the schema it was drawn from (bounds, formats, references, combinations)."""

from __future__ import annotations

import datetime
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dispatchguard.verify.driver import arguments_of, strategy_of

SCHEMAS = [
    ({"type": "integer", "exclusiveMinimum": 3, "exclusiveMaximum": 7}, lambda v: isinstance(v, int) and 3 < v < 7),
    ({"type": "integer", "minimum": 2.5, "maximum": 2.5}, lambda v: v == 3),  # no whole number fits: the low bound
    ({"type": "number", "minimum": -1, "maximum": 1}, lambda v: isinstance(v, float) and -1 <= v <= 1),
    ({"type": "string", "minLength": 2, "maxLength": 3}, lambda v: isinstance(v, str) and 2 <= len(v) <= 3),
    ({"type": "string", "format": "uuid"}, lambda v: uuid.UUID(v) is not None),
    ({"type": "string", "format": "date"}, lambda v: datetime.date.fromisoformat(v) is not None),
    ({"type": "boolean"}, lambda v: isinstance(v, bool)),
    ({"type": "null"}, lambda v: v is None),
    ({"type": ["integer", "null"]}, lambda v: v is None or isinstance(v, int)),
    ({"enum": ["a", "b"]}, lambda v: v in ("a", "b")),
    ({"const": 5}, lambda v: v == 5),
    ({"anyOf": [{"type": "boolean"}, {"type": "null"}]}, lambda v: v is None or isinstance(v, bool)),
    ({"allOf": [{"type": "string", "maxLength": 1}]}, lambda v: isinstance(v, str) and len(v) <= 1),
    (
        {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
        lambda v: 1 <= len(v) <= 2 and all(isinstance(i, int) for i in v),
    ),
    (
        {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}]},
        lambda v: len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], bool),
    ),
    (
        {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]},
        lambda v: isinstance(v["a"], int) and set(v) <= {"a", "b"},
    ),
    (
        {"type": "object", "additionalProperties": {"type": "boolean"}},
        lambda v: all(isinstance(k, str) and isinstance(x, bool) for k, x in v.items()),
    ),
    (
        {
            "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
            "$ref": "#/$defs/Point",
        },
        lambda v: isinstance(v["x"], int),
    ),
]


@pytest.mark.parametrize(("schema", "fits"), SCHEMAS, ids=[str(i) for i in range(len(SCHEMAS))])
def test_every_drawn_value_fits_its_schema(schema, fits) -> None:
    @settings(max_examples=30, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def check(data: st.DataObject) -> None:
        value = data.draw(strategy_of(schema))
        assert fits(value), (schema, value)

    check()


def test_the_required_arguments_are_always_drawn_and_the_optional_sometimes() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}, "required": ["q"]}
    seen: set[frozenset[str]] = set()

    @settings(max_examples=60, database=None, deadline=None, derandomize=True)
    @given(arguments_of(schema))
    def check(arguments: dict) -> None:
        assert "q" in arguments
        seen.add(frozenset(arguments))

    check()
    assert seen == {frozenset({"q"}), frozenset({"q", "n"})}
