"""One tool, run in two processes: ``python -m dispatchguard.verify.worker JOB.json FD``.

The job (written by :mod:`.runner`) names the tool and the limits. The worker never imports the
project: it forks the *tool's process* (:func:`tool_side`), which closes ``FD``, seals the network
(:func:`seal_network`), points its standard output and error at a file whose bytes are counted
after each call, imports the project, builds the tool and sends the JSON Schema of its arguments
over a socket. The worker (:func:`drive`) draws arguments from that schema with hypothesis (fixed
seed, configured examples first, a failing call shrunk to the smallest arguments that still
break the contract), sends them one call at a time and gets back each call's raw value (its
type, the text when it is ``str``, or the exception, the timeout, the bytes printed), which it
relays on the inherited pipe ``FD`` with a closing line; the runner judges the contract from
those raw values. Each call is given ``timeout`` seconds (an interval timer in the tool's
process: a call stuck in C code that ignores signals is left to the runner's wall-clock limit).
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import socket
import sys
import threading
import types
import typing
from pathlib import Path
from typing import Any

#: How much of a wrong result a report shows.
SHOWN_CHARS = 200
_LOOPBACK = ("127.", "::1", "localhost")
#: Bound before the project is imported: a tool that replaces ``json.dumps`` does not change the records.
_dumps = json.dumps
_loads = json.loads


class ContractViolation(Exception):
    """A call broke the contract; ``what`` says how, ``arguments`` with which arguments."""

    def __init__(self, what: str, arguments: dict[str, Any]) -> None:
        super().__init__(what)
        self.what = what
        self.arguments = arguments


class CallTimeout(BaseException):
    """Raised in the tool by the interval timer (a BaseException: the tool's ``except Exception``
    must not swallow it)."""


def seal_network(allow_loopback: bool) -> None:
    """Refuse every connection, datagram and name lookup that is not to loopback (when allowed)
    or a Unix socket, in Python: ``socket.socket``'s ``connect``, ``connect_ex``, ``sendto`` and
    ``sendmsg``, the same on ``_socket.socket`` (replaced by a sealed subclass), and the
    resolver functions of both modules. Code in C that opens its own sockets is not covered;
    the namespace sandbox covers it (see docs/verify.md)."""
    import _socket

    def allowed(host: object) -> bool:
        return allow_loopback and str(host).startswith(_LOOPBACK)

    def refuse(host: object) -> None:
        raise OSError(f"network sealed by dispatchguard verify: {host}")

    def check(sock: Any, address: Any) -> None:
        if address is None or sock.family == getattr(socket, "AF_UNIX", None):
            return
        host = address[0] if isinstance(address, tuple) else address
        if not allowed(host):
            refuse(host)

    def sealed(cls: type) -> dict[str, Any]:
        connect, connect_ex, sendto, sendmsg = cls.connect, cls.connect_ex, cls.sendto, getattr(cls, "sendmsg", None)

        def sealed_connect(self: Any, address: Any) -> None:
            check(self, address)
            return connect(self, address)

        def sealed_connect_ex(self: Any, address: Any) -> int:
            check(self, address)
            return connect_ex(self, address)

        def sealed_sendto(self: Any, data: Any, *args: Any) -> int:
            check(self, args[-1])
            return sendto(self, data, *args)

        def sealed_sendmsg(self: Any, buffers: Any, *args: Any) -> int:
            check(self, args[2] if len(args) > 2 else None)  # (ancdata, flags, address)
            return sendmsg(self, buffers, *args)  # type: ignore[misc]

        methods = {"connect": sealed_connect, "connect_ex": sealed_connect_ex, "sendto": sealed_sendto}
        if sendmsg is not None:
            methods["sendmsg"] = sealed_sendmsg
        return methods

    def resolver(original: Any) -> Any:
        def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
            if host is not None and not allowed(host if not isinstance(host, tuple) else host[0]):
                refuse(host)
            return original(host, *args, **kwargs)

        return resolve

    for name, method in sealed(socket.socket).items():
        setattr(socket.socket, name, method)
    _socket.socket = _socket.SocketType = type("socket", (_socket.socket,), sealed(_socket.socket))  # type: ignore[misc]
    for module in (socket, _socket):
        for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr", "getnameinfo"):
            if hasattr(module, name):
                setattr(module, name, resolver(getattr(module, name)))


class OutputCounter:
    """File descriptors 1 and 2 point at a file of the worker's folder, emptied after every call:
    its size is exactly what the call printed (a pipe's reader could lag behind the writer)."""

    def __init__(self, path: Path) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        self.count = 0

    def taken(self) -> int:
        """Bytes printed since the last call (then the file is emptied)."""
        sys.stdout.flush()
        sys.stderr.flush()
        size = os.fstat(1).st_size
        os.ftruncate(1, 0)
        self.count += size
        return size


def build(job: dict[str, Any]) -> Any:
    """The tool object: what the configured factory (``module:function``) returns, the module's
    class built with no arguments, the object bound there, or a registry's entry."""
    sys.path[:0] = [job["import_root"]]
    factory = job.get("factory")
    if factory:
        module_name, _, function = factory.partition(":")
        return _attribute(importlib.import_module(module_name), function)()
    module = importlib.import_module(job["module"])
    value = _attribute(module, job["name"])  # ``Class.member`` for a tool a class body binds
    if job["kind"] == "entry":
        return value[job["key"]]
    return value() if job["kind"] == "class" else value


def _attribute(value: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        value = getattr(value, part)
    return value


def call_tool(tool: Any, arguments: dict[str, Any]) -> Any:
    """How the frameworks call a tool: LangChain's ``invoke(dict)``, CrewAI's ``run(**kwargs)``."""
    if hasattr(tool, "invoke"):
        return tool.invoke(arguments)
    if hasattr(tool, "run"):
        return tool.run(**arguments)
    return tool(**arguments)


def argument_schema(tool: Any) -> type | None:
    """The pydantic model of a tool's arguments: its ``args_schema``, LangChain's input schema
    (inferred from ``_run``), else one made from the annotated signature of ``_run`` or the tool."""
    schema = getattr(tool, "args_schema", None)
    if not _is_model(schema) and hasattr(tool, "get_input_schema"):
        schema = tool.get_input_schema()
    if _is_model(schema):
        return schema  # type: ignore[return-value]
    import inspect

    import pydantic

    target = getattr(tool, "_run", tool)
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return None
    fields = {
        p.name: (Any if p.annotation is p.empty else p.annotation, ... if p.default is p.empty else p.default)
        for p in parameters
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in ("self", "run_manager")
    }
    return pydantic.create_model("Arguments", **fields)  # type: ignore[call-overload]


def _is_model(value: Any) -> bool:
    return isinstance(value, type) and hasattr(value, "model_fields")


def _shown(value: Any) -> str:
    if isinstance(value, types.GeneratorType):
        return "<generator>"
    try:
        text = repr(value)
    except Exception as exc:  # a hostile __repr__ is the tool's problem, not the report's
        text = f"<unprintable: {type(exc).__name__}>"
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


class Records:
    """The pipe to the runner: one JSON line per record, written whole (the runner reads as it comes)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_inheritable(fd, False)  # not handed to the programs a tool starts

    def send(self, record: dict[str, Any]) -> None:
        """Write ``record`` as one line."""
        data = (_dumps(record, default=repr) + "\n").encode("utf-8", "surrogatepass")
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]


class ToolGone(BaseException):
    """The tool's process ended (or broke the conversation) in the middle of the run (a
    BaseException: hypothesis must not shrink it as a failure of the tool)."""


class Channel:
    """JSON lines over a socket between the worker and the tool's process."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.lines = sock.makefile("rb")

    def send(self, message: dict[str, Any]) -> None:
        """Write ``message`` as one line; ToolGone when the other side is gone."""
        try:
            self.sock.sendall((_dumps(message, default=repr) + "\n").encode("utf-8", "surrogatepass"))
        except OSError as exc:
            raise ToolGone from exc

    def receive(self) -> dict[str, Any]:
        """The next message; ToolGone at the end or on a line that is not a JSON object."""
        try:
            line = self.lines.readline()
            message = _loads(line) if line else None
        except (OSError, ValueError) as exc:
            raise ToolGone from exc
        if not isinstance(message, dict):
            raise ToolGone
        return message


# ---- the tool's process: it imports the project, answers one call per request -------------------


def tool_side(job: dict[str, Any], channel: Channel, output: OutputCounter) -> None:
    """Build the tool and send its argument schema (or why it cannot be built); then call it
    once per request with the arguments the worker sends (after the tool's own schema accepted
    them), answering the raw value of each call; on ``stop``, the threads it left and the bytes
    it printed."""
    try:
        tool = build(job)
    except BaseException as exc:  # whatever the project raises, the run goes on
        channel.send({"not_built": f"{type(exc).__name__}: {exc}"})
        return
    try:
        model = argument_schema(tool)
        schema = None if model is None else json_schema_of(model)
    except ImportError:  # a project without pydantic: the signature's annotations, read here
        model, schema = None, signature_schema(tool)
    if schema is None:
        channel.send({"not_built": "no argument schema (args_schema or an annotated signature)"})
        return
    channel.send({"schema": schema})
    threads_before = threading.active_count()
    while True:
        request = channel.receive()
        if "dispatch" in request:  # fix --verify: the same arguments through the project's dispatcher
            channel.send(dispatch_call(job, request["dispatch"], model, output))
            continue
        if "arguments" not in request:
            break
        arguments = _accepted(model, request["arguments"])
        channel.send({"rejected": True} if arguments is None else _call_record(tool, arguments, job, output))
    output.taken()
    channel.send({"done": True, "threads_left": max(0, threading.active_count() - threads_before),
                  "output_bytes": output.count})  # fmt: skip


def json_schema_of(model: Any) -> dict[str, Any]:
    """The JSON Schema of a tool's arguments, field by field (a field whose type has none is any
    JSON value): the worker generates arguments from it without importing the project."""
    properties: dict[str, Any] = {}
    required = []
    for name, field in model.model_fields.items():
        properties[name] = _field_schema(field.annotation)
        if field.is_required():
            required.append(name)
    return {"type": "object", "properties": properties, "required": required}


def _field_schema(annotation: Any) -> dict[str, Any]:
    if isinstance(annotation, typing.ForwardRef):  # CrewAI's schemas keep string annotations
        try:
            # the tool's process runs the project's code anyway; the names are typing's
            annotation = eval(annotation.__forward_arg__, vars(typing))
        except Exception:
            return {}
    if annotation in (Any, object, None):
        return {}
    try:
        import pydantic

        schema = pydantic.TypeAdapter(annotation).json_schema()
    except Exception:  # a type without a JSON Schema: any JSON value, the tool's schema decides
        return {}
    return schema if isinstance(schema, dict) else {}


def signature_schema(tool: Any) -> dict[str, Any] | None:
    """The JSON Schema of a tool's arguments from the signature of its ``_run`` (or of the tool),
    without pydantic: ``str``, ``int``, ``float``, ``bool``, ``None``, lists, dicts, unions,
    ``Literal``; any JSON value for the rest."""
    import inspect

    target = getattr(tool, "_run", tool)
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return None
    properties: dict[str, Any] = {}
    required = []
    for p in parameters:
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) or p.name in ("self", "run_manager"):
            continue
        properties[p.name] = _annotation_schema(p.annotation, getattr(target, "__globals__", {}))
        if p.default is p.empty:
            required.append(p.name)
    return {"type": "object", "properties": properties, "required": required}


