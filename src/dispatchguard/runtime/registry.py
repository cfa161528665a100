"""``ToolRegistry``: the tools a dispatcher may call, with their argument schemas and validators.

Each registration compiles the tool's arguments (:mod:`dispatchguard.runtime.schema`) and decides
how the tool is called (:mod:`dispatchguard.runtime.adapters`).

A registry is a read-only ``Mapping[str, tool]`` (``TOOL_REGISTRY["File Writer Tool"]`` is a plain
lookup of the registered object). Schemas and validators are built once, at registration.
"""

from __future__ import annotations

import inspect
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from dispatchguard.runtime.adapters import AdapterError, adapt
from dispatchguard.runtime.models import CLARIFICATION_NAME, DEFAULT_MAX_BYTES
from dispatchguard.runtime.schema import ArgInfo, CompiledArgs, InjectedParam, SchemaError
from dispatchguard.runtime.schema.dict_args import compile_json_schema
from dispatchguard.runtime.schema.docstrings import parse_docstring
from dispatchguard.runtime.schema.model_args import compile_model, compile_signature, is_pydantic_model

__all__ = ["MAX_NAME_LENGTH", "TOOL_REGISTRY", "RegistryError", "ToolRegistry", "ToolSpec"]

MAX_NAME_LENGTH = 64
_EXPORT_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_EXPORT_BAD = re.compile(r"[^A-Za-z0-9_-]")
UNKNOWN_ARGS_POLICIES = ("drop", "reject")
F = TypeVar("F", bound=Callable[..., Any])


class RegistryError(ValueError):
    """A tool cannot be registered: bad or duplicate name, unsupported argument types, bad schema."""


@dataclass(frozen=True, eq=False, slots=True)
class ToolSpec:
    """Per-tool facts for other layers (agent loop, HTTP server, exports).

    ``schema`` is the JSON Schema of the arguments; ``is_async`` is true when the tool has a native
    async entry point (``adispatch_tool`` awaits it); ``parallel_safe`` is the registrant's promise
    that concurrent calls are safe. ``export_name`` is the name used in OpenAI/Anthropic exports
    (``[A-Za-z0-9_-]``); the dispatcher accepts it as well as ``name``. ``injected`` lists the
    arguments the caller supplies through ``context`` (absent from ``schema``).
    """

    name: str
    description: str
    schema: dict
    is_async: bool
    parallel_safe: bool
    tool: Any
    export_name: str
    params: tuple[ArgInfo, ...] = field(repr=False)
    strict_schema: dict = field(repr=False)
    call: Callable[..., Any] | None = field(repr=False)
    acall: Callable[..., Any] | None = field(repr=False)
    validate: Callable[..., dict] = field(repr=False)
    injected: tuple[InjectedParam, ...] = field(default=(), repr=False)
    takes_dict: bool = field(default=False, repr=False)
    needs_call_id: bool = field(default=False, repr=False)
    needs_context: bool = field(default=False, repr=False)  # injected arguments or a tool-call id
    int_args: tuple[str, ...] = field(default=(), repr=False)  # integers: long only past 64 bits
    long_args: tuple[str, ...] = field(default=(), repr=False)  # strings, arrays, objects: may be long


def check_tool_name(name: Any) -> str:
    """Return ``name`` if it is a valid tool name, else raise :class:`RegistryError`."""
    if not isinstance(name, str):
        raise RegistryError(f"a tool name must be a string, got {type(name).__name__}")
    if not name:
        raise RegistryError("a tool name must not be empty")
    shown = name[:80].encode("unicode_escape").decode("ascii")
    if len(name) > MAX_NAME_LENGTH:
        raise RegistryError(f"tool name {shown!r} is longer than {MAX_NAME_LENGTH} characters")
    if not name.isprintable():
        raise RegistryError(f"tool name {shown!r} contains control or non-printable characters")
    if "/" in name or "\\" in name:
        raise RegistryError(f"tool name {shown!r} contains a path separator")
    if name != name.strip():
        raise RegistryError(f"tool name {shown!r} has leading or trailing whitespace")
    if name == CLARIFICATION_NAME:
        raise RegistryError(f"tool name {name!r} is reserved for clarification requests")
    return name


def _export_name(name: str) -> str:
    return name if _EXPORT_NAME.match(name) else _EXPORT_BAD.sub("_", name)


