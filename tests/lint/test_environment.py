"""Names resolved into the project's installed environment: a real distribution built and installed
by pip into a real virtual environment, found the ways a user's environment is found."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from dispatchguard.lint import check_paths
from dispatchguard.lint.config import ConfigError, load_config

APP = """
    from teamtools import Client, SearchTool

    tool = SearchTool()
    client = Client()
    print(client.run("x"))
"""


def _project(root: Path, table: str = "", app: str = APP) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "app.py").write_text(textwrap.dedent(app).lstrip(), encoding="utf-8")
    if table:
        (root / "pyproject.toml").write_text(f"[tool.dispatchguard]\n{table}\n", encoding="utf-8")
    (root / ".git").mkdir(exist_ok=True)
    return root


def _run(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "dispatchguard", "check", "--no-cache", *args],
        cwd=root,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _found(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line.split(" ", 2)[0] + " " + line.split(" ", 2)[1] for line in done.stdout.splitlines() if ": DG" in line]


# ------------------------------------------------------------------ how the environment is found


def test_the_python_setting_names_the_environment(tmp_path: Path, team_tools_env: Path) -> None:
    root = _project(tmp_path / "app", f'python = "{team_tools_env}"')
    done = _run(root)
    assert _found(done) == ["app.py:3:8: DG102"], done.stdout + done.stderr
    assert "`SearchTool`" in done.stdout
    # Client is a plain class of the installed package: no finding, and no guess from its spelling


def test_the_python_setting_may_name_an_interpreter_relative_to_config(tmp_path: Path, team_tools_env: Path) -> None:
    root = _project(tmp_path / "app")
    link = root / "env"
    link.symlink_to(team_tools_env)
    (root / "pyproject.toml").write_text('[tool.dispatchguard]\npython = "env/bin/python"\n', encoding="utf-8")
    assert _found(_run(root)) == ["app.py:3:8: DG102"]


def test_virtual_env_names_the_environment(tmp_path: Path, team_tools_env: Path) -> None:
    root = _project(tmp_path / "app")
    assert _found(_run(root)) == []  # no environment: team-tools is unknown
    assert _found(_run(root, env={"VIRTUAL_ENV": str(team_tools_env)})) == ["app.py:3:8: DG102"]


def test_a_dot_venv_at_the_root_is_the_environment(tmp_path: Path, team_tools_env: Path) -> None:
    root = _project(tmp_path / "app")
    (root / ".venv").symlink_to(team_tools_env)
    assert _found(_run(root)) == ["app.py:3:8: DG102"]
    off = _project(tmp_path / "off", "python = false")
    (off / ".venv").symlink_to(team_tools_env)
    assert _found(_run(off)) == []


def test_the_command_line_overrides_the_setting(tmp_path: Path, team_tools_env: Path) -> None:
    root = _project(tmp_path / "app", "python = false")
    assert _found(_run(root, "--python", str(team_tools_env / "bin" / "python"))) == ["app.py:3:8: DG102"]


def test_an_editable_install_is_read_from_the_folder_its_pth_file_names(
    tmp_path: Path, team_tools: Any
) -> None:
    venv = team_tools.venv(tmp_path / "venv")
    team_tools.install(venv, editable=True)
    site = next((venv / "lib").glob("python3.*/site-packages"))
    assert not (site / "teamtools").exists() and list(site.glob("*.pth"))  # only a .pth: really editable
    root = _project(tmp_path / "app", f'python = "{venv}"')
    assert _found(_run(root)) == ["app.py:3:8: DG102"]


# ------------------------------------------------------------------ what the sources decide


def test_sources_replace_the_spelling_guess_of_a_tool_package(tmp_path: Path, team_tools_env: Path) -> None:
    guessed = _project(tmp_path / "guess", 'tool-packages = ["teamtools"]\npython = false')
    # without the sources, a capitalised name of a configured tool package is taken for a tool,
    # and calling its method for a direct tool call
    assert _found(_run(guessed)) == ["app.py:3:8: DG102", "app.py:4:10: DG102", "app.py:5:7: DG101"]
    read = _project(tmp_path / "read", f'tool-packages = ["teamtools"]\npython = "{team_tools_env}"')
    assert _found(_run(read)) == ["app.py:3:8: DG102"]


TAVILY_APP = """
    from langchain_tavily import TavilySearch
    from langchain_tavily._utilities import TavilySearchAPIWrapper

    search = TavilySearch(max_results=3)
    wrapper = TavilySearchAPIWrapper()
