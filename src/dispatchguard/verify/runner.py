"""Running the workers: one process per tool, in a temporary folder of its own, with a scrubbed
environment (HOME and TMPDIR redirected, secrets left out), a wall-clock limit, and whatever
happens to the process (it exits, is killed by a signal, hangs) turned into a report.

The verdict is this process's: the worker sends one record per call (the arguments and the raw
value the tool answered) over a pipe it inherits, and :func:`judge` applies the contract to
those values here, with this process's own ``json.loads``. A worker that ends without its closing
record is ``crashed``, whatever it wrote elsewhere. Where the OS offers namespaces (bubblewrap,
:mod:`.sandbox`), each worker runs in a sandbox of its own; otherwise in a plain process with the
in-process seal (see docs/verify.md, "Isolation").
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dispatchguard.verify import sandbox
from dispatchguard.verify.discover import ToolTarget
from dispatchguard.verify.driver import drive
from dispatchguard.verify.worker import Channel, ToolGone, ToolHung, contract_problem

#: Variables a worker keeps from the environment (the rest, API keys included, is left out
#: unless passed through).
KEPT_VARIABLES = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "SYSTEMROOT", "VIRTUAL_ENV")
#: Seconds a tool's process may take to import its module and build the tool (its first answer).
STARTUP_SECONDS = 30.0
#: Seconds the fork server may take to import the frameworks the tools import (once per run).
READY_SECONDS = 300.0
#: How much of a wrong result a report shows.
SHOWN_CHARS = 200


@dataclass(frozen=True)
class VerifyOptions:
    """How hard to try: ``cases`` calls per tool, ``timeout`` seconds per call, ``output_cap``
    bytes printed per call; ``examples`` (tool label -> argument dicts) are tried first;
    ``pass_env`` names variables a worker may see; ``loopback`` allows connections to it;
    ``factories`` (tool label -> ``module:function``) build the tools that need arguments;
    ``isolation`` is ``auto`` (namespaces where the OS offers them), ``namespaces`` or ``seal``;
    ``python`` the interpreter that runs the tools' processes (None: this one)."""

    cases: int = 10
    timeout: float = 5.0
    output_cap: int = 1_000_000
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    pass_env: tuple[str, ...] = ()
    loopback: bool = False
    factories: dict[str, str] = field(default_factory=dict)
    isolation: str = "auto"
    python: str | None = None
    #: ``fix --verify`` (issue 35): tool label -> the project's dispatcher to call with the same
    #: arguments after the tool's calls (the tool's process's ``job["dispatch"]``, see worker.py)
    dispatch: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_settings(
        cls,
        settings: Any,
        *,
        cases: int | None = None,
        timeout: float | None = None,
        isolation: str | None = None,
        python: str | None = None,
    ) -> VerifyOptions:
        """The options of ``[tool.dispatchguard.verify]`` (``LintConfig.verify``), with the command
        line's ``cases``, ``timeout`` and ``isolation`` over them."""
        return cls(
            cases=cases if cases is not None else settings.cases,
            timeout=timeout if timeout is not None else settings.timeout,
            output_cap=settings.output_cap,
            examples={label: list(examples) for label, examples in settings.examples},
            pass_env=settings.pass_env,
            loopback=settings.loopback,
            factories=dict(settings.factories),
            isolation=isolation or "auto",
            python=python,
        )


@dataclass(frozen=True)
class ToolReport:
    """What became of one tool: ``status`` is ``verified``, ``violation``, ``not_built``,
    ``crashed`` (the process exited or was killed without its verdict), ``hung`` or ``error``;
    ``isolation`` the level it ran under (``namespaces`` or ``seal``)."""

    target: ToolTarget
    status: str
    detail: str = ""
    arguments: dict[str, Any] | None = None
    calls: int = 0
    output_bytes: int = 0
    threads_left: int = 0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    isolation: str = ""
    #: from the request for the tool's process to its first answer (forked, module imported, tool built)
    startup_seconds: float = 0.0
    #: what the project's dispatcher answered for the tool (``VerifyOptions.dispatch``): one record
    #: per arguments dict, ``{"arguments": ..., "answers": [...]}``
    dispatched: tuple[dict[str, Any], ...] = ()

    @property
    def failed(self) -> bool:
        """Whether the tool broke the contract (a tool that could not be built is reported, not failed)."""
        return self.status in ("violation", "crashed", "hung", "error")


