"""`dispatchguard fix` end to end: exit codes, --diff, --select/--ignore, encodings, errors."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.cli import main as cli

from ..conftest import ABOUT

TOOLS = """\
from crewai.tools import BaseTool


class KpiTool(BaseTool):
    name: str = "KPI"
    description: str = "Track a KPI."

    def _run(self, current: float, target: float) -> str:
        return {"ratio": current / target}
"""

AGENT = """\
from app.tools import KpiTool


def track() -> str:
    return KpiTool().run(current=1, target=2)
"""


PYPROJECT = """\
[project]
name = "app"
dependencies = ["dispatchguard>=0.2"]

[tool.dispatchguard]
dispatchers = ["app.dispatcher.run_tool"]
"""
REGISTRY = "from app.tools import KpiTool\n\nREGISTRY = {'kpi-tracker': KpiTool()}\n"
DISPATCHER = """\
from app.tool_registry import REGISTRY


def run_tool(name: str, args: dict) -> str:
    return REGISTRY[name].run(**args)
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    app = tmp_path / "app"
    app.mkdir()
    (app / "__init__.py").write_text("")
    (app / "tools.py").write_text(TOOLS)
    (app / "tool_registry.py").write_text(REGISTRY)
    (app / "dispatcher.py").write_text(DISPATCHER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv: str):
    """``dispatchguard fix`` on the codes these tests are about (its summary counts every finding)."""
    code = cli.main(["fix", "--no-cache", "--select", ",".join(sorted(ABOUT)), *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_fix_then_nothing_to_do(project, capsys):
    code, out, err = run(capsys, "app/tools.py")
    assert code == 1 and "DG103 fixed" not in out  # every fix is unsafe: nothing without the flag
    assert (
        "[not fixed: unsafe fix available (wrap the returned value in ensure_json_str(...); unsafe: "
        "the project's dispatcher `app.dispatcher.run_tool` receives the new value); use --unsafe-fixes]" in out
    )
    assert "Nothing to fix. 1 finding remains. 1 more fixable with --unsafe-fixes." in err
    assert (project / "app" / "tools.py").read_text() == TOOLS

    code, out, err = run(capsys, "--unsafe-fixes", "app/tools.py")
    assert code == 1
    assert "app/tools.py:9:16: DG103 fixed: wrap the returned value in ensure_json_str(...)" in out
    assert "Fixed 1 finding in 1 file." in err
    text = (project / "app" / "tools.py").read_text()
    assert 'return ensure_json_str({"ratio": current / target})' in text
    assert "from dispatchguard import ensure_json_str" in text

    code, out, err = run(capsys, "--unsafe-fixes", "app/tools.py")
    assert code == 0, out + err
    assert out == "" and "Nothing to fix." in err
    assert run(capsys, "app/tools.py")[0] == 0


def test_remaining_findings_fail_and_say_why(project, capsys):
    (project / "app" / "agent.py").write_text(AGENT)
    code, out, err = run(capsys, "app")
    assert code == 1
    assert "app/agent.py:5:12: DG101" in out
    assert "[not fixed: unsafe fix available" in out and "--unsafe-fixes" in out
    assert "2 more fixable with --unsafe-fixes." in err

    code, out, err = run(capsys, "--unsafe-fixes", "app")
    assert code == 1
    text = (project / "app" / "agent.py").read_text()
    assert 'return run_tool("kpi-tracker", {"current": 1, "target": 2})' in text
    assert text.startswith("from app.dispatcher import run_tool\n\n\ndef track")  # KpiTool's import went unused
    assert run(capsys, "app")[0] == 0


def test_without_dispatcher_no_dg101_fix_and_the_reason(project, capsys):
    (project / "pyproject.toml").write_text("[tool.dispatchguard]\n")
    (project / "app" / "agent.py").write_text(AGENT)
    code, out, _ = run(capsys, "--unsafe-fixes", "--select", "DG101", "app")
    assert code == 1 and "DG101 fixed" not in out
    assert "[not fixed: no dispatcher of the project is configured" in out
    assert (project / "app" / "agent.py").read_text() == AGENT


def test_unregistered_tool_is_not_rewritten(project, capsys):
    (project / "app" / "tool_registry.py").write_text("REGISTRY = {}\n")
    (project / "app" / "agent.py").write_text(AGENT)
    code, out, _ = run(capsys, "--unsafe-fixes", "--select", "DG101", "app")
    assert code == 1
    assert (
        "`KpiTool` is not registered under a literal key, nor under its own name, "
        "in a registry `app.dispatcher.run_tool` looks up"
    ) in out


def test_without_runtime_dependency_json_dumps_is_used(project, capsys):
    (project / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = []\n')
    assert run(capsys, "--unsafe-fixes", "app/tools.py")[0] == 1
    text = (project / "app" / "tools.py").read_text()
    assert text.startswith("import json\n\nfrom crewai.tools import BaseTool\n")
    assert 'return json.dumps({"ratio": current / target}, ensure_ascii=False, default=str)' in text


def test_quiet_prints_only_remaining(project, capsys):
    (project / "app" / "agent.py").write_text(AGENT)
    code, out, _ = run(capsys, "-q", "app")
    assert code == 1
    assert "fixed:" not in out and "not fixed" not in out
    assert out.strip().startswith("app/agent.py:5:12: DG101")


def test_diff_writes_nothing(project, capsys):
    before = (project / "app" / "tools.py").read_bytes()
    code, out, err = run(capsys, "--diff", "--unsafe-fixes", "app/tools.py")
    assert code == 1
    assert out.startswith("--- a/app/tools.py\n+++ b/app/tools.py\n")
    assert '+        return ensure_json_str({"ratio": current / target})' in out
    assert "Would fix 1 finding in 1 file." in err
    assert (project / "app" / "tools.py").read_bytes() == before


def test_select_and_ignore(project, capsys):
    (project / "app" / "agent.py").write_text(AGENT)
    code, out, _ = run(capsys, "--unsafe-fixes", "--select", "DG101", "app")
    assert code == 1 and "DG101 fixed" in out and "DG103" not in out
    assert "ensure_json_str" not in (project / "app" / "tools.py").read_text()
    code, out, _ = run(capsys, "--unsafe-fixes", "--ignore", "DG101", "app")
    assert code == 1 and "DG103 fixed" in out
    assert run(capsys, "--ignore", "DG1", "app")[0] == 0
    assert run(capsys, "--select", "ALL", "--ignore", "DG1", "app")[0] == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--select", "XX9"], "unknown rule code or prefix 'XX9'"),
        (["missing_dir"], "missing_dir: no such file or directory"),
        (["-"], "'-' (standard input) cannot be written back; to check a buffer: dispatchguard check --stdin-filename"),
    ],
)
def test_usage_errors(project, capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err


def test_bad_selector_syntax(project, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["fix", "--select", "dg-1", "app"])
    assert exc.value.code == 2


def test_broken_config_is_exit_2(project, capsys):
    (project / "pyproject.toml").write_text("[tool.dispatchguard]\nselect = 3\n")
    code, _, err = run(capsys, "app")
    assert code == 2 and "pyproject.toml" in err


def test_internal_error_is_one_line(project, capsys, monkeypatch):
    from dispatchguard.fix import engine

    def boom(*args, **kwargs):
        raise RuntimeError("kaput")

    monkeypatch.setattr(engine, "apply_fixes", boom)
    code, _, err = run(capsys, "app")
    assert code == 2 and "internal error (RuntimeError: kaput)" in err and "Traceback" not in err


def test_encoding_cookie_and_non_ascii_are_kept(project, capsys):
    source = "# -*- coding: latin-1 -*-\n" + TOOLS.replace('"Track a KPI."', '"Suivi des indicateurs clés."')
    path = project / "app" / "tools.py"
    path.write_bytes(source.encode("latin-1"))
    code, _, err = run(capsys, "--unsafe-fixes", "app/tools.py")
    assert code == 1, err
    data = path.read_bytes()
    assert "clés".encode("latin-1") in data and "clés".encode() not in data
    assert "ensure_json_str(" in data.decode("latin-1")
    ast.parse(data)


def test_check_paths_see_whole_project_for_names(project, capsys):
    """The registered name comes from a registry in a file that is not being fixed."""
    (project / "app" / "agent.py").write_text(AGENT)
    code, out, _ = run(capsys, "--unsafe-fixes", "--select", "DG101", "app/agent.py")
    assert code == 1, out
    assert 'run_tool("kpi-tracker", {' in (project / "app" / "agent.py").read_text()


@pytest.mark.integration
def test_real_command(project):
    exe = Path(sys.executable).with_name("dispatchguard")
    proc = subprocess.run(
        [str(exe), "fix", "--diff", "--unsafe-fixes", "app/tools.py"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert "+from dispatchguard import ensure_json_str" in proc.stdout


@pytest.mark.integration
def test_router_does_not_load_libcst_or_coverage():
    """Building the parser imports every subcommand module: fix and coverage must stay light
    (coverage itself may be loaded by a measuring parent)."""
    code = (
        "import sys; from dispatchguard.cli import main; main.build_parser(); "
        "heavy = [m for m in ('libcst', 'dispatchguard.coverage_gate.measure', 'dispatchguard.fix.engine') "
        "if m in sys.modules]; print(heavy); sys.exit(1 if heavy else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_functions_own_import_does_not_serve_the_module(project, capsys):
    """`import json` inside one function: the wrap in another function needs a module import."""
    (project / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = []\n')
    source = TOOLS.replace(
        '        return {"ratio": current / target}',
        '        return {"ratio": current / target}\n\n    def dump(self, value) -> str:\n'
        "        import json\n\n        return json.dumps(value)",
    )
    (project / "app" / "tools.py").write_text(source)
    assert run(capsys, "--unsafe-fixes", "app/tools.py")[0] == 1
    text = (project / "app" / "tools.py").read_text()
    assert text.startswith("import json\n\nfrom crewai.tools import BaseTool\n")
    assert 'return json.dumps({"ratio": current / target}, ensure_ascii=False, default=str)' in text


def test_json_bound_to_something_else_is_not_used(project, capsys):
    (project / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = []\n')
    (project / "app" / "tools.py").write_text("import orjson as json\n" + TOOLS)
    code, out, _ = run(capsys, "--unsafe-fixes", "app/tools.py")
    assert code == 1 and "`json` names something else in this module" in out


def test_the_fixed_functions_own_import_is_used(project, capsys):
    (project / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = []\n')
    source = TOOLS.replace(
        '        return {"ratio": current / target}',
        '        import json\n\n        return {"ratio": current / target}',
    )
    (project / "app" / "tools.py").write_text(source)
    assert run(capsys, "--unsafe-fixes", "app/tools.py")[0] == 1
    text = (project / "app" / "tools.py").read_text()
    assert text.startswith("from crewai.tools import BaseTool\n")  # no module-level import: it would be unused
    assert 'return json.dumps({"ratio": current / target}, ensure_ascii=False, default=str)' in text


LANGCHAIN_TOOL = '''\
from langchain_core.tools import tool


@tool
def company(domain: str) -> dict:
    """Look up a company."""
    return {"domain": domain}
'''


def test_dg104_through_select_and_check_fix(project, capsys):
    functions = project / "app" / "functions.py"
    functions.write_text(LANGCHAIN_TOOL)
    code, out, _ = run(capsys, "--unsafe-fixes", "--select", "DG104", "app")
    assert code == 1 and "app/functions.py:7:12: DG104 fixed: wrap the returned value in ensure_json_str(...)" in out
    assert "DG103" not in out and "ensure_json_str" not in (project / "app" / "tools.py").read_text()
    assert 'return ensure_json_str({"domain": domain})' in functions.read_text()

    functions.write_text(LANGCHAIN_TOOL)
    code = cli.main(["check", "--no-cache", "--fix", "--unsafe-fixes", "--select", "DG104", "app"])
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err  # fixed, then nothing left to report
    assert "Fixed 1 finding in 1 file." in captured.err
    assert 'return ensure_json_str({"domain": domain})' in functions.read_text()
