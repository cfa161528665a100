"""Pool the blind sets' first runs: the sum of each rule's TP/FP/FN over the committed ``result.json``
of the sets given (each set's first run of the checker, written before anyone tuned on it).

Usage: python benchmarks/recall_blind/pool.py benchmarks/recall_blind_7 benchmarks/recall_blind_8 ...
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

RULES = ("DG101", "DG102", "DG103", "DG104")


def pool(sets: list[Path]) -> dict[str, dict[str, int]]:
    """Each rule's summed tp, fp, fn and tn."""
    total = {rule: {"tp": 0, "fp": 0, "fn": 0, "tn": 0} for rule in RULES}
    for directory in sets:
        scores = json.loads((directory / "result.json").read_text(encoding="utf-8"))["rules"]
        for rule in RULES:
            for key in total[rule]:
                total[rule][key] += scores.get(rule, {}).get(key, 0)
    return total


def main(argv: list[str] | None = None) -> int:
    sets = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    if not sets:
        print(__doc__, file=sys.stderr)
        return 2
    print(f"{len(sets)} sets: {', '.join(s.name for s in sets)}")
    print("rule    tp  fp  fn   tn  precision  recall")
    for rule, n in pool(sets).items():
        precision = n["tp"] / (n["tp"] + n["fp"]) if n["tp"] + n["fp"] else float("nan")
        recall = n["tp"] / (n["tp"] + n["fn"]) if n["tp"] + n["fn"] else float("nan")
        print(f"{rule} {n['tp']:5} {n['fp']:3} {n['fn']:3} {n['tn']:4}  {precision:9.2f}  {recall:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
