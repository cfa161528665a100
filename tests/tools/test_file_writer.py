"""file_writer: confinement to the root, size limit, atomic replacement."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dispatchguard.tools import configure_tools, file_writer


def files_under(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_writes_relative_paths_and_creates_directories(fresh_settings, call):
    root = fresh_settings
    out = call("file_writer", file_path="reports/2024/today.md", text="# Hello\n")
    assert out == {"path": "reports/2024/today.md", "bytes": 8, "created": True}
    assert (root / "reports/2024/today.md").read_text() == "# Hello\n"
    out = call("file_writer", file_path="./reports//2024/today.md", text="é")
    assert out == {"path": "reports/2024/today.md", "bytes": 2, "created": False}
    assert (root / "reports/2024/today.md").read_text(encoding="utf-8") == "é"
    assert call("file_writer", file_path="a\\b.txt", text="x")["path"] == "a/b.txt"  # \\ is a separator too


def test_overwrite_keeps_the_file_mode(fresh_settings):
    root = fresh_settings
    file_writer("notes.txt", "one")
    target = root / "notes.txt"
    assert target.stat().st_mode & 0o777 == 0o644
    target.chmod(0o600)
    file_writer("notes.txt", "two")
    assert target.read_text() == "two" and target.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/passwd", "absolute paths are not allowed"),
        ("C:\\Windows\\win.ini", "absolute paths are not allowed"),
        ("C:relative.txt", "absolute paths are not allowed"),
        ("\\\\server\\share\\x", "absolute paths are not allowed"),
        ("\\rooted.txt", "absolute paths are not allowed"),
        ("../escape.txt", "'..' is not allowed"),
        ("a/../../escape.txt", "'..' is not allowed"),
        ("a/../b.txt", "'..' is not allowed"),
        ("a\\..\\..\\escape.txt", "'..' is not allowed"),
        ("a\x00b", "NUL byte"),
        (".", "it names no file"),
        ("./", "it names no file"),
    ],
)
def test_unsafe_paths_are_refused(fresh_settings, call, path, reason):
    out = call("file_writer", file_path=path, text="x")
    assert out["kind"] == "unsafe_path" and reason in out["error"] and out["path"] == path
    assert not fresh_settings.exists() or files_under(fresh_settings) == []


def test_symlinks_leading_out_are_refused(fresh_settings, tmp_path, call):
    root = fresh_settings
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "linkfile").symlink_to(outside / "victim.txt")  # dangling, pointing out
    (root / "rootlink").symlink_to(root, target_is_directory=True)
    for path in ("linkdir/x.txt", "linkfile", "linkdir/sub/deeper.txt"):
        out = call("file_writer", file_path=path, text="pwned")
        assert out["kind"] == "unsafe_path" and "outside the output directory" in out["error"]
    assert call("file_writer", file_path="rootlink", text="x")["kind"] == "unsafe_path"
    assert list(outside.iterdir()) == []


def test_symlink_inside_the_root_is_followed(fresh_settings, call):
    root = fresh_settings
    (root / "real").mkdir(parents=True)
    (root / "alias").symlink_to(root / "real", target_is_directory=True)
    assert call("file_writer", file_path="alias/f.txt", text="ok")["path"] == "real/f.txt"
    assert (root / "real/f.txt").read_text() == "ok"


def test_directory_target_is_refused(fresh_settings, call):
    (fresh_settings / "dir").mkdir(parents=True)
    out = call("file_writer", file_path="dir", text="x")
    assert out["kind"] == "unsafe_path" and "it is a directory" in out["error"]


def test_oversize_text_is_refused(fresh_settings, call):
    configure_tools(max_file_bytes=10)
    out = call("file_writer", file_path="big.txt", text="é" * 6)  # 12 bytes in UTF-8
    assert (out["kind"], out["bytes"], out["limit"]) == ("too_large", 12, 10)
    assert not (fresh_settings / "big.txt").exists()
    assert call("file_writer", file_path="ok.txt", text="é" * 5)["bytes"] == 10


def test_invalid_unicode_and_schema_errors(call):
    out = call("file_writer", file_path="s.txt", text="bad \ud800 surrogate")
    assert out["kind"] == "invalid_args" and "position 4" in out["error"]
    assert call("file_writer", file_path="", text="x")["kind"] == "invalid_args"
    assert call("file_writer", file_path="x.txt")["kind"] == "invalid_args"
    assert call("file_writer", file_path="x.txt", text=5)["kind"] == "invalid_args"


def test_atomic_write_leaves_no_partial_file(fresh_settings, monkeypatch, call):
    root = fresh_settings
    file_writer("doc.txt", "original")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    out = call("file_writer", file_path="doc.txt", text="new content that never lands")
    assert out["kind"] == "tool_error" and "No space left on device" in out["error"]
    out = call("file_writer", file_path="fresh.txt", text="never")
    assert out["kind"] == "tool_error"
    monkeypatch.undo()
    assert (root / "doc.txt").read_text() == "original"
    assert files_under(root) == ["doc.txt"]  # no temporary file, no partial fresh.txt


def test_default_root_is_relative_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    configure_tools(reset=True)
    file_writer("x.txt", "hi")
    assert (tmp_path / "output" / "x.txt").read_text() == "hi"
    assert os.path.isdir(tmp_path / "output")


@pytest.mark.parametrize("path", ["a/", "a\\", "reports/2024/", "a/.", "a\\."])
def test_a_trailing_separator_names_a_directory_not_a_file(fresh_settings, call, path):
    out = call("file_writer", file_path=path, text="x")
    assert out["kind"] == "invalid_args" and "ends with a separator" in out["error"] and out["path"] == path
    assert not fresh_settings.exists() or files_under(fresh_settings) == []


@pytest.mark.parametrize("path", ["a\nb.txt", "report\r.md", "tab\there.txt", "esc\x1b[31m.txt", "del\x7f.txt",
                                  "c1\x85.txt", "dir\n/x.txt", "lone\ud800.txt"])
def test_control_characters_in_names_are_invalid(fresh_settings, call, path):
    out = call("file_writer", file_path=path, text="x")
    # a lone surrogate is not a valid string: the strict validator refuses it before the tool runs
    reason = "unicode string" if "\ud800" in path else "not allowed"
    assert out["kind"] == "invalid_args" and reason in out["error"]
    assert not fresh_settings.exists() or files_under(fresh_settings) == []


@pytest.mark.parametrize("size", [242, 250, 255])
def test_names_up_to_name_max_bytes_are_written(fresh_settings, call, size):
    name = "n" * (size - 3) + ".md"
    out = call("file_writer", file_path=f"long/{name}", text="body")
    assert out == {"path": f"long/{name}", "bytes": 4, "created": True}
    assert (fresh_settings / "long" / name).read_text() == "body"
    assert call("file_writer", file_path=f"long/{name}", text="again")["created"] is False
    assert files_under(fresh_settings) == ["long", f"long/{name}"]  # no temporary file left behind


def test_multibyte_names_count_bytes_not_characters(fresh_settings, call):
    fits = "é" * 127  # 254 bytes
    assert call("file_writer", file_path=fits, text="x")["path"] == fits
    out = call("file_writer", file_path="é" * 128, text="x")  # 256 bytes
    assert out["kind"] == "invalid_args" and "256 bytes, more than the limit of 255" in out["error"]


def test_a_name_longer_than_name_max_is_invalid(fresh_settings, call):
    out = call("file_writer", file_path="d/" + "x" * 256, text="x")
    assert out["kind"] == "invalid_args" and "more than the limit" in out["error"]


def test_a_symlink_loop_is_an_unsafe_path(fresh_settings, call):
    root = fresh_settings
    root.mkdir()
    (root / "a").symlink_to(root / "b")
    (root / "b").symlink_to(root / "a")
    (root / "self").symlink_to(root / "self")
    for path in ("a", "a/x.txt", "self", "self/deeper/x.txt"):
        out = call("file_writer", file_path=path, text="x")
        assert out["kind"] == "unsafe_path" and "symlink loop" in out["error"], path
    assert sorted(p.name for p in root.iterdir()) == ["a", "b", "self"]
