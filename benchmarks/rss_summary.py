"""Size scaling of rss_feed's summaries on hostile descriptions (many ``<`` and no ``>``).

For each size, CPU time (user+sys, best of 3) of ``parse_feed`` on a feed whose one description is
that many escaped ``<``, next to the regular expression the summaries used before (quadratic; run
only up to ``--regex-max`` characters). Linear time shows as a per-character cost that stays flat
as the size doubles; the last line is the ratio of the largest size's cost per character to the
smallest's (1.0 = perfectly linear).

Usage: python benchmarks/rss_summary.py [--sizes 40000,80000,...] [--regex-max 80000] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import time

from dispatchguard.tools import parse_feed

OLD_TAG = re.compile(r"<[^>]*>")


def cpu() -> float:
    return time.process_time()  # user + sys of this process, finer-grained than os.times()


def best_cpu(function, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = cpu()
        function()
        best = min(best, cpu() - start)
    return best


def feed(size: int) -> str:
    return f"<rss><channel><item><title>x</title><description>{'&lt;' * size}</description></item></channel></rss>"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="40000,80000,160000,320000,640000,1280000,5242880")
    parser.add_argument("--regex-max", type=int, default=40_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        document = feed(size)
        seconds = best_cpu(lambda document=document: parse_feed(document))
        row = {"chars": size, "parse_feed_s": round(seconds, 4), "ns_per_char": round(seconds / size * 1e9, 1)}
        if size <= args.regex_max:
            text = "<" * size
            row["old_regex_s"] = round(best_cpu(lambda text=text: OLD_TAG.sub(" ", text), repeat=1), 4)
        rows.append(row)
    ratio = rows[-1]["ns_per_char"] / rows[0]["ns_per_char"]
    if args.json:
        print(json.dumps({"rows": rows, "cost_per_char_ratio_largest_to_smallest": round(ratio, 2)}))
        return
    for row in rows:
        old = f"   old regex {row['old_regex_s']:.3f} s" if "old_regex_s" in row else ""
        print(f"{row['chars']:>9} chars  parse_feed {row['parse_feed_s']:.4f} s  {row['ns_per_char']:>6} ns/char{old}")
    print(f"cost per character, largest / smallest size: {ratio:.2f} (1.0 = linear)")


if __name__ == "__main__":
    main()
