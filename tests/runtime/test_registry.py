import asyncio
import enum
from collections.abc import Sequence
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from dispatchguard.runtime import (
    TOOL_REGISTRY,
    RegistryError,
    ToolRegistry,
    dispatch_tool,
)
from dispatchguard.runtime.schema.docstrings import parse_docstring


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


def test_mapping_and_spec(reg):
    assert list(reg) == ["add"] and len(reg) == 1 and "add" in reg and 3 not in reg
    assert reg["add"](1, 2) == 3
    assert [1] not in reg  # unhashable: no TypeError
    s = reg.spec("add")
    assert (s.name, s.is_async, s.parallel_safe, s.description) == ("add", False, False, "Add two integers.")
    assert s.schema == {
        "type": "object",
        "properties": {"a": {"type": "integer", "description": "the first"},
                       "b": {"type": "integer", "description": "the second"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    assert reg.schema("add") == s.schema and reg.schema("add") is not s.schema
    with pytest.raises(KeyError):
        reg.spec("nope")
    assert reg.resolve(["x"]) is None
    assert "add" in repr(reg)
    assert isinstance(TOOL_REGISTRY, ToolRegistry)


@pytest.mark.parametrize(
    ("name", "match"),
    [("", "empty"), ("a/b", "path separator"), ("a\\b", "path separator"), ("a\nb", "control"),
     ("a\x00", "control"), ("x" * 65, "longer than 64"), (" a", "whitespace"), ("None", "reserved"),
     (5, "must be a string")],
)
def test_bad_names(name, match):
    with pytest.raises(RegistryError, match=match):
        ToolRegistry().register(name, lambda: 1)


def test_duplicates_and_export_name_clash(reg):
    with pytest.raises(RegistryError, match="already registered"):
        reg.register("add", lambda: 1)
    reg.register("File Writer Tool", lambda path: path)
    assert reg.spec("File_Writer_Tool").name == "File Writer Tool"
    with pytest.raises(RegistryError, match="export name"):
        reg.register("File_Writer_Tool", lambda: 1)
    with pytest.raises(RegistryError, match="export name"):
        reg.register("File-Writer Tool".replace("-", " ").replace(" ", "?", 1), lambda: 1)
    reg.unregister("File Writer Tool")
    assert reg.resolve("File_Writer_Tool") is None
    reg.register("File_Writer_Tool", lambda: 1)
    with pytest.raises(KeyError):
        reg.unregister("missing")


def test_registry_options():
    with pytest.raises(ValueError):
        ToolRegistry(unknown_args="keep")
    with pytest.raises(ValueError):
        ToolRegistry(max_bytes=0)


def test_decorator_forms():
    r = ToolRegistry()

    @r.tool()
    def a() -> str:
        return "a"

    @r.tool("Bee", parallel_safe=True, description="Does b.")
    async def b(x: str) -> str:
        return x

    assert list(r) == ["a", "Bee"]
    s = r.spec("Bee")
    assert s.is_async and s.parallel_safe and s.description == "Does b."
    assert r.spec("a").schema["properties"] == {}


def test_signature_types():
    r = ToolRegistry()

    def f(
        s: str,
        i: int,
        n: float,
        b: bool,
        lit: Literal["x", "y"],
        color: Color = Color.RED,
        opt: int | None = None,
        u: int | str = 1,
        pipe: "int | None" = 3,
        lst: list[int] = [1],  # noqa: B006
        L: list[str] = (),
        seq: Sequence[float] = (1.0,),
        tup: tuple[int, ...] = (),
        anything=None,
        any2: Any = "z",
        ann: Annotated[int, Field(ge=0, le=10, description="zero to ten")] = 5,
        ann2: Annotated[str, "a described string"] = "",
        fld: int = Field(7, description="from Field", gt=0),
        bare_list: list = [],  # noqa: B006
        nothing: None = None,
        *rest,
        **kw,
    ):
        return locals()

    r.register("f", f)
    props = r.schema("f")["properties"]
    assert props["s"] == {"type": "string"} and props["n"] == {"type": "number"}
    assert props["lit"] == {"type": "string", "enum": ["x", "y"]}
    assert props["color"] == {"type": "string", "enum": ["red", "green"], "default": "red"}
    assert props["opt"] == {"type": ["integer", "null"], "default": None}
    assert props["u"]["type"] == ["integer", "string"]
    assert props["pipe"] == {"type": ["integer", "null"], "default": 3}
    assert props["lst"] == {"type": "array", "items": {"type": "integer"}, "default": [1]}
    assert props["tup"] == {"type": "array", "items": {"type": "integer"}, "default": []}
    assert props["ann"] == {"type": "integer", "minimum": 0, "maximum": 10, "description": "zero to ten", "default": 5}
    assert props["ann2"]["description"] == "a described string"
    assert props["fld"] == {"type": "integer", "exclusiveMinimum": 0, "description": "from Field", "default": 7}
    assert props["anything"] == {"default": None}  # any JSON value
    assert props["nothing"] == {"type": "null", "default": None}
    assert r.schema("f")["required"] == ["s", "i", "n", "b", "lit"]
    out = dispatch_tool({"name": "f", "args": {"s": "", "i": 1, "n": 2, "b": False, "lit": "y", "color": "green",
                                               "tup": [1, 2], "seq": [1, 2.5]}}, registry=r)
    assert '"color": "green"' in out and '"n": 2.0' in out and '"fld": 7' in out and '"tup": [1, 2]' in out
    bad = dispatch_tool({"name": "f", "args": {"s": "", "i": 1, "n": 2, "b": False, "lit": "y", "u": 1.5}},
                        registry=r)
    assert "argument 'u': expected integer or string, got number 1.5" in bad


@pytest.mark.parametrize(
    "sig",
    [
        "def f(x, /): pass",
        "def f(_x: int): pass",
        "def f(x: object()): pass",
        "def f(x: 'Undefined'): pass",
        "def f(x: int = 'no'): pass",
        "def f(x: Annotated[str, Field(pattern='(')]): pass",
    ],
)
def test_unsupported_signatures(sig):
    ns = {"Annotated": Annotated, "Field": Field, "Literal": Literal}
    exec(sig, ns)
    with pytest.raises(RegistryError):
        ToolRegistry().register("f", ns["f"])


def test_bad_tools():
    r = ToolRegistry()
    with pytest.raises(RegistryError, match="instance"):
        r.register("c", Color)
    with pytest.raises(RegistryError, match="expected a function"):
        r.register("x", 42)

    class NotCallableRun:
        run = 5

    with pytest.raises(RegistryError, match="not callable"):
        r.register("y", NotCallableRun())
    with pytest.raises(RegistryError, match="schema must be"):
        r.register("z", lambda: 1, schema=[1])
    class NoSig:
        __signature__ = 5

        def __call__(self, x):
            return x

    with pytest.raises(RegistryError, match="signature"):
        r.register("b", NoSig())


class ReadArgs(BaseModel):
    path: str = Field(description="file to read")
    limit: int = Field(100, ge=1)
    mode: Literal["text", "bytes"] = "text"
    color: Color = Color.RED
    maybe: float | None = None


class CrewLikeTool:
    """Reads a file."""

    name = "File Reader"
    description = "Reads a file from disk."
    args_schema = ReadArgs

    def run(self, *args, **kwargs):
        return self._run(**kwargs)

    def _run(self, path: str, limit: int = 100, mode: str = "text", color: str = "red", maybe=None):
        return {"path": path, "limit": limit, "mode": mode, "color": color}


def test_object_tools_with_args_schema():
    r = ToolRegistry()
    r.register("File Reader", CrewLikeTool())
    s = r.spec("File Reader")
    assert s.description == "Reads a file from disk."
    assert s.schema["required"] == ["path"]
    assert s.schema["properties"]["color"]["enum"] == ["red", "green"]
    assert s.schema["properties"]["limit"]["minimum"] == 1
    out = dispatch_tool({"name": "File Reader", "args": {"path": "a"}}, registry=r)
    assert out == '{"path": "a", "limit": 100, "mode": "text", "color": "red"}'
    bad = dispatch_tool({"name": "File Reader", "args": {"path": "a", "limit": 0}}, registry=r)
    assert '"invalid_args"' in bad and "limit" in bad


def test_object_tool_run_signature_and_arun():
    class Sync:
        def run(self, q: str, k: int = 2):
            """Search.

            :param q: the query
            :param k: how many
            """
            return [q] * k

    class AsyncOnly:
        async def arun(self, q: str):
            return q

    class AsyncRun:
        async def run(self, q: str):
            return q

    class Both:
        def run(self, q: str):
            return "sync"

        async def arun(self, q: str):
            return "async"

    class Callable_:
        def __call__(self, x: int):
            return x

    class AsyncCallable:
        async def __call__(self, x: int):
            return x

    r = ToolRegistry()
    r.register("sync", Sync(), schema={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
    r.register("sync2", Sync())
    assert r.spec("sync2").schema["properties"]["q"]["description"] == "the query"
    r.register("ao", AsyncOnly())
    r.register("ar", AsyncRun())
    r.register("both", Both())
    r.register("callable", Callable_())
    r.register("acallable", AsyncCallable())
    assert [r.spec(n).is_async for n in r] == [False, False, True, True, True, False, True]
    assert dispatch_tool({"name": "sync", "args": {"q": "x"}}, registry=r) == '["x", "x"]'
    assert dispatch_tool({"name": "both", "args": {"q": "x"}}, registry=r) == '"sync"'
    assert dispatch_tool({"name": "ao", "args": {"q": "x"}}, registry=r) == '"x"'
    from dispatchguard.runtime import adispatch_tool

    assert asyncio.run(adispatch_tool({"name": "both", "args": {"q": "x"}}, registry=r)) == '"async"'
    assert dispatch_tool({"name": "callable", "args": {"x": 1}}, registry=r) == "1"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array"},
        {"type": "object", "properties": []},
        {"type": "object", "required": "a"},
        {"type": "object", "properties": {}, "required": ["a"]},
        {"type": "object", "properties": {"a": {"$ref": "http://x"}}},
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}},
        {"type": "object", "properties": {"a": {"anyOf": []}}},
        {"type": "object", "properties": {"a": {"enum": "x"}}},
        {"type": "object", "properties": {"a": {"enum": [float("nan")]}}},
        {"type": "object", "properties": {"a": {"type": "string", "pattern": 5}}},
        {"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}},
        {"type": "object", "properties": {"a": {"type": "integer", "minimum": "0"}}},
        {"type": "object", "properties": {"a": {"type": "integer", "multipleOf": 0}}},
        {"type": "object", "properties": {"a": {"type": "array", "minItems": 1.5}}},
        {"type": "object", "properties": {"a": {"type": "string", "default": 3}}},
        {"type": "object", "properties": {"a": 5}},
        {"type": "object", "properties": {"a": {"type": "text"}}},
        "not a schema",
    ],
)
def test_bad_json_schemas(schema):
    with pytest.raises(RegistryError):
        ToolRegistry().register("t", lambda **kw: kw, schema=schema)


def test_json_schema_features():
    schema = {
        "type": "object",
        "$defs": {"Mode": {"enum": ["a", "b"], "type": "string"}},
        "properties": {
            "mode": {"$ref": "#/$defs/Mode", "description": "the mode"},
            "m2": {"allOf": [{"$ref": "#/$defs/Mode"}], "default": "b"},
            "c": {"const": 3},
            "o": {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
            "tl": {"type": ["string", "integer"]},
            "arr": {"type": "array", "items": {"type": "string", "maxLength": 2}, "maxItems": 2},
            "free": {},
            "fa": {"type": "array", "items": {}},
            "num": {"type": "number", "exclusiveMaximum": 1, "multipleOf": 0.25},
            "pat": {"type": "string", "pattern": "^x", "minLength": 2, "format": "uri"},
            "obj": {"type": "object", "properties": {"k": {"type": "integer"}}, "required": ["k"]},
            "when": {"type": "string", "format": "date-time"},
        },
        "required": ["mode"],
    }
    r = ToolRegistry()
    r.register("t", lambda **kw: kw, schema=schema)
    ok = dispatch_tool({"name": "t", "args": {"mode": "a", "c": 3, "o": None, "tl": 1, "arr": ["ab"],
                                              "free": [1, "x"], "fa": [None], "num": 0.5, "pat": "x:y",
                                              "obj": {"k": 1}, "when": "2024-05-01T10:00:00Z"}},
                       registry=r)
    assert '"m2": "b"' in ok and '"o": null' in ok
    for bad in ({"mode": "c"}, {"mode": "a", "c": 4}, {"mode": "a", "o": 0}, {"mode": "a", "arr": ["abc"]},
                {"mode": "a", "arr": ["a", "b", "c"]}, {"mode": "a", "num": 1}, {"mode": "a", "num": 0.3},
                {"mode": "a", "pat": "yy"}, {"mode": "a", "pat": "x"}, {"mode": "a", "tl": 1.5},
                {"mode": "a", "pat": "xy"}, {"mode": "a", "obj": {"k": "1"}}, {"mode": "a", "obj": {}},
                {"mode": "a", "when": "yesterday"}, {"mode": "a", "arr": "ab"}):
        out = dispatch_tool({"name": "t", "args": bad}, registry=r)
        assert '"kind": "invalid_args"' in out, (bad, out)


def test_pydantic_model_schema_error():
    class Broken:
        @classmethod
        def model_json_schema(cls):
            raise RuntimeError("nope")

    with pytest.raises(RegistryError, match="schema must be"):
        ToolRegistry().register("t", lambda: 1, schema=Broken)


def test_docstring_styles():
    google = """Summary line.

    More text.

    Args:
        a (int): first
            continued
        b: second
        **kw: extra

    Returns:
        int: the sum
    """
    summary, params = parse_docstring(google)
    assert summary == "Summary line. More text."
    assert params == {"a": "first continued", "b": "second", "kw": "extra"}
    numpy = """Summary.

    Parameters
    ----------
    x : int
        the x
    y : str

    Returns
    -------
    int
    """
    assert parse_docstring(numpy) == ("Summary.", {"x": "the x", "y": ""})
    sphinx = """Do it.

    :param int a: the a
        more
    :param b: the b
    :returns: nothing
    """
    assert parse_docstring(sphinx) == ("Do it.", {"a": "the a more", "b": "the b"})
    assert parse_docstring(None) == ("", {})
    odd = """S.

    Args:
        not an item line !!
        c: ok
    Raises:
        ValueError: never
    """
    assert parse_docstring(odd) == ("S.", {"c": "ok"})


def test_annotated_constraints_on_arrays_and_numbers():
    r = ToolRegistry()

    def f(tags: Annotated[list[str], Field(min_length=1, max_length=2)], n: Annotated[int, Field(multiple_of=3)] = 0,
          x: None = None):
        return tags

    r.register("f", f)
    props = r.schema("f")["properties"]
    assert props["tags"] == {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2}
    assert props["n"]["multipleOf"] == 3
    assert dispatch_tool({"name": "f", "args": {"tags": ["a"], "n": 6}}, registry=r) == '["a"]'
    for bad in ({"tags": []}, {"tags": ["a", "b", "c"]}, {"tags": ["a"], "n": 4}, {"tags": ["a"], "x": 1}):
        assert '"invalid_args"' in dispatch_tool({"name": "f", "args": bad}, registry=r), bad


def test_number_subclasses_and_strings():
    class F(float):
        pass

    class S(str):
        pass

    class Int(int):
        pass

    r = ToolRegistry()
    r.register("f", lambda x, s, i: [x, s, i], schema={"type": "object", "properties": {
        "x": {"type": "number"}, "s": {"type": "string"}, "i": {"type": "integer"}}})
    from dispatchguard.runtime import validate_tool_call

    v = validate_tool_call({"name": "f", "args": {"x": F(1.5), "s": S("q"), "i": Int(3)}}, r)
    assert v.valid and v.args == {"x": 1.5, "s": "q", "i": 3}
    assert (type(v.args["x"]), type(v.args["s"]), type(v.args["i"])) == (float, str, int)
    assert not validate_tool_call({"name": "f", "args": {"x": F("nan")}}, r).valid
    assert validate_tool_call(S('{"name": "f", "args": {"s": "t"}}'), r).valid
    assert validate_tool_call(bytearray(b'{"name": "f", "args": {"s": "t"}}'), r).valid

    class B(bytes):
        pass

    assert validate_tool_call(B(b'{"name": "f", "args": {"s": "t"}}'), r).valid
