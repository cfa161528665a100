"""What the subcommands share: argument types, the one-line error convention, and applying the
command line's rule selection on top of the configuration.

Only the standard library at import time: the router imports every subcommand module to build its
parser, and `dispatchguard check` must never load libcst or pydantic.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import gc
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

_SELECTOR_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


class UsageError(Exception):
    """A problem with the command line, the configuration or an input file: exit 2, one line."""


def add_project_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose the project's settings and files, shared by check and fix."""
    parser.add_argument(
        "--config", metavar="FILE", help="read [tool.dispatchguard] from FILE instead of the nearest pyproject.toml"
    )
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="the project's environment (an interpreter or environment folder) whose tool libraries are read; "
        "default: the `python` setting, else $VIRTUAL_ENV, else .venv or venv at the project root",
    )
    parser.add_argument(
        "--force-exclude",
        action="store_true",
        default=None,
        help="apply exclude and ignore files to paths given explicitly too (for pre-commit)",
    )


def add_optional_value_option(
    parser: argparse.ArgumentParser, option: str, *, dest: str, help: str, group: Any = None
) -> None:
    """An option whose value is optional and can only follow ``=`` (clap's ``require_equals``, as in
    ruff's ``--add-noqa[=REASON]``): the bare option is a flag that never takes the next word, so
    ``--add-noqa a.py b.py`` checks both files. argparse has no such option (``nargs="?"`` takes the
    next word, even a path), so the parser reads ``OPTION=VALUE`` itself and hands argparse the flag.
    The value is ``""`` for the bare flag and None when the option is absent; ``group`` is the
    help section the option is listed in."""
    (group or parser).add_argument(option, dest=dest, action="store_const", const="", default=None, help=help)
    parse = parser.parse_known_args
    prefix = option + "="

    def parse_known_args(args: Any = None, namespace: Any = None) -> Any:
        given = list(sys.argv[1:] if args is None else args)
        value, handed = None, []
        for position, arg in enumerate(given):
            if arg == "--":  # after it, `--add-noqa=x` is a file name
                handed += given[position:]
                break
            if arg.startswith(prefix):
                value, arg = arg[len(prefix) :], option
            handed.append(arg)
        namespace, extras = parse(handed, namespace)
        if value is not None:
            setattr(namespace, dest, value)
        return namespace, extras

    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]


def require_paths(paths: list[str]) -> None:
    """Every path exists. ``-`` (standard input) is named as such: only ``check`` reads it, and only
    to report, never to write."""
    for path in paths:
        if path == "-":
            raise UsageError(
                "'-' (standard input) cannot be written back; "
                "to check a buffer: dispatchguard check --stdin-filename PATH -"
            )
        try:
            os.stat(path)
        except OSError as exc:
            raise UsageError(f"{path}: {_missing_reason(path, exc)}") from None


def _missing_reason(path: str, exc: OSError) -> str:
    """Why a named path cannot be checked, in the words that lead to the fix."""
    if exc.errno == errno.ELOOP:
        return "a symbolic link loop (too many levels of symbolic links)"
    if os.path.islink(path):
        return f"a symbolic link to {os.readlink(path)}, which does not exist"
    if exc.errno == errno.ENOENT:
        return "no such file or directory"
    return exc.strerror or str(exc)


def code_list(value: str) -> list[str]:
    """argparse type for `--select DG101,DG1`: upper-cased codes or prefixes, or ALL."""
    codes = [part.strip().upper() for part in value.split(",") if part.strip()]
    for code in codes:
        if not (code[:1].isalpha() and set(code) <= _SELECTOR_CHARS):
            raise argparse.ArgumentTypeError(
                f"invalid rule selector {code!r} (expected a code or prefix such as DG101 or DG1, or ALL)"
            )
    return codes


def positive(kind: type) -> Callable[[str], Any]:
    """argparse type for a positive ``int`` or ``float`` option (workers, timeouts, sizes)."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    return parse


def job_count(value: str) -> int:
    """argparse type for `-j`: 0 means all cores."""
    try:
        jobs = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid job count {value!r}") from None
    if jobs < 0:
        raise argparse.ArgumentTypeError("the job count must be 0 (all cores) or more")
    return jobs


def print_error(message: str) -> None:
    """Print ``dispatchguard: error: MESSAGE`` on stderr, its whitespace collapsed to one line."""
    print(f"dispatchguard: error: {' '.join(message.split())}", file=sys.stderr)


def run_guarded(body: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a subcommand so that usage errors and bugs end as one line on stderr and exit 2,
    never as a traceback in a hook or a CI log."""
    try:
        return body(args)
    except UsageError as exc:
        print_error(str(exc))
        return 2
    except KeyboardInterrupt:
        print_error("interrupted")
        return 2
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        print_error(f"internal error ({detail}); please report it with the command you ran")
        return 2