class ToolRegistry(Mapping[str, Any]):
    """Registered tools by name.

    ``max_bytes`` limits JSON text and the size of ``args`` (1 MiB by default) and
    ``unknown_args`` (``"drop"`` or ``"reject"``) is the default policy for arguments the tool does
    not declare; the dispatcher and ``validate_tool_call`` use both unless told otherwise.
    """

    def __init__(self, *, max_bytes: int = DEFAULT_MAX_BYTES, unknown_args: str = "drop") -> None:
        if unknown_args not in UNKNOWN_ARGS_POLICIES:
            raise ValueError(f"unknown_args must be 'drop' or 'reject', got {unknown_args!r}")
        if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes <= 0:
            raise ValueError(f"max_bytes must be a positive int, got {max_bytes!r}")
        self.max_bytes = max_bytes
        self.unknown_args = unknown_args
        self.reject_unknown = unknown_args == "reject"
        self._specs: dict[str, ToolSpec] = {}
        self._aliases: dict[str, ToolSpec] = {}
        self._lock = threading.Lock()

    # Mapping ---------------------------------------------------------------------------------
    def __getitem__(self, name: str) -> Any:
        return self._specs[name].tool

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._specs))

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        try:
            return name in self._specs
        except TypeError:
            return False

    def __repr__(self) -> str:
        return f"ToolRegistry({list(self._specs)!r})"

    # lookups ----------------------------------------------------------------------------------
    def spec(self, name: str) -> ToolSpec:
        """The :class:`ToolSpec` of ``name`` (or of its export name). Raises ``KeyError``."""
        s = self.resolve(name)
        if s is None:
            raise KeyError(name)
        return s

    def resolve(self, name: Any) -> ToolSpec | None:
        """The spec for a registered name or export name, or ``None``. Never raises."""
        try:
            return self._specs.get(name) or self._aliases.get(name)
        except TypeError:
            return None

    def specs(self) -> list[ToolSpec]:
        """A new list of the registered specs, in registration order (aliases not repeated)."""
        return list(self._specs.values())

    def schema(self, name: str) -> dict:
        """JSON Schema of the arguments of ``name`` (a copy). Raises ``KeyError``."""
        import copy

        return copy.deepcopy(self.spec(name).schema)

    def export(self, fmt: str = "openai", *, strict: bool = True) -> list[dict]:
        """The tool list in a provider's format: ``"openai"``, ``"anthropic"`` or ``"mcp"``."""
        from dispatchguard.runtime.export import export_tools

        return export_tools(self.specs(), fmt, strict=strict)

    # registration -----------------------------------------------------------------------------
    def register(
        self,
        name: str,
        tool: Any,
        *,
        schema: Any = None,
        description: str | None = None,
        parallel_safe: bool = False,
    ) -> Any:
        """Register ``tool`` under ``name`` and return it.

        ``tool`` is a function (sync or ``async def``), a CrewAI tool, a LangChain tool, or an object
        with ``.run(**kwargs)`` and/or ``.arun(**kwargs)`` (see :mod:`dispatchguard.runtime.adapters`
        for how each is called). The argument schema is ``schema`` (a JSON Schema dict or a pydantic
        v2 or v1 model class) when given, else the tool's ``args_schema``, else the signature and
        docstring; it is compiled here, once, into the validator. Raises :class:`RegistryError` for
        a bad or duplicate name, argument types that cannot be validated, or a tool that is neither
        callable nor has ``run``/``arun``.
        """
        check_tool_name(name)
        if inspect.isclass(tool):
            raise RegistryError(f"tool {name!r}: register an instance, not the class {tool.__name__}")
        try:
            spec = self._build(name, tool, schema, description, bool(parallel_safe))
        except SchemaError as exc:
            raise RegistryError(str(exc)) from None
        with self._lock:
            if name in self._specs:
                raise RegistryError(f"a tool named {name!r} is already registered")
            clash = self._aliases.get(spec.export_name) or self._specs.get(spec.export_name)
            if clash is not None:
                raise RegistryError(
                    f"tool {name!r}: its export name {spec.export_name!r} is taken by tool {clash.name!r}"
                )
            specs = dict(self._specs)
            specs[name] = spec
            aliases = dict(self._aliases)
            if spec.export_name != name:
                aliases[spec.export_name] = spec
            self._specs, self._aliases = specs, aliases
        return tool

    def unregister(self, name: str) -> None:
        """Remove ``name``. Raises ``KeyError`` if it is not registered."""
        with self._lock:
            spec = self._specs[name]
            specs = dict(self._specs)
            del specs[name]
            aliases = {k: v for k, v in self._aliases.items() if v is not spec}
            self._specs, self._aliases = specs, aliases

    @overload
    def tool(self, name: F, *, parallel_safe: bool = ..., description: str | None = ...) -> F: ...

    @overload
    def tool(
        self, name: str | None = None, *, parallel_safe: bool = False, description: str | None = None
    ) -> Callable[[F], F]: ...

    def tool(self, name: Any = None, *, parallel_safe: bool = False, description: str | None = None) -> Any:
        """Decorator registering a plain (sync or async) function; the name defaults to ``__name__``.

        Usable as ``@registry.tool``, ``@registry.tool()`` or ``@registry.tool("Name")``.
        """
        if callable(name) and not isinstance(name, str):
            func = name
            self.register(func.__name__, func, parallel_safe=parallel_safe, description=description)
            return func

        def decorator(func: F) -> F:
            self.register(name if name is not None else getattr(func, "__name__", None), func,
                          parallel_safe=parallel_safe, description=description)
            return func

        return decorator

    # internals --------------------------------------------------------------------------------
    def _build(self, name: str, tool: Any, schema: Any, description: str | None,
               parallel_safe: bool) -> ToolSpec:
        try:
            adapter = adapt(name, tool)
        except AdapterError as exc:
            raise RegistryError(str(exc)) from None
        summary, doc_params = parse_docstring(_doc(adapter.doc_source) or _doc(adapter.signature))
        source = schema if schema is not None else adapter.schema
        compiled = _compile(name, source, adapter.signature, doc_params)
        if description is None:
            attr = getattr(tool, "description", None)
            description = attr if isinstance(attr, str) and attr.strip() else summary
        description = " ".join(str(description).split())
        needs_call_id = adapter.needs_call_id or any(p.is_call_id for p in compiled.injected)
        return ToolSpec(
            name=name,
            description=description,
            schema=compiled.schema,
            is_async=adapter.acall is not None,
            parallel_safe=parallel_safe,
            tool=tool,
            export_name=_export_name(name),
            params=compiled.params,
            strict_schema=compiled.strict_schema,
            call=adapter.call,
            acall=adapter.acall,
            validate=compiled.validate,
            injected=compiled.injected,
            takes_dict=adapter.takes_dict,
            needs_call_id=needs_call_id,
            needs_context=needs_call_id or bool(compiled.injected),
            int_args=tuple(p.name for p in compiled.params if _size_class(p.schema) == "int"),
            long_args=tuple(p.name for p in compiled.params if _size_class(p.schema) == "long"),
        )


