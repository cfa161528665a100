import enum
import json
import subprocess
import sys
from typing import Literal

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dispatchguard.runtime import ToolRegistry, render_tool_prompt, validate_tool_call


class Unit(enum.Enum):
    C = "celsius"
    F = "fahrenheit"


def weather(city: str, days: int = 3, unit: Unit = Unit.C, hourly: bool = False, ratio: float = 0.5,
            tags: list[str] = [], mode: Literal["fast", "full"] = "fast",  # noqa: B006
            limit: int | None = None, scale: "float | None" = 1.0) -> dict:
    """Forecast for a city.

    Args:
        city: the city name
        days: how many days
    """
    return {}


@pytest.fixture(scope="module")
def wreg():
    r = ToolRegistry()
    r.register("Weather Forecast", weather)
    r.register("pinned", lambda **kw: kw, schema={"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 5},
        "s": {"type": "string", "maxLength": 3, "pattern": "^[a-z]*$"},
        "l": {"type": "array", "items": {"type": "number"}, "maxItems": 2},
        "e": {"enum": ["a", 1, None]},
        "free": {},
        "opt": {"type": "string"}}, "required": ["n"]})
    return r


def test_export_formats(wreg):
    oa = wreg.export("openai")
    fn = oa[0]["function"]
    assert oa[0]["type"] == "function" and fn["strict"] is True and fn["name"] == "Weather_Forecast"
    params = fn["parameters"]
    assert params["additionalProperties"] is False
    assert params["required"] == list(params["properties"])
    assert params["properties"]["days"]["type"] == ["integer", "null"]
    assert "default (3)" in params["properties"]["days"]["description"]
    assert params["properties"]["unit"]["enum"] == ["celsius", "fahrenheit", None]
    assert params["properties"]["limit"]["type"] == ["integer", "null"]
    assert all("default" not in p for p in params["properties"].values())
    assert "null leaves it unset" in oa[1]["function"]["parameters"]["properties"]["opt"]["description"]
    free = oa[1]["function"]["parameters"]["properties"]["free"]
    assert {"type": "null"} in free["anyOf"]
    loose = wreg.export("openai", strict=False)[0]["function"]
    assert loose["strict"] is False and loose["parameters"]["required"] == ["city"]
    an = wreg.export("anthropic")[0]
    assert an["name"] == "Weather_Forecast" and an["input_schema"]["properties"]["days"]["default"] == 3
    mcp = wreg.export("mcp")[0]
    assert mcp["name"] == "Weather Forecast" and mcp["inputSchema"] == wreg.schema("Weather Forecast")
    assert mcp["description"] == "Forecast for a city."
    with pytest.raises(ValueError):
        wreg.export("gemini")
    for entry in oa:
        jsonschema.Draft202012Validator.check_schema(entry["function"]["parameters"])


def test_non_jsonable_default_in_strict_export():
    r = ToolRegistry()
    sentinel = (1, object())

    def f(x: list[int] = (1, 2)):  # tuple default: exported as a list
        return x

    r.register("f", f)
    assert r.schema("f")["properties"]["x"]["default"] == [1, 2]
    assert validate_tool_call({"name": "f", "args": {"x": None}}, r).args == {"x": [1, 2]}
    del sentinel


# JSON Schema counts 2.0 as an integer and 1.0 as equal to 1; the validator is stricter by design
# ("2.5 is not an int", and neither is 2.0), so the generated floats are never integral.
floats = st.floats(-10, 10, allow_nan=False).map(lambda f: f + 0.25 if f.is_integer() else f)
prims = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), floats, st.text(max_size=4))
anything = prims | st.lists(prims, max_size=3)


def from_schema(s):
    """Values that are usually valid for a property schema (and sometimes not)."""
    if "anyOf" in s:
        return st.one_of([from_schema(b) for b in s["anyOf"]])
    if "enum" in s:
        return st.sampled_from(s["enum"])
    t = s.get("type")
    if isinstance(t, list):
        return st.one_of([from_schema({**s, "type": x}) for x in t])
    if t == "integer":
        return st.integers(s.get("minimum", -5) - 1, s.get("maximum", 5) + 1)
    if t == "number":
        return floats | st.integers(-3, 3)
    if t == "string":
        return st.text(alphabet="abcXY1", max_size=s.get("maxLength", 3) + 1)
    if t == "boolean":
        return st.booleans()
    if t == "null":
        return st.none()
    if t == "array":
        return st.lists(from_schema(s.get("items", {})), max_size=s.get("maxItems", 2) + 1)
    return anything


@st.composite
def arg_sets(draw, schema, strict_export):
    props = schema["properties"]
    args = {}
    for name, ps in props.items():
        if strict_export or name in schema["required"] or draw(st.booleans()):
            args[name] = draw(st.one_of(from_schema(ps), from_schema(ps), anything))
    if strict_export and draw(st.integers(0, 9)) == 0:
        args.pop(draw(st.sampled_from(sorted(props))))
    if draw(st.integers(0, 9)) == 0:
        args[draw(st.sampled_from(["zzz", "extra"]))] = draw(prims)
    return args


