"""One tool, run in a process of its own: ``python -m dispatchguard.verify.worker JOB.json FD``.

The job (written by :mod:`.runner`) names the tool and the limits. The worker sends one JSON
line per call on the inherited pipe ``FD`` (the arguments, the raw value: its type, the text when
it is ``str``, or the exception, the timeout, the bytes printed) and a closing line with how the
run ended; the runner judges the contract from those raw values, not from the worker's opinion
(a tool can replace this process's ``json.loads``, it cannot replace the runner's). Before
importing the project it seals the network (:func:`seal_network`) and points its standard
output and error at a file whose bytes are counted after each call, then dropped. Each call is
given ``timeout`` seconds (an interval timer: a call stuck in C code that ignores signals is
left to the runner's wall-clock limit). hypothesis generates the
arguments from the tool's ``args_schema`` with a fixed seed, and shrinks a failing call to the
smallest arguments that still break the contract.
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


def check_result(result: Any) -> str | None:
    """How a result breaks the contract, or None: it must be ``str`` that ``json.loads`` accepts."""
    if not isinstance(result, str):
        return f"returned {type(result).__name__}, not str: {_shown(result)}"
    try:
        json.loads(result)
    except ValueError as exc:
        return f"returned text that is not JSON ({exc.msg}): {_shown(result)}"
    return None


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


def run_job(job: dict[str, Any], output: OutputCounter, records: Records) -> dict[str, Any]:
    """Build the tool and call it ``cases`` times, each call's record sent on ``records``; return
    the closing record: ``status`` (``verified``, ``violation`` or ``not_built``; the runner judges
    again from the calls), ``calls`` and ``threads_left`` when threads leaked. Errors outside
    building the tool propagate."""
    try:
        tool = build(job)
    except BaseException as exc:  # whatever the project raises, the run goes on
        return {"status": "not_built", "reason": f"{type(exc).__name__}: {exc}"}
    schema = argument_schema(tool)
    if schema is None:
        return {"status": "not_built", "reason": "no argument schema (args_schema or an annotated signature)"}
    threads_before = threading.active_count()
    calls = [0]
    hung = f"did not answer within {job['timeout']:g} s"  # as _call_problem says it
    timed_out = [False]

    def one_call(arguments: dict[str, Any]) -> None:
        problem = hung if timed_out[0] else None  # a tool that hung is not called again while shrinking
        if problem is None:
            calls[0] += 1
            problem = _call_problem(tool, arguments, job, output, records)
            timed_out[0] = problem == hung
        if problem is not None:  # one place: hypothesis tells failures apart by where they are raised
            raise ContractViolation(problem, arguments)

    violation = _explore(schema, one_call, job)
    answer: dict[str, Any] = {"status": "verified" if violation is None else "violation", "calls": calls[0]}
    leaked = threading.active_count() - threads_before
    if leaked > 0:
        answer["threads_left"] = leaked
    return answer


def arguments_of(schema: Any) -> Any:
    """Arguments as a model would send them: JSON values for each field (hypothesis' strategy
    for the field's type; any JSON value for ``Any``), the required fields always, the optional
    ones sometimes, kept only when the schema accepts them."""
    from hypothesis import strategies as st

    fields = schema.model_fields
    required = {name: _field_values(f.annotation) for name, f in fields.items() if f.is_required()}
    optional = {name: _field_values(f.annotation) for name, f in fields.items() if not f.is_required()}

    from pydantic import ValidationError

    def accepted(values: dict[str, Any]) -> dict[str, Any] | None:
        try:
            return schema.model_validate(values).model_dump(mode="json", exclude_unset=True)
        except ValidationError:
            return None
        except Exception:  # a schema that cannot validate (not fully defined): the tool decides
            return values

    return st.fixed_dictionaries(required, optional=optional).map(accepted).filter(lambda values: values is not None)


def _field_values(annotation: Any) -> Any:
    from hypothesis import strategies as st

    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=6,
    )
    if isinstance(annotation, typing.ForwardRef):  # CrewAI's schemas keep string annotations
        try:
            # the worker runs the project's code anyway; the names are typing's
            annotation = eval(annotation.__forward_arg__, vars(typing))
        except Exception:
            return json_values
    if annotation in (Any, object, None):
        return json_values
    try:
        strategy = st.from_type(annotation)
        strategy.validate()
    except Exception:  # a type hypothesis cannot build: any JSON value, the schema decides
        return json_values
    return strategy


def _call_problem(
    tool: Any, arguments: dict[str, Any], job: dict[str, Any], output: OutputCounter, records: Records
) -> str | None:
    """How one call breaks the contract, as this process sees it (for hypothesis to shrink): an
    exception, no answer in time, a wrong result, too much printed; None when it keeps it. The
    call's raw value goes to ``records`` for the runner to judge."""
    output.taken()
    record: dict[str, Any] = {"call": True, "arguments": arguments}
    signal.setitimer(signal.ITIMER_REAL, job["timeout"])
    try:
        result = call_tool(tool, arguments)
    except CallTimeout:
        record["timeout"] = True
        records.send(record)
        return f"did not answer within {job['timeout']:g} s"
    except Exception as exc:
        record["raised"] = f"{type(exc).__name__}: {_shown(str(exc))}"
        records.send(record)
        return f"raised {record['raised']}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    problem = check_result(result)
    printed = output.taken()
    record.update(type="str" if isinstance(result, str) else type(result).__name__, printed=printed)
    if isinstance(result, str):
        record["text"] = str.__str__(result)
    else:
        record["shown"] = _shown(result)
    records.send(record)
    if problem is None and printed > job["output_cap"]:
        problem = f"printed {printed} bytes (cap {job['output_cap']})"
    return problem


def _explore(schema: type, one_call: Any, job: dict[str, Any]) -> ContractViolation | None:
    """``cases`` calls with arguments built from ``schema``, the configured examples first; the
    smallest failing arguments when one fails."""
    from hypothesis import HealthCheck, example, given, settings

    test = given(arguments_of(schema))(one_call)
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


def _on_alarm(signum: int, frame: Any) -> None:
    raise CallTimeout


def main(argv: list[str] | None = None) -> int:
    """Run the job file ``argv[0]``, sending the records on the descriptor ``argv[1]``, and
    return 0. Anything escaping the tool becomes status ``error``."""
    args = sys.argv[1:] if argv is None else argv
    job = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    records = Records(int(args[1]))
    output = OutputCounter(Path(args[0]).with_name("output"))
    seal_network(job.get("loopback", False))
    signal.signal(signal.SIGALRM, _on_alarm)
    try:
        answer = run_job(job, output, records)
    except BaseException as exc:  # whatever escaped the tool (a SystemExit, say)
        answer = {"status": "error", "reason": f"{type(exc).__name__}: {_shown(str(exc))}"}
    output.taken()
    answer["output_bytes"] = output.count
    used = os.times()  # the runner cannot read a sandboxed worker's use from wait4
    answer["cpu_seconds"] = used.user + used.system + used.children_user + used.children_system
    answer["end"] = True
    records.send(answer)
    return 0


def _exit(status: int) -> None:
    """Exit; with os._exit when the tool left threads running, whose joining at shutdown could hang."""
    leftover = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if leftover:
        os._exit(status)
    sys.exit(status)


if __name__ == "__main__":
    _exit(main())
