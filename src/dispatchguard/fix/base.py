"""What a rule's fixer receives and returns: text edits on one file, never a whole-file rewrite."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from dispatchguard.lint.tool_facts import ToolFacts


@dataclass(frozen=True)
class Edit:
    """Replace the characters ``[start, end)`` of the file's text by ``text``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Import:
    """An import a fix needs: ``from module import name``, or ``import module`` when name is None."""

    module: str
    name: str | None = None


@dataclass(frozen=True)
class Fix:
    edits: tuple[Edit, ...]
    safe: bool
    description: str
    imports: tuple[Import, ...] = ()


@dataclass(frozen=True)
class NoFix:
    """No fix for this finding, and why."""

    reason: str


class FileContext:
    """One file to fix: its text, its ``ast`` tree, and the project's tool facts."""

    def __init__(self, key: str, text: str, tree: ast.Module, facts: ToolFacts) -> None:
        self.key = key
        self.text = text
        self.tree = tree
        self.facts = facts
        self.lines = text.splitlines(keepends=True)
        self.starts = [0, 0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        self._by_start: dict[tuple[int, int], list[Any]] | None = None
        self._returns: dict[tuple[int, int], ast.Return] = {}

    def offset(self, line: int, char_col: int) -> int:
        """Character offset of a 1-based line and 0-based character column."""
        return self.starts[line] + char_col

    def char_col(self, line: int, byte_col: int) -> int:
        """``ast`` columns count UTF-8 bytes; edits count characters."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def byte_col(self, line: int, char_col: int) -> int:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text[:char_col].encode("utf-8"))

    def node_start(self, node: Any) -> int:
        return self.offset(node.lineno, self.char_col(node.lineno, node.col_offset))

    def node_end(self, node: Any) -> int:
        return self.offset(node.end_lineno, self.char_col(node.end_lineno, node.end_col_offset))

    def source(self, node: Any) -> str:
        return self.text[self.node_start(node) : self.node_end(node)]

    def _index(self) -> dict[tuple[int, int], list[Any]]:
        if self._by_start is None:
            self._by_start = {}
            for node in ast.walk(self.tree):
                if hasattr(node, "col_offset"):
                    self._by_start.setdefault((node.lineno, node.col_offset), []).append(node)
                if isinstance(node, ast.Return) and node.value is not None:
                    self._returns[(node.value.lineno, node.value.col_offset)] = node
        return self._by_start

    def nodes_at(self, line: int, col: int, kind: type) -> list[Any]:
        """Nodes of ``kind`` starting at a finding's 1-based (line, character column)."""
        found = self._index().get((line, self.byte_col(line, col - 1)), [])
        return [node for node in found if isinstance(node, kind)]

    def return_of_value_at(self, line: int, col: int) -> ast.Return | None:
        """The ``return`` statement whose value starts at a finding's (line, character column)."""
        self._index()
        return self._returns.get((line, self.byte_col(line, col - 1)))
