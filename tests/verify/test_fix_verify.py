"""`fix --verify`: the tools of the files a fix changed run before and after (real workers); a
file whose fix made a tool worse is taken back, and the report says which tool and why."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.fix.report import AppliedFix, FixReport
from dispatchguard.lint import load_config
from dispatchguard.verify.fixing import verify_fixes
from dispatchguard.verify.runner import VerifyOptions

from .projects import KEYED_TOOL

pytestmark = pytest.mark.integration

REPORT_TOOL = '''
import datetime
import json

from langchain_core.tools import BaseTool
from pydantic import BaseModel


class Report(BaseModel):
    title: str
    created: datetime.datetime


class ReportTool(BaseTool):
    name: str = "report"
    description: str = "A report, with the time it was made."

    def _run(self, title: str) -> dict:
        report = Report(title=title, created=datetime.datetime(2024, 1, 1))
        return report.model_dump()
'''

ECHO_TOOL = '''
from langchain_core.tools import BaseTool


class EchoTool(BaseTool):
    name: str = "echo"
    description: str = "The query, as a dict."

    def _run(self, q: str) -> dict:
        return {"q": q}
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "app" / "tools").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.dispatchguard.verify]\ncases = 3\ntimeout = 5\n", encoding="utf-8")
    (root / "app" / "__init__.py").write_text("", encoding="utf-8")
    (root / "app" / "tools" / "__init__.py").write_text("", encoding="utf-8")
    (root / "app" / "tools" / "report.py").write_text(REPORT_TOOL, encoding="utf-8")
    (root / "app" / "tools" / "echo.py").write_text(ECHO_TOOL, encoding="utf-8")
    return root


def test_a_fix_that_makes_a_tool_raise_is_taken_back(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fix of issue 19's story: `json.dumps(report.model_dump())` raises on the datetime, so the
    tool that answered a dict now answers nothing; the echo tool's fix is kept."""
    monkeypatch.chdir(project)
    report_file = project / "app" / "tools" / "report.py"
    echo_file = project / "app" / "tools" / "echo.py"
    original = report_file.read_bytes()

    def apply() -> FixReport:  # the naive wraps a fixer without issue 21's care would write
        wrapped = REPORT_TOOL.replace("return report.model_dump()", "return json.dumps(report.model_dump())")
        report_file.write_text(wrapped)
        echo_file.write_text(ECHO_TOOL.replace('return {"q": q}', 'return json.dumps({"q": q})').replace(
            "from langchain_core", "import json\nfrom langchain_core"))
        return FixReport(
            applied=[AppliedFix("app/tools/report.py", 19, 16, "DG103", "wrap", False),
                     AppliedFix("app/tools/echo.py", 10, 16, "DG103", "wrap", False)],
            changed_files=["app/tools/report.py", "app/tools/echo.py"],
        )  # fmt: skip

    config = load_config([project])
    result = verify_fixes(apply, ["."], config, VerifyOptions.from_settings(config.verify))
    assert report_file.read_bytes() == original  # taken back
    assert "json.dumps" in echo_file.read_text()  # kept: the echo tool keeps the contract now
    assert [fix.path for fix in result.applied] == ["app/tools/echo.py"]
    assert result.changed_files == ["app/tools/echo.py"]
    (skipped,) = result.skipped
    assert skipped.path == "app/tools/report.py" and skipped.kind == "dropped"
    assert "tool `app.tools.report.ReportTool` worse: it answered a value before; now violation: raised" in (
        skipped.reason
    ), skipped.reason
    assert [(f.path, f.code) for f in result.remaining] == [("app/tools/report.py", "DG103")]


def test_the_command_keeps_fixes_that_verify(project: Path) -> None:
    """With issue 21's wraps (`model_dump_json()` on a proven model, `default=str`) both tools keep the contract
    after the fix: nothing is taken back."""
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "fix", "--unsafe-fixes", "--verify", "--no-cache", "."],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stderr  # files changed
    assert "taken back" not in done.stdout + done.stderr
    assert "return report.model_dump_json()" in (project / "app" / "tools" / "report.py").read_text()
    check = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify", "."],
        cwd=project, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    assert "2 tools found: 2 verified" in check.stderr


