"""The project's side of ``dispatchguard verify``, standard library only: the fork server
(``python -m dispatchguard.verify.worker --serve FD SPEC.json``) runs under the project's
interpreter, imports the project's frameworks once (:func:`serve`) and forks a *keeper* per tool
(:func:`keep`), which makes the tool's own namespaces (or, under the seal, becomes the subreaper
of what the tool starts) and forks the *tool's process*: its standard output and error go to a
file whose bytes are counted after each call, it imports the project, builds the tool and sends
the JSON Schema of its arguments over its socket (:func:`tool_side`), then answers each call
``verify`` sends with the call's raw value (its type, the text when it is ``str``, or the
exception, the timeout, the bytes printed). ``verify`` (:mod:`.driver`, :mod:`.runner`) draws
the arguments and judges those raw values with its own ``json.loads``. Each call is given
``timeout`` seconds (an interval timer in the tool's process; a call stuck in C code that
ignores signals is killed when ``verify``'s wait for its answer runs out).
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


class ToolGone(BaseException):
    """The tool's process ended (or broke the conversation) in the middle of the run (a
    BaseException: hypothesis must not shrink it as a failure of the tool)."""


class ToolHung(ToolGone):
    """The tool's process gave no answer within ``seconds``."""

    seconds: float | None = None


class Channel:
    """JSON lines over a socket between ``verify`` and the tool's process; on ``verify``'s side,
    ``first`` seconds for the first answer (the project imported, the tool built) and ``each``
    for every other, ToolHung beyond them."""

    def __init__(self, sock: socket.socket, first: float | None = None, each: float | None = None) -> None:
        self.sock = sock
        self.lines = sock.makefile("rb")
        self.limits = [first, each]
        self.first_answer: float | None = None  #: when the first answer came (time.monotonic)

    def send(self, message: dict[str, Any]) -> None:
        """Write ``message`` as one line; ToolGone when the other side is gone."""
        try:
            self.sock.sendall((_dumps(message, default=repr) + "\n").encode("utf-8", "surrogatepass"))
        except OSError as exc:
            raise ToolGone from exc

    def receive(self) -> dict[str, Any]:
        """The next message; ToolGone at the end or on a line that is not a JSON object."""
        limit = self.limits[0]
        self.limits[0] = self.limits[1]
        try:
            self.sock.settimeout(limit)
            line = self.lines.readline()
            message = _loads(line) if line else None
        except TimeoutError as exc:
            hung = ToolHung()
            hung.seconds = limit
            raise hung from exc
        except (OSError, ValueError) as exc:
            raise ToolGone from exc
        if not isinstance(message, dict):
            raise ToolGone
        if self.first_answer is None:
            import time

            self.first_answer = time.monotonic()
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


def _tool_process(job: dict[str, Any], folder: Path, sock: socket.socket) -> None:
    """The process that imports the project (the network sealed by the server it was forked
    from), its output counted; never returns."""
    channel = Channel(sock)
    try:
        output = OutputCounter(folder / "output")
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
# calls of the tool, ``verify`` sends each arguments dict as ``{"dispatch": arguments}``; the tool's
# process answers ``{"arguments": ..., "answers": [raw answer, ...]}`` (or ``{"rejected": True}``),
# which ``verify`` keeps as a ``{"dispatched": True, ...}`` record (:func:`.driver.through_dispatcher`).


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


# ---- the judgment both sides share -----------------------------------------------------------


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


# ---- the fork server: one per project interpreter, a keeper and a tool's process per tool -------

#: unshare(2) flags of a tool's own namespaces (inside the server's bubblewrap sandbox).
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER = 0x20000, 0x8000000, 0x10000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
#: mount(2) flags, and the statvfs flags a remount must keep (a mount of the sandbox is locked).
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC = 1, 32, 4096, 16384
#: statvfs -> mount flag: nosuid, nodev, noexec, noatime, nodiratime, relatime
_KEPT_MOUNT_FLAGS = {2: 2, 4: 4, 8: 8, 1024: 1024, 2048: 2048, 4096: 1 << 21}


#: What every tool's process uses (pydantic: the argument schema; a project without it goes on).
SERVER_PRELOAD = ("inspect", "pydantic")


