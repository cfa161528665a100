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

import json
import os
import select
import signal
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
from dispatchguard.verify.worker import contract_problem

#: Variables a worker keeps from the environment (the rest, API keys included, is left out
#: unless passed through).
KEPT_VARIABLES = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "SYSTEMROOT", "VIRTUAL_ENV")
#: Seconds a worker may take to start and import the project, beyond its calls.
STARTUP_SECONDS = 30.0
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
    #: arguments after the tool's calls (the worker's ``job["dispatch"]``, see worker.py)
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
    or an environment folder), else the ``python`` setting, else the project's environment as
    ``check`` finds it (``VIRTUAL_ENV``, a ``.venv`` or ``venv`` at the root); None when that is
    this interpreter's own environment or none is found. ValueError when ``explicit`` names none."""
    from dispatchguard.lint.environment import find_environment

    if explicit is not None:
        python = _interpreter(Path(explicit))
        if python is None:
            raise ValueError(f"--python {explicit}: no Python interpreter there")
    else:
        setting = getattr(config, "python", None)
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


#: Seconds a reaper gets to end what is below it before its whole group is killed.
REAPER_SECONDS = 10.0


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signal.SIGCONT)  # a stopped reaper could not act on the signal
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _stop(process: subprocess.Popen[bytes], alive: int) -> tuple[int, Any]:
    """End a worker that is still running: its reaper kills everything below it (a sandbox's
    namespace included) and exits (``alive`` reaches its end); its group is killed if it does not
    within ``REAPER_SECONDS``. Returns the reaper's wait status and resource use."""
    _signal(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + REAPER_SECONDS
    while select.select([alive], [], [], max(0.0, deadline - time.monotonic()))[0] and _drain(alive, []):
        pass  # nothing is written on it: readable means its end
    if time.monotonic() >= deadline:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return status, usage


def verify_tool(target: ToolTarget, options: VerifyOptions, *, isolation: str | None = None) -> ToolReport:
    """Run one tool's worker and judge the raw values it sent."""
    level = isolation or resolve_isolation(options.isolation)
    if target.kind == "listed" and target.label not in options.factories:
        return ToolReport(target, "not_built", target.reason or "", isolation=level)
    with tempfile.TemporaryDirectory(prefix="dispatchguard-verify-") as folder:
        home = Path(folder)
        job = {
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
            "python": options.python,
            "dispatch": options.dispatch.get(target.label),
        }
        (home / "job.json").write_text(json.dumps(job), encoding="utf-8")
        limit = STARTUP_SECONDS + options.cases * options.timeout * 2
        if target.label in options.dispatch:  # and the dispatcher's calls
            limit += options.cases * options.timeout * int(options.dispatch[target.label].get("repeat", 1))
        read_end, write_end = os.pipe()
        alive_end, alive = os.pipe()  # held by the reaper alone: its end is the reaper's exit
        os.set_blocking(alive_end, False)
        command = [sys.executable, "-m", "dispatchguard.verify.worker", str(home / "job.json"), str(write_end)]
        if level == "namespaces":
            command = sandbox.command(command, home, share_network=options.loopback)
        command = [sys.executable, "-m", "dispatchguard.verify.reaper", str(alive), *command]
        started = time.monotonic()
        try:
            process = WORKERS.start(
                command,
                cwd=home,
                env=worker_environment(home, options),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(write_end, alive),
            )
        except BaseException:
            os.close(read_end)
            os.close(alive_end)
            raise
        finally:
            os.close(write_end)
            os.close(alive)
        try:
            status, cpu, data = _wait(process, read_end, alive_end, limit)
        finally:
            if process.returncode is None:  # interrupted: end it before its folder goes
                _stop(process, alive_end)
            WORKERS.done(process)
            os.close(read_end)
            os.close(alive_end)
        wall = time.monotonic() - started
    if status is None:
        return ToolReport(target, "hung", f"no answer in {limit:g} s: the worker was killed", wall_seconds=wall,
                          isolation=level)  # fmt: skip
    return judge(target, data, status, options, cpu, wall, level)


def judge(
    target: ToolTarget, data: bytes, status: int, options: VerifyOptions, cpu: float, wall: float, level: str
) -> ToolReport:
    """The report from the worker's records (one JSON line each): every call's raw value is
    judged here; no closing record means the worker crashed."""
    records = []
    for line in data.split(b"\n"):
        if not line:
            continue
        try:
            records.append(json.loads(line))
        except ValueError:
            records = None
            break
    end = records[-1] if records and isinstance(records[-1], dict) and records[-1].get("end") else None
    if records is None or end is None or not all(isinstance(r, dict) for r in records):
        if 128 < status < 128 + signal.NSIG:  # the reaper (and bwrap) pass a signal on as 128 + N
            status = 128 - status
        how = f"killed by signal {-status}" if status < 0 else f"exited with code {status}"
        what = "without its verdict" if records is not None else "after writing records that are not JSON"
        return ToolReport(target, "crashed", f"the tool's process {how} {what}", cpu_seconds=cpu,
                          wall_seconds=wall, isolation=level)  # fmt: skip
    calls = [r for r in records[:-1] if "call" in r]
    reported = end.get("cpu_seconds")  # a sandbox's processes are not all counted by wait4
    if isinstance(reported, (int, float)) and not isinstance(reported, bool) and reported > cpu:
        cpu = float(reported)
    common = {
        "calls": len(calls),
        "output_bytes": _number(end.get("output_bytes")),
        "threads_left": _number(end.get("threads_left")),
        "cpu_seconds": cpu,
        "wall_seconds": wall,
        "isolation": level,
        "dispatched": dispatched_records(records[:-1]),
    }
    if end.get("status") in ("not_built", "error", "crashed"):
        return ToolReport(target, end["status"], str(end.get("reason", "")), **common)
    failing = None
    for record in calls:
        problem = call_problem(record, options)
        if problem is not None:
            failing = (problem, record.get("arguments"))
    if failing is not None:  # the last failing call is hypothesis' shrunk one, replayed
        return ToolReport(target, "violation", failing[0], failing[1], **common)
    if end.get("status") != "verified":
        return ToolReport(target, "error", "the worker reported a violation that none of its calls shows", **common)
    return ToolReport(target, "verified", **common)


def dispatched_records(records: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The records of the calls through the project's dispatcher (``VerifyOptions.dispatch``)."""
    return tuple(r for r in records if r.get("dispatched"))


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def call_problem(record: dict[str, Any], options: VerifyOptions) -> str | None:
    """How one call's record breaks the contract, judged here with this process's ``json.loads``
    (the worker's own judgment only steers the shrinking)."""
    return contract_problem(record, options.timeout, options.output_cap, json.loads, _shown)


def _shown(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= SHOWN_CHARS else shown[: SHOWN_CHARS - 3] + "..."


def _wait(process: subprocess.Popen[bytes], records: int, alive: int, limit: float) -> tuple[int | None, float, bytes]:
    """(exit status, or None when it had to be killed; the CPU seconds it used; what it sent on
    ``records``), waiting on the pipe and on the end of ``alive`` (the reaper's exit) together,
    never on a timer."""
    deadline = time.monotonic() + limit
    chunks: list[bytes] = []
    os.set_blocking(records, False)
    watched = [records, alive]
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            _, usage = _stop(process, alive)
            return None, usage.ru_utime + usage.ru_stime, b""
        ready, _, _ = select.select(watched, [], [], left)
        if records in ready and not _drain(records, chunks):
            watched.remove(records)  # every writer closed it: the exit comes next
        if alive in ready and not _drain(alive, []):
            _, status, usage = os.wait4(process.pid, 0)
            if records in watched:
                _drain(records, chunks)  # what is left (nothing below the reaper holds it any more)
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode, usage.ru_utime + usage.ru_stime, b"".join(chunks)


def _drain(fd: int, chunks: list[bytes]) -> bool:
    """Read what ``fd`` holds now; False at its end."""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        chunks.append(chunk)


def verify_tools(
    targets: Sequence[ToolTarget],
    options: VerifyOptions,
    *,
    jobs: int = 1,
    progress: Callable[[ToolReport], None] | None = None,
) -> list[ToolReport]:
    """Every target's report, in the targets' order; ``jobs`` workers at a time. SIGINT or
    SIGTERM ends every worker and removes their folders before ``KeyboardInterrupt`` goes on up."""
    level = resolve_isolation(options.isolation)

    def one(target: ToolTarget) -> ToolReport:
        report = verify_tool(target, options, isolation=level)
        if progress is not None:
            progress(report)
        return report

    WORKERS.reset()
    with _terminate_as_interrupt():
        if jobs <= 1:
            return [one(t) for t in targets]
        pool = ThreadPoolExecutor(max_workers=jobs)
        try:
            return list(pool.map(one, targets))
        except BaseException:
            WORKERS.stop_all()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


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
