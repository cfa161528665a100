"""``file_writer``: write a UTF-8 text file inside a configured root directory, atomically.

Refused, with an ``unsafe_path`` error: absolute paths (POSIX, Windows drive or UNC), any ``..``
component, NUL bytes, paths whose resolution (symlinks followed) leaves the root, and existing
directories. Text larger than ``DISPATCHGUARD_TOOLS_MAX_FILE_BYTES`` (UTF-8) is a ``too_large``
error. The text goes to a temporary file in the target's directory, is flushed and fsynced, then
renamed over the target: readers see the old file or the new one, never a partial write.

Known limit: a process that can replace a directory inside the root with a symlink between the
check and the write could redirect it; the root should not be writable by untrusted processes.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated

from annotated_types import MaxLen, MinLen

from dispatchguard.atomic import atomic_write
from dispatchguard.runtime.json_text import ensure_json_str

from .errors import TextTooLarge, ToolArgumentError, UnsafePathError
from .settings import get_tool_settings


def file_writer(file_path: Annotated[str, MinLen(1), MaxLen(1024)], text: str) -> str:
    """Write text to a file under the output directory; returns JSON {"path", "bytes", "created"}.

    Args:
        file_path: relative path inside the output directory, e.g. "reports/today.md".
        text: the complete content of the file (UTF-8).
    """
    settings = get_tool_settings()
    root = Path(settings.file_root).resolve()
    target = resolve_inside(root, file_path)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        reason = f"text is not valid Unicode: {exc.reason} at position {exc.start}"
        raise ToolArgumentError(reason, argument="text") from None
    if len(data) > settings.max_file_bytes:
        raise TextTooLarge(
            f"text is {len(data)} bytes, more than the limit of {settings.max_file_bytes}",
            bytes=len(data),
            limit=settings.max_file_bytes,
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    created = not target.exists()
    atomic_write(target, data)
    return ensure_json_str({"path": target.relative_to(root).as_posix(), "bytes": len(data), "created": created})


def resolve_inside(root: Path, file_path: str) -> Path:
    """The resolved target of ``file_path`` under ``root``, or :class:`UnsafePathError`."""

    def refuse(reason: str) -> UnsafePathError:
        return UnsafePathError(f"refused path {file_path!r}: {reason}", path=file_path)

    if "\x00" in file_path:
        raise refuse("it contains a NUL byte")
    posix, windows = PurePosixPath(file_path), PureWindowsPath(file_path)
    if posix.is_absolute() or windows.drive or windows.root:
        raise refuse("absolute paths are not allowed; give a path relative to the output directory")
    if ".." in windows.parts:  # PureWindowsPath splits on both / and \
        raise refuse("'..' is not allowed")
    parts = [part for part in windows.parts if part not in ("", ".")]
    if not parts:
        raise refuse("it names no file")
    target = root.joinpath(*parts).resolve()
    if not target.is_relative_to(root) or target == root:
        raise refuse("it leads outside the output directory (through a symlink)")
    if target.is_dir():
        raise refuse("it is a directory")
    return target