_SIMPLE_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null",
                 list: "array", tuple: "array", set: "array", dict: "object"}  # fmt: skip


def _annotation_schema(annotation: Any, names: dict[str, Any]) -> dict[str, Any]:
    if isinstance(annotation, str):  # ``from __future__ import annotations``
        try:
            annotation = eval(annotation, {**vars(typing), **names})  # the tool's process runs the project anyway
        except Exception:
            return {}
    if annotation in _SIMPLE_TYPES:
        return {"type": _SIMPLE_TYPES[annotation]}
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (list, tuple, set, frozenset):
        return {"type": "array", "items": _annotation_schema(arguments[0], names) if arguments else {}}
    if origin is dict:
        return {"type": "object"}
    if origin is typing.Union or (origin is not None and origin is getattr(types, "UnionType", None)):
        return {"anyOf": [_annotation_schema(a, names) for a in arguments]}
    if origin is typing.Literal:
        return {"enum": list(arguments)}
    return {}


def _accepted(model: Any, values: Any) -> dict[str, Any] | None:
    """The arguments as the tool's schema reads them (JSON values), None when it refuses them;
    as they are without a model (no pydantic in the project)."""
    if model is None:
        return values if isinstance(values, dict) else None
    from pydantic import ValidationError

    try:
        return model.model_validate(values).model_dump(mode="json", exclude_unset=True)
    except ValidationError:
        return None
    except Exception:  # a schema that cannot validate (not fully defined): the tool decides
        return values if isinstance(values, dict) else None


