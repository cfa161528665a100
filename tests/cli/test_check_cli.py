"""`dispatchguard check` end to end: the real CLI in a subprocess, and `main(argv)` in-process."""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from dispatchguard.cli import check as check_cmd
from dispatchguard.cli.main import main

from ..conftest import SELECT, about
from .conftest import run_cli, write_tree

SCHEMA = json.loads(
    Path(
        os.environ.get("DG_SARIF_SCHEMA") or Path(__file__).parent / "data" / "sarif-2.1.0-subset.schema.json"
    ).read_text(encoding="utf-8")
)
LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>DG\d{3}) (?P<message>.+)$")


def parsed(stdout: str) -> list[tuple[str, int, int, str]]:
    out = []
    for line in stdout.splitlines():
        match = LINE.match(line)
        assert match, f"not a finding line: {line!r}"
        out.append((match["path"], int(match["line"]), int(match["col"]), match["code"]))
    return out


EXPECTED = [
    ("app/agent.py", 5, 12, "DG102"),
    ("app/agent.py", 6, 12, "DG101"),
    ("app/tools.py", 10, 16, "DG103"),
]


@pytest.mark.integration
def test_text_output_and_exit_status(project):
    done = run_cli("check", *SELECT, "--no-cache")
    assert done.returncode == 1, done.stderr
    assert parsed(done.stdout) == EXPECTED
    assert done.stderr.strip() == (
        "Found 3 findings in 3 files (2 checked, 1 without a tool word). 2 silenced by # noqa or the baseline."
    )
    assert "Traceback" not in done.stderr


@pytest.mark.integration
def test_default_path_is_cwd_and_explicit_paths_narrow_the_report(project):
    done = run_cli("check", *SELECT, "--no-cache", "app/tools.py")
    assert parsed(done.stdout) == [EXPECTED[2]]
    whole = run_cli("check", *SELECT, "--no-cache").stdout
    assert run_cli("check", *SELECT, "--no-cache", str(project)).stdout == whole


@pytest.mark.integration
def test_clean_project_exits_0(project):
    done = run_cli("check", *SELECT, "--no-cache", "app/__init__.py")
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.startswith("All checks passed")


@pytest.mark.integration
def test_exit_zero(project):
    done = run_cli("check", *SELECT, "--no-cache", "--exit-zero")
    assert done.returncode == 0
    assert len(parsed(done.stdout)) == 3


@pytest.mark.integration
@pytest.mark.parametrize(
    ("args", "codes"),
    [
        (["--select", "DG103"], ["DG103"]),
        (["--select", "DG101,DG102"], ["DG102", "DG101"]),
        (["--ignore", "DG1"], []),
        (["--ignore", "dg102"], ["DG101", "DG103"]),
        (["--select", "DG103", "--extend-select", "DG101"], ["DG101", "DG103"]),
        (["--select", "ALL", "--ignore", "DG101"], ["DG102", "DG103"]),
    ],
)
def test_rule_selection(project, args, codes):
    done = run_cli("check", "--no-cache", *args)
    assert [f[3] for f in about(parsed(done.stdout))] == codes
    assert done.returncode == (1 if codes else 0)


