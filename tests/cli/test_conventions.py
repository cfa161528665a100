"""The conventions ruff users expect, through the real CLI: one configuration (with its coverage
sub-table), the project root, .gitignore, force-exclude, colours, `rule`, `--show-settings`,
ruff's JSON fields and notebooks that never pass unnoticed."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.lint import RULES, load_config

from ..conftest import SELECT, about
from .conftest import run_cli, write_tree

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
VIOLATION = "from crewai.tools import BaseTool\n\n\nclass T(BaseTool):\n    pass\n\n\nT().run()\n"


def run_env(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-m", "dispatchguard", *args],
        cwd=cwd, env=environ, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


# ------------------------------------------------------------------ one configuration


def test_coverage_table_does_not_break_check(project):
    """The table docs/coverage-gate.md tells users to add used to make `check` exit 2."""
    (project / "pyproject.toml").write_text(
        "[tool.dispatchguard]\nstrict = false\n\n[tool.dispatchguard.coverage]\nfail-under = 90\n"
        'include = ["app/**/*.py"]\n',
        encoding="utf-8",
    )
    done = run_cli("check", *SELECT, "--no-cache")
    assert done.returncode == 1, done.stderr
    assert "unknown key" not in done.stderr
    assert done.stderr.strip().startswith("Found 3 findings")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "[tool.dispatchguard.coverage]\nthreshold = 90",
            "[tool.dispatchguard.coverage]: key 'threshold': unknown key",
        ),
        (
            "[tool.dispatchguard]\nselect = ['E501']",
            "key 'tool.dispatchguard.select': unknown rule code or prefix 'E501'",
        ),
        (
            "[tool.dispatchguard.per-file-ignores]\n'app/*.py' = ['DG999']",
            "key 'tool.dispatchguard.per-file-ignores' (pattern 'app/*.py'): unknown rule code or prefix 'DG999'",
        ),
        ("[tool.dispatchguard]\nextend-select = ['XYZ1']", "unknown rule code or prefix 'XYZ1'"),
        (
            "[tool.dispatchguard]\nforce-exclude = 'yes'",
            "key 'tool.dispatchguard.force-exclude': expected true or false",
        ),
    ],
)
def test_bad_configuration_is_exit_2_one_line_naming_file_and_key(project, body, message):
    (project / "pyproject.toml").write_text(body + "\n", encoding="utf-8")
    for command in ("check", "fix"):
        done = run_cli(command, "--no-cache")
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        [line] = done.stderr.splitlines()
        assert line.startswith(f"dispatchguard: error: {project / 'pyproject.toml'}: ")
        assert message in line
    gate = run_cli("coverage", "--fail-under", "50", "--include", "app/*.py")
    assert gate.returncode == 2 and message in gate.stderr


def test_root_without_markers_is_the_checked_files_parent(tmp_path):
    """Checking one file in a tree with no project marker indexes and caches nothing above it."""
    outer = tmp_path / "outer"
    write_tree(outer, {"inner/agent.py": VIOLATION, "big/other.py": "x = (\n", "big/more.py": VIOLATION})
    done = run_cli("check", *SELECT, "inner/agent.py", cwd=outer)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("inner/agent.py:8:1: DG101")
    assert "1 file" in done.stderr
    assert (outer / "inner" / ".dispatchguard_cache").is_dir()
    assert not (outer / ".dispatchguard_cache").exists() and not (tmp_path / ".dispatchguard_cache").exists()
    cached = b"".join(p.read_bytes() for p in (outer / "inner" / ".dispatchguard_cache").rglob("*") if p.is_file())
    assert b"other.py" not in cached and b"more.py" not in cached


# ------------------------------------------------------------------ .gitignore and force-exclude


@pytest.fixture
def ignoring(tmp_path):
    root = write_tree(
        tmp_path / "proj",
        {
            "pyproject.toml": '[tool.dispatchguard]\nextend-exclude = ["vendored"]\n',
            ".gitignore": "generated/\n",
            "app/agent.py": VIOLATION,
            "generated/client.py": VIOLATION,
            "vendored/lib.py": VIOLATION,
        },
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_gitignored_and_excluded_files_are_skipped(ignoring):
    done = run_cli("check", "--no-cache", cwd=ignoring)
    assert done.returncode == 1
    assert {line.split(":")[0] for line in done.stdout.splitlines()} == {"app/agent.py"}


def test_explicit_paths_are_checked_unless_force_exclude(ignoring):
    named = ("generated/client.py", "vendored/lib.py", "app/agent.py")
    done = run_cli("check", "--no-cache", *named, cwd=ignoring)
    assert {line.split(":")[0] for line in done.stdout.splitlines()} == set(named)
    done = run_cli("check", "--no-cache", "--force-exclude", *named, cwd=ignoring)
    assert {line.split(":")[0] for line in done.stdout.splitlines()} == {"app/agent.py"}
    (ignoring / "pyproject.toml").write_text(
        '[tool.dispatchguard]\nextend-exclude = ["vendored"]\nforce-exclude = true\n'
    )
    done = run_cli("check", "--no-cache", *named[:2], cwd=ignoring)
    assert done.returncode == 0 and done.stdout == "" and "0 files" in done.stderr


# ------------------------------------------------------------------ colours


def test_colours_follow_force_color_and_no_color(project):
    plain = run_env("check", "--no-cache", cwd=project)
    assert "\x1b[" not in plain.stdout  # a pipe: no colours
    forced = run_env("check", "--no-cache", cwd=project, FORCE_COLOR="1")
    assert "\x1b[1mapp/agent.py\x1b[0m" in forced.stdout and "\x1b[1m\x1b[31mDG102\x1b[0m" in forced.stdout
    assert forced.returncode == plain.returncode == 1
    both = run_env("check", "--no-cache", cwd=project, FORCE_COLOR="1", NO_COLOR="1")
    assert both.stdout == plain.stdout
    as_json = run_env("check", "--no-cache", "--output-format", "json", cwd=project, FORCE_COLOR="1")
    assert "\x1b[" not in as_json.stdout and json.loads(as_json.stdout)


# ------------------------------------------------------------------ rule


def test_rule_prints_the_page(project):
    done = run_cli("rule", "dg101")
    assert done.returncode == 0
    assert done.stdout == (ROOT / "docs" / "rules" / "DG101.md").read_text(encoding="utf-8")


def test_rule_all_and_json(project):
    done = run_cli("rule", "--all")
    assert done.returncode == 0
    titles = [line for line in done.stdout.splitlines() if line.startswith("# ") and "(DG" in line]
    assert [t.rsplit("(", 1)[1].rstrip(")") for t in titles] == sorted(RULES)
    item = json.loads(run_cli("rule", "--output-format", "json", "DG103").stdout)
    assert (item["code"], item["name"]) == ("DG103", "tool-returns-non-json")
    assert item["explanation"].startswith("# tool-returns-non-json (DG103)")
    assert len(json.loads(run_cli("rule", "--all", "--output-format", "json").stdout)) == len(RULES)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["DG999"],
            f"dispatchguard: error: unknown rule code 'DG999' (known: {', '.join(sorted(RULES))})",
        ),
        ([], "one of the arguments CODE --all is required"),
        (["DG101", "--all"], "not allowed with argument"),
    ],
)
def test_rule_bad_input_is_exit_2(project, args, message):
    done = run_cli("rule", *args)
    assert done.returncode == 2 and message in done.stderr and done.stdout == ""


@pytest.mark.slow
def test_rule_pages_ship_in_the_wheel(tmp_path):
    """Installed from a wheel (no source checkout next to it), `rule` still finds its pages."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(ROOT)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("dispatchguard-*.whl")
    target = tmp_path / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    assert (target / "dispatchguard" / "rule_docs" / "DG102.md").is_file()
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    env["PYTHONPATH"] = str(target)
    code = (
        "import dispatchguard, sys; print(dispatchguard.__file__, file=sys.stderr)\n"
        "from dispatchguard.cli.main import main; sys.exit(main(['rule', 'DG102']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(str(target))
    assert done.stdout == (ROOT / "docs" / "rules" / "DG102.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------ --show-settings


def test_show_settings_says_where_each_value_comes_from(project):
    (project / "pyproject.toml").write_text(
        '[tool.dispatchguard]\nignore = ["DG103"]\nextend-exclude = ["gen"]\ndispatchers = ["Runner.go"]\n'
        "[tool.dispatchguard.coverage]\nfail-under = 90\n",
        encoding="utf-8",
    )
    done = run_cli("check", "--show-settings", "--select", "DG1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    file = str(project / "pyproject.toml")
    assert lines[0] == f"# project root: {project} ({file} has a [tool.dispatchguard] table)"
    assert 'select = ["DG1"]  # command line (--select)' in lines
    assert f'ignore = ["DG103"]  # {file}' in lines
    assert "strict = false  # default" in lines and "per-file-ignores = {}  # default" in lines
    assert any(
        line.startswith("exclude = [") and line.endswith(f'"gen"]  # default + {file} (extend-exclude)')
        for line in lines
    )
    assert any(
        line.startswith("dispatchers = [") and '"Runner.go"' in line and line.endswith(f"# default + {file}")
        for line in lines
    )
    assert f"fail-under = 90.0  # {file}" in lines and "# include: not set" in lines
    assert not any(line.startswith("app/") for line in lines)  # nothing was checked


def test_show_settings_without_configuration(tmp_path):
    write_tree(tmp_path / "p", {"setup.py": "", "m.py": ""})
    done = run_cli("check", "--show-settings", cwd=tmp_path / "p")
    assert done.returncode == 0
    assert done.stdout.splitlines()[:2] == [
        f"# project root: {tmp_path / 'p'} "
        "(nearest directory with setup.py (no pyproject.toml with [tool.dispatchguard]))",
        "# configuration file: none (built-in defaults)",
    ]


def test_show_settings_lists_a_src_layout_inside_the_project(tmp_path):
    files = {
        "pyproject.toml": "[tool.dispatchguard]\n",
        "src/app/m.py": "",
        "bot/src/bot/tools/web.py": "",
        "bot/src/bot/agents/researcher.py": "",
        "bot/scripts/lib/helper.py": "",
    }
    write_tree(tmp_path / "p", files)
    done = run_cli("check", "--show-settings", cwd=tmp_path / "p")
    assert done.returncode == 0, done.stderr
    roots = [line for line in done.stdout.splitlines() if line.startswith("# import root:")]
    assert roots == [
        "# import root: . (the project root)",
        "# import root: src (modules under src/ are also named without it (a src layout))",
        "# import root: bot/scripts/lib (modules below it are also named from it: a src layout inside the project)",
        "# import root: bot/src (modules below it are also named from it: a src layout inside the project)",
    ]


DISPATCHING_AGENT = """\
from langchain_core.tools import tool


@tool
def convert(q: str) -> str:
    \"\"\"Convert.\"\"\"
    return q


TOOLS = {"convert": convert}


def step(reply):
    for call in reply.tool_calls:
        TOOLS[call["name"]].invoke(call["args"])


def fallback(action):
    return TOOLS.get(action.tool).invoke(action.tool_input)
"""


def test_show_settings_lists_the_detected_dispatch_points(tmp_path):
    write_tree(tmp_path / "p", {"pyproject.toml": "[tool.dispatchguard]\n", "agent.py": DISPATCHING_AGENT})
    done = run_cli("check", "--show-settings", cwd=tmp_path / "p")
    assert done.returncode == 0, done.stderr
    tail = done.stdout.splitlines()[-3:]
    assert tail == [
        "# dispatch points detected (DG101 lets them run tools; pin them with dispatchers = [...]): 2",
        "#   agent.py:15 in step",
        "#   agent.py:19 in fallback",
    ]
    (tmp_path / "p" / "pyproject.toml").write_text('[tool.dispatchguard]\ndispatchers = ["step"]\n')
    configured = run_cli("check", "--show-settings", cwd=tmp_path / "p")
    assert configured.stdout.splitlines()[-1] == "# dispatch points: the configured dispatchers only (detection is off)"


REQUESTED_CALLS_AGENT = """\
from langchain.agents import AgentExecutor
from langchain_core.tools import tool


@tool
def convert(q: str) -> str:
    \"\"\"Convert.\"\"\"
    return q


TOOLS = [convert]


class Executor(AgentExecutor):
    def _take_next_step(self, name_to_tool_map, color_mapping, inputs, intermediate_steps, run_manager=None):
        name_to_tool_map = {t.name: t for t in TOOLS}
        for action in [self.agent.plan(intermediate_steps, **inputs)]:
            yield name_to_tool_map[action.tool].run(action.tool_input)


class Handler:
    def handle(self, calls):
        for call in calls:
            for candidate in TOOLS:
                if candidate.name == call["name"]:
                    return candidate.invoke(call["args"])
"""


def test_show_settings_lists_the_classes_methods_that_run_requested_calls(tmp_path):
    """An executor subclass's step and a handler class's method, told by what they do (a tool looked
    up by the requested call's name, then run), are listed as dispatch points."""
    write_tree(tmp_path / "p", {"pyproject.toml": "[tool.dispatchguard]\n", "agent.py": REQUESTED_CALLS_AGENT})
    done = run_cli("check", "--show-settings", cwd=tmp_path / "p")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-3:] == [
        "# dispatch points detected (DG101 lets them run tools; pin them with dispatchers = [...]): 2",
        "#   agent.py:18 in Executor._take_next_step",
        "#   agent.py:26 in Handler.handle",
    ]


def test_the_summary_counts_files_without_a_tool_word_apart(tmp_path):
    """A file that names no tool word is read, never checked by a rule (a syntax error in it is
    the project's Python linter's): the summary does not count it as checked."""
    write_tree(
        tmp_path / "p",
        {"pyproject.toml": "[tool.dispatchguard]\n", "agent.py": DISPATCHING_AGENT, "plain.py": "print(1)\n",
         "broken.py": "def (:\n"},
    )  # fmt: skip
    done = run_cli("check", "--no-cache", ".", cwd=tmp_path / "p")
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "All checks passed (3 files: 1 checked, 2 without a tool word)."


# ------------------------------------------------------------------ JSON and notebooks


def test_json_output_has_name_and_fix(project):
    items = about(json.loads(run_cli("check", "--no-cache", "--output-format", "json").stdout))
    assert [(i["code"], i["name"]) for i in items] == [
        ("DG102", "tool-instantiated-outside-tools-module"),
        ("DG101", "direct-tool-call"),
        ("DG103", "tool-returns-non-json"),
    ]
    fixes = {i["code"]: i["fix"] for i in items}
    assert fixes["DG102"] is None and fixes["DG101"] is None  # no fixer; no dispatcher to route through
    assert fixes["DG103"]["applicability"] == "unsafe" and fixes["DG103"]["edits"]


NOTEBOOK = {
    "cells": [
        {"cell_type": "code", "metadata": {}, "source": ["tool._run('x')\n"], "outputs": [], "execution_count": None}
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def test_notebooks_are_checked_and_a_broken_one_is_never_a_silent_pass(tmp_path):
    root = write_tree(tmp_path / "nb", {"pyproject.toml": "[tool.dispatchguard]\n", "ok.py": "x = 1\n"})
    (root / "analysis.ipynb").write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    (root / ".ipynb_checkpoints").mkdir()  # Jupyter's copies are excluded by default
    (root / ".ipynb_checkpoints" / "analysis-checkpoint.ipynb").write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    done = run_cli("check", "--no-cache", cwd=root)
    assert done.returncode == 1
    assert done.stdout.startswith("analysis.ipynb:cell 1:1:1: DG101 ")
    assert done.stderr.splitlines() == ["Found 1 finding in 2 files (1 checked, 1 without a tool word)."]
    (root / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    broken = run_cli("check", "--no-cache", cwd=root)
    assert broken.returncode == 2 and broken.stdout == done.stdout  # the others are still checked
    error = "dispatchguard: error: broken.ipynb: not a notebook: not valid JSON"
    assert broken.stderr.splitlines()[0].startswith(error)
    assert broken.stderr.splitlines()[1] == (
        "Found 1 finding in 2 files (1 checked, 1 without a tool word). 1 notebook (.ipynb) not checked."
    )
    stats = run_cli("check", "--no-cache", "--statistics", "--output-format", "json", "broken.ipynb", cwd=root)
    assert stats.returncode == 2 and json.loads(stats.stdout) == []


def test_fix_says_which_notebooks_it_cannot_read(tmp_path):
    root = write_tree(tmp_path / "nb", {"pyproject.toml": "[tool.dispatchguard]\n", "ok.py": "x = 1\n"})
    (root / "analysis.ipynb").write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    (root / "old.ipynb").write_text(json.dumps({**NOTEBOOK, "nbformat": 3}), encoding="utf-8")
    done = run_cli("fix", "--no-cache", cwd=root)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0] == "dispatchguard: error: old.ipynb: not an nbformat 4 notebook (nbformat 3)"
    assert json.loads((root / "analysis.ipynb").read_text(encoding="utf-8")) == NOTEBOOK  # no fix for it: untouched


def test_configuration_that_is_not_utf8_is_exit_2(project):
    (project / "pyproject.toml").write_bytes(b"[tool.dispatchguard]\nstrict = false # caf\xe9\n")
    done = run_cli("check", "--no-cache")
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"dispatchguard: error: {project / 'pyproject.toml'}: invalid TOML")


def test_show_settings_with_an_explicit_config_file(project, tmp_path):
    other = tmp_path / "elsewhere.toml"
    other.write_text('[tool.dispatchguard]\nstrict = true\nper-file-ignores = { "a/*.py" = ["DG101"] }\n')
    done = run_cli("check", "--show-settings", "--config", str(other))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == [f"# project root: {tmp_path} (--config)", f"# configuration file: {other}"]
    assert f"strict = true  # {other}" in lines
    assert f'per-file-ignores = {{ "a/*.py" = ["DG101"] }}  # {other}' in lines


def test_show_settings_output_is_a_configuration_that_reproduces_itself(project, tmp_path):
    (project / "pyproject.toml").write_text(
        '[tool.dispatchguard]\nselect = ["ALL"]\nignore = ["DG103"]\ntool-bases = ["corp.Base"]\n'
        'per-file-ignores = { "legacy/*.py" = ["DG1"] }\nextend-exclude = ["gen"]\n'
        "[tool.dispatchguard.coverage]\nfail-under = 80\ninclude = ['app/*.py']\n",
        encoding="utf-8",
    )
    done = run_cli("check", "--show-settings")
    assert done.returncode == 0, done.stderr
    shown = tmp_path / "shown.toml"
    shown.write_text(done.stdout, encoding="utf-8")
    original = load_config([project])
    again = load_config([], config_file=shown)
    assert dataclasses.replace(again, root=original.root, config_file=original.config_file) == original


def test_colours_on_a_real_terminal(project):
    """stdout on a pseudo-terminal: coloured without FORCE_COLOR; NO_COLOR still wins."""
    pty = pytest.importorskip("pty")

    def on_terminal(**env: str) -> str:
        leader, follower = pty.openpty()
        environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
        environ.update(env)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "dispatchguard", "check", "--no-cache"],
                cwd=project, env=environ, stdout=follower, stderr=subprocess.PIPE, timeout=120, check=False,
            )  # fmt: skip
            os.close(follower)
            assert done.returncode == 1, done.stderr
            chunks = []
            while True:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # EIO: the terminal's other end is closed and drained
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks).decode()
        finally:
            os.close(leader)

    assert "\x1b[1m\x1b[31mDG101\x1b[0m" in on_terminal(TERM="xterm")
    plain = on_terminal(TERM="xterm", NO_COLOR="1")
    assert "\x1b[" not in plain and "app/agent.py:6:12: DG101" in plain
