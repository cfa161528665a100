"""The first process of a run's fork server: ``python -m dispatchguard.verify.reaper ALIVE COMMAND ...``.

It runs ``COMMAND`` (the fork server, or bubblewrap starting it) as its child and, on Linux, is the
*subreaper* of everything below it (``PR_SET_CHILD_SUBREAPER``): a process the tool starts is
reparented to it when its parent ends, however it detached (``setsid``, a double fork). When the
command ends, or on SIGTERM or SIGINT, it kills every process left below it and waits for each,
then exits with the command's status (``128 + N`` when a signal N ended it). It alone holds the
descriptor ``ALIVE`` (the write end of a pipe, closed in the command): the runner sees the pipe's
end when this process has ended, and then nothing the server or a tool started is left running.
Standard library only; it imports nothing of the project.
"""

from __future__ import annotations

import os
import signal
import sys

#: prctl(2) option: orphaned descendants are reparented to this process, not to init.
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux); False where it cannot be."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def children() -> list[int]:
    """The processes whose parent is this one (read from /proc)."""
    me = os.getpid()
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(entry))
    return found


def kill_all(group: int | None) -> None:
    """Kill every process below this one and wait for each (those reparented meanwhile too)."""
    if group is not None:
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    while True:
        for pid in children():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def main(argv: list[str]) -> int:
    """Run ``argv[1:]`` (``argv[0]``: the descriptor only this process keeps); end everything
    below this process; return the command's status."""
    alive, argv = int(argv[0]), argv[1:]
    become_subreaper()
    child = 0

    def end(signum: int, frame: object) -> None:
        kill_all(child or None)

    signal.signal(signal.SIGTERM, end)  # before the fork: no moment in which a signal would orphan it
    signal.signal(signal.SIGINT, end)
    child = os.fork()
    if child == 0:  # pragma: no cover - replaced by exec
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.setpgid(0, 0)
        os.close(alive)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    top = os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024
    os.closerange(3, alive)  # the worker's pipe is its own
    os.closerange(alive + 1, top)
    while True:
        try:
            pid, status = os.waitpid(child, 0)
        except ChildProcessError:  # reaped by kill_all in the handler
            status = signal.SIGKILL  # a wait status: killed by SIGKILL
            break
        if pid == child:
            break
    kill_all(child)
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
