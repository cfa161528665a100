"""Every rule code has its documentation page, in ruff's sections; the config page lists every key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.lint import RULES
from dispatchguard.lint.config import KNOWN_KEYS

DOCS = Path(__file__).resolve().parents[2] / "docs"
SECTIONS = ["## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety", "## Options"]


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_has_a_page(code: str) -> None:
    page = DOCS / "rules" / f"{code}.md"
    assert page.is_file(), f"{code} has no page at {page}"
    text = page.read_text(encoding="utf-8")
    assert text.startswith(f"# {RULES[code].name} ({code})")
    positions = [text.find(section) for section in SECTIONS]
    assert all(p >= 0 for p in positions), f"{code}: missing sections"
    assert positions == sorted(positions), f"{code}: sections out of order"


def test_configuration_page_lists_every_key() -> None:
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    for key in KNOWN_KEYS:
        assert f"`{key}`" in text, key


def test_rules_index_is_generated_from_the_rule_table() -> None:
    script = DOCS.parent / "scripts" / "rules_index.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    index = (DOCS / "rules" / "README.md").read_text(encoding="utf-8")
    for code, rule in RULES.items():
        assert f"[{code}]({code}.md) | `{rule.name}`" in index