def test_sarif_and_github_outputs_name_the_tools_at_their_definition(project: Path) -> None:
    import json

    import jsonschema

    def verify(fmt: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "dispatchguard", "verify", "--output-format", fmt, "."],
            cwd=project, capture_output=True, text=True, timeout=600,
        )  # fmt: skip

    sarif = verify("sarif")
    assert sarif.returncode == 1, sarif.stderr
    log = json.loads(sarif.stdout)
    schema = Path(__file__).parents[1] / "cli" / "data" / "sarif-2.1.0-subset.schema.json"
    jsonschema.validate(log, json.loads(schema.read_text(encoding="utf-8")))
    results = sorted(
        (r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["ruleId"], r["message"]["text"])
        for r in log["runs"][0]["results"]
    )
    results = [(uri, code, text.split(":")[1].strip()) for uri, code, text in results]
    assert results == [
        ("app/tools/echo.py", "DG103", "tool `app.tools.echo.EchoTool` violation"),
        ("app/tools/report.py", "DG103", "tool `app.tools.report.ReportTool` violation"),
    ]
    github = verify("github")
    lines = github.stdout.splitlines()
    assert len(lines) == 2
    assert all(line.startswith("::error title=dispatchguard (DG103),file=app/tools/") for line in lines)


REGISTRY_TOOLS = f'''
import json

from langchain_core.tools import BaseTool


class Calc(BaseTool):
    name: str = "calc"
    description: str = "Rounds a number to the registry's precision."
    precision: int

    def _run(self, x: float) -> str:
        return json.dumps(round(x, self.precision))

{KEYED_TOOL}

TOOLS = {{"calc": Calc(precision=2)}}
'''


def test_registry_entries_and_configured_factories_are_built_as_the_project_builds_them(tmp_path: Path) -> None:
    import json

    root = tmp_path / "reg"
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("", encoding="utf-8")
    (root / "app" / "tools.py").write_text(REGISTRY_TOOLS, encoding="utf-8")
    (root / "pyproject.toml").write_text(
        "[tool.dispatchguard.verify]\ncases = 3\n"
        '[tool.dispatchguard.verify.factories]\n"app.tools.Keyed" = "app.tools:make_keyed"\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify", "--output-format", "json", "."],
        cwd=root, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    reports = {r["tool"]: r for r in json.loads(done.stdout)}
    assert reports["app.tools.Calc"]["status"] == "not_built"  # it needs its precision
    assert reports["app.tools.TOOLS['calc']"]["status"] == "verified"  # the registry's instance has it
    assert reports["app.tools.TOOLS['calc']"]["code"] == "DG103"
    keyed = reports["app.tools.Keyed"]
    assert keyed["status"] == "violation" and "returned dict" in keyed["detail"], keyed  # built by the factory


UNRULY_TOOLS = '''
import ctypes
import threading
import time

from langchain_core.tools import BaseTool


class Segfault(BaseTool):
    name: str = "segfault"
    description: str = "Crashes its process with SIGSEGV."

    def _run(self, q: str) -> str:
        ctypes.string_at(0)
        return "{}"


class Leaky(BaseTool):
    name: str = "leaky"
    description: str = "Leaves a thread running after it answers."

    def _run(self, q: str) -> str:
        threading.Thread(target=time.sleep, args=(30,)).start()
        return "{}"
'''


def test_a_segfault_and_a_leaked_thread_are_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    import json

    root = tmp_path / "unruly"
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("", encoding="utf-8")
    (root / "app" / "tools.py").write_text(UNRULY_TOOLS, encoding="utf-8")
    (root / "pyproject.toml").write_text("[tool.dispatchguard.verify]\ncases = 2\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify", "--output-format", "json", "."],
        cwd=root, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    reports = {r["tool"]: r for r in json.loads(done.stdout)}
    crashed = reports["app.tools.Segfault"]
    assert crashed["status"] == "crashed" and "signal 11" in crashed["detail"], crashed
    leaky = reports["app.tools.Leaky"]
    assert leaky["status"] == "verified" and leaky["threads_left"] >= 1, leaky  # answered JSON, left a thread
    text = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify", "."], cwd=root, capture_output=True, text=True, timeout=600
    )
    assert "tool `app.tools.Leaky` verified, but left 2 threads running" in text.stdout, text.stdout  # one a call


