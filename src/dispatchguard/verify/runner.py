"""Running the workers: one process per tool, in a temporary folder of its own, with a scrubbed
environment (HOME and TMPDIR redirected, secrets left out), a wall-clock limit, and whatever
happens to the process (it exits, is killed by a signal, hangs) turned into a report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dispatchguard.verify.discover import ToolTarget

#: Variables a worker keeps from the environment (the rest, API keys included, is left out
#: unless passed through).
KEPT_VARIABLES = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "SYSTEMROOT", "VIRTUAL_ENV")
#: Seconds a worker may take to start and import the project, beyond its calls.
STARTUP_SECONDS = 30.0


@dataclass(frozen=True)
class VerifyOptions:
    """How hard to try: ``cases`` calls per tool, ``timeout`` seconds per call, ``output_cap``
    bytes printed per call; ``examples`` (tool label -> argument dicts) are tried first;
    ``pass_env`` names variables a worker may see; ``loopback`` allows connections to it;
    ``factories`` (tool label -> ``module:function``) build the tools that need arguments."""

    cases: int = 10
    timeout: float = 5.0
    output_cap: int = 1_000_000
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    pass_env: tuple[str, ...] = ()
    loopback: bool = False
    factories: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: Any, *, cases: int | None = None, timeout: float | None = None) -> VerifyOptions:
        """The options of ``[tool.dispatchguard.verify]`` (``LintConfig.verify``), with the command
        line's ``cases`` and ``timeout`` over them."""
        return cls(
            cases=cases if cases is not None else settings.cases,
            timeout=timeout if timeout is not None else settings.timeout,
            output_cap=settings.output_cap,
            examples={label: list(examples) for label, examples in settings.examples},
            pass_env=settings.pass_env,
            loopback=settings.loopback,
            factories=dict(settings.factories),
        )


@dataclass(frozen=True)
class ToolReport:
    """What became of one tool: ``status`` is ``verified``, ``violation``, ``not_built``,
    ``crashed`` (the process exited or was killed), ``hung`` or ``error``."""

    target: ToolTarget
    status: str
    detail: str = ""
    arguments: dict[str, Any] | None = None
    calls: int = 0
    output_bytes: int = 0
    threads_left: int = 0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0

    @property
    def failed(self) -> bool:
        """Whether the tool broke the contract (a tool that could not be built is reported, not failed)."""
        return self.status in ("violation", "crashed", "hung", "error")


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


def verify_tool(target: ToolTarget, options: VerifyOptions) -> ToolReport:
    """Run one tool's worker and read its answer."""
    with tempfile.TemporaryDirectory(prefix="dispatchguard-verify-") as folder:
        home = Path(folder)
        result = home / "result.json"
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
            "result": str(result),
        }
        (home / "job.json").write_text(json.dumps(job), encoding="utf-8")
        limit = STARTUP_SECONDS + options.cases * options.timeout * 2
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-m", "dispatchguard.verify.worker", str(home / "job.json")],
            cwd=home,
            env=worker_environment(home, options),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its children go with it when it is killed
        )
        status, cpu = _wait(process, limit)
        wall = time.monotonic() - started
        if status is None:
            return ToolReport(target, "hung", f"no answer in {limit:g} s: the worker was killed", wall_seconds=wall)
        if not result.exists():
            how = f"killed by signal {-status}" if status < 0 else f"exited with code {status}"
            return ToolReport(target, "crashed", f"the tool's process {how}", cpu_seconds=cpu, wall_seconds=wall)
        answer = json.loads(result.read_text(encoding="utf-8"))
    violation = answer.get("violation") or {}
    return ToolReport(
        target,
        answer["status"],
        violation.get("what") or answer.get("reason", ""),
        violation.get("arguments"),
        answer.get("calls", 0),
        answer.get("output_bytes", 0),
        answer.get("threads_left", 0),
        cpu,
        wall,
    )


def _wait(process: subprocess.Popen[bytes], limit: float) -> tuple[int | None, float]:
    """(exit status, or None when it had to be killed; the CPU seconds it used)."""
    deadline = time.monotonic() + limit
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode, usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            os.killpg(process.pid, 9)
            _, _, usage = os.wait4(process.pid, 0)
            process.returncode = -9
            return None, usage.ru_utime + usage.ru_stime
        time.sleep(0.02)


def verify_tools(
    targets: Sequence[ToolTarget],
    options: VerifyOptions,
    *,
    jobs: int = 1,
    progress: Callable[[ToolReport], None] | None = None,
) -> list[ToolReport]:
    """Every target's report, in the targets' order; ``jobs`` workers at a time."""

    def one(target: ToolTarget) -> ToolReport:
        report = verify_tool(target, options)
        if progress is not None:
            progress(report)
        return report

    if jobs <= 1:
        return [one(t) for t in targets]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, targets))


def summary(reports: Iterable[ToolReport]) -> dict[str, int]:
    """How many tools ended in each status."""
    counts: dict[str, int] = {}
    for report in reports:
        counts[report.status] = counts.get(report.status, 0) + 1
    return counts
