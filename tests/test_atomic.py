"""atomic_write: old or new content, never half a file, permission bits kept."""

from __future__ import annotations

import os
import stat

import pytest

from dispatchguard import atomic
from dispatchguard.atomic import atomic_write


def test_replaces_content_and_keeps_mode(tmp_path):
    target = tmp_path / "x.py"
    target.write_bytes(b"old\r\n")
    os.chmod(target, 0o751)
    atomic_write(target, b"new\r\n")
    assert target.read_bytes() == b"new\r\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert [p.name for p in tmp_path.iterdir()] == ["x.py"]


def test_new_file_gets_default_or_given_mode(tmp_path):
    atomic_write(tmp_path / "a.json", b"{}")
    atomic_write(tmp_path / "b.json", b"[]", mode=0o600)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == atomic.DEFAULT_MODE
    assert stat.S_IMODE((tmp_path / "b.json").stat().st_mode) == 0o600
    assert (tmp_path / "b.json").read_bytes() == b"[]"


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_failure_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch, failing):
    target = tmp_path / "x.py"
    target.write_bytes(b"old")

    def disk_full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, failing, disk_full)
    with pytest.raises(OSError, match="No space left"):
        atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.py"]


def test_missing_directory_is_an_oserror_and_creates_nothing(tmp_path):
    with pytest.raises(FileNotFoundError):
        atomic_write(tmp_path / "missing" / "x.py", b"new")
    assert list(tmp_path.iterdir()) == []
