"""The CI recipes run as CI would run them: the GitHub Action's run steps (read from action.yml,
their inputs passed as the runner passes them) in a fresh environment that installs dispatchguard
from a wheel built here, and the GitLab CI job of docs/ci.md."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import jsonschema
import pytest
import yaml

from dispatchguard import __version__

from .conftest import PROJECT, write_tree

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
INPUT = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")


def action() -> dict:
    return yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))


def inputs(**given: str) -> dict[str, str]:
    values = {name: str(spec.get("default", "")) for name, spec in action()["inputs"].items()}
    assert set(given) <= set(values), given
    return {**values, **given}


def expand(text: str, values: dict[str, str]) -> str:
    return INPUT.sub(lambda m: values[m.group(1)], text)


def test_the_action_pins_this_release_and_never_splices_inputs_into_scripts():
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert spec["inputs"]["version"]["default"] == __version__
    steps = spec["runs"]["steps"]
    assert [s.get("uses", "run").split("@")[0] for s in steps] == [
        "actions/setup-python", "run", "run", "github/codeql-action/upload-sarif",
    ]  # fmt: skip
    for step in steps:
        if "run" in step:
            assert "${{" not in step["run"], step["name"]  # inputs only through env: no script injection
            assert step["shell"] == "bash"
    assert "inputs.sarif == 'true'" in steps[3]["if"]


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> Path:
    """What setup-python gives the steps: a fresh Python, here with this checkout's wheel to
    install (and, through a .pth, the dependencies this environment already has)."""
    base = tmp_path_factory.mktemp("runner")
    wheels = base / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "-w", str(wheels), str(REPO)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return base


def run_step(step: dict, values: dict[str, str], runner: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **{key: expand(str(value), values) for key, value in step.get("env", {}).items()}}
    env["PATH"] = f"{runner / 'venv' / 'bin'}{os.pathsep}{env['PATH']}"
    # offline: the "registry" is the wheel built from this checkout; the dependencies are here already
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(runner / "wheels"), PIP_NO_DEPS="1", PIP_IGNORE_INSTALLED="1")
    env.pop("VIRTUAL_ENV", None)
    workdir = cwd / expand(step.get("working-directory", "."), values)
    return subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.integration
def test_the_action_installs_the_pinned_release_and_annotates(runner, tmp_path):
    project = write_tree(tmp_path / "repo" / "service", PROJECT)
    values = inputs(**{"working-directory": "service", "sarif": "true", "args": "app --no-cache"})
    install, check = [s for s in action()["runs"]["steps"] if "run" in s]
    done = run_step(install, values, runner, tmp_path / "repo")
    assert done.returncode == 0, done.stderr
    shown = subprocess.run(
        [str(runner / "venv" / "bin" / "dispatchguard"), "--version"], capture_output=True, text=True, check=True
    )
    assert shown.stdout.strip() == f"dispatchguard {__version__}"

    done = run_step(check, values, runner, tmp_path / "repo")
    assert done.returncode == 1, done.stderr  # findings fail the step
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 3 and "file=app/agent.py" in annotations[0]
    log = json.loads((project / "dispatchguard.sarif").read_text(encoding="utf-8"))
    schema = json.loads((DATA / "sarif-2.1.0-subset.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(log, schema)
    assert len(log["runs"][0]["results"]) == 5  # the two silenced ones are listed as suppressed

    (project / "app" / "agent.py").write_text("", encoding="utf-8")
    (project / "app" / "tools.py").write_text("", encoding="utf-8")
    done = run_step(check, inputs(**{"working-directory": "service"}), runner, tmp_path / "repo")
    assert (done.returncode, done.stdout) == (0, "")


@pytest.mark.integration
def test_an_input_cannot_inject_a_command(runner, tmp_path):
    write_tree(tmp_path / "repo", PROJECT)
    (_, check) = [s for s in action()["runs"]["steps"] if "run" in s]
    done = run_step(check, inputs(args='app"; touch injected; echo "'), runner, tmp_path / "repo")
    assert done.returncode == 2 and not (tmp_path / "repo" / "injected").exists()


def gitlab_job() -> dict:
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    section = text.split("## GitLab CI", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block is not None
    return yaml.safe_load(block.group(1))["dispatchguard"]


@pytest.mark.integration
def test_the_gitlab_job_of_the_docs_writes_a_code_quality_report(tmp_path):
    job = gitlab_job()
    install, command = job["script"]
    assert install == f'pip install "dispatchguard=={__version__}"'
    report = job["artifacts"]["reports"]["codequality"]
    project = write_tree(tmp_path / "builds" / "group" / "repo", PROJECT)
    env = {
        **os.environ,
        "CI_PROJECT_DIR": str(project),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(["sh", "-c", command], cwd=project, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    issues = json.loads((project / report).read_text(encoding="utf-8"))
    schema = json.loads((DATA / "gitlab-codequality.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(issues, schema)
    assert sorted(i["location"]["path"] for i in issues) == ["app/agent.py", "app/agent.py", "app/tools.py"]
    assert job["artifacts"]["when"] == "always"
