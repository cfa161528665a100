"""``json-lines``: the objects of the ``json`` format, one per line (for streaming readers)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dispatchguard.cli.output import Context
from dispatchguard.cli.output.json_format import shown


def render(findings: Sequence[Any], context: Context) -> str:
    """Return the ``json`` format's objects, compact, one line each; ``''`` when none is shown."""
    return "".join(
        json.dumps(item, ensure_ascii=False, separators=(",", ":")) + "\n" for item in shown(findings, context)
    )
