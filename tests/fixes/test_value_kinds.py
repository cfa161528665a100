"""The JSON wraps cannot raise on what tools return: each value kind ``json`` cannot encode by
itself (datetime, date, UUID, Decimal, sets, enums, pydantic models, non-ASCII text) is returned
by a LangChain tool, the project is fixed with ``--unsafe-fixes``, and the fixed tools are run in a
subprocess: every result is a ``str`` that ``json.loads`` reads, with the value expected for the
wrap the project gets (``json.dumps(..., ensure_ascii=False, default=str)`` without a run-time
dependency on dispatchguard, ``ensure_json_str`` with one)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import load_config

pytestmark = pytest.mark.integration

TOOLS = '''\
import enum
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

from langchain_core.tools import tool
from pydantic import BaseModel

WHEN = datetime(2024, 5, 1, 12, 30, tzinfo=timezone.utc)


class Colour(enum.Enum):
    RED = 1


class Report(BaseModel):
    title: str
    at: datetime
    note: str = ""


def make_report():
    return Report(title="Météo", at=WHEN)


@tool
def a_datetime() -> dict:
    """A datetime."""
    return {"value": WHEN}


@tool
def a_date() -> dict:
    """A date."""
    return {"value": date(2024, 5, 1)}


@tool
def a_uuid() -> dict:
    """A UUID."""
    return {"value": uuid.UUID(int=1)}


@tool
def a_decimal() -> dict:
    """A Decimal."""
    return {"value": Decimal("1.50")}


@tool
def a_set() -> set:
    """A set."""
    return {3}


@tool
def an_enum() -> dict:
    """An enum member."""
    return {"value": Colour.RED}


@tool
def a_model() -> dict:
    """A pydantic model inside a dict."""
    return {"value": make_report()}


@tool
def text(city: str) -> str:
    """Non-ASCII text."""
    return f"{city}: 20°C"


@tool
def dumped(detailed: bool) -> dict:
    """A model proven pydantic, given an attribute in a branch."""
    report = Report(title="Météo", at=WHEN)
    if detailed:
        report.note = "détails"
    return report.model_dump()


@tool
def dumped_with_arguments() -> dict:
    """model_dump with arguments."""
    return Report(title="Météo", at=WHEN).model_dump(exclude={"note"})


@tool
def dumped_unknown() -> dict:
    """model_dump of an object whose class the fixer cannot prove."""
    return make_report().model_dump()
'''

CALLS = {
    "a_datetime": {},
    "a_date": {},
    "a_uuid": {},
    "a_decimal": {},
    "a_set": {},
    "an_enum": {},
    "a_model": {},
    "text": {"city": "Zürich"},
    "dumped": {"detailed": True},
    "dumped_with_arguments": {},
    "dumped_unknown": {},
}
RUNNER = """\
import json, sys
import app.tools as tools
calls = json.loads(sys.argv[1])
out = {}
for name, args in calls.items():
    result = getattr(tools, name).invoke(args)
    assert isinstance(result, str), (name, type(result))
    out[name] = result
print(json.dumps(out))
"""
WHEN = datetime(2024, 5, 1, 12, 30, tzinfo=timezone.utc)
ISO = "2024-05-01T12:30:00Z"
REPORT = {"title": "Météo", "at": ISO, "note": ""}
#: What each tool's fixed return reads back as, per wrap.
EXPECTED = {
    "json.dumps": {
        "a_datetime": {"value": "2024-05-01 12:30:00+00:00"},
        "a_date": {"value": "2024-05-01"},
        "a_uuid": {"value": "00000000-0000-0000-0000-000000000001"},
        "a_decimal": {"value": "1.50"},
        "a_set": "{3}",
        "an_enum": {"value": "Colour.RED"},
        "a_model": {"value": f"title='Météo' at={WHEN!r} note=''"},
        "text": "Zürich: 20°C",
        "dumped": {**REPORT, "note": "détails"},
        "dumped_with_arguments": {"title": "Météo", "at": ISO},
        "dumped_unknown": {"title": "Météo", "at": "2024-05-01 12:30:00+00:00", "note": ""},
    },
    "ensure_json_str": {
        "a_datetime": {"value": "2024-05-01T12:30:00+00:00"},
        "a_date": {"value": "2024-05-01"},
        "a_uuid": {"value": "00000000-0000-0000-0000-000000000001"},
        "a_decimal": {"value": "1.50"},
        "a_set": [3],
        "an_enum": {"value": 1},
        "a_model": {"value": REPORT},
        "text": "Zürich: 20°C",
        "dumped": {**REPORT, "note": "détails"},
        "dumped_with_arguments": {"title": "Météo", "at": ISO},
        "dumped_unknown": {"title": "Météo", "at": "2024-05-01T12:30:00+00:00", "note": ""},
    },
}


@pytest.mark.parametrize("wrap", sorted(EXPECTED))
def test_fixed_tools_return_json_text_for_every_value_kind(wrap: str, tmp_path: Path, monkeypatch):
    dependencies = '["dispatchguard"]' if wrap == "ensure_json_str" else "[]"
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "app"\ndependencies = {dependencies}\n')
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "tools.py").write_text(TOOLS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    report = apply_fixes(["."], load_config(["."]), unsafe=True, use_cache=False)
    fixed = (tmp_path / "app" / "tools.py").read_text(encoding="utf-8")
    assert len(report.applied) == len(CALLS), report.skipped
    assert "return report.model_dump_json()" in fixed  # proven pydantic although given an attribute
    assert "def dumped(detailed: bool) -> str:" in fixed  # the annotation says what it returns now
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, json.dumps(CALLS)], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    assert {name: json.loads(text) for name, text in results.items()} == EXPECTED[wrap]
    assert "Zürich: 20°C" in results["text"]  # not escaped: readable for the model and for people
