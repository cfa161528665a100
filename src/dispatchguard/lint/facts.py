"""What a rule may know about the file it checks, to decide its own exemptions."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FileFacts:
    """What a rule's ``exempt`` judges a file by: its path and what the configured globs make it.

    Made on demand by ``Project.facts``, only for a rule that has exemptions. Immutable.
    """

    relpath: str  # root-relative POSIX path
    is_test: bool  # matches the configured test patterns
    is_tool_module: bool  # matches the configured tool modules (where tools are created)
