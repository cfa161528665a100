"""The tool kinds of the framework matrix, built with the real crewai and langchain-core packages.

Every kind adds two integers in its framework's idiom; a :class:`Kind` says how to build it, the
arguments a model sends (sometimes with extras the tool must never see) and the JSON text the
dispatcher must return. ``calls`` records every real execution, so a test can tell a call that ran
from one that was refused.
"""

from __future__ import annotations

import datetime as dt
import enum
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

import pytest

crewai_tools = pytest.importorskip("crewai.tools")
langchain_tools = pytest.importorskip("langchain_core.tools")

from crewai.tools import BaseTool as CrewBaseTool  # noqa: E402
from crewai.tools import tool as crew_tool  # noqa: E402
from langchain_core.tools import (  # noqa: E402
    BaseTool as LcBaseTool,
)
from langchain_core.tools import (  # noqa: E402
    InjectedToolArg,
    InjectedToolCallId,
    StructuredTool,
)
from langchain_core.tools import tool as lc_tool  # noqa: E402
from pydantic import BaseModel, Field  # noqa: E402
from pydantic.v1 import BaseModel as V1Model  # noqa: E402

from dispatchguard import ToolRegistry  # noqa: E402
from dispatchguard.runtime import InjectedArg  # noqa: E402


class Calls:
    """Every real execution of a matrix tool, thread-safe."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.log: list[tuple[str, Any]] = []

    def add(self, kind: str, value: Any) -> None:
        with self.lock:
            self.log.append((kind, value))

    def count(self, kind: str) -> int:
        with self.lock:
            return sum(1 for k, _ in self.log if k == kind)


@dataclass(frozen=True)
class Kind:
    """One tool kind: ``build(calls)`` returns the tool (and registration keywords)."""

    id: str
    build: Callable[[Calls], tuple[Any, dict]]
    args: dict
    expected: str
    context: dict | None = None  # what the caller supplies on the dispatch paths
    expected_with_context: str | None = None
    is_async: bool = False
    notes: dict = field(default_factory=dict)


class Color(str, enum.Enum):
    RED = "red"
    GREEN = "green"


class Point(BaseModel):
    x: int
    y: int


# --- CrewAI ----------------------------------------------------------------------------------


def crewai_sync(calls: Calls) -> tuple[Any, dict]:
    class AddTool(CrewBaseTool):
        name: str = "crew adder"
        description: str = "Add two integers."

        def _run(self, a: int, b: int) -> int:
            calls.add("crewai_sync", (a, b))
            return a + b  # a number on purpose: the dispatcher makes it JSON text

    return AddTool(), {}


def crewai_async(calls: Calls) -> tuple[Any, dict]:
    class AsyncAddTool(CrewBaseTool):
        name: str = "crew async adder"
        description: str = "Add two integers, asynchronously."

        def _run(self, a: int, b: int) -> int:  # CrewAI requires a sync twin; dispatch_tool uses it
            calls.add("crewai_async", ("sync", a, b))
            return a + b  # a number on purpose: the dispatcher makes it JSON text

        async def _arun(self, a: int, b: int) -> int:
            calls.add("crewai_async", (a, b))
            return a + b  # a number on purpose: the dispatcher makes it JSON text

    return AsyncAddTool(), {}


def crewai_decorated(calls: Calls) -> tuple[Any, dict]:
    @crew_tool("crew decorated adder")
    def add(a: int, b: int) -> int:
        """Add two integers."""
        calls.add("crewai_decorated", (a, b))
        return a + b

    return add, {}


def crewai_limited(calls: Calls) -> tuple[Any, dict]:
    tool, _ = crewai_sync(calls)
    tool.max_usage_count = 1
    return tool, {}


# --- LangChain -------------------------------------------------------------------------------


def lc_tool_sync(calls: Calls) -> tuple[Any, dict]:
    @lc_tool
    def lc_add(a: int, b: int) -> int:
        """Add two integers."""
        calls.add("lc_tool_sync", (a, b))
        return a + b

    return lc_add, {}


def lc_tool_async(calls: Calls) -> tuple[Any, dict]:
    @lc_tool
    async def lc_async_add(a: int, b: int) -> int:
        """Add two integers, asynchronously."""
        calls.add("lc_tool_async", (a, b))
        return a + b

    return lc_async_add, {}


def lc_structured(calls: Calls) -> tuple[Any, dict]:
    def add(a: int, b: int = 0) -> int:
        calls.add("lc_structured", (a, b))
        return a + b

    return StructuredTool.from_function(add, name="structured_add", description="Add two integers."), {}


def lc_structured_coroutine(calls: Calls) -> tuple[Any, dict]:
    async def add(a: int, b: int) -> int:
        calls.add("lc_structured_coroutine", (a, b))
        return a + b

    return StructuredTool.from_function(coroutine=add, name="structured_async_add",
                                        description="Add two integers."), {}


class AddArgsV2(BaseModel):
    a: int = Field(description="the first")
    b: int = Field(description="the second")


class AddArgsV1(V1Model):
    a: int
    b: int


ADD_JSON_SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                   "required": ["a", "b"]}


def _lc_basetool(kind: str, schema: Any) -> Callable[[Calls], tuple[Any, dict]]:
    def build(calls: Calls) -> tuple[Any, dict]:
        class AddTool(LcBaseTool):
            name: str = f"lc_{kind}"
            description: str = "Add two integers."
            args_schema: Any = schema

            def _run(self, a: int, b: int) -> int:
                calls.add(kind, (a, b))
                return a + b  # a number on purpose: the dispatcher makes it JSON text

        return AddTool(), {}

    return build


def lc_injected(calls: Calls) -> tuple[Any, dict]:
    @lc_tool
    def lc_whoami(a: int, b: int, user_id: Annotated[str, InjectedToolArg] = "anonymous",
                  call_id: Annotated[str, InjectedToolCallId] = "") -> str:
        """Add two integers for a user."""
        calls.add("lc_injected", (a, b, user_id, call_id))
        return f"{user_id}:{a + b}:{call_id[:5]}"

    return lc_whoami, {}


def lc_artifact(calls: Calls) -> tuple[Any, dict]:
    @lc_tool(response_format="content_and_artifact")
    def lc_artifact_add(a: int, b: int) -> tuple[str, dict]:
        """Add two integers; the raw numbers are the artifact."""
        calls.add("lc_artifact", (a, b))
        return str(a + b), {"a": a, "b": b, "big": list(range(100))}

    return lc_artifact_add, {}


def lc_type_arg(calls: Calls) -> tuple[Any, dict]:
    @lc_tool
    def lc_typed(type: str, a: int, b: int) -> str:
        """Add two integers, labelled."""
        calls.add("lc_type_arg", (type, a, b))
        return f"{type}={a + b}"

    return lc_typed, {}


# --- plain functions -------------------------------------------------------------------------


def plain_sync(calls: Calls) -> tuple[Any, dict]:
    def add(a: int, b: int) -> int:
        """Add two integers."""
        calls.add("plain_sync", (a, b))
        return a + b

    return add, {}


def plain_async(calls: Calls) -> tuple[Any, dict]:
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        calls.add("plain_async", (a, b))
        return a + b

    return add, {}


def plain_injected(calls: Calls) -> tuple[Any, dict]:
    def whoami(a: int, b: int, user_id: Annotated[str, InjectedArg()] = "anonymous") -> str:
        """Add two integers for a user."""
        calls.add("plain_injected", (a, b, user_id))
        return f"{user_id}:{a + b}"

    return whoami, {}


def plain_rich(calls: Calls) -> tuple[Any, dict]:
    def rich(color: Color, when: dt.datetime, ident: uuid.UUID, at: Point, counts: dict[str, int],
             tags: tuple[str, ...] = ()) -> dict:
        """Echo typed values."""
        calls.add("plain_rich", color)
        assert isinstance(color, Color) and isinstance(when, dt.datetime) and isinstance(at, Point)
        return {"color": color, "when": when, "ident": ident, "at": at, "total": sum(counts.values()),
                "tags": list(tags)}

    return rich, {}


RICH_ARGS = {"color": "green", "when": "2024-05-01T10:00:00Z", "ident": "12345678-1234-5678-1234-567812345678",
             "at": {"x": 1, "y": 2}, "counts": {"a": 2, "b": 3}, "tags": ["t"]}
RICH_EXPECTED = ('{"color": "green", "when": "2024-05-01T10:00:00+00:00", "ident": '
                 '"12345678-1234-5678-1234-567812345678", "at": {"x": 1, "y": 2}, "total": 5, "tags": ["t"]}')
TWO_THREE = {"a": 2, "b": 3}

KINDS = [
    Kind("crewai_sync", crewai_sync, TWO_THREE, "5"),
    Kind("crewai_async", crewai_async, TWO_THREE, "5", is_async=True),
    Kind("crewai_decorated", crewai_decorated, TWO_THREE, "5"),
    Kind("lc_tool_sync", lc_tool_sync, TWO_THREE, "5"),
    Kind("lc_tool_async", lc_tool_async, TWO_THREE, "5", is_async=True),
    Kind("lc_structured", lc_structured, TWO_THREE, "5"),
    Kind("lc_structured_coroutine", lc_structured_coroutine, TWO_THREE, "5", is_async=True),
    Kind("lc_basetool_v2", _lc_basetool("lc_basetool_v2", AddArgsV2), TWO_THREE, "5"),
    Kind("lc_basetool_v1", _lc_basetool("lc_basetool_v1", AddArgsV1), TWO_THREE, "5"),
    Kind("lc_basetool_jsonschema", _lc_basetool("lc_basetool_jsonschema", ADD_JSON_SCHEMA), TWO_THREE, "5"),
    Kind("lc_injected", lc_injected, {**TWO_THREE, "user_id": "admin", "call_id": "forged"}, '"anonymous:5:call_"',
         context={"user_id": "u-42", "tool_call_id": "call_from_caller"},
         expected_with_context='"u-42:5:call_"'),
    Kind("lc_artifact", lc_artifact, TWO_THREE, "5"),
    Kind("lc_type_arg", lc_type_arg, {"type": "tool_call", **TWO_THREE}, '"tool_call=5"'),
    Kind("plain_sync", plain_sync, TWO_THREE, "5"),
    Kind("plain_async", plain_async, TWO_THREE, "5", is_async=True),
    Kind("plain_injected", plain_injected, {**TWO_THREE, "user_id": "admin"}, '"anonymous:5"',
         context={"user_id": "u-42"}, expected_with_context='"u-42:5"'),
    Kind("plain_rich", plain_rich, RICH_ARGS, RICH_EXPECTED),
]
KIND_IDS = [k.id for k in KINDS]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests asking for ``kind`` run once per tool kind of the matrix."""
    if "kind" in metafunc.fixturenames:
        metafunc.parametrize("kind", KINDS, ids=KIND_IDS)


@pytest.fixture
def calls() -> Calls:
    return Calls()


@pytest.fixture
def registered(kind: Kind, calls: Calls) -> tuple[ToolRegistry, str]:
    """A registry holding the kind's tool under the kind's id: (registry, name)."""
    reg = ToolRegistry()
    tool, options = kind.build(calls)
    reg.register(kind.id, tool, **options)
    return reg, kind.id




@pytest.fixture
def llm_server():
    from dispatchguard.agent.testing import ScriptedLLMServer

    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture
def llm(llm_server):
    from dispatchguard.agent import OpenAICompatibleLLM

    return OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted", api_key="test")