FLAKY_TOOLS = (
    "import json\nimport os\nimport pathlib\n"
    + ECHO_TOOL
    + '''

#: the pids of the processes that called FlakyTool, next to the project
CALLS = pathlib.Path(__file__).parents[2] / "flaky-calls.log"


class FlakyTool(BaseTool):
    name: str = "flaky"
    description: str = "Fails in the first process that calls it (a cold cache), answers JSON after."

    def _run(self, q: str) -> str:
        with CALLS.open("a") as log:
            log.write(f"{os.getpid()}\\n")
        if CALLS.read_text().split()[0] == str(os.getpid()):
            raise RuntimeError("cold cache")
        return json.dumps({"q": q})
'''
)


def test_a_tool_verify_excludes_is_neither_run_nor_used_to_take_a_fix_back(tmp_path: Path) -> None:
    """`fix --verify` verifies the tools `dispatchguard verify` does: a flaky tool the project
    excluded fails in the first run (the fixed files) and answers in the second (the originals),
    which would take the echo tool's fix back; excluded, it is not run and the fix stays."""
    root = tmp_path / "flaky"
    calls = tmp_path / "flaky-calls.log"
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("", encoding="utf-8")
    tools = root / "app" / "tools.py"
    tools.write_text(FLAKY_TOOLS, encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[tool.dispatchguard.verify]\ncases = 3\ntimeout = 5\nexclude = ["app.tools.Flaky*"]\n', encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "fix", "--unsafe-fixes", "--verify", "--no-cache", "."],
        cwd=root, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr  # files changed
    assert "taken back" not in done.stdout + done.stderr, done.stdout
    assert 'return json.dumps({"q": q}' in tools.read_text().split("class FlakyTool")[0]  # the echo fix stays
    assert not calls.exists(), calls.read_text()  # the excluded tool never ran


# ---- issue 35, item 5: the project's dispatcher answers the same after the fix ----------------

DESK_TOOLS = '''\
from datetime import datetime

from crewai.tools import BaseTool
from pydantic import BaseModel


class SlaReport(BaseModel):
    ticket: str
    generated_at: datetime


class SlaReportTool(BaseTool):
    name: str = "sla_report"
    description: str = "The SLA report of a ticket."

    def _run(self, ticket: str) -> dict:
        return SlaReport(ticket=ticket, generated_at=datetime(2024, 3, 3, 12)).model_dump()
'''
#: the result passes through when it is text, else the project's json.dumps(..., default=str)
PASSING_ROUTER = (
    "import json\n\nfrom desk.tools import SlaReportTool\n\nTOOLS = {'sla_report': SlaReportTool()}\n\n\n"
    "def run_tool(name, args):\n    result = TOOLS[name].run(**args)\n"
    "    return result if isinstance(result, str) else json.dumps(result, default=str)\n"
)
#: every result encoded, text too: JSON text from the tool comes out encoded twice
ENCODING_ROUTER = PASSING_ROUTER.replace(
    "return result if isinstance(result, str) else json.dumps(result, default=str)",
    "return json.dumps(result, default=str)",
)


def _desk(root: Path, router: str, configured: bool = True) -> None:
    config = '[project]\nname = "desk"\n\n[tool.dispatchguard]\n'
    if configured:
        config += 'dispatchers = ["desk.router.run_tool"]\n'
    config += "\n[tool.dispatchguard.verify]\ncases = 3\ntimeout = 5\n"
    files = {"pyproject.toml": config, "desk/__init__.py": "", "desk/tools.py": DESK_TOOLS, "desk/router.py": router}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def _fix_and_verify(root: Path) -> FixReport:
    from dispatchguard.fix import apply_fixes

    config = load_config([root])
    options = VerifyOptions.from_settings(config.verify)
    return verify_fixes(
        lambda: apply_fixes(["desk/tools.py"], config, unsafe=True, use_cache=False, select=["DG103"]),
        ["desk/tools.py"], config, options,
    )  # fmt: skip


def test_a_fix_after_which_the_projects_dispatcher_answers_differently_is_taken_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dispatcher encodes every result: the fix (`model_dump_json()`) keeps the tool's own
    contract, but `run_tool("sla_report", ...)` now answers a JSON string of the JSON text."""
    _desk(tmp_path, ENCODING_ROUTER)
    monkeypatch.chdir(tmp_path)
    original = (tmp_path / "desk" / "tools.py").read_bytes()
    report = _fix_and_verify(tmp_path)
    assert (tmp_path / "desk" / "tools.py").read_bytes() == original
    assert report.applied == [] and report.changed_files == []
    (skipped,) = [s for s in report.skipped if s.kind == "dropped"]
    assert "the project's dispatcher `desk.router.run_tool` answers differently for `sla_report` with" in (
        skipped.reason
    ), skipped.reason
    assert "before '{\"ticket\": " in skipped.reason and "now '\"{\\\\\"ticket" in skipped.reason, skipped.reason
    assert [(f.path, f.code) for f in report.remaining] == [("desk/tools.py", "DG103")]


@pytest.mark.parametrize("configured", [True, False], ids=["configured", "inferred"])
def test_the_dispatcher_is_the_configured_one_or_the_one_check_detects(
    configured: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dispatcher passes text through. Configured, the fix wraps in its own `json.dumps(...,
    default=str)`: the answer through `run_tool` is byte for byte the same, nothing is taken back.
    Not configured, `check` detects it as a dispatch point, and `--verify` calls it: the fix (which
    serialises as the project's dispatcher does only for a configured one) writes
    `model_dump_json()`, the datetime comes out as `2024-03-03T12:00:00`, and the fix is taken back."""
    from dispatchguard.verify.discover import verify_targets
    from dispatchguard.verify.fixing import dispatch_plans

    _desk(tmp_path, PASSING_ROUTER, configured)
    monkeypatch.chdir(tmp_path)
    config = load_config([tmp_path])
    plans = dispatch_plans(verify_targets(["desk/tools.py"], config), config)
    assert {label: (p["label"], p["name"]) for label, p in plans.items()} == {
        "desk.tools.SlaReportTool": ("desk.router.run_tool", "sla_report")
    }
    report = _fix_and_verify(tmp_path)
    fixed = (tmp_path / "desk" / "tools.py").read_text(encoding="utf-8")
    if configured:
        assert [s.reason for s in report.skipped] == []
        assert "return json.dumps(SlaReport(" in fixed
    else:
        assert fixed == DESK_TOOLS
        (reason,) = [s.reason for s in report.skipped]
        assert "'{\"ticket\": \"\", \"generated_at\": \"2024-03-03 12:00:00\"}', now " in reason, reason
        assert '"generated_at":"2024-03-03T12:00:00"' in reason, reason


def _dispatched(*pairs: tuple[dict, list[dict]]) -> tuple[dict, ...]:
    return tuple({"dispatched": True, "arguments": arguments, "answers": answers} for arguments, answers in pairs)


@pytest.mark.parametrize(
    ("before", "after", "taken_back"),
    [
        ([{"type": "str", "text": '{"a": 1}'}] * 2, {"type": "str", "text": '{"a": 1}'}, False),  # the same
        ([{"type": "str", "text": '{"a": 1}'}] * 2, {"type": "str", "text": '{"a":1}'}, True),  # other bytes
        ([{"type": "str", "text": '{"a": 1}'}] * 2, {"raised": "TypeError: x"}, True),  # now raises
        ([{"type": "str", "text": "Error: x"}] * 2, {"type": "str", "text": '{"error": "x"}'}, False),  # prose -> JSON
        ([{"type": "str", "text": "Error: x"}] * 2, {"type": "str", "text": "Error: y"}, True),  # prose -> other prose
        ([{"raised": "KeyError: 'k'"}] * 2, {"raised": "KeyError: 'k'"}, False),  # raises the same
        ([{"type": "str", "text": "1"}, {"type": "str", "text": "2"}], {"type": "str", "text": "3"}, False),  # unstable
    ],
    ids=["same", "other bytes", "now raises", "prose to JSON", "other prose", "raises the same", "unstable"],
)
def test_what_counts_as_the_dispatcher_answering_differently(before, after, taken_back) -> None:
    """The judgment of `fix --verify` on the dispatcher's answers (no worker: the records as the runner
    gets them); an argument dict the run before did not send is not compared."""
    from dispatchguard.verify.discover import ToolTarget
    from dispatchguard.verify.fixing import dispatcher_change
    from dispatchguard.verify.runner import ToolReport

    target = ToolTarget("app.tools", "T", "class", ".", "app/tools.py", 1)
    was = ToolReport(target, "verified", dispatched=_dispatched(({"q": "a"}, before)))
    now = ToolReport(target, "verified", dispatched=_dispatched(({"q": "a"}, [after]), ({"q": "b"}, [after])))
    plan = {"label": "app.router.run_tool", "name": "t"}
    why = dispatcher_change(was, now, plan)
    assert (why is not None) == taken_back, why
    if taken_back:
        assert why.startswith("the project's dispatcher `app.router.run_tool` answers differently for `t` with")
        assert '{"q": "a"}: before' in why


#: the same encoding dispatcher as a method of a module-level instance, and as a function of an action model
ROUTER_SHAPES = {
    "method": (
        "import json\n\nfrom desk.tools import SlaReportTool\n\n\nclass Router:\n"
        "    def __init__(self, tools):\n        self.tools = tools\n\n"
        "    def execute(self, name, args):\n        return json.dumps(self.tools[name].run(**args), default=str)\n\n\n"
        "TOOLS = {'sla_report': SlaReportTool()}\nROUTER = Router(TOOLS)\n",
        "desk.router.Router.execute",
        "desk.router.ROUTER.execute",
    ),
    "action": (
        "import json\n\nfrom pydantic import BaseModel\n\nfrom desk.tools import SlaReportTool\n\n"
        "TOOLS = {'sla_report': SlaReportTool()}\n\n\nclass ToolAction(BaseModel):\n    name: str\n    args: dict\n\n\n"
        "async def dispatch(action: ToolAction):\n"
        "    return json.dumps(TOOLS.get(action.name).run(**action.args), default=str)\n",
        "desk.router.dispatch",
        "desk.router.dispatch",
    ),
}


@pytest.mark.parametrize("shape", sorted(ROUTER_SHAPES))
def test_the_dispatcher_is_called_in_each_shape_the_fix_knows(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ROUTER.execute(name, args)` on the module's one instance, and an async `dispatch(ToolAction(name=...,
    args=...))` built with the project's own model: both encode every result, so the fix is taken back."""
    router, entry, label = ROUTER_SHAPES[shape]
    _desk(tmp_path, router)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("desk.router.run_tool", entry), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = _fix_and_verify(tmp_path)
    assert (tmp_path / "desk" / "tools.py").read_text(encoding="utf-8") == DESK_TOOLS
    (reason,) = [s.reason for s in report.skipped]
    assert f"the project's dispatcher `{label}` answers differently for `sla_report` with" in reason, reason


#: registries keyed by each tool's own name (its `name: str = "sla_report"` field): the encoding
#: dispatcher of a comprehension, and the passing one that walks a list and compares names
NAME_KEYED_ROUTERS = {
    "comprehension, encoding": (
        "import json\n\nfrom desk.tools import SlaReportTool\n\nTOOLS = {t.name: t for t in [SlaReportTool()]}\n\n\n"
        "def run_tool(name, args):\n    return json.dumps(TOOLS[name].run(**args), default=str)\n",
        True,
    ),
    "compared names, passing": (
        "import json\n\nfrom desk.tools import SlaReportTool\n\nTOOLS = [SlaReportTool()]\n\n\n"
        "def run_tool(name, args):\n    for tool in TOOLS:\n        if tool.name == name:\n"
        "            result = tool.run(**args)\n"
        "            return result if isinstance(result, str) else json.dumps(result, default=str)\n"
        "    raise KeyError(name)\n",
        False,
    ),
}


@pytest.mark.parametrize("case", list(NAME_KEYED_ROUTERS))
def test_a_dispatcher_whose_registry_is_keyed_by_the_tools_own_names_is_called(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, the fix knew no registered name for a tool in such a registry, so `--verify` never
    called the dispatcher: the encoding dispatcher's double encoding went unseen. Now the fix is
    taken back there (the reason names `sla_report`), and kept where the dispatcher answers the same."""
    router, taken_back = NAME_KEYED_ROUTERS[case]
    _desk(tmp_path, router)
    monkeypatch.chdir(tmp_path)
    report = _fix_and_verify(tmp_path)
    fixed = (tmp_path / "desk" / "tools.py").read_text(encoding="utf-8")
    if taken_back:
        assert fixed == DESK_TOOLS
        (reason,) = [s.reason for s in report.skipped]
        assert "the project's dispatcher `desk.router.run_tool` answers differently for `sla_report` with" in reason
        assert [(f.path, f.code) for f in report.remaining] == [("desk/tools.py", "DG103")]
    else:
        assert [s.reason for s in report.skipped] == []
        assert "return json.dumps(SlaReport(" in fixed and [a.code for a in report.applied] == ["DG103"]