def _call_record(tool: Any, arguments: dict[str, Any], job: dict[str, Any], output: OutputCounter) -> dict[str, Any]:
    """Call the tool once, within ``timeout``; the raw value: its type and text (``str``), or its
    repr, or the exception, or the timeout; the bytes printed."""
    output.taken()
    record: dict[str, Any] = {"call": True, "arguments": arguments}
    signal.setitimer(signal.ITIMER_REAL, job["timeout"])
    try:
        result = call_tool(tool, arguments)
    except CallTimeout:
        record["timeout"] = True
        return record
    except Exception as exc:
        record["raised"] = f"{type(exc).__name__}: {_shown(str(exc))}"
        return record
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    record.update(type="str" if isinstance(result, str) else type(result).__name__, printed=output.taken())
    if isinstance(result, str):
        record["text"] = str.__str__(result)
    else:
        record["shown"] = _shown(result)
    return record


def _on_alarm(signum: int, frame: Any) -> None:
    raise CallTimeout


def _tool_process(job: dict[str, Any], job_path: Path, sock: socket.socket) -> None:
    """The forked process that imports the project: sealed, its output counted; never returns."""
    channel = Channel(sock)
    try:
        output = OutputCounter(job_path.with_name("output"))
        seal_network(job.get("loopback", False))
        signal.signal(signal.SIGALRM, _on_alarm)
        tool_side(job, channel, output)
    except ToolGone:
        pass
    except BaseException as exc:  # whatever escaped the tool (a SystemExit, say)
        try:
            channel.send({"error": f"{type(exc).__name__}: {_shown(str(exc))}"})
        except BaseException:
            pass
    os._exit(0)  # threads the tool left are not joined