class IsolationUnavailable(Exception):
    """``isolation = "namespaces"`` was asked for where the OS offers none; the message says why."""


def resolve_isolation(asked: str) -> str:
    """The level a run gets: ``namespaces`` when asked for or ``auto`` and available, else ``seal``."""
    if asked == "seal":
        return "seal"
    problem = sandbox.unavailable()
    if problem is None:
        return "namespaces"
    if asked == "namespaces":
        raise IsolationUnavailable(f"isolation 'namespaces' is not available here: {problem}")
    return "seal"


def project_interpreter(explicit: str | None, config: Any) -> str | None:
    """The interpreter that runs the tools' processes: ``explicit`` (``--python``: an interpreter
    or an environment folder), else the ``python`` setting of ``[tool.dispatchguard.verify]``, else
    that of ``[tool.dispatchguard]``, else the project's environment as ``check`` finds it
    (``VIRTUAL_ENV``, a ``.venv`` or ``venv`` at the root); None when that is this interpreter's
    own environment or none is found. ValueError when ``explicit`` names none."""
    from dispatchguard.lint.environment import find_environment

    if explicit is not None:
        python = _interpreter(Path(explicit))
        if python is None:
            raise ValueError(f"--python {explicit}: no Python interpreter there")
    else:
        verify = getattr(getattr(config, "verify", None), "python", None)
        setting = verify if verify is not None else getattr(config, "python", None)
        if setting is False:
            return None
        found, _ = find_environment(Path(config.root), setting if isinstance(setting, str) else None)
        python = _interpreter(found.prefix) if found is not None else None
    if python is None or Path(python).resolve().parent.parent == Path(sys.prefix).resolve():
        return None
    return python


def _interpreter(path: Path) -> str | None:
    for candidate in (path, path / "bin" / "python", path / "bin" / "python3", path / "Scripts" / "python.exe"):
        if candidate.is_file():
            return os.path.abspath(candidate)
    return None


def worker_environment(home: Path, options: VerifyOptions) -> dict[str, str]:
    """Return a worker's environment: from ours only ``KEPT_VARIABLES``, ``pass_env`` and coverage's
    variables; HOME and TMPDIR set to ``home``, a fixed hash seed, this package on PYTHONPATH."""
    names = (*KEPT_VARIABLES, *options.pass_env)
    env = {name: os.environ[name] for name in names if name in os.environ}
    # coverage.py's subprocess measurement, when this run is measured: coverage's own subprocess patch
    # (`patch = ["subprocess"]` in pyproject's coverage config) sets COVERAGE_PROCESS_CONFIG, `make
    # test` sets COVERAGE_FILE
    env.update((k, v) for k, v in os.environ.items() if k.startswith("COVERAGE_"))
    env.update(HOME=str(home), TMPDIR=str(home), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    # the worker is this package's: wherever it was imported from, the worker finds it too (and
    # what this process found through PYTHONPATH)
    inherited = os.environ.get("PYTHONPATH")
    here = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([here, inherited]) if inherited else here
    return env


class _Workers:
    """The worker processes alive now, so that an interruption ends every one of them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.alive: dict[int, subprocess.Popen[bytes]] = {}
        self.stopping = False

    def start(self, command: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        with self.lock:
            if self.stopping:
                raise KeyboardInterrupt
            process = subprocess.Popen(command, start_new_session=True, **kwargs)
            self.alive[process.pid] = process
            return process

    def done(self, process: subprocess.Popen[bytes]) -> None:
        with self.lock:
            self.alive.pop(process.pid, None)

    def stop_all(self) -> None:
        """Ask every live worker's reaper to end everything below it."""
        with self.lock:
            self.stopping = True
            for pid in list(self.alive):
                _signal(pid, signal.SIGTERM)

    def reset(self) -> None:
        with self.lock:
            self.stopping = False


WORKERS = _Workers()


#: Seconds a reaper (or a tool's keeper) gets to end what is below it.
REAPER_SECONDS = 10.0
#: Seconds beyond twice the call timeout that verify waits for a call's answer before it kills
#: the tool's process (the tool's own timer answers a call that overruns, unless C code holds it).
ANSWER_GRACE = 5.0


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signal.SIGCONT)  # a stopped reaper could not act on the signal
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