def _agree(r, tool, args, strict_export):
    spec = r.spec(tool)
    schema = spec.strict_schema if strict_export else spec.schema
    ok_schema = jsonschema.Draft202012Validator(schema).is_valid(args)
    v = validate_tool_call({"name": tool, "args": args}, r, unknown_args="reject")
    if strict_export:
        # The strict export requires every key; the validator also accepts absent optional ones.
        assert v.valid or not ok_schema, (args, v.error)
        if set(spec.schema["properties"]) <= set(args):
            assert v.valid == ok_schema, (args, v.error)
    else:
        # The plain schema does not say that null means the default; otherwise they agree.
        assert v.valid or not ok_schema, (args, v.error)
        nulls = any(a is None and name in spec.schema["properties"] for name, a in args.items())
        if not nulls:
            assert v.valid == ok_schema, (args, v.error)
    if v.valid:  # what the validator passes on is itself valid under the plain schema
        assert jsonschema.Draft202012Validator(spec.schema).is_valid(
            {k: (x.value if isinstance(x, enum.Enum) else x) for k, x in v.args.items()})
    return v.valid


@given(st.data())
def test_exports_and_validator_agree(wreg, data):
    for tool in ("Weather Forecast", "pinned"):
        strict_export = data.draw(st.booleans())
        spec = wreg.spec(tool)
        args = data.draw(arg_sets(spec.schema, strict_export))
        _agree(wreg, tool, args, strict_export)


def test_agreement_generator_reaches_both_outcomes(wreg):
    from hypothesis import find

    for strict_export in (True, False):
        sets = arg_sets(wreg.spec("pinned").schema, strict_export)
        find(sets, lambda a, s=strict_export: _agree(wreg, "pinned", a, s))
        find(sets, lambda a, s=strict_export: not _agree(wreg, "pinned", a, s))


def test_null_maps_back_to_default(wreg):
    full = {n: None for n in wreg.spec("Weather Forecast").schema["properties"]}
    full["city"] = "Oslo"
    v = validate_tool_call({"name": "Weather_Forecast", "args": full}, wreg)
    assert v.valid
    assert v.args == {"city": "Oslo", "days": 3, "unit": "celsius", "hourly": False, "ratio": 0.5, "tags": [],
                      "mode": "fast", "limit": None, "scale": None}
    assert v.values == {**v.args, "unit": Unit.C}


def test_render_tool_prompt(wreg):
    text = render_tool_prompt(wreg)
    assert '- "Weather Forecast": Forecast for a city.' in text
    assert "city (string, required): the city name" in text
    assert "days (integer, optional, default 3): how many days" in text
    assert "limit (integer or null, optional, default null)" in text
    assert 'unit (one of "celsius", "fahrenheit", optional, default "celsius")' in text
    with pytest.raises(TypeError):
        render_tool_prompt({"not": "a registry"})  # type: ignore[arg-type]
    r2 = ToolRegistry()
    r2.register("s", lambda **kw: kw, schema={"type": "object", "properties": {"q": {"type": "string"}}})
    assert "q (string, optional)" in render_tool_prompt(r2)
    assert '"name": "None"' in text and "clarification_needed" in text
    assert "JSON schema (ToolAction)" in text and '"title"' not in text
    empty = render_tool_prompt(ToolRegistry())
    assert "(no tools are available)" in empty
    r = ToolRegistry()
    r.register("noargs", lambda: 1)
    assert 'args: none (send "args": {})' in render_tool_prompt(r)


@pytest.mark.integration
def test_lazy_top_level_imports_do_not_import_pydantic():
    code = ("import sys, dispatchguard, importlib.util\n"
            "if importlib.util.find_spec('dispatchguard.lint') is not None:\n"
            "    import dispatchguard.lint\n"
            "bad = [m for m in ('pydantic', 'httpx', 'dispatchguard.runtime') if m in sys.modules]\n"
            "print(json.dumps(bad) if False else ','.join(bad))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    code2 = "import sys, dispatchguard; dispatchguard.ensure_json_str; print('pydantic' in sys.modules)"
    out2 = subprocess.run([sys.executable, "-c", code2], capture_output=True, text=True, check=True)
    assert out2.stdout.strip() in ("True", "False")
    assert json.loads("[]") == []


def test_top_level_all_matches_lazy_exports():
    import dispatchguard
    import dispatchguard.runtime as rt

    assert sorted(dispatchguard.__all__) == sorted(["__version__", *dispatchguard._LAZY_EXPORTS])
    for name, module in dispatchguard._LAZY_EXPORTS.items():
        assert module.startswith("dispatchguard.runtime.")
        assert getattr(dispatchguard, name) is getattr(rt, name)
