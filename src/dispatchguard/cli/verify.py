"""Run the project's tools and check that every call answers JSON text.

Tools are found through the checker's project index (tool classes, tool functions, tools built at
module level), each built and called in a fresh fork of the run's fork server with arguments generated from
its argument schema (hypothesis, fixed seed), the network sealed, HOME and TMPDIR redirected and
the environment's secrets left out. Exit status: 0 every tool that could be built kept the
contract, 1 a tool broke it (or hung, or crashed), 2 usage or configuration error. Defaults come
from `[tool.dispatchguard.verify]`. The tools run under the project's interpreter (`--python`, the
`python` setting, or the environment `check` finds), dispatchguard from its own.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dispatchguard.cli.common import UsageError, effective_config, job_count, plural, require_paths, run_guarded

HELP = "run the project's tools and check that every call answers JSON text"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the paths, --config, --cases, --timeout, --output-format and -j."""
    parser.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or directories (default: .)")
    parser.add_argument("--config", metavar="FILE", help="read [tool.dispatchguard] from FILE")
    parser.add_argument("--cases", type=int, metavar="N", help="calls per tool (default: 10)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="seconds per call (default: 5)")
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "sarif", "github"),
        default="text",
        help="text, json, sarif (code scanning) or github (annotations): the tools that broke the contract",
    )
    parser.add_argument("-j", "--jobs", type=job_count, default=1, metavar="N", help="tools verified at a time")
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="the project's interpreter (or environment folder) that runs the tools; dispatchguard runs from its own "
        "(default: the python setting, VIRTUAL_ENV, or a .venv or venv at the project root, as check finds it)",
    )
    parser.add_argument(
        "--isolation",
        choices=("auto", "namespaces", "seal"),
        default="auto",
        help="namespaces: the tools in a bubblewrap sandbox (an error where the OS offers none); seal: a plain "
        "process with the network sealed in Python; auto (default): namespaces where available, else seal",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``dispatchguard verify``: 0 every tool that could be built kept the contract, 1 a tool
    broke it (or hung, or crashed), 2 usage, configuration or internal error. Summary on stderr."""
    return run_guarded(_run, args)


def _run(args: argparse.Namespace) -> int:
    from dispatchguard.verify.discover import verify_targets
    from dispatchguard.verify.runner import (
        IsolationUnavailable,
        VerifyOptions,
        project_interpreter,
        resolve_isolation,
        verify_tools,
    )

    require_paths(args.paths)
    config = effective_config(args)
    settings = config.verify
    try:
        python = project_interpreter(args.python, config)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    options = VerifyOptions.from_settings(
        settings, cases=args.cases, timeout=args.timeout, isolation=args.isolation, python=python
    )
    if options.cases < 1 or options.timeout <= 0:
        raise UsageError("--cases must be at least 1 and --timeout positive")
    try:
        level = resolve_isolation(options.isolation)
    except IsolationUnavailable as exc:
        raise UsageError(str(exc)) from None
    targets = verify_targets(args.paths, config)
    reports = verify_tools(targets, options, jobs=args.jobs)
    if args.output_format == "json":
        sys.stdout.write(json.dumps([_as_json(r) for r in reports], indent=2, default=repr) + "\n")
    elif args.output_format in ("sarif", "github"):
        sys.stdout.write(_as_findings_format(args.output_format, [r for r in reports if r.failed]))
    else:
        for report in reports:
            if report.status != "verified" or report.threads_left:
                print(_as_text(report))
    counts = {status: sum(r.status == status for r in reports) for status in ("verified", "not_built")}
    failed = sum(r.failed for r in reports)
    print(
        f"{plural(len(reports), 'tool')} found: {counts['verified']} verified, {failed} broke the contract, "
        f"{counts['not_built']} not built. Isolation: {_ISOLATION[level]}."
        + (f" Tools run by {python}." if python else ""),
        file=sys.stderr,
    )
    return 1 if failed else 0


_ISOLATION = {
    "namespaces": "namespaces (bubblewrap: no network, own /proc, writes to its folder only)",
    "seal": "seal (plain processes, network sealed in Python; see docs/verify.md)",
}


def _as_findings_format(name: str, failed: list[Any]) -> str:
    """The failed tools as findings of their static rule (DG103/DG104) at their definition, in
    the check command's SARIF or GitHub format."""
    import os

    from dispatchguard import __version__
    from dispatchguard.cli.output import Context, github, sarif
    from dispatchguard.lint import RULES, Finding

    findings = [
        Finding(r.target.path, r.target.line, 1, r.target.rule, _message(r), r.target.line, 1) for r in failed
    ]
    context = Context(rules=RULES, cwd=os.getcwd(), version=__version__)
    return (sarif if name == "sarif" else github).render(findings, context)


def _message(report: Any) -> str:
    text = f"verify: tool `{report.target.label}` {report.status}: {report.detail}"
    if report.arguments is not None:
        text += f" (arguments: {json.dumps(report.arguments, ensure_ascii=False, default=repr)})"
    return text


def _as_text(report: Any) -> str:
    target = report.target
    where = f"{target.path}:{target.line}:1: {target.rule}"
    if report.status == "not_built":
        return f"{where} tool `{target.label}` not built: {report.detail}"
    if report.status == "verified":  # kept the contract, but left threads running behind it
        return f"{where} tool `{target.label}` verified, but left {plural(report.threads_left, 'thread')} running"
    line = f"{where} tool `{target.label}` {report.status}: {report.detail}"
    if report.arguments is not None:
        line += f" (arguments: {json.dumps(report.arguments, ensure_ascii=False, default=repr)})"
    return line


def _as_json(report: Any) -> dict[str, Any]:
    target = report.target
    return {
        "tool": target.label,
        "kind": target.kind,
        "filename": target.path,
        "line": target.line,
        "code": target.rule,
        "status": report.status,
        "detail": report.detail,
        "arguments": report.arguments,
        "calls": report.calls,
        "output_bytes": report.output_bytes,
        "threads_left": report.threads_left,
        "cpu_seconds": round(report.cpu_seconds, 3),
        "wall_seconds": round(report.wall_seconds, 3),
        "startup_seconds": round(report.startup_seconds, 3),
        "isolation": report.isolation,
    }
