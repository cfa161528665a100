"""The OS sandbox of a run's fork server: Linux namespaces through bubblewrap (``bwrap``, from the
distribution: Debian's and Fedora's ``bubblewrap`` package).

A server started by :func:`command` runs in new user, PID, mount, network, IPC, UTS and cgroup
namespaces: it sees its own processes only (a ``/proc`` of its own), has no network interface
but its own loopback (no route out, no DNS, nothing of the host's loopback) unless loopback is
allowed, holds no capabilities, sees the file system read-only except its own folder (HOME and
TMPDIR point there), and dies with the process that started it; when its first process ends, the
kernel ends every process left in its PID namespace, whatever it forked or however it detached.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

#: The program, looked up on PATH.
BWRAP = "bwrap"


@functools.lru_cache(maxsize=1)
def unavailable() -> str | None:
    """Why namespaces cannot be used here (no ``bwrap`` on PATH, or the kernel or container
    refuses the namespaces), or None when a probe sandbox ran."""
    program = shutil.which(BWRAP)
    if program is None:
        return f"`{BWRAP}` is not installed (Debian and Ubuntu: apt-get install bubblewrap)"
    probe = [program, *_arguments(Path("/"), share_network=False), "--", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`{BWRAP}` could not run: {exc}"
    if done.returncode != 0:
        return f"`{BWRAP}` refused to make the namespaces: {done.stderr.strip() or done.returncode}"
    return None


def command(argv: Sequence[str], home: Path, *, share_network: bool) -> list[str]:
    """``argv`` run in a sandbox whose only writable folder is ``home`` (bubblewrap passes
    inherited descriptors through as they are)."""
    program = shutil.which(BWRAP) or BWRAP
    return [program, *_arguments(home, share_network=share_network), "--", *argv]


def _arguments(home: Path, *, share_network: bool) -> list[str]:
    arguments = [
        "--unshare-all",  # user, ipc, pid, net, uts, cgroup (where the kernel allows)
        *(["--share-net"] if share_network else []),
        "--die-with-parent",
        "--new-session",
        "--cap-drop", "ALL",
        "--ro-bind", "/", "/",
        "--proc", "/proc",
        "--dev", "/dev",
    ]  # fmt: skip
    if str(home) != "/":
        arguments += ["--bind", str(home), str(home), "--chdir", str(home)]
    # coverage.py's subprocess measurement (this package's own test suite): its data file's folder
    coverage = os.environ.get("COVERAGE_FILE")
    if coverage and os.environ.get("COVERAGE_PROCESS_CONFIG"):
        folder = str(Path(coverage).resolve().parent)
        arguments += ["--bind", folder, folder]
    return arguments
