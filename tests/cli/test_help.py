"""A subcommand's --help keeps the usage examples of its description one per line (argparse's
default formatter had reflowed them into the prose)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration


def test_rag_help_shows_one_example_per_line():
    done = subprocess.run([sys.executable, "-m", "dispatchguard", "rag", "--help"], capture_output=True, text=True,
                          env={"COLUMNS": "80", "PATH": ""}, check=True)
    lines = [line.strip() for line in done.stdout.splitlines()]
    for example in (
        "dispatchguard rag index docs/ notes.md --collection handbook [--index rag.sqlite]",
        'dispatchguard rag search "retry policy" [--collection handbook | --global] [--limit 5]',
        "dispatchguard rag collections",
    ):
        assert example in lines, done.stdout
