"""`dispatchguard` entry point: routes to one module per subcommand.

A subcommand module defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``;
its ``--help`` text is its ``DESCRIPTION`` when it has one (text made from tables), else its docstring.
An unknown option is reported with the usage of the subcommand it was given to.
Exit codes follow ruff: 0 clean, 1 findings or changes, 2 usage, config or internal error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

SUBCOMMANDS = {
    "check": "dispatchguard.cli.check",
    "fix": "dispatchguard.cli.fix",
    "rule": "dispatchguard.cli.rule",
    "coverage": "dispatchguard.cli.coverage",
    "serve": "dispatchguard.cli.serve",
    "rag": "dispatchguard.cli.rag",
    "lsp": "dispatchguard.cli.lsp",
    "verify": "dispatchguard.cli.verify",
    "mcp": "dispatchguard.cli.mcp",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of ``only`` (importing one subcommand's module rather
    than all of them saves every run a fifth of its start-up)."""
    parser = argparse.ArgumentParser(
        prog="dispatchguard",
        description="Enforce one tool dispatcher and JSON-string tool outputs in agent code.",
    )
    parser.add_argument("--version", action="version", version=_version())
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = {only: SUBCOMMANDS[only]} if only in SUBCOMMANDS else SUBCOMMANDS
    for name, module_name in chosen.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # subcommand not built yet
                continue
            raise
        description = getattr(module, "DESCRIPTION", module.__doc__)
        sub = subparsers.add_parser(
            name, help=module.HELP, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        module.add_arguments(sub)
        sub.set_defaults(run=module.run, parser=sub)
    return parser


def _version() -> str:
    from dispatchguard import __version__

    return f"dispatchguard {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the subcommand named in ``argv`` (default: ``sys.argv[1:]``) and return its exit status.
    Only that subcommand's module is imported. Usage errors and ``--help``/``--version`` raise
    ``SystemExit`` from argparse (status 2, resp. 0) instead of returning."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    args, unknown = build_parser(command).parse_known_args(argv)
    if unknown:  # argparse would print the top-level usage: the subcommand's is the one that helps
        args.parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