"""


@pytest.mark.integration
def test_a_partner_library_at_the_tables_release_is_answered_by_the_table(tmp_path: Path) -> None:
    """The test session's own environment has the real langchain-tavily (a test extra, which requires
    langchain-core) at the release the bundled table was built from, next to the real crewai and
    langchain-core, and langgraph-prebuilt, which the table does not cover."""
    import crewai
    import langchain_core

    read = _project(tmp_path / "read", f'python = "{sys.prefix}"', TAVILY_APP)
    done = _run(read)
    assert _found(done) == ["app.py:4:10: DG102"], done.stdout + done.stderr
    assert "`TavilySearch`" in done.stdout  # the API wrapper (a pydantic model) is no tool
    # without an environment the table alone knows the wrapper is no tool: no spelling guess
    table_only = _project(tmp_path / "table", "python = false", TAVILY_APP)
    assert _found(_run(table_only)) == ["app.py:4:10: DG102"]
    shown = _run(read, "--show-settings").stdout.splitlines()
    table = "the bundled table's release: the table answers"
    tavily = next(line for line in shown if line.startswith("#   tool library: langchain-tavily "))
    assert tavily.endswith(f"imports langchain_tavily; {table})") and "(requires langchain" in tavily
    prebuilt = next(line for line in shown if line.startswith("#   tool library: langgraph-prebuilt "))
    assert prebuilt.endswith("imports langgraph; its sources are read)")
    assert f"#   tool library: crewai {crewai.__version__} (a tool library; imports crewai; {table})" in shown
    core = f"#   tool library: langchain-core {langchain_core.__version__} (a tool library; imports langchain_core;"
    assert any(line.startswith(core) for line in shown)


WRAPPER_APP = """
    from langchain_community.utilities import WikipediaAPIWrapper
    from langchain_core.tools import tool


    @tool
    def search_wikipedia(query: str) -> str:
        \"\"\"Search Wikipedia.\"\"\"
        return WikipediaAPIWrapper().run(query)
"""


@pytest.mark.integration
def test_an_api_wrapper_declared_only_as_str_is_answered_by_the_tables_summary(tmp_path: Path) -> None:
    """An environment with langchain-community at another release than the table's: its sources
    are read, and they declare ``run(...) -> str``, which says nothing of JSON; the bundled table's
    summary of the wrapper (its pages joined as prose) still answers, as it does with no environment."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3.*/site-packages"))
    meta = site / "langchain_community-0.0.1.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: langchain-community\nVersion: 0.0.1\n")
    (meta / "top_level.txt").write_text("langchain_community\n")
    package = site / "langchain_community" / "utilities"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from langchain_community.utilities.wikipedia import WikipediaAPIWrapper\n")
    (package / "wikipedia.py").write_text("class WikipediaAPIWrapper:\n    def run(self, query: str) -> str: ...\n")
    expected = ["app.py:8:12: DG104"]
    read = _project(tmp_path / "read", f'python = "{venv}"', WRAPPER_APP)
    assert "langchain-community 0.0.1" in _run(read, "--show-settings").stdout
    done = _run(read)
    assert _found(done) == expected, done.stdout + done.stderr
    assert "(from `WikipediaAPIWrapper.run`)" in done.stdout
    assert _found(_run(_project(tmp_path / "table", "python = false", WRAPPER_APP))) == expected


# ------------------------------------------------------------------ the cache and bad input


def test_installing_a_package_invalidates_cached_results(tmp_path: Path, team_tools: Any) -> None:
    venv = team_tools.venv(tmp_path / "venv")
    root = _project(tmp_path / "app", f'python = "{venv}"')
    config = load_config([root])
    assert [f.code for f in check_paths([root], config, jobs=1).findings] == []
    team_tools.install(venv)
    assert [f.code for f in check_paths([root], config, jobs=1).findings] == ["DG102"]
    shutil.rmtree(next((venv / "lib").glob("python3.*/site-packages")) / "teamtools")
    for info in (venv / "lib").glob("python3.*/site-packages/team_tools-*.dist-info"):
        shutil.rmtree(info)
    assert [f.code for f in check_paths([root], config, jobs=1).findings] == []


@pytest.mark.integration
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"missing/bin/python"', "missing/bin/python does not exist"),
        ('"."', "no site-packages folder under"),
        ("3", "expected the path of an interpreter or environment, or false, got 3"),
    ],
)
def test_a_python_setting_that_names_no_environment_is_exit_2(tmp_path: Path, value: str, message: str) -> None:
    root = _project(tmp_path / "app", f"python = {value}")
    done = _run(root)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"dispatchguard: error: {root / 'pyproject.toml'}: key 'tool.dispatchguard.python': ")
    assert message in line
    with pytest.raises(ConfigError, match=r"key 'tool\.dispatchguard\.python'"):
        load_config([root])


@pytest.mark.integration
def test_a_missing_command_line_environment_is_exit_2(tmp_path: Path) -> None:
    root = _project(tmp_path / "app")
    done = _run(root, "--python", str(tmp_path / "nope" / "bin" / "python"))
    assert done.returncode == 2
    assert done.stderr.startswith("dispatchguard: error: --python: python = ")
    assert "does not exist" in done.stderr


