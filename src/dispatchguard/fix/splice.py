"""Putting replacement nodes into a module, and refusing results that change anything else."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from dispatchguard.fix.base import Fix


class _Replace(cst.CSTTransformer):
    def __init__(self, mapping: dict[cst.CSTNode, cst.CSTNode]) -> None:
        self.mapping = mapping

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        return self.mapping.get(original_node, updated_node)


def line_offsets(code: str) -> list[int]:
    """Character offset of the start of each line (1-based line numbers index it)."""
    starts = [0, 0]
    for i, ch in enumerate(code):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def node_span(rng: Any, starts: list[int]) -> tuple[int, int]:
    return starts[rng.start.line] + rng.start.column, starts[rng.end.line] + rng.end.column


def apply_fixes(module: cst.Module, fixes: Sequence[Fix]) -> tuple[cst.Module | None, str]:
    """Apply non-overlapping fixes; return the new module, or None and why it was refused."""
    old_code = module.code
    old_positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    mapping = {fix.target: fix.replacement for fix in fixes}
    new_module = module.visit(_Replace(mapping))
    new_code = new_module.code
    try:
        reparsed = cst.parse_module(new_code)
    except cst.ParserSyntaxError as exc:
        return None, f"the result would not parse ({str(exc).splitlines()[0]})"
    del reparsed
    # Everything outside the replaced nodes must be byte-for-byte the same.
    new_positions = MetadataWrapper(new_module, unsafe_skip_copy=True).resolve(PositionProvider)
    old_starts, new_starts = line_offsets(old_code), line_offsets(new_code)
    old_cut, new_cut = 0, 0
    pairs = sorted(
        ((node_span(old_positions[f.target], old_starts), f.replacement) for f in fixes), key=lambda p: p[0]
    )
    for (old_start, old_end), replacement in pairs:
        if replacement not in new_positions:
            return None, "the replacement node is not in the result"
        new_start, new_end = node_span(new_positions[replacement], new_starts)
        if old_code[old_cut:old_start] != new_code[new_cut:new_start]:
            return None, "it would change code outside the node it targets"
        old_cut, new_cut = old_end, new_end
    if old_code[old_cut:] != new_code[new_cut:]:
        return None, "it would change code outside the node it targets"
    return new_module, ""


def only_imports_changed(before: str, after: str) -> bool:
    """True when ``after`` differs from ``before`` only by import statements."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for chunk in ("".join(a[i1:i2]), "".join(b[j1:j2])):
            if not chunk.strip():
                continue
            try:
                statements = cst.parse_module(chunk).body
            except cst.ParserSyntaxError:
                return False
            for statement in statements:
                if not (
                    isinstance(statement, cst.SimpleStatementLine)
                    and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)
                ):
                    return False
    return True
