"""Explain a rule: print its documentation page (what it does, why, examples, fix safety, options).

`dispatchguard rule DG101` prints one page, `dispatchguard rule --all` every page. With
`--output-format json`: an object (a list with --all) with `code`, `name`, `summary` and
`explanation` (the page), as `ruff rule --output-format json` does.
Exit status: 0, or 2 for an unknown code.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from pathlib import Path

from dispatchguard.cli.common import UsageError, run_guarded

HELP = "explain a rule (or --all): print its documentation page"
# In a wheel the pages are packaged as dispatchguard/rule_docs (pyproject's force-include); in a
# source checkout (an editable install) they are read where they live, docs/rules.
PACKAGED_DOCS = "rule_docs"
CHECKOUT_DOCS = Path(__file__).resolve().parents[3] / "docs" / "rules"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the rule code or --all (one is required) and --output-format text or json."""
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("code", nargs="?", metavar="CODE", help="the rule code, e.g. DG101")
    which.add_argument("--all", action="store_true", help="every rule")
    parser.add_argument("--output-format", choices=("text", "json"), default="text", help="text (the page) or json")


def run(args: argparse.Namespace) -> int:
    """Print the rule page(s) and return 0; 2 for an unknown code or an uninstalled page."""
    return run_guarded(_run, args)


def page(code: str) -> str:
    """The documentation page of a rule code (Markdown)."""
    packaged = resources.files("dispatchguard").joinpath(PACKAGED_DOCS, f"{code}.md")
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    checkout = CHECKOUT_DOCS / f"{code}.md"
    try:
        return checkout.read_text(encoding="utf-8")
    except OSError:
        raise UsageError(
            f"the documentation of {code} is not installed (looked in the package and {checkout})"
        ) from None


def _run(args: argparse.Namespace) -> int:
    from dispatchguard.lint import RULES

    if args.all:
        codes = sorted(RULES)
    else:
        code = args.code.strip().upper()
        if code not in RULES:
            raise UsageError(f"unknown rule code {args.code!r} (known: {', '.join(sorted(RULES))})")
        codes = [code]
    if args.output_format == "json":
        items = [
            {
                "code": code,
                "name": RULES[code].name,
                "summary": RULES[code].summary,
                "explanation": page(code),
            }
            for code in codes
        ]
        sys.stdout.write(json.dumps(items if args.all else items[0], indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write("\n".join(page(code).rstrip("\n") + "\n" for code in codes))
    return 0
