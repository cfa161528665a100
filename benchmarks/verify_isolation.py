"""What the namespace sandbox costs a worker of ``dispatchguard verify``, against the fallback seal,
measured in the same run: ``N`` trivial tools (a project decorator, no framework to import, so the
worker's own start is what is measured), each verified with ``--cases 3`` under each level, the
levels alternated tool by tool. CPU is user+sys of each worker and everything below it (its
reaper waits for all of them; ``os.wait4``); wall is per tool, ``-j 1``::

    .venv/bin/python benchmarks/verify_isolation.py [--tools 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from dispatchguard.lint import load_config
from dispatchguard.verify import sandbox
from dispatchguard.verify.discover import verify_targets
from dispatchguard.verify.runner import VerifyOptions, verify_tool


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=10)
    args = parser.parse_args()
    problem = sandbox.unavailable()
    if problem is not None:
        print(f"no namespace sandbox here: {problem}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pyproject.toml").write_text('[tool.dispatchguard]\ntool-decorators = ["bench.tool"]\n')
        (root / "bench.py").write_text("def tool(function):\n    return function\n")
        (root / "tools.py").write_text(
            "import json\n\nfrom bench import tool\n"
            + "".join(f"\n\n@tool\ndef t{i}(q: str) -> str:\n    return json.dumps(q)\n" for i in range(args.tools))
        )
        import os

        os.chdir(root)
        targets = verify_targets(["."], load_config([root]))
        options = VerifyOptions(cases=3)
        measured: dict[str, list[tuple[float, float]]] = {"seal": [], "namespaces": []}
        for target in targets:
            for level in measured:
                started = time.monotonic()
                report = verify_tool(target, options, isolation=level)
                assert report.status == "verified", report
                measured[level].append((report.cpu_seconds, time.monotonic() - started))
    print(f"{len(targets)} tools, --cases 3, -j 1; median per tool:")
    medians = {}
    for level, rows in measured.items():
        cpu = statistics.median(r[0] for r in rows)
        wall = statistics.median(r[1] for r in rows)
        medians[level] = (cpu, wall)
        print(f"  {level:<10} CPU {cpu:.3f} s   wall {wall:.3f} s")
    (seal_cpu, seal_wall), (ns_cpu, ns_wall) = medians["seal"], medians["namespaces"]
    print(f"  namespaces / seal: CPU x{ns_cpu / seal_cpu:.2f}, wall x{ns_wall / seal_wall:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