class _Undumpable:
    """While a fork server runs, this process is not dumpable (Linux): its ``/proc/<pid>/environ``
    and memory belong to root, so a tool running as the same user cannot read this process's
    environment (its secrets) even without a sandbox."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.before = 1

    @staticmethod
    def _prctl(option: int, value: int = 0) -> int:
        if not sys.platform.startswith("linux"):
            return -1
        import ctypes

        try:
            return int(ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0))
        except (OSError, AttributeError):
            return -1

    def enter(self) -> None:
        with self.lock:
            if self.count == 0:
                self.before = self._prctl(3)  # PR_GET_DUMPABLE
                self._prctl(4, 0)  # PR_SET_DUMPABLE
            self.count += 1

    def leave(self) -> None:
        with self.lock:
            self.count -= 1
            if self.count == 0 and self.before > 0:
                self._prctl(4, self.before)


UNDUMPABLE = _Undumpable()


class ForkServer:
    """The fork server of one run (one project interpreter, one isolation level): started under
    a reaper (and, under ``namespaces``, in one bubblewrap sandbox), it imports ``preload`` once;
    :meth:`verify` has it fork a keeper and a tool's process per tool, each in namespaces of its
    own under ``namespaces``. :meth:`close` ends it and everything below it and removes its folder."""

    def __init__(
        self, options: VerifyOptions, level: str, preload: Sequence[str] = (), paths: Sequence[str] = ()
    ) -> None:
        self.options, self.level, self.paths = options, level, list(paths)
        self.lock = threading.Lock()
        self.numbers = itertools.count()
        self.folder = Path(tempfile.mkdtemp(prefix="dispatchguard-verify-"))
        self.failure: str | None = None
        self.process: subprocess.Popen[bytes] | None = None
        UNDUMPABLE.enter()
        try:
            self.start(preload)
        except BaseException:  # interrupted while it started: no waiting for its end
            self.close(gently=False)
            raise

    def start(self, preload: Sequence[str]) -> None:
        """Start the server (under its reaper, in its sandbox) and wait for it to say it is ready."""
        options = self.options
        spec = {"folder": str(self.folder), "loopback": options.loopback, "preload": list(preload),
                "paths": self.paths, "seconds": STARTUP_SECONDS, "namespaces": self.level == "namespaces"}  # fmt: skip
        (self.folder / "server.json").write_text(json.dumps(spec), encoding="utf-8")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.control = ours
        alive_end, alive = os.pipe()  # held by the reaper alone: its end is the reaper's exit
        os.set_blocking(alive_end, False)
        self.alive = alive_end
        env = worker_environment(self.folder, options)
        if options.python:  # the project's interpreter: this package alone on its path
            env.pop("VIRTUAL_ENV", None)
            env["PYTHONPATH"] = str(_package_link(self.folder))
        command = [options.python or sys.executable, "-m", "dispatchguard.verify.worker", "--serve",
                   str(theirs.fileno()), str(self.folder / "server.json")]  # fmt: skip
        if self.level == "namespaces":
            command = sandbox.command(command, self.folder, share_network=options.loopback)
        command = [sys.executable, "-m", "dispatchguard.verify.reaper", str(alive), *command]
        try:
            self.process = WORKERS.start(
                command, cwd=self.folder, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, pass_fds=(theirs.fileno(), alive),
            )  # fmt: skip
        finally:
            theirs.close()
            os.close(alive)
        self.failure = self._ready()

    def _ready(self) -> str | None:
        """None once the server said it is ready; else why it is not."""
        self.control.settimeout(READY_SECONDS)
        try:
            message = self.control.recv(1 << 16)
        except OSError as exc:
            message, why = b"", f"{type(exc).__name__}: {exc}"
        else:
            why = "it ended"
        finally:
            self.control.settimeout(None)
        try:
            self.ready = json.loads(message) if message else {}
        except ValueError:
            self.ready = {}
        if self.ready.get("ready"):
            return None
        output = self.folder / "server-output"
        said = output.read_text(encoding="utf-8", errors="replace")[-SHOWN_CHARS:] if output.exists() else ""
        return f"the fork server did not start ({why}){': ' + said.strip() if said.strip() else ''}"

    def verify(self, target: ToolTarget, options: VerifyOptions | None = None) -> ToolReport:
        """Run one tool in a fresh child of the server and judge the raw values it answered
        (``options``: this run's, when the server serves more than one run: ``fix --verify``)."""
        options, level = options or self.options, self.level
        if target.kind == "listed" and target.label not in options.factories:
            return ToolReport(target, "not_built", target.reason or "", isolation=level)
        if self.failure is not None:
            return ToolReport(target, "error", self.failure, isolation=level)
        home = self.folder / f"tool-{next(self.numbers)}"
        home.mkdir()
        job = _job(target, options, home, self.folder, level)
        (home / "job.json").write_text(json.dumps(job), encoding="utf-8")
        started, thread_cpu = time.monotonic(), time.thread_time()
        records: list[dict[str, Any]] = []
        try:
            channel, status, stop = self._fork(home, options)
        except OSError as exc:
            shutil.rmtree(home, ignore_errors=True)
            return ToolReport(target, "error", f"the fork server ended: {exc}", isolation=level)
        try:
            end: dict[str, Any] | None = drive(job, channel, records)
        except ToolHung as hung:
            end = {"status": "hung", "seconds": hung.seconds}
        except ToolGone:
            end = None
        except Exception as exc:  # hypothesis or the driver failed
            end = {"status": "error", "reason": f"{type(exc).__name__}: {exc}"[:SHOWN_CHARS]}
        finally:
            channel.sock.close()
            os.close(stop)  # the keeper kills the tool's process if it has not ended
            ended = _read_status(status, REAPER_SECONDS)
            shutil.rmtree(home, ignore_errors=True)
        cpu = time.thread_time() - thread_cpu + _seconds(ended.get("cpu_seconds"))
        report = judge(target, records, end, ended, options, cpu, time.monotonic() - started, level)
        if channel.first_answer is not None:
            report = dataclasses.replace(report, startup_seconds=channel.first_answer - started)
        return report

    def _fork(self, home: Path, options: VerifyOptions) -> tuple[Channel, int, int]:
        """Ask the server for a keeper and a tool's process: (the tool's channel, the status pipe's
        read end, the stop pipe's write end)."""
        ours, theirs = socket.socketpair()
        status_r, status_w = os.pipe()
        stop_r, stop_w = os.pipe()
        try:
            with self.lock:
                request = json.dumps({"job": str(home / "job.json")}).encode()
                socket.send_fds(self.control, [request], [theirs.fileno(), status_w, stop_r])
        except OSError:
            for fd in (status_r, stop_w):
                os.close(fd)
            ours.close()
            raise
        finally:
            theirs.close()
            os.close(status_w)
            os.close(stop_r)
        repeat = max((int(d.get("repeat", 1)) for d in options.dispatch.values()), default=1)
        each = options.timeout * (1 + max(1, repeat)) + ANSWER_GRACE  # a dispatch answer holds `repeat` calls
        return Channel(ours, STARTUP_SECONDS, each), status_r, stop_w

    def close(self, *, gently: bool = True) -> None:
        """End the server and everything below it (``gently``: it ends by itself once its request
        socket closes, else the reaper ends it at once); remove its folder."""
        try:
            if self.process is not None:
                self.control.close()  # the server ends at the end of its requests
                _stop(self.process, self.alive, gently=gently)
                WORKERS.done(self.process)
                os.close(self.alive)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            UNDUMPABLE.leave()

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close(gently=kind is None)


def _job(target: ToolTarget, options: VerifyOptions, home: Path, folder: Path, level: str) -> dict[str, Any]:
    return {
        "module": target.module,
        "name": target.name,
        "kind": target.kind,
        "key": target.key,
        "factory": options.factories.get(target.label),
        "import_root": target.import_root,
        "cases": options.cases,
        "timeout": options.timeout,
        "output_cap": options.output_cap,
        "examples": options.examples.get(target.label, []),
        "loopback": options.loopback,
        "dispatch": options.dispatch.get(target.label),
        "home": str(home),
        "folder": str(folder),
        "namespaces": level == "namespaces",
    }


def _package_link(folder: Path) -> Path:
    """A folder holding only a link to this package (the project's interpreter imports it alone)."""
    path = folder / "dispatchguard-path"
    path.mkdir(exist_ok=True)
    (path / "dispatchguard").symlink_to(Path(__file__).resolve().parents[1], target_is_directory=True)
    return path


def _read_status(fd: int, seconds: float) -> dict[str, Any]:
    """The keeper's status line (its end means the tool's process and all it started ended); {}
    when it gives none within ``seconds``."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + seconds
    try:
        while select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            chunk = os.read(fd, 1 << 12)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(fd)
    try:
        status = json.loads(b"".join(chunks) or b"{}")
    except ValueError:
        return {}
    return status if isinstance(status, dict) else {}


def _seconds(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _stop(process: subprocess.Popen[bytes], alive: int, *, gently: bool = False) -> None:
    """End a reaper: ``gently`` waits for it to end by itself first (its command has ended); then
    SIGTERM (it kills everything below it, a sandbox's namespace included, and exits); its group
    is killed if it does not within ``REAPER_SECONDS``."""
    deadline = time.monotonic() + REAPER_SECONDS
    if not (gently and _ended(alive, deadline)):
        _signal(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + REAPER_SECONDS
        if not _ended(alive, deadline):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    os.waitpid(process.pid, 0)
    process.returncode = 0


def _ended(alive: int, deadline: float) -> bool:
    """Whether the pipe ``alive`` reached its end (nothing is written on it) before ``deadline``."""
    while select.select([alive], [], [], max(0.0, deadline - time.monotonic()))[0]:
        try:
            if not os.read(alive, 1 << 12):
                return True
        except BlockingIOError:
            continue
    return False


def verify_tool(
    target: ToolTarget, options: VerifyOptions, *, isolation: str | None = None, server: ForkServer | None = None
) -> ToolReport:
    """Run one tool in a child of ``server`` (or of a fork server of its own) and judge the raw
    values it answered."""
    if server is not None:
        return server.verify(target)
    level = isolation or resolve_isolation(options.isolation)
    if target.kind == "listed" and target.label not in options.factories:
        return ToolReport(target, "not_built", target.reason or "", isolation=level)
    with ForkServer(options, level, preload_of([target]), import_roots([target])) as own:
        return own.verify(target)


def judge(
    target: ToolTarget,
    records: list[dict[str, Any]],
    end: dict[str, Any] | None,
    ended: dict[str, Any],
    options: VerifyOptions,
    cpu: float,
    wall: float,
    level: str,
) -> ToolReport:
    """The report from the records of the calls (their raw values, judged here with this
    process's ``json.loads``), the driver's ``end`` (None: the tool's process ended without its
    verdict) and the keeper's status ``ended``."""
    calls = [r for r in records if not r.get("dispatched")]
    common: dict[str, Any] = {"calls": len(calls), "cpu_seconds": cpu, "wall_seconds": wall, "isolation": level,
                              "dispatched": dispatched_records(records)}  # fmt: skip
    if end is None and "error" in ended:
        return ToolReport(target, "error", f"the tool's process could not be started: {ended['error']}", **common)
    if end is None:
        return ToolReport(target, "crashed", f"the tool's process {_how(ended)} without its verdict", **common)
    if end["status"] == "hung":
        limit = end.get("seconds") or options.timeout * 2 + ANSWER_GRACE
        return ToolReport(target, "hung", f"no answer in {limit:g} s: the tool's process was killed", **common)
    common.update(output_bytes=_count(end.get("output_bytes")), threads_left=_count(end.get("threads_left")))
    if end["status"] in ("not_built", "error"):
        return ToolReport(target, end["status"], str(end.get("reason", "")), **common)
    failing = None
    for record in calls:
        problem = call_problem(record, options)
        if problem is not None:
            failing = (problem, record.get("arguments"))
    if failing is not None:  # the last failing call is hypothesis' shrunk one, replayed
        return ToolReport(target, "violation", failing[0], failing[1], **common)
    if end["status"] != "verified":
        return ToolReport(target, "error", "the driver saw a violation that none of the calls shows", **common)
    return ToolReport(target, "verified", **common)


def dispatched_records(records: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The records of the calls through the project's dispatcher (``VerifyOptions.dispatch``)."""
    return tuple(r for r in records if r.get("dispatched"))


def _how(ended: dict[str, Any]) -> str:
    code = ended.get("exit")
    if not isinstance(code, int) or isinstance(code, bool):
        return "ended"
    return f"killed by signal {-code}" if code < 0 else f"exited with code {code}"


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def call_problem(record: dict[str, Any], options: VerifyOptions) -> str | None:
    """How one call's record breaks the contract, judged here with this process's ``json.loads``."""
    return contract_problem(record, options.timeout, options.output_cap, json.loads, _shown)


def _shown(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= SHOWN_CHARS else shown[: SHOWN_CHARS - 3] + "..."


def import_roots(targets: Iterable[ToolTarget]) -> list[str]:
    """The folders the targets' modules are imported from (for the fork server's ``sys.path``)."""
    return sorted({t.import_root for t in targets})


def preload_of(targets: Iterable[ToolTarget], limit: int = 1000, *, own: bool = True) -> list[str]:
    """The modules a fork server imports once: what the targets' modules import at module level,
    and what the project's own modules they import (their packages' ``__init__`` included) import
    in turn; then (``own``) those project modules themselves, each package before its modules. A
    server that serves the fixed files and the originals (``fix --verify``) preloads no project
    module (``own=False``): each tool's process imports them as they are when it starts."""
    targets = list(targets)
    roots = sorted({Path(t.import_root) for t in targets})
    queue = [t.module for t in targets]
    seen: set[str] = set()
    found: set[str] = set()
    while queue and len(seen) < limit:
        module = queue.pop()
        if module in seen:
            continue
        seen.add(module)
        parts = module.split(".")
        queue += [".".join(parts[:n]) for n in range(1, len(parts))]  # its packages, imported first
        path = _project_file(module, roots)
        if not isinstance(path, Path):
            continue
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for name, maybe in _module_imports(path, package):
            if _project_file(name, roots) is not None:
                queue.append(name)
            elif not maybe:
                found.add(name)
    projects = sorted(m for m in seen if own and isinstance(_project_file(m, roots), Path))
    return [*sorted(n for n in found if n != "__future__"), *sorted(projects, key=lambda m: (m.count("."), m))]


def _module_imports(path: Path, package: str) -> list[tuple[str, bool]]:
    """The modules ``path`` imports at module level, relative imports resolved against
    ``package``: ``(name, False)``; for ``from a import b``, also ``("a.b", True)``: maybe a module."""
    import ast

    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return []
    names: list[tuple[str, bool]] = []
    body = list(tree.body)
    while body:
        node = body.pop()
        if isinstance(node, ast.Import):
            names += [(alias.name, False) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, package)
            if base:
                names += [(base, False), *((f"{base}.{a.name}", True) for a in node.names if a.name != "*")]
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            body += [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            body += [item for handler in getattr(node, "handlers", []) for item in handler.body]
    return names


def _absolute(module: str | None, level: int, package: str) -> str:
    if level == 0:
        return module or ""
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return ""
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def _project_file(name: str, roots: Sequence[Path]) -> Path | bool | None:
    """The file of the project's module ``name`` (True when it is the project's but has none to
    read), None when it is not the project's."""
    parts = name.split(".")
    for root in roots:
        if not ((root / parts[0]).is_dir() or (root / f"{parts[0]}.py").is_file()):
            continue
        for candidate in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
            if candidate.is_file():
                return candidate
        return True
    return None


def verify_tools(
    targets: Sequence[ToolTarget],
    options: VerifyOptions,
    *,
    jobs: int = 1,
    progress: Callable[[ToolReport], None] | None = None,
    server: ForkServer | None = None,
) -> list[ToolReport]:
    """Every target's report, in the targets' order; ``jobs`` tools at a time, each a child of
    one fork server (``server``, which the caller ends, or one of this run's). SIGINT or SIGTERM
    ends every tool's process and the server and removes their folders before
    ``KeyboardInterrupt`` goes on up."""
    level = server.level if server is not None else resolve_isolation(options.isolation)
    WORKERS.reset()
    with _terminate_as_interrupt():
        runnable = [t for t in targets if t.kind != "listed" or t.label in options.factories]
        given = server is not None
        if not given and runnable:
            server = ForkServer(options, level, preload_of(runnable), import_roots(runnable))

        def one(target: ToolTarget) -> ToolReport:
            if server is None:
                report = ToolReport(target, "not_built", target.reason or "", isolation=level)
            else:
                report = server.verify(target, options)
            if progress is not None:
                progress(report)
            return report

        interrupted = True
        try:
            if jobs <= 1:
                reports = [one(t) for t in targets]
            else:
                pool = ThreadPoolExecutor(max_workers=jobs)
                try:
                    reports = list(pool.map(one, targets))
                except BaseException:
                    WORKERS.stop_all()
                    raise
                finally:
                    pool.shutdown(wait=True, cancel_futures=True)
            interrupted = False
            return reports
        finally:
            if server is not None and not given:
                server.close(gently=not interrupted)


@contextmanager
def shared_server(targets: Sequence[ToolTarget], options: VerifyOptions) -> Iterator[ForkServer | None]:
    """One fork server for several runs over ``targets`` whose files change between the runs
    (``fix --verify``: the fixed files, then the originals): it imports what they import once, and
    none of the project's own modules, which each tool's process imports as the files are then.
    None when no target can be run. Ended, with everything below it, when the block ends (at once
    on an interruption, SIGTERM included)."""
    WORKERS.reset()
    with _terminate_as_interrupt():
        runnable = [t for t in targets if t.kind != "listed" or t.label in options.factories]
        if not runnable:
            yield None
            return
        level = resolve_isolation(options.isolation)
        with ForkServer(options, level, preload_of(runnable, own=False), import_roots(runnable)) as server:
            yield server


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt in the main thread for the while (as Ctrl-C does)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def summary(reports: Iterable[ToolReport]) -> dict[str, int]:
    """How many tools ended in each status."""
    counts: dict[str, int] = {}
    for report in reports:
        counts[report.status] = counts.get(report.status, 0) + 1
    return counts
