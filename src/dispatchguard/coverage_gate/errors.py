"""The gate's one exception type."""

from __future__ import annotations


class GateError(Exception):
    """A problem that makes the gate unable to decide (exit 2)."""