_BOUNDED_FORMATS = frozenset({"date-time", "date", "time", "uuid", "duration"})


def _size_class(schema: dict) -> str:
    """``"short"`` (booleans, numbers, enums, dates...), ``"int"`` or ``"long"``: which arguments
    the dispatcher measures against ``max_bytes``."""
    if "enum" in schema or "const" in schema:
        return "short"
    t = schema.get("type")
    types = set(t) if isinstance(t, list) else {t} if isinstance(t, str) else set()
    if not types:
        return "long"
    if types <= {"string", "null"} and schema.get("format") in _BOUNDED_FORMATS:
        return "short"
    if types <= {"boolean", "number", "null"}:
        return "short"
    return "int" if types <= {"integer", "boolean", "number", "null"} else "long"


def _compile(name: str, source: Any, signature: Any, doc_params: dict[str, str]) -> CompiledArgs:
    if source is None:
        return compile_signature(signature, name, doc_params)
    if isinstance(source, Mapping):
        return compile_json_schema(source, name, doc_params)
    if is_pydantic_model(source):
        return compile_model(source, name, doc_params)
    v1_schema = getattr(source, "schema", None) if inspect.isclass(source) and hasattr(source, "__fields__") else None
    if callable(v1_schema):  # a pydantic v1 model (pydantic.v1.BaseModel): through its JSON Schema
        try:
            return compile_json_schema(v1_schema(), name, doc_params)
        except SchemaError:
            raise
        except Exception as exc:
            raise SchemaError(f"tool {name!r}: cannot build the JSON Schema of {source!r}: {exc}") from None
    raise RegistryError(
        f"tool {name!r}: schema must be a JSON Schema dict or a pydantic model class, got {type(source).__name__}"
    )


def _doc(obj: Any) -> str | None:
    if obj is None:
        return None
    doc = getattr(obj, "__doc__", None)
    if inspect.isfunction(obj) or inspect.ismethod(obj) or inspect.isbuiltin(obj):
        return doc if isinstance(doc, str) else None
    own = type(obj).__doc__
    return own if isinstance(own, str) else None


#: The default process-wide registry (used when ``registry=None``).
TOOL_REGISTRY = ToolRegistry()
