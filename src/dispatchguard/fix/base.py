"""What a rule's fixer receives and returns: text edits on one file, never a whole-file rewrite."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dispatchguard.lint.inference.tree_values import statement_at
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
    """A fixer's answer for one finding: the edits that fix it and whether applying them is safe.

    The engine adds the ``imports`` (where isort puts them) and applies an unsafe fix only with
    ``--unsafe-fixes``; ``unsafe_because`` says why it is unsafe. :class:`NoFix` is the other
    answer.
    """

    edits: tuple[Edit, ...]
    safe: bool
    description: str
    imports: tuple[Import, ...] = ()
    #: for an unsafe fix, what makes it unsafe (``direct calls read the raw return at a.py:3``)
    unsafe_because: tuple[str, ...] = ()


@dataclass(frozen=True)
class NoFix:
    """No fix for this finding, and why."""

    reason: str


class FileContext:
    """One file to fix: its text, its ``ast`` tree, the project's tool facts, and the findings of
    the file this pass fixes (a fixer may depend on what the others change)."""

    def __init__(self, key: str, text: str, tree: ast.Module, facts: ToolFacts, findings: Sequence[Any] = ()) -> None:
        self.key = key
        self.findings = tuple(findings)
        self.text = text
        self.tree = tree
        self.facts = facts
        self.lines = text.splitlines(keepends=True)
        self.starts = [0, 0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, char_col: int) -> int:
        """Character offset of a 1-based line and 0-based character column."""
        return self.starts[line] + char_col

    def char_col(self, line: int, byte_col: int) -> int:
        """``ast`` columns count UTF-8 bytes; edits count characters."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def byte_col(self, line: int, char_col: int) -> int:
        """Return the UTF-8 byte column of a 0-based character column on a 1-based line."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text[:char_col].encode("utf-8"))

    def node_start(self, node: Any) -> int:
        """Return the character offset in ``text`` where an ``ast`` node starts."""
        return self.offset(node.lineno, self.char_col(node.lineno, node.col_offset))

    def node_end(self, node: Any) -> int:
        """Return the character offset in ``text`` just past the end of an ``ast`` node."""
        return self.offset(node.end_lineno, self.char_col(node.end_lineno, node.end_col_offset))

    def source(self, node: Any) -> str:
        """Return the exact source text of an ``ast`` node, comments and line breaks included."""
        return self.text[self.node_start(node) : self.node_end(node)]

    def _path(self, line: int, col: int) -> tuple[list[Any], tuple[int, int]]:
        """The nodes whose span holds a finding's 1-based (line, character column), outermost
        first (a descent from the module, not a walk of the file), and the position in bytes."""
        position = (line, self.byte_col(line, col - 1))
        path: list[Any] = []
        node: ast.AST = self.tree
        top = statement_at(self.tree.body, *position)  # halving, not a scan of a long module
        if top is None:
            return path, position
        path.append(top)
        node = top
        while True:
            for child in ast.iter_child_nodes(node):
                if hasattr(child, "end_lineno") and (child.lineno, child.col_offset) <= position <= (
                    child.end_lineno,
                    child.end_col_offset,
                ):
                    path.append(child)
                    node = child
                    break
            else:
                return path, position

    def nodes_at(self, line: int, col: int, kind: type) -> list[Any]:
        """Nodes of ``kind`` starting at a finding's 1-based (line, character column)."""
        path, position = self._path(line, col)
        return [n for n in path if isinstance(n, kind) and (n.lineno, n.col_offset) == position]

    def flagged_return(self, finding: Any) -> tuple[ast.Return, ast.expr | None] | None:
        """The ``return`` statement a finding is about and the expression it flags inside it: the
        whole value, or part of it (the content element of a ``(content, artifact)`` tuple); None
        as the expression for a bare ``return``. None when the finding is not in a ``return``."""
        path, start = self._path(finding.line, finding.col)
        returns = [n for n in path if isinstance(n, ast.Return)]
        if not returns:
            return None
        ret = returns[-1]
        if ret.value is None:
            return (ret, None) if (ret.lineno, ret.col_offset) == start else None
        end = (finding.end_line, self.byte_col(finding.end_line, finding.end_col - 1))
        for node in ast.walk(ret.value):  # breadth first: the outermost node of that span
            if isinstance(node, ast.expr) and (node.lineno, node.col_offset) == start:
                if (node.end_lineno, node.end_col_offset) == end:
                    return ret, node
        return None
