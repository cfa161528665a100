"""``ToolRegistry``: the tools a dispatcher may call, with their argument schemas and validators.

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

from dispatchguard.runtime.models import CLARIFICATION_NAME, DEFAULT_MAX_BYTES
from dispatchguard.runtime.schema import (
    Param,
    SchemaError,
    build_json_schema,
    build_strict_schema,
    compile_validator,
    params_from_json_schema,
    params_from_model,
    params_from_signature,
    parse_docstring,
)

__all__ = ["MAX_NAME_LENGTH", "TOOL_REGISTRY", "RegistryError", "ToolRegistry", "ToolSpec"]

MAX_NAME_LENGTH = 64
_EXPORT_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_EXPORT_BAD = re.compile(r"[^A-Za-z0-9_-]")
UNKNOWN_ARGS_POLICIES = ("drop", "reject")
F = TypeVar("F", bound=Callable[..., Any])


class RegistryError(ValueError):
    """A tool cannot be registered: bad or duplicate name, unsupported argument types, bad schema."""


@dataclass(frozen=True, eq=False)
class ToolSpec:
    """Per-tool facts for other layers (agent loop, HTTP server, exports).

    ``schema`` is the JSON Schema of the arguments; ``is_async`` is true when the tool has a native
    async entry point (``adispatch_tool`` awaits it); ``parallel_safe`` is the registrant's promise
    that concurrent calls are safe. ``export_name`` is the name used in OpenAI/Anthropic exports
    (``[A-Za-z0-9_-]``); the dispatcher accepts it as well as ``name``.
    """

    name: str
    description: str
    schema: dict
    is_async: bool
    parallel_safe: bool
    tool: Any
    export_name: str
    params: tuple[Param, ...] = field(repr=False)
    strict_schema: dict = field(repr=False)
    call: Callable[..., Any] | None = field(repr=False)
    acall: Callable[..., Any] | None = field(repr=False)
    validate: Callable[..., dict] = field(repr=False)


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


def _is_langchain(tool: Any) -> bool:
    try:
        mro = type(tool).__mro__
    except Exception:  # noqa: BLE001  # pragma: no cover
        return False
    return hasattr(tool, "invoke") and any(
        getattr(c, "__module__", "").startswith(("langchain_core.", "langchain.")) for c in mro
    )


def _only_var_params(fn: Callable[..., Any]) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    return all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values())


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

        ``tool`` is a function (sync or ``async def``), or an object with ``.run(**kwargs)``
        and/or ``.arun(**kwargs)`` (CrewAI style), or a LangChain tool (called with
        ``invoke(args)``/``ainvoke(args)``). The argument schema is ``schema`` (a JSON Schema dict
        or a pydantic model class) when given, else the tool's ``args_schema``, else the signature
        and docstring. Raises :class:`RegistryError` for a bad or duplicate name, an unsupported
        argument type, or a tool that is neither callable nor has ``run``/``arun``.
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
        call: Callable[..., Any] | None = None
        acall: Callable[..., Any] | None = None
        sig_source: Callable[..., Any] | None = None
        doc_source: Any = tool
        is_langchain = _is_langchain(tool)
        if is_langchain:
            call = _invoke_adapter(tool)
            acall = _ainvoke_adapter(tool) if hasattr(tool, "ainvoke") else None
            sig_source = getattr(tool, "_run", None)
        elif hasattr(tool, "run") or hasattr(tool, "arun"):
            run = getattr(tool, "run", None)
            arun = getattr(tool, "arun", None)
            if run is not None and inspect.iscoroutinefunction(run):
                acall = run
            elif callable(run):
                call = run
            if arun is not None and acall is None and inspect.iscoroutinefunction(arun):
                acall = arun
            if call is None and acall is None:
                raise RegistryError(f"tool {name!r}: .run/.arun is not callable")
            sig_source = call or acall
            if sig_source is not None and _only_var_params(sig_source):
                inner = getattr(tool, "_run", None) or getattr(tool, "_arun", None)
                sig_source = inner if callable(inner) else sig_source
        elif callable(tool):
            dunder_call = getattr(type(tool), "__call__", None)  # noqa: B004 - the method itself, to see if it is async
            if inspect.iscoroutinefunction(tool) or inspect.iscoroutinefunction(dunder_call):
                acall = tool
            else:
                call = tool
            sig_source = tool
            doc_source = tool
        else:
            raise RegistryError(
                f"tool {name!r}: expected a function or an object with .run(**kwargs), "
                f"got {type(tool).__name__}"
            )

        summary, doc_params = parse_docstring(_doc(doc_source) or _doc(sig_source))
        if schema is None:
            schema = getattr(tool, "args_schema", None) if not callable(tool) or hasattr(tool, "run") else None
            if schema is None and is_langchain:
                # LangChain builds the input model from _run, leaving out run_manager/callbacks.
                get_input_schema = getattr(tool, "get_input_schema", None)
                schema = get_input_schema() if callable(get_input_schema) else None
        if schema is not None:
            if isinstance(schema, Mapping):
                params = params_from_json_schema(schema, name)
            elif inspect.isclass(schema) and hasattr(schema, "model_json_schema"):
                params = params_from_model(schema, name)
            else:
                raise RegistryError(
                    f"tool {name!r}: schema must be a JSON Schema dict or a pydantic model class, "
                    f"got {type(schema).__name__}"
                )
            for p in params:
                if p.description is None and p.name in doc_params:
                    p.description = doc_params[p.name]
        else:
            assert sig_source is not None
            params = params_from_signature(sig_source, name, doc_params)
        names = [p.name for p in params]
        if len(set(names)) != len(names):  # pragma: no cover - dict keys / signatures are unique
            raise RegistryError(f"tool {name!r}: duplicate argument names")

        if description is None:
            attr = getattr(tool, "description", None)
            description = attr if isinstance(attr, str) and attr.strip() else summary
        description = " ".join(str(description).split())
        return ToolSpec(
            name=name,
            description=description,
            schema=build_json_schema(params),
            is_async=acall is not None,
            parallel_safe=parallel_safe,
            tool=tool,
            export_name=_export_name(name),
            params=tuple(params),
            strict_schema=build_strict_schema(params),
            call=call,
            acall=acall,
            validate=compile_validator(params, name),
        )


def _doc(obj: Any) -> str | None:
    if obj is None:
        return None
    doc = getattr(obj, "__doc__", None)
    if inspect.isfunction(obj) or inspect.ismethod(obj) or inspect.isbuiltin(obj):
        return doc if isinstance(doc, str) else None
    own = type(obj).__doc__
    return own if isinstance(own, str) else None


def _invoke_adapter(tool: Any) -> Callable[..., Any]:
    def call(**kwargs: Any) -> Any:
        return tool.invoke(kwargs)

    return call


def _ainvoke_adapter(tool: Any) -> Callable[..., Any]:
    async def acall(**kwargs: Any) -> Any:
        return await tool.ainvoke(kwargs)

    return acall


#: The default process-wide registry (used when ``registry=None``).
TOOL_REGISTRY = ToolRegistry()