def test_show_settings_says_which_environment_and_why(tmp_path: Path, team_tools_env: Path) -> None:
    root = _project(tmp_path / "app")
    shown = _run(root, "--show-settings", env={"VIRTUAL_ENV": str(team_tools_env)}).stdout.splitlines()
    assert f"# environment: {team_tools_env} (VIRTUAL_ENV={team_tools_env}); pin it with python = ..." in shown
    team = "#   tool library: team-tools 0.3.1 (requires langchain-core; imports teamtools; its sources are read)"
    assert team in shown
    assert "# python: not set (the environment is found; see below)" in shown
    assert any(line.startswith("# bundled library table (for what the environment lacks): crewai ") for line in shown)
    none = _run(root, "--show-settings").stdout.splitlines()
    assert any(line.startswith("# environment: none found (VIRTUAL_ENV is not set; no .venv or venv") for line in none)


def test_without_an_environment_the_bundled_table_answers(tmp_path: Path) -> None:
    root = _project(tmp_path / "app", "python = false")
    (root / "app.py").write_text("from crewai_tools import SerperDevTool, MCPServerAdapter\n\nSerperDevTool()\n"
                                 "MCPServerAdapter({})\n", encoding="utf-8")  # fmt: skip
    config = load_config([root])
    assert config.python is False
    assert [(f.line, f.code) for f in check_paths([root], config, jobs=1).findings] == [(3, "DG102")]


def test_flake8_and_stdin_read_the_same_environment(tmp_path: Path, team_tools_env: Path) -> None:
    root = _project(tmp_path / "app", f'python = "{team_tools_env}"')
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "DG", "app.py"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert [line.split(" ", 2)[:2] for line in flake8.stdout.splitlines()] == [["app.py:3:8:", "DG102"]]
    stdin = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "check", "--stdin-filename", "app.py", "-"],
        cwd=root,
        input=(root / "app.py").read_text(encoding="utf-8"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert _found(stdin) == ["app.py:3:8: DG102"]


def test_under_pre_commit_the_checkers_own_environment_is_not_the_projects(
    tmp_path: Path, team_tools_env: Path
) -> None:
    """pre-commit runs a hook with VIRTUAL_ENV naming the hook's environment (the checker's own)."""
    root = _project(tmp_path / "app")
    (root / ".venv").symlink_to(team_tools_env)
    hook = {"PRE_COMMIT": "1", "VIRTUAL_ENV": sys.prefix}
    assert _found(_run(root, env=hook)) == ["app.py:3:8: DG102"]
    shown = _run(root, "--show-settings", env=hook).stdout
    assert f"# environment: {root / '.venv'} (.venv/pyvenv.cfg at the project root)" in shown
    # outside pre-commit, an activated environment wins over the .venv folder
    assert _found(_run(root, env={"VIRTUAL_ENV": sys.prefix})) == []


def test_cached_library_summaries_are_reread_when_the_library_file_changes(
    tmp_path: Path, team_tools: Any
) -> None:
    venv = team_tools.venv(tmp_path / "venv")
    team_tools.install(venv)
    root = _project(tmp_path / "app", f'python = "{venv}"')
    config = load_config([root])
    assert [f.code for f in check_paths([root], config, jobs=1).findings] == ["DG102"]
    search = next((venv / "lib").glob("python3.*/site-packages/teamtools/search.py"))
    search.write_text("class SearchTool:\n    pass\n", encoding="utf-8")  # no longer a tool
    app = root / "app.py"
    app.write_text(app.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # the project changed too
    assert [f.code for f in check_paths([root], config, jobs=1).findings] == []


@pytest.mark.integration
def test_an_environment_with_system_site_packages_reads_the_base_interpreters_too(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    root = _project(tmp_path / "app", f'python = "{venv}"')
    shown = _run(root, "--show-settings").stdout.splitlines()
    folders = [line.removeprefix("#   import folder: ") for line in shown if line.startswith("#   import folder: ")]
    base = Path(sys.base_prefix)
    assert folders[0].startswith(str(venv))
    assert any(Path(folder).is_relative_to(base) and folder.endswith("-packages") for folder in folders[1:])


def test_an_editor_session_sees_a_package_installed_while_it_runs(tmp_path: Path, team_tools: Any) -> None:
    from dispatchguard.lint.source import check_buffer, forget_editor_state

    venv = team_tools.venv(tmp_path / "venv")
    root = _project(tmp_path / "app", f'python = "{venv}"')
    buffer = (root / "app.py").read_bytes()
    forget_editor_state()
    assert [f.code for f in check_buffer(root / "app.py", buffer)] == []
    team_tools.install(venv)  # pip install in another terminal, the editor still open
    assert [f.code for f in check_buffer(root / "app.py", buffer)] == ["DG102"]
