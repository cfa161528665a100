"""The CI recipes run as CI would run them: the GitHub Action's run steps (read from action.yml,
their inputs and ``github.action_path`` passed as the runner passes them) in a fresh environment
with no package index reachable, installing dispatchguard from the action's checkout (or, with the
``version`` input, from a wheel built here standing in for the index), and the GitLab CI job of
docs/ci.md with its install from a pinned commit of this repository."""

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

from ..conftest import ABOUT, SELECT
from .conftest import PROJECT, write_tree

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
INPUT = re.compile(r"\$\{\{\s*(inputs\.[\w-]+|github\.action_path)\s*\}\}")
SHA = re.compile(r"[0-9a-f]{40}")


def action() -> dict:
    return yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))


def inputs(**given: str) -> dict[str, str]:
    values = {name: str(spec.get("default", "")) for name, spec in action()["inputs"].items()}
    assert set(given) <= set(values), given
    return {**values, **given}


def expand(text: str, values: dict[str, str]) -> str:
    return INPUT.sub(lambda m: values[m.group(1).removeprefix("inputs.")], text)


def git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False)


def test_the_uses_lines_pin_a_commit_of_this_repository():
    """No release is tagged yet: every `uses: dispatchguard/dispatchguard@REF` names one commit of
    this repository's history whose action.yml installs the action's own checkout."""
    refs = set()
    for path in (REPO / "action.yml", REPO / "docs" / "ci.md", REPO / "README.md"):
        text = path.read_text(encoding="utf-8")
        refs |= set(re.findall(r"uses: dispatchguard/dispatchguard@([0-9A-Za-z._-]+)", text))
    assert len(refs) == 1, refs
    (ref,) = refs
    assert SHA.fullmatch(ref), ref
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    assert git("merge-base", "--is-ancestor", ref, "HEAD").returncode == 0
    # the pinned action installs its own checkout: an older one would look for an index release
    pinned = yaml.safe_load(git("show", f"{ref}:action.yml").stdout)
    install = next(step for step in pinned["runs"]["steps"] if step.get("name") == "Install dispatchguard")
    assert install["env"].get("DG_ACTION_PATH") == "${{ github.action_path }}"


def test_the_action_installs_its_own_checkout_and_never_splices_inputs_into_scripts():
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert spec["inputs"]["version"]["default"] == ""  # none: the action's checkout is installed
    steps = spec["runs"]["steps"]
    assert steps[1]["env"]["DG_ACTION_PATH"] == "${{ github.action_path }}"
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
    install (and, through a .pth, the dependencies this environment already has); and what
    `uses:` gives them, the action's checkout (this repository's tracked files) in `action/`."""
    base = tmp_path_factory.mktemp("runner")
    checkout = base / "action"
    for name in git("ls-files", "-z").stdout.split("\0"):
        source = REPO / name
        if name and source.is_file() and not source.is_symlink():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            (checkout / name).write_bytes(source.read_bytes())
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
    values = {**values, "github.action_path": str(runner / "action")}
    env = {**os.environ, **{key: expand(str(value), values) for key, value in step.get("env", {}).items()}}
    env["PATH"] = f"{runner / 'venv' / 'bin'}{os.pathsep}{env['PATH']}"
    # offline, no package index: the "index" is the wheel built from this checkout; the dependencies
    # and the build backend (hatchling, used in place: no isolated build env to download) are here
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(runner / "wheels"), PIP_NO_DEPS="1", PIP_IGNORE_INSTALLED="1",
               PIP_NO_BUILD_ISOLATION="0")
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


def installed(runner: Path) -> str:
    """Where the runner's dispatchguard was installed from (its direct_url.json), and its version."""
    shown = subprocess.run(
        [str(runner / "venv" / "bin" / "dispatchguard"), "--version"], capture_output=True, text=True, check=True
    )
    (site,) = (runner / "venv" / "lib").glob("python3*/site-packages")
    (record,) = site.glob("dispatchguard-*.dist-info")
    direct = record / "direct_url.json"  # written for a path or URL install, not for an index's
    origin = json.loads(direct.read_text(encoding="utf-8"))["url"] if direct.exists() else "the index"
    return f"{shown.stdout.strip()} from {origin}"


def test_the_version_input_installs_that_release_from_the_index(runner, tmp_path):
    install, _ = [s for s in action()["runs"]["steps"] if "run" in s]
    done = run_step(install, inputs(version=__version__), runner, tmp_path)
    assert done.returncode == 0, done.stderr
    assert installed(runner) == f"dispatchguard {__version__} from the index"


def test_the_action_installs_its_checkout_offline_and_annotates(runner, tmp_path):
    project = write_tree(tmp_path / "repo" / "service", PROJECT)
    values = inputs(**{"working-directory": "service", "sarif": "true", "args": f"app --no-cache {' '.join(SELECT)}"})
    install, check = [s for s in action()["runs"]["steps"] if "run" in s]
    done = run_step(install, values, runner, tmp_path / "repo")
    assert done.returncode == 0, done.stderr
    assert installed(runner) == f"dispatchguard {__version__} from file://{runner / 'action'}"

    done = run_step(check, values, runner, tmp_path / "repo")
    assert done.returncode == 1, done.stderr  # findings fail the step
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 3 and "file=app/agent.py" in annotations[0]
    log = json.loads((project / "dispatchguard.sarif").read_text(encoding="utf-8"))
    schema = json.loads((DATA / "sarif-2.1.0-subset.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(log, schema)
    assert len(log["runs"][0]["results"]) == 5  # the two silenced ones are listed as suppressed
    print(f"check step: exit {done.returncode}; annotations: {annotations}; SARIF: "
          f"{len(log['runs'][0]['results'])} results, schema-valid")

    (project / "app" / "agent.py").write_text("", encoding="utf-8")
    (project / "app" / "tools.py").write_text("", encoding="utf-8")
    done = run_step(check, inputs(**{"working-directory": "service"}), runner, tmp_path / "repo")
    assert (done.returncode, done.stdout) == (0, "")


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


def test_the_install_from_the_repository_in_the_docs_works_offline(tmp_path):
    """The docs' `pip install "dispatchguard @ git+https://...@SHA"`, with this repository's path
    for the host (the same commit, no network): it builds and installs that commit."""
    job = gitlab_job()
    install = job["script"][0]
    match = re.fullmatch(r'pip install "dispatchguard @ git\+https://github\.com/dispatchguard/dispatchguard@'
                         r'([0-9a-f]{40})"', install)
    assert match, install
    assert install in (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_NO_DEPS": "1", "PIP_NO_BUILD_ISOLATION": "0",
           "PIP_IGNORE_INSTALLED": "1"}
    env.pop("VIRTUAL_ENV", None)
    # this environment's pip (the venv's own bundled pip may be older) installing into the venv
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                           "--quiet", f"dispatchguard @ git+file://{REPO}@{match.group(1)}"],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    shown = subprocess.run([str(venv / "bin" / "dispatchguard"), "--version"], capture_output=True, text=True,
                           check=True)
    assert shown.stdout.startswith("dispatchguard ")


def test_the_gitlab_job_of_the_docs_writes_a_code_quality_report(tmp_path):
    job = gitlab_job()
    install, command = job["script"]
    assert install.startswith('pip install "dispatchguard @ git+https://github.com/dispatchguard/dispatchguard@')
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
    about = [i for i in issues if i["check_name"] in ABOUT]  # the command is the docs': every rule runs
    assert sorted(i["location"]["path"] for i in about) == ["app/agent.py", "app/agent.py", "app/tools.py"]
    assert job["artifacts"]["when"] == "always"