# ---- the tool's process, issue 35 (``fix --verify``): the project's dispatcher called with the tool's name --
#
# ``job["dispatch"]`` names the project's dispatcher and the name it serves the tool under:
# ``module``, ``function`` (a function, or the module-level instance whose ``method`` is called),
# ``action`` (``[module, class, name field, args field]`` for ``f(Action(name=..., args=...))``),
# ``name``, ``import_root``, ``repeat`` (calls per arguments) and ``arguments`` (the argument dicts
# to send; None: ``cases`` drawn from the tool's schema, the same for the same schema). After its
# calls of the tool, the worker sends each arguments dict as ``{"dispatch": arguments}``; the tool's
# process answers ``{"arguments": ..., "answers": [raw answer, ...]}`` (or ``{"rejected": True}``),
# which the worker relays as a ``{"dispatched": True, ...}`` record.


def dispatch_call(job: dict[str, Any], values: Any, model: Any, output: OutputCounter) -> dict[str, Any]:
    """In the tool's process: the project's dispatcher called ``repeat`` times with the tool's name
    and ``values`` (as the tool's schema reads them), each answer's raw value."""
    arguments = _accepted(model, values)
    if arguments is None:
        return {"rejected": True}
    spec = job["dispatch"]
    answers = []
    for _ in range(int(spec.get("repeat", 1))):
        output.taken()
        answer: dict[str, Any] = {}
        signal.setitimer(signal.ITIMER_REAL, job["timeout"])
        try:
            result = _dispatch(spec, arguments)
        except CallTimeout:
            answer["timeout"] = True
        except Exception as exc:
            answer["raised"] = f"{type(exc).__name__}: {_shown(str(exc))}"
        else:
            answer["type"] = "str" if isinstance(result, str) else type(result).__name__
            answer["text" if isinstance(result, str) else "shown"] = (
                str.__str__(result) if isinstance(result, str) else _shown(result)
            )
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        answers.append(answer)
    output.taken()
    return {"arguments": arguments, "answers": answers}