@pytest.mark.integration
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--select", "DG999"], "--select: unknown rule code or prefix 'DG999'"),
        (["--ignore", "XY1"], "--ignore: unknown rule code or prefix 'XY1'"),
        (["--select", "DG1;"], "invalid rule selector"),
        (["-j", "-3"], "the job count must be 0"),
        (["--output-format", "xml"], "invalid choice: 'xml'"),
        (["--baseline", "a.json", "--write-baseline", "b.json"], "not allowed with argument"),
        (["no/such/dir"], "no/such/dir: no such file or directory"),
        (["--config", "missing.toml"], "missing.toml: configuration file not found"),
        (["--baseline", "missing.json"], "baseline file missing.json not found"),
        (
            ["--statistics", "--output-format", "sarif"],
            "--statistics works with the text (concise) and json formats, not sarif",
        ),
    ],
)
def test_usage_errors_exit_2_with_one_line(project, args, message):
    done = run_cli("check", *SELECT, "--no-cache", *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


@pytest.mark.integration
def test_broken_config_names_file_and_key(project):
    (project / "pyproject.toml").write_text("[tool.dispatchguard]\ntool-bases = 5\n")
    done = run_cli("check", *SELECT, "--no-cache")
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("dispatchguard: error: ")
    assert "pyproject.toml" in line and "tool-bases" in line


@pytest.mark.integration
def test_invalid_toml_is_exit_2(project):
    (project / "pyproject.toml").write_text("[tool.dispatchguard\n")
    done = run_cli("check", *SELECT, "--no-cache")
    assert done.returncode == 2
    assert "invalid TOML" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.integration
def test_config_file_option(project, tmp_path):
    other = tmp_path / "elsewhere.toml"
    other.write_text('[tool.dispatchguard]\nignore = ["DG103"]\n')
    done = run_cli("check", "--no-cache", "--config", str(other), str(project))
    assert [f[3] for f in about(parsed(done.stdout))] == ["DG102", "DG101"]


@pytest.mark.integration
def test_unparsable_file_is_dg001_and_the_rest_is_checked(project):
    # a file that names a tool word is parsed, so its syntax error is DG001 (one that names none is
    # never parsed: its syntax is the Python linter's business)
    (project / "app" / "broken.py").write_text("from crewai.tools import BaseTool\ndef oops(:\n    pass\n")
    done = run_cli("check", *SELECT, "--no-cache")
    assert done.returncode == 1
    found = parsed(done.stdout)
    assert [f for f in found if f[3] == "DG001"] == [("app/broken.py", 2, 10, "DG001")]
    assert [f for f in found if f[3] != "DG001"] == EXPECTED


@pytest.mark.integration
def test_json_output(project):
    done = run_cli("check", *SELECT, "--no-cache", "--output-format", "json")
    assert done.returncode == 1
    items = json.loads(done.stdout)
    assert [
        (Path(i["filename"]).relative_to(project).as_posix(), i["location"]["row"], i["location"]["column"], i["code"])
        for i in items
    ] == EXPECTED
    for item in items:
        assert Path(item["filename"]).is_file()
        assert (item["fix"] is None) == (item["code"] != "DG103"), item  # only DG103 has a fix here
        assert item["url"].endswith(f"/docs/rules/{item['code']}.md")
        assert item["end_location"]["row"] >= item["location"]["row"]
    assert done.stderr == ""


@pytest.mark.integration
def test_github_output(project):
    done = run_cli("check", *SELECT, "--no-cache", "--output-format", "github")
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("::error title=dispatchguard (DG102),file=app/agent.py,line=5,col=12,endLine=5,")
    assert lines[0].split("::", 2)[2].startswith("app/agent.py:5:12: DG102 ")


@pytest.mark.integration
def test_sarif_output_is_valid_and_lists_suppressions(project):
    done = run_cli("check", *SELECT, "--no-cache", "--output-format", "sarif")
    assert done.returncode == 1
    log = json.loads(done.stdout)
    jsonschema.validate(log, SCHEMA, cls=jsonschema.validators.validator_for(SCHEMA))
    run = log["runs"][0]
    from dispatchguard.lint import RULES

    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == sorted(RULES)
    results = run["results"]
    suppressed = [r for r in results if r.get("suppressions")]
    assert sorted(r["ruleId"] for r in suppressed) == ["DG101", "DG102"]
    assert all(r["suppressions"] == [{"kind": "inSource"}] for r in suppressed)
    assert sorted(r["ruleId"] for r in results if not r.get("suppressions")) == ["DG101", "DG102", "DG103"]


@pytest.mark.integration
def test_statistics(project):
    done = run_cli("check", *SELECT, "--no-cache", "--statistics")
    assert done.returncode == 1
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert [(int(count), code) for count, code, *_ in rows] == [(1, "DG101"), (1, "DG102"), (1, "DG103")]
    stats = json.loads(run_cli("check", *SELECT, "--no-cache", "--statistics", "--output-format", "json").stdout)
    assert [(s["code"], s["count"]) for s in stats] == [("DG101", 1), ("DG102", 1), ("DG103", 1)]


@pytest.mark.integration
def test_show_suppressed(project):
    done = run_cli("check", *SELECT, "--no-cache", "--show-suppressed")
    marked = [line for line in done.stdout.splitlines() if line.endswith("[noqa]")]
    assert [line.split()[1] for line in marked] == ["DG102", "DG101"]


@pytest.mark.integration
def test_jobs_and_cache_give_the_same_findings(project, tmp_path):
    cache = tmp_path / "cache"
    serial = run_cli("check", "-j", "1", "--cache-dir", str(cache))
    parallel = run_cli("check", "-j", "2", "--cache-dir", str(cache))
    warm = run_cli("check", "--cache-dir", str(cache))
    assert serial.stdout == parallel.stdout == warm.stdout != ""
    assert cache.is_dir() and any(cache.iterdir())


@pytest.mark.integration
def test_no_cache_writes_no_cache(project, tmp_path):
    cache = tmp_path / "cache"
    run_cli("check", *SELECT, "--no-cache", "--cache-dir", str(cache))
    assert not cache.exists() or not any(cache.iterdir())


@pytest.mark.integration
def test_baseline_flow(project):
    done = run_cli("check", *SELECT, "--no-cache", "--write-baseline", "baseline.json")
    assert done.returncode == 0
    assert "Wrote 3 finding(s) to the baseline baseline.json." in done.stderr
    assert json.loads((project / "baseline.json").read_text())["version"] == 1

    done = run_cli("check", *SELECT, "--no-cache", "--baseline", "baseline.json")
    assert (done.returncode, done.stdout) == (0, "")

    # Lines move: still nothing new.
    agent = project / "app" / "agent.py"
    agent.write_text('"""Planning."""\n\n\n' + agent.read_text())
    assert run_cli("check", *SELECT, "--no-cache", "--baseline", "baseline.json").returncode == 0

    # A new violation is reported alone, and fails the run.
    agent.write_text(agent.read_text() + "\n\ndef again(query):\n    return Search().run(query=query)\n")
    done = run_cli("check", *SELECT, "--no-cache", "--baseline", "baseline.json")
    assert done.returncode == 1
    assert {(f[0], f[1]) for f in parsed(done.stdout)} == {("app/agent.py", 18)}

    # SARIF keeps the baselined findings, as external suppressions.
    sarif = run_cli("check", *SELECT, "--no-cache", "--baseline", "baseline.json", "--output-format", "sarif")
    log = json.loads(sarif.stdout)
    kinds = sorted(s["kind"] for r in log["runs"][0]["results"] for s in r.get("suppressions", []))
    assert kinds == ["external", "external", "external", "inSource", "inSource"]


@pytest.mark.integration
def test_broken_baseline_is_exit_2(project):
    (project / "baseline.json").write_text('{"version": 1, "findings": [{"path": 3}]}')
    done = run_cli("check", *SELECT, "--no-cache", "--baseline", "baseline.json")
    assert done.returncode == 2
    assert done.stderr.strip() == "dispatchguard: error: baseline file baseline.json: finding 1 needs a string 'path'"


@pytest.mark.integration
def test_unwritable_baseline_is_exit_2(project):
    done = run_cli("check", *SELECT, "--no-cache", "--write-baseline", "no/such/dir/baseline.json")
    assert done.returncode == 2
    assert "cannot write baseline file no/such/dir/baseline.json" in done.stderr


def test_main_in_process(project, capsys):
    thresholds = gc.get_threshold()
    assert main(["check", "--no-cache"]) == 1
    assert gc.get_threshold() == thresholds  # the run's own collector settings end with it
    out, _ = capsys.readouterr()
    assert about(parsed(out)) == EXPECTED
    assert main(["check", "--no-cache", "--exit-zero", "--output-format", "json"]) == 0
    assert len(about(json.loads(capsys.readouterr().out))) == 3


def test_usage_error_through_main_is_systemexit_2(project, capsys):
    with pytest.raises(SystemExit) as info:
        main(["check", "--output-format", "yaml"])
    assert info.value.code == 2


def test_internal_error_is_one_line_exit_2(project, capsys, monkeypatch):
    import dispatchguard.lint

    def explode(*args, **kwargs):
        raise RuntimeError("index exploded")

    monkeypatch.setattr(dispatchguard.lint, "check_paths", explode)
    assert main(["check", "--no-cache"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert (
        err
        == "dispatchguard: error: internal error (RuntimeError: index exploded); "
        "please report it with the command you ran\n"
    )


def test_keyboard_interrupt_is_exit_2(project, capsys, monkeypatch):
    import dispatchguard.lint

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(dispatchguard.lint, "check_paths", interrupt)
    assert main(["check", "--no-cache"]) == 2
    assert capsys.readouterr().err == "dispatchguard: error: interrupted\n"


@pytest.mark.integration
def test_check_never_loads_libcst_or_pydantic(project):
    code = (
        "import sys\n"
        "from dispatchguard.cli.main import main\n"
        "status = main(['check', '--no-cache', '-j', '1', '--output-format', 'sarif'])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'libcst', 'pydantic', 'httpx', 'flake8'})\n"
        "print(status, heavy, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True, check=False)
    assert done.stderr.strip() == "1 []"


@pytest.mark.integration
def test_no_progress_when_stderr_is_not_a_terminal(project):
    files = {f"app/mod_{i}.py": "x = 1\n" for i in range(250)}
    write_tree(project, files)
    done = run_cli("check", *SELECT, "--no-cache", "-j", "1")
    assert "/253 files" not in done.stderr and done.stderr.startswith("Found 3 findings in 253 files")
    assert "\r" not in done.stderr


def test_progress_shows_only_for_long_runs(capsys, monkeypatch):
    short = check_cmd._Progress(min_files=200, min_seconds=60)
    for done in range(1, 11):
        short(done, 10)
    short.clear()
    assert capsys.readouterr().err == ""

    long = check_cmd._Progress(min_files=200, min_seconds=60)
    long(1, 500)
    long(2, 500)  # throttled: less than 0.1 s since the last update
    long(500, 500)
    long.clear()
    err = capsys.readouterr().err
    assert err == "\rdispatchguard: checked 1/500 files\rdispatchguard: checked 500/500 files\r\033[K"

    slow = check_cmd._Progress(min_files=200, min_seconds=0)
    slow(1, 3)
    assert "checked 1/3 files" in capsys.readouterr().err


def test_progress_is_passed_to_the_core_only_on_a_terminal(project, monkeypatch, capsys):
    import dispatchguard.lint

    seen = {}
    real = dispatchguard.lint.check_paths

    def spy(*args, **kwargs):
        seen["progress"] = kwargs.get("progress")
        return real(*args, **kwargs)

    monkeypatch.setattr(dispatchguard.lint, "check_paths", spy)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    main(["check", "--no-cache", "-j", "1"])
    assert isinstance(seen["progress"], check_cmd._Progress)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    main(["check", "--no-cache", "-j", "1"])
    assert seen["progress"] is None


@pytest.mark.integration
def test_closed_stdout_is_not_a_traceback(project):
    """`dispatchguard check | head -1` must not end in a BrokenPipeError traceback."""
    lines = "".join(f"    Search().run(query='{i}')\n" for i in range(3000))
    (project / "app" / "many.py").write_text(f"from app.tools import Search\n\n\ndef spam():\n{lines}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "dispatchguard", "check", "--no-cache", "-j", "1"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().startswith("app/")
    proc.stdout.close()
    stderr = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr


@pytest.mark.integration
def test_bad_job_count(project):
    done = run_cli("check", "-j", "many")
    assert done.returncode == 2 and "invalid job count 'many'" in done.stderr


@pytest.mark.integration
def test_fix_then_report_what_is_left(project):
    """`check --fix` only applies safe fixes (DG103's is unsafe: the direct caller may use the
    dict); `--unsafe-fixes` alone writes nothing (as in ruff, it only makes unsafe fixes available);
    `--fix --unsafe-fixes` rewrites the return and reports only the findings with no fix."""
    tools = project / "app" / "tools.py"
    before = tools.read_text(encoding="utf-8")
    safe_only = run_cli("check", *SELECT, "--no-cache", "--fix")
    assert safe_only.returncode == 1
    assert tools.read_text(encoding="utf-8") == before
    assert "fixable with --unsafe-fixes" in safe_only.stderr
    assert "app/tools.py:10:16: DG103" in safe_only.stdout

    available = run_cli("check", *SELECT, "--no-cache", "--unsafe-fixes")  # makes them available: writes nothing
    assert available.returncode == 1 and "DG103" in available.stdout
    assert tools.read_text(encoding="utf-8") == before

    agent_before = (project / "app" / "agent.py").read_text(encoding="utf-8")
    done = run_cli("check", *SELECT, "--no-cache", "--fix", "--unsafe-fixes")
    fixed = tools.read_text(encoding="utf-8")
    # the project does not depend on dispatchguard at run time: the return is wrapped in json.dumps
    assert 'return json.dumps({"query": query}, ensure_ascii=False, default=str)' in fixed
    assert "ensure_json_str" not in fixed
    assert "DG103" not in done.stdout
    assert "Fixed" in done.stderr
    # the project has no dispatcher of its own, nor registers into one of dispatchguard's
    # registries: DG101 has no fix (never a rewrite towards a registry the project does not use)
    assert (project / "app" / "agent.py").read_text(encoding="utf-8") == agent_before
    assert done.returncode == 1
    assert parsed(done.stdout) == [("app/agent.py", 5, 12, "DG102"), ("app/agent.py", 6, 12, "DG101")]


@pytest.mark.integration
def test_json_and_sarif_carry_the_fix_data(project):
    """Issue 21: `fix: null` for every finding; now the fix command's own planning (with_fixes)."""
    import json as json_module

    findings = json_module.loads(run_cli("check", *SELECT, "--no-cache", "--output-format", "json").stdout)
    fixed = [f for f in findings if f["fix"] is not None]
    assert fixed, "the DG103 finding has a fix"
    for finding in fixed:
        fix = finding["fix"]
        assert fix["applicability"] in ("safe", "unsafe") and fix["message"]
        assert fix["edits"] and all({"content", "location", "end_location"} <= set(e) for e in fix["edits"])
    assert all(f["fix"] is None for f in findings if f["code"] in ("DG102", "DG001"))  # no fixer
    log = json_module.loads(run_cli("check", *SELECT, "--no-cache", "--output-format", "sarif").stdout)
    with_fixes = [r for r in log["runs"][0]["results"] if "fixes" in r]
    assert {r["ruleId"] for r in with_fixes} == {f["code"] for f in fixed}
    change = with_fixes[0]["fixes"][0]["artifactChanges"][0]
    assert change["replacements"] and "startLine" in change["replacements"][0]["deletedRegion"]
