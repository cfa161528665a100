"""DG002's fix (safe): the unused and unknown codes leave the line's ``# noqa``, and the directive
goes when none is left; other tools' codes and comments after the directive stay."""

from __future__ import annotations

from pathlib import Path

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import check_paths, load_config

SOURCE = """\
import os

a = os.getcwd()  # noqa: DG101
b = os.getcwd()  # noqa: E501, DG999
c = os.getcwd()  # noqa: DG101  # keep this note
d = os.getcwd()  # noqa: E501
"""
FIXED = """\
import os

a = os.getcwd()
b = os.getcwd()  # noqa: E501
c = os.getcwd()  # keep this note
d = os.getcwd()  # noqa: E501
"""


def test_unused_codes_are_removed_by_the_safe_tier(tmp_path: Path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n')
    (tmp_path / "mod.py").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    config = load_config(["."])
    assert [f.code for f in check_paths(["."], config, use_cache=False).active] == ["DG002"] * 3

    report = apply_fixes(["."], config, use_cache=False)
    assert (tmp_path / "mod.py").read_text() == FIXED
    assert [(a.line, a.safe) for a in report.applied] == [(3, True), (4, True), (5, True)]
    assert report.applied[1].description == "remove DG999 from the noqa directive"
    assert report.remaining == [] and report.exit_code == 1
    assert apply_fixes(["."], config, use_cache=False).changed_files == []
