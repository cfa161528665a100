"""pylint's parseable format, as ruff writes it: ``path:line: [CODE] message`` (what Jenkins'
warnings plugin and other pylint readers parse)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dispatchguard.cli.output import Context, is_hidden


def render(findings: Sequence[Any], context: Context) -> str:
    return "".join(f"{f.path}:{f.line}: [{f.code}] {f.message}\n" for f in findings if not is_hidden(f, context))