def plural(count: int, noun: str) -> str:
    """Return ``'COUNT NOUN'``, the noun with an ``s`` unless ``count`` is 1 (``0 files``)."""
    return f"{count} {noun}{'s' if count != 1 else ''}"


def unreadable_notebooks(paths: list[str], config: Any) -> list[tuple[str, str]]:
    """The notebooks under ``paths`` that cannot be checked (not valid JSON, not nbformat 4,
    unreadable), each with why, shown relative to the current directory when below it."""
    from dispatchguard.lint.discovery import display_path, scan
    from dispatchguard.lint.notebook import NotebookError, read_notebook

    cwd = Path.cwd()
    unreadable = []
    for path in scan(paths, config, config.root).notebooks:
        try:
            read_notebook(path)
        except NotebookError as exc:
            unreadable.append((display_path(path, cwd), str(exc)))
        except OSError as exc:
            unreadable.append((display_path(path, cwd), f"cannot read the file: {exc.strerror or exc}"))
    return unreadable


def report_notebooks(notebooks: list[tuple[str, str]]) -> int:
    """One error line on stderr per notebook that could not be checked (never a silent pass);
    returns how many (the command then exits 2, the other files' findings reported)."""
    for path, reason in notebooks:
        print_error(f"{path}: {reason}")
    return len(notebooks)


def effective_config(args: argparse.Namespace) -> Any:
    """The configuration for `args.paths` (or `--config`), with `--select` replacing the configured
    selection and `--extend-select`/`--ignore` adding to theirs; `--strict`, `--preview` and
    `--force-exclude` switch those settings on. Options a subcommand does not offer are simply
    absent from `args`."""
    from dispatchguard import lint

    try:
        config = lint.load_config(args.paths, config_file=args.config)
    except lint.ConfigError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot read the configuration: {exc}") from None
    given: dict[str, tuple[str, ...]] = {}
    for option in ("select", "extend_select", "ignore"):
        codes = getattr(args, option, None)
        if codes is None:
            continue
        codes = tuple(dict.fromkeys("" if code == "ALL" else code for code in codes))
        for code in codes:
            if not any(known.startswith(code) for known in lint.RULES):
                flag = "--" + option.replace("_", "-")
                raise UsageError(
                    f"{flag}: unknown rule code or prefix {code!r} (known: {', '.join(sorted(lint.RULES))})"
                )
        given[option] = codes
    changes: dict[str, Any] = {}
    if "select" in given:
        changes["select"] = given["select"]
        changes["extend_select"] = ()
    for option in ("extend_select", "ignore"):
        if given.get(option):
            changes[option] = tuple(dict.fromkeys((*changes.get(option, getattr(config, option)), *given[option])))
    if getattr(args, "strict", None):
        changes["strict"] = True
    if getattr(args, "preview", None):
        changes["preview"] = True
    if getattr(args, "force_exclude", None):
        changes["force_exclude"] = True
    if getattr(args, "python", None):
        from dispatchguard.lint.environment import environment_of

        python = Path(os.path.abspath(args.python)).as_posix()
        try:
            environment_of(python)
        except lint.ConfigError as exc:
            raise UsageError(f"--python: {exc}") from None
        changes["python"] = python
    return dataclasses.replace(config, **changes) if changes else config


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    """The cyclic garbage collector off for a checking run (``check``, ``fix``).

    A run allocates syntax trees and summaries and frees them whole, without cycles: the collector
    would only rescan them (about 4 % of a cold check's CPU on langchain-community; a fix of a
    generated 5 MB module paid seconds when the collector came back between its passes), and once
    more when it is enabled again or at exit. So it is off for the run, and what the run kept is
    frozen out of its sight before it is back.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:  # a caller that runs `main()` in its own process keeps its collector
            gc.freeze()
            gc.enable()
