"""Every rule code has its documentation page, in ruff's sections; the config page lists every key."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.lint import RULES
from dispatchguard.lint.config import KNOWN_KEYS, LintConfig
from dispatchguard.lint.source import check_source

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


@pytest.mark.integration
def test_rules_index_is_generated_from_the_rule_table() -> None:
    script = DOCS.parent / "scripts" / "rules_index.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    index = (DOCS / "rules" / "README.md").read_text(encoding="utf-8")
    for code, rule in RULES.items():
        assert f"[{code}]({code}.md) | `{rule.name}`" in index


FILE_HEADER = re.compile(r"^# (?P<path>[\w/]+\.py)$", re.M)


def section_blocks(page: str, section: str) -> list[str]:
    start = page.index(section)
    end = page.find("\n## ", start + len(section))
    return re.findall(r"```python\n(.*?)\n```", page[start : end if end > 0 else None], re.S)


def project_of(block: str) -> dict[str, str]:
    """A block as the files of a project: ``# app/x.py`` lines start a file (else ``app/example.py``)."""
    parts = FILE_HEADER.split(block)
    files = {"app/example.py": parts[0]} if parts[0].strip() else {}
    files.update({path: source for path, source in zip(parts[1::2], parts[2::2], strict=True)})
    return {path: source.strip("\n") + "\n" for path, source in files.items()}


def codes_reported(files: dict[str, str], code: str) -> set[str]:
    """The codes reported on a project, ``code`` selected (a rule in preview runs only so)."""
    found = set()
    config = LintConfig(extend_select=(code,))
    for path, source in files.items():
        extra = {other: text for other, text in files.items() if other != path}
        found |= {f.code for f in check_source(source, config, path=path, extra=extra) if not f.suppressed}
    return found


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_page_example_is_reported_and_its_fix_is_not(code: str) -> None:
    """The page's *Example* is checked as a project and reports the rule; *Use instead* does not."""
    page = (DOCS / "rules" / f"{code}.md").read_text(encoding="utf-8")
    examples, fixed = section_blocks(page, "## Example"), section_blocks(page, "## Use instead")
    assert examples, f"{code}: no python block under ## Example"
    for block in examples:
        assert code in codes_reported(project_of(block), code), f"{code}: the page's example is not reported"
    for block in fixed:
        assert code not in codes_reported(project_of(block), code), f"{code}: the page's fix is still reported"
