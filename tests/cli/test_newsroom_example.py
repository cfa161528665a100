"""The bundled example (examples/newsroom): the violating twin yields exactly the findings its
`# expect: DGxxx` comments announce, the fixed twin is clean, and flake8 with our plugin agrees
with the CLI on both."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from ..conftest import about
from .conftest import run_cli

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "newsroom"
VIOLATING = EXAMPLE / "violating"
FIXED = EXAMPLE / "fixed"
EXPECT = re.compile(r"#\s*expect:\s*(DG\d{3}(?:\s*,\s*DG\d{3})*)")
LINE = re.compile(r"^(?:\./)?(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>DG\d{3}) (?P<message>.*)$")


def expectations(root: Path) -> Counter[tuple[str, int, str]]:
    expected: Counter[tuple[str, int, str]] = Counter()
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = EXPECT.search(line)
            if match:
                for code in re.split(r"\s*,\s*", match[1]):
                    expected[(path.relative_to(root).as_posix(), number, code)] += 1
    return expected


def findings(stdout: str) -> list[tuple[str, int, int, str, str]]:
    out = []
    for line in stdout.splitlines():
        match = LINE.match(line)
        assert match, f"unexpected output line: {line!r}"
        out.append((match["path"], int(match["line"]), int(match["col"]), match["code"], match["message"]))
    return out


def test_the_violating_twin_announces_several_findings_of_each_rule():
    per_code = Counter(code for (_, _, code), n in expectations(VIOLATING).items() for _ in range(n))
    assert all(per_code[code] >= 3 for code in ("DG101", "DG102", "DG103")), per_code


@pytest.mark.integration
def test_violating_twin_yields_exactly_the_expected_findings():
    done = run_cli("check", "--no-cache", ".", cwd=VIOLATING)
    assert done.returncode == 1, done.stderr
    got = Counter((path, line, code) for path, line, _, code, _ in about(findings(done.stdout)))
    expected = expectations(VIOLATING)
    assert sorted((got - expected).elements()) == [], "unexpected findings"
    assert sorted((expected - got).elements()) == [], "missing findings"


@pytest.mark.integration
def test_fixed_twin_is_clean():
    assert not expectations(FIXED)
    done = run_cli("check", "--no-cache", ".", cwd=FIXED)
    assert (done.returncode, done.stdout) == (0, ""), done.stdout + done.stderr


@pytest.mark.integration
def test_fixed_twin_is_clean_in_strict_mode_too():
    done = run_cli("check", "--no-cache", "--strict", ".", cwd=FIXED)
    assert (done.returncode, done.stdout) == (0, ""), done.stdout + done.stderr


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.parametrize("twin", [VIOLATING, FIXED], ids=["violating", "fixed"])
def test_flake8_gives_the_same_findings_as_the_cli(twin):
    cli = run_cli("check", "--no-cache", ".", cwd=twin)
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "DG", "."],
        cwd=twin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in flake8.stderr, flake8.stderr
    assert flake8.returncode == cli.returncode
    assert sorted(findings(flake8.stdout)) == sorted(findings(cli.stdout))


@pytest.mark.integration
@pytest.mark.slow
def test_demo_runs_and_succeeds():
    """`make demo`: checks both twins, dispatches two calls, exits 0 when all behaved."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "demo.py")], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(exit status 1)" in done.stdout and "(exit status 0)" in done.stdout
    assert '"status": "at_risk"' in done.stdout and '"kind": "invalid_args"' in done.stdout
    assert done.stdout.rstrip().endswith("demo OK: the checker flags the violating twin, the fixed twin is clean.")
