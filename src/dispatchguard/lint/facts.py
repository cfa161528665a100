"""What a rule may know about the file it checks, to decide its own exemptions."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FileFacts:
    relpath: str  # root-relative POSIX path
    is_test: bool  # matches the configured test patterns
    is_tool_module: bool  # matches the configured tool modules (where tools are created)