def serve(control: socket.socket, spec: dict[str, Any]) -> None:
    """The fork server: seal the network, import ``spec["preload"]`` (what the tools' modules
    import, then the project's own modules: ``spec["paths"]`` on ``sys.path``) once, each within
    ``spec["seconds"]``, answer ``{"ready": ...}``; then, per request (a job file and three
    descriptors: the tool's socket, the status pipe's write end, the stop pipe's read end), fork
    a keeper (:func:`keep`). Ends when ``control`` closes."""
    if spec.get("namespaces"):
        _own_user_namespace()  # now, single-threaded: a preloaded module may start threads
    _undumpable()  # the server, its keepers and the tools' processes (forks keep it): see its docstring
    seal_network(spec.get("loopback", False))
    output = os.open(os.path.join(spec["folder"], "server-output"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(output)
    sys.path[:0] = spec.get("paths", [])
    failed = _preload((*SERVER_PRELOAD, *spec.get("preload", ())), spec.get("seconds", 30.0))
    _warm_up()
    _collect_garbage_once()
    control.sendall(_dumps({"ready": True, "failed": failed, "threads": threading.active_count()}).encode())
    while True:
        _reap_quietly()
        try:
            message, fds, _, _ = socket.recv_fds(control, 1 << 16, 3)
        except OSError:
            break
        if not message:
            break
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            continue
        if os.fork() == 0:  # pragma: no cover - the keeper, measured through its status
            keep(_loads(message), fds, control.fileno())
        for fd in fds:
            os.close(fd)


def _preload(names: Any, seconds: float) -> dict[str, str]:
    """Import each of ``names`` within ``seconds`` (an interval timer); why each that failed did
    (a preload is an optimisation: the tool's process imports it again, and reports it)."""
    failed = {}
    signal.signal(signal.SIGALRM, _on_alarm)
    for name in names:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            importlib.import_module(name)
        except BaseException as exc:
            failed[name] = f"{type(exc).__name__}: {_shown(str(exc))}"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    return failed


def _warm_up() -> None:
    """Build one argument model and its schema (pydantic builds its machinery on first use: about
    0.15 s that every fork would pay again)."""
    try:
        import pydantic

        json_schema_of(pydantic.create_model("Arguments", q=(str, ...), n=(int, 0)))
    except Exception:  # no pydantic in the project: its tools' schemas come from their signatures
        pass


def _collect_garbage_once() -> None:
    """Freeze what the preload made, so that the forks share its pages (no collection touches them)."""
    import gc

    gc.collect()
    if hasattr(gc, "freeze"):
        gc.freeze()


def _reap_quietly() -> None:
    """Collect the keepers (and orphans) that ended."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def keep(request: dict[str, Any], fds: list[int], control: int) -> None:
    """The keeper of one tool (a fork of the server): it makes the tool's namespaces (a user,
    PID, mount and IPC namespace of its own, and a network one unless loopback is allowed; the
    server's folder read-only but for the tool's) or, under the seal, becomes the subreaper of
    what the tool starts; forks the tool's process, kills it when the stop pipe closes, waits for
    it and everything it started, and writes its exit status and CPU time on the status pipe.
    Never returns."""
    conversation, status, stop = fds
    code = 0
    try:
        os.close(control)
        job = _loads(Path(request["job"]).read_text(encoding="utf-8"))
        folder = Path(job["home"])
        _close_all_but(conversation, status, stop)
        if job.get("namespaces"):
            _own_namespaces(job)
        else:
            _become_subreaper()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the tool's process
            os.close(status)
            os.close(stop)
            _enter(job, folder)
            _tool_process(job, folder, socket.socket(fileno=conversation))
        os.close(conversation)
        _kill_on_stop(stop, pid)
        _, wait_status, usage = os.wait4(pid, 0)
        _end_everything_below()
        answer = {"exit": os.waitstatus_to_exitcode(wait_status), "cpu_seconds": usage.ru_utime + usage.ru_stime}
    except BaseException as exc:
        answer, code = {"error": f"{type(exc).__name__}: {_shown(str(exc))}"}, 1
    try:
        os.write(status, (_dumps(answer) + "\n").encode())
    finally:
        os._exit(code)


def _close_all_but(*kept: int) -> None:
    top = os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024
    low = 3
    for fd in sorted(kept):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, top)


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _checked(result: int, what: str) -> None:
    if result != 0:
        import ctypes

        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _own_user_namespace() -> None:
    """Put the server in a user namespace of its own, the same user and group ids inside (where
    they can be mapped): its keepers hold the capabilities that make a tool's namespaces there.
    Done before anything is imported: unshare(CLONE_NEWUSER) refuses a process with threads."""
    uid, gid = os.getuid(), os.getgid()
    _checked(_libc().unshare(CLONE_NEWUSER), "unshare")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        try:  # root's own id cannot be mapped without CAP_SETFCAP (then it is nobody inside)
            fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
            try:
                os.write(fd, text.encode())
            finally:
                os.close(fd)
        except PermissionError:
            pass


def _own_namespaces(job: dict[str, Any]) -> None:
    """New PID, mount and IPC namespaces (and network, unless loopback is allowed) for the tool's
    process about to be forked, owned by the server's user namespace; in the new mount namespace
    the server's folder is read-only but for the tool's own folder."""
    libc = _libc()
    flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | (0 if job.get("loopback") else CLONE_NEWNET)
    _checked(libc.unshare(flags), "unshare")
    for path, read_only in ((job["folder"], True), (job["home"], False)):
        kept = sum(ms for st, ms in _KEPT_MOUNT_FLAGS.items() if os.statvfs(path).f_flag & st)
        target = path.encode()
        _checked(libc.mount(target, target, None, MS_BIND | MS_REC, None), f"bind {path}")
        flags = MS_BIND | MS_REMOUNT | kept | (MS_RDONLY if read_only else 0)
        _checked(libc.mount(None, target, None, flags, None), f"remount {path}")


def _enter(job: dict[str, Any], folder: Path) -> None:
    """The tool's process, before the project: no capability left (namespaces), in a session of
    its own (seal), HOME and TMPDIR its own folder, which is its working directory."""
    if job.get("namespaces"):
        _drop_capabilities()
    else:
        os.setsid()
        _without_root_powers()
    os.environ.update(HOME=str(folder), TMPDIR=str(folder))
    import tempfile

    tempfile.tempdir = None
    os.chdir(folder)


def _drop_capabilities() -> None:
    """Clear every capability the tool's process holds in its user namespace (capset(2)): it cannot
    undo its mounts."""
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    _checked(_libc().capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)()), "capset")


def _without_root_powers() -> None:
    """A tool run as root under the seal keeps no capability, not even after an exec (securebits
    ``NOROOT``, locked; the bounding and ambient sets emptied): it cannot read the memory or the
    ``/proc/<pid>/environ`` of a process that made itself non-dumpable, as ``verify`` does."""
    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        return
    libc = _libc()
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as last:
            top = int(last.read())
    except (OSError, ValueError):
        top = 40
    for capability in range(top + 1):
        libc.prctl(24, capability, 0, 0, 0)  # PR_CAPBSET_DROP
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
    _checked(libc.prctl(28, 0x2F, 0, 0, 0), "securebits")  # NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED, locked
    _drop_capabilities()


def _undumpable() -> None:
    """Make this process (and every fork of it) non-dumpable (Linux): its memory and its
    ``/proc/<pid>`` files (``mem``, ``environ``) are out of reach of a process of the same user
    without ``CAP_SYS_PTRACE`` over it, so a tool can neither rewrite another tool's answers nor
    take over a keeper (which holds capabilities in the server's user namespace)."""
    if sys.platform.startswith("linux"):
        _libc().prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE


def _become_subreaper() -> None:
    if sys.platform.startswith("linux"):
        _libc().prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: what the tool starts is reparented here


def _end_everything_below() -> None:
    """Kill and collect every process left below this one (under namespaces the kernel ended them
    with the tool's process, the first of its PID namespace)."""
    from dispatchguard.verify.reaper import kill_all

    kill_all(None)


def _kill_on_stop(stop: int, pid: int) -> None:
    """Return when the tool's process ``pid`` ends; kill it first if ``verify`` closes the stop
    pipe before (the run is over, or the tool hung). No thread: after unshare(CLONE_NEWPID) this
    process can start none."""
    import select

    try:
        ended = os.pidfd_open(pid)
    except (AttributeError, OSError):  # no pidfd (before Linux 5.3, macOS): a thread waits on the pipe
        threading.Thread(target=_kill_when_closed, args=(stop, pid), daemon=True).start()
        return
    try:
        if stop in select.select([stop, ended], [], [])[0]:
            _kill_when_closed(stop, pid)
    finally:
        os.close(ended)


def _kill_when_closed(stop: int, pid: int) -> None:
    try:
        os.read(stop, 1)
    except OSError:
        pass
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def main(argv: list[str] | None = None) -> int:
    """``python -m dispatchguard.verify.worker --serve FD SPEC.json``: the fork server on the
    socket ``FD`` (see :func:`serve`); it exits when the socket closes. 2 on a wrong command line."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] != "--serve":
        sys.stderr.write("usage: python -m dispatchguard.verify.worker --serve FD SPEC.json\n")
        return 2
    serve(socket.socket(fileno=int(args[1])), _loads(Path(args[2]).read_text(encoding="utf-8")))
    os._exit(0)  # the threads a preloaded framework started are not joined


if __name__ == "__main__":
    sys.exit(main())