def _dispatch(spec: dict[str, Any], arguments: dict[str, Any]) -> Any:
    """Call the dispatcher as the project's code calls it (an async one to its end)."""
    import asyncio
    import inspect

    if spec.get("import_root") and spec["import_root"] not in sys.path:
        sys.path.append(spec["import_root"])
    dispatcher = _attribute(importlib.import_module(spec["module"]), spec["function"])
    if spec.get("method"):
        dispatcher = getattr(dispatcher, spec["method"])
    action = spec.get("action")
    if action:
        made = _attribute(importlib.import_module(action[0]), action[1])
        result = dispatcher(made(**{action[2]: spec["name"], action[3]: arguments}))
    else:
        result = dispatcher(spec["name"], arguments)
    return asyncio.run(result) if inspect.iscoroutine(result) else result


# ---- the worker: it never imports the project; it generates the arguments and judges ---------


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
    from hypothesis import strategies as st

    root = schema if root is None else root
    if not isinstance(schema, dict) or depth > 10:
        return _json_values()
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
    return _typed(kind, schema, root, depth)


def _typed(kind: Any, schema: dict[str, Any], root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    def bound(name: str) -> Any:
        value = schema.get(name)
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    if kind == "string":
        made = _FORMATS.get(schema.get("format", ""))
        if made is not None:
            return made()
        low, high = bound("minLength") or 0, bound("maxLength")
        return st.text(min_size=int(low), max_size=None if high is None else max(int(high), int(low)))
    if kind == "integer":
        low, high = bound("minimum"), bound("maximum")
        low = low if bound("exclusiveMinimum") is None else bound("exclusiveMinimum") + 1
        high = high if bound("exclusiveMaximum") is None else bound("exclusiveMaximum") - 1
        low = None if low is None else int(-(-low // 1))
        high = None if high is None else int(high // 1)
        return st.integers(min_value=low, max_value=high if low is None or high is None or high >= low else low)
    if kind == "number":
        low, high = bound("minimum"), bound("maximum")
        if low is not None and high is not None and high < low:
            high = low
        return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = schema.get("prefixItems")
        if isinstance(items, list) and items:
            return st.tuples(*(strategy_of(s, root, depth + 1) for s in items)).map(list)
        low = int(bound("minItems") or 0)
        high = bound("maxItems")
        return st.lists(strategy_of(schema.get("items", {}), root, depth + 1), min_size=low,
                        max_size=max(low, int(high) if high is not None else 5))  # fmt: skip
    if kind == "object":
        properties = schema.get("properties")
        if isinstance(properties, dict) and properties:
            required = set(schema.get("required") or ())
            return st.fixed_dictionaries(
                {n: strategy_of(s, root, depth + 1) for n, s in properties.items() if n in required},
                optional={n: strategy_of(s, root, depth + 1) for n, s in properties.items() if n not in required},
            )
        values = schema.get("additionalProperties")
        inner = strategy_of(values, root, depth + 1) if isinstance(values, dict) else _json_values()
        return st.dictionaries(st.text(), inner, max_size=3)
    return _json_values()


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


def record_problem(record: dict[str, Any], job: dict[str, Any]) -> str | None:
    """How one call's raw value breaks the contract, judged in the worker (for hypothesis to
    shrink; the runner judges the same records again with its own ``json.loads``)."""
    return contract_problem(record, job["timeout"], job["output_cap"], _loads)


def contract_problem(
    record: dict[str, Any], timeout: float, output_cap: int, loads: Any, show: Any = None
) -> str | None:
    """How a call's record breaks the contract: no answer in time, an exception, a value that is
    not ``str``, text ``loads`` refuses (followed by ``show(text)`` when given), too much printed.
    The one judgment of both sides: the worker's (to shrink) and the runner's (the verdict)."""
    if record.get("timeout"):
        return f"did not answer within {timeout:g} s"
    if record.get("raised") is not None:
        return f"raised {record['raised']}"
    if record.get("type") != "str" or not isinstance(record.get("text"), str):
        return f"returned {record.get('type')}, not str: {record.get('shown', '')}"
    try:
        loads(record["text"])
    except ValueError as exc:
        shown = f": {show(record['text'])}" if show is not None else ""
        return f"returned text that is not JSON ({getattr(exc, 'msg', exc)}){shown}"
    printed = record.get("printed")
    if isinstance(printed, int) and not isinstance(printed, bool) and printed > output_cap:
        return f"printed {printed} bytes (cap {output_cap})"
    return None


_RECORD_KEYS = ("arguments", "type", "text", "shown", "raised", "timeout", "printed")


def drive(job: dict[str, Any], channel: Channel, records: Records) -> dict[str, Any]:
    """Run the tool's side through ``channel``: arguments from its schema (hypothesis, fixed
    seed, the configured examples first), each call's record relayed to ``records`` and judged;
    the closing record (``status``: ``verified``, ``violation``, ``not_built`` or ``error``;
    ToolGone when the tool's process ended)."""
    first = channel.receive()
    if "not_built" in first:
        return {"status": "not_built", "reason": str(first["not_built"])}
    if "error" in first or not isinstance(first.get("schema"), dict):
        return {"status": "error", "reason": str(first.get("error", "no argument schema"))}
    from hypothesis import reject

    calls = [0]
    hung = f"did not answer within {job['timeout']:g} s"
    timed_out = [False]

    def one_call(arguments: dict[str, Any]) -> None:
        problem = hung if timed_out[0] else None  # a tool that hung is not called again while shrinking
        if problem is None:
            channel.send({"arguments": arguments})
            record = channel.receive()
            if "error" in record:
                raise ToolGone(record["error"])
            if record.get("rejected"):
                reject()
            calls[0] += 1
            record = {key: record[key] for key in _RECORD_KEYS if key in record}  # what a call's record holds
            record["call"] = True
            records.send(record)
            timed_out[0] = bool(record.get("timeout"))
            problem = record_problem(record, job)
            arguments = record.get("arguments", arguments)
        if problem is not None:  # one place: hypothesis tells failures apart by where they are raised
            raise ContractViolation(problem, arguments)

    try:
        violation = _explore(arguments_of(first["schema"]), one_call, job)
    except ToolGone as gone:
        if gone.args:
            return {"status": "error", "reason": str(gone.args[0]), "calls": calls[0]}
        raise
    if job.get("dispatch"):
        through_dispatcher(job, first["schema"], channel, records)
    channel.send({"stop": True})
    done = channel.receive()
    if "error" in done:
        return {"status": "error", "reason": str(done["error"]), "calls": calls[0]}
    answer: dict[str, Any] = {"status": "verified" if violation is None else "violation", "calls": calls[0]}
    for key in ("threads_left", "output_bytes"):
        if isinstance(done.get(key), int):
            answer[key] = done[key]
    return answer


def _explore(strategy: Any, one_call: Any, job: dict[str, Any]) -> ContractViolation | None:
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


# ---- the worker's side, issue 35 (``fix --verify``): the same arguments through the project's dispatcher
# (see the tool's side above, after ``_tool_process``)


def through_dispatcher(job: dict[str, Any], schema: dict[str, Any], channel: Channel, records: Records) -> None:
    """Send the dispatch job's arguments (or ``cases`` drawn from ``schema``, failing none) through
    the tool's process to the project's dispatcher, relaying each answer as a record."""
    arguments = job["dispatch"].get("arguments")
    if arguments is None:
        drawn: list[Any] = []

        def draw(values: Any) -> None:
            drawn.append(values)

        _explore(arguments_of(schema), draw, {**job, "examples": []})
        arguments = list({_dumps(a, sort_keys=True, default=repr): a for a in drawn}.values())
    for sent in arguments:
        channel.send({"dispatch": sent})
        reply = channel.receive()
        if "error" in reply:
            raise ToolGone(reply["error"])
        if not reply.get("rejected"):
            records.send({"dispatched": True, "arguments": reply.get("arguments"), "answers": reply.get("answers")})


def _undumpable() -> None:
    """Make this process's memory and descriptors out of reach of the tool's process (no ptrace,
    no /proc/<pid>/fd) where it holds no capability over it (Linux)."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
        except (OSError, AttributeError):
            pass


def _start_tool_process(python: str, job_path: Path, sock: socket.socket) -> int:
    """Start the tool's process under ``python`` (the project's interpreter), with nothing of this
    environment on its path but this package (a link to it in the worker's folder): it needs
    only the standard library and the project."""
    import subprocess

    folder = job_path.parent / "dispatchguard-path"
    folder.mkdir(exist_ok=True)
    link = folder / "dispatchguard"
    if not link.exists():
        link.symlink_to(Path(__file__).resolve().parents[1], target_is_directory=True)
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONPATH"] = str(folder)
    fd = sock.fileno()
    command = [python, "-m", "dispatchguard.verify.worker", "--tool", str(job_path), str(fd)]
    return subprocess.Popen(command, pass_fds=(fd,), env=env, stdin=subprocess.DEVNULL).pid


def main(argv: list[str] | None = None) -> int:
    """Run the job file ``argv[0]``: fork the tool's process (which alone imports the project),
    drive its calls, relay every call's record and then the closing record on the descriptor
    ``argv[1]``, which the tool's process never holds. Return 0."""
    args = sys.argv[1:] if argv is None else argv
    if args[0] == "--tool":  # the tool's process under the project's interpreter (``--python``)
        tool_path = Path(args[1])
        _tool_process(_loads(tool_path.read_text(encoding="utf-8")), tool_path, socket.socket(fileno=int(args[2])))
    job_path = Path(args[0])
    job = _loads(job_path.read_text(encoding="utf-8"))
    records = Records(int(args[1]))
    ours, theirs = socket.socketpair()
    if job.get("python"):
        pid = _start_tool_process(job["python"], job_path, theirs)
    else:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the tool's process, measured through its records
            ours.close()
            os.close(records.fd)
            _tool_process(job, job_path, theirs)
    theirs.close()
    _undumpable()
    try:
        answer = drive(job, Channel(ours), records)
    except Exception as exc:  # hypothesis or the worker failed: the tool's process is ended below
        answer = {"status": "error", "reason": f"{type(exc).__name__}: {_shown(str(exc))}"}
        ours.close()
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except ToolGone:
        ours.close()
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        how = f"killed by signal {-code}" if code < 0 else f"exited with code {code}"
        answer = {"status": "crashed", "reason": f"the tool's process {how} without its verdict"}
    else:
        ours.close()
        os.waitpid(pid, 0)
    used = os.times()  # the runner cannot read a sandboxed worker's use from wait4
    answer["cpu_seconds"] = used.user + used.system + used.children_user + used.children_system
    answer["end"] = True
    records.send(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
