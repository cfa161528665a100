"""``file_writer``: write a UTF-8 text file inside a configured root directory, atomically.

Refused, with an ``unsafe_path`` error: absolute paths (POSIX, Windows drive or UNC), any ``..``
component, NUL bytes, paths whose resolution (symlinks followed) leaves the root or loops, and
existing directories. Refused as ``invalid_args``: a path ending in a separator (it names a
directory, not a file), control characters (newlines, tabs, escapes) in any component, and a
component longer than the filesystem's limit (NAME_MAX, 255 bytes on most). Text larger than
``DISPATCHGUARD_TOOLS_MAX_FILE_BYTES`` (UTF-8) is a ``too_large`` error. The text goes to a
temporary file in the target's directory, is flushed and fsynced, then renamed over the target:
readers see the old file or the new one, never a partial write.

Known limit: a process that can replace a directory inside the root with a symlink between the
check and the write could redirect it; the root should not be writable by untrusted processes.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated

from annotated_types import MaxLen, MinLen

from dispatchguard.atomic import atomic_write
from dispatchguard.runtime.json_text import ensure_json_str

from .errors import TextTooLarge, ToolArgumentError, UnsafePathError
from .settings import get_tool_settings

DEFAULT_NAME_MAX = 255


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


def _name_max(root: Path) -> int:
    """NAME_MAX of the filesystem under ``root`` (its nearest existing ancestor), else 255."""
    probe = root
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        return os.pathconf(probe, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):  # no pathconf (Windows) or no answer
        return DEFAULT_NAME_MAX


def resolve_inside(root: Path, file_path: str) -> Path:
    """The resolved target of ``file_path`` under ``root``; :class:`UnsafePathError` for a path that
    could escape, :class:`ToolArgumentError` for one that cannot name a file."""
    parts = _relative_parts(file_path)
    _check_names(root, file_path, parts)
    return _resolved(root, file_path, parts)


def _refused(file_path: str, reason: str) -> UnsafePathError:
    return UnsafePathError(f"refused path {file_path!r}: {reason}", path=file_path)


def _invalid(file_path: str, reason: str) -> ToolArgumentError:
    return ToolArgumentError(f"invalid file_path {file_path!r}: {reason}", argument="file_path", path=file_path)


def _relative_parts(file_path: str) -> list[str]:
    """The path's components, when it is relative, without ``..`` and names something."""
    if "\x00" in file_path:
        raise _refused(file_path, "it contains a NUL byte")
    posix, windows = PurePosixPath(file_path), PureWindowsPath(file_path)
    if posix.is_absolute() or windows.drive or windows.root:
        raise _refused(file_path, "absolute paths are not allowed; give a path relative to the output directory")
    if ".." in windows.parts:  # PureWindowsPath splits on both / and \
        raise _refused(file_path, "'..' is not allowed")
    parts = [part for part in windows.parts if part not in ("", ".")]
    if not parts:
        raise _refused(file_path, "it names no file")
    return parts


def _check_names(root: Path, file_path: str, parts: list[str]) -> None:
    """No control character, no trailing separator, no component over the filesystem's limit."""
    control = next((ch for ch in file_path if unicodedata.category(ch) in ("Cc", "Cs")), None)
    if control is not None:
        raise _invalid(file_path, f"character {control!r} in the name: control characters (newlines, tabs, "
                                  "escapes) and lone surrogates are not allowed")
    if file_path.endswith(("/", "\\")) or file_path.replace("\\", "/").endswith("/."):
        raise _invalid(file_path, "it ends with a separator, so it names a directory; give a file name")
    name_max = _name_max(root)
    for part in parts:
        size = len(os.fsencode(part))
        if size > name_max:
            raise _invalid(file_path, f"the name {part[:40]!r}... is {size} bytes, more than the limit of {name_max}")


def _resolved(root: Path, file_path: str, parts: list[str]) -> Path:
    """The target with symlinks followed, refused when it loops, leaves ``root`` or is a directory."""
    try:
        target = root.joinpath(*parts).resolve()
    except (RuntimeError, OSError) as exc:  # RuntimeError up to 3.12, OSError(ELOOP) from 3.13
        raise _refused(file_path, f"it cannot be resolved (symlink loop): {exc}") from None
    if not target.is_relative_to(root) or target == root:
        raise _refused(file_path, "it leads outside the output directory (through a symlink)")
    if target.is_dir():
        raise _refused(file_path, "it is a directory")
    return target
