"""Path globs as regular expressions, shared by the lint configuration and the coverage gate.

``*`` and ``?`` stay within one path segment, ``[...]`` is a character class (``[!...]`` negated),
``**/`` at the start of a segment matches zero or more whole directories and any other ``**`` spans
segments. Standard library only: the linter core uses it on its hot path.
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=512)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """Translate a POSIX path glob, as written, into a regex anchored at the end (use ``match``)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**", i):
            at_segment_start = i == 0 or pattern[i - 1] == "/"
            j = i + 2
            if at_segment_start and j < n and pattern[j] == "/":
                out.append("(?:.*/)?")  # '**/' : zero or more whole directories
                i = j + 1
                continue
            out.append(".*")
            i = j
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end == -1:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Translate a path glob (``*``, ``?``, ``[...]``, ``**``) into a regex over POSIX paths
    (backslashes count as ``/``; leading ``./`` are dropped)."""
    pattern = pattern.replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return compile_glob(pattern)
