"""The hook manifest, the sample config and the README agree."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml  # pre-commit's own dependency

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
SAMPLE = ROOT / "hooks" / "sample-pre-commit-config.yaml"
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]


def hooks() -> list[dict]:
    return yaml.safe_load(MANIFEST.read_text())


def test_manifest_is_valid_for_pre_commit():
    proc = subprocess.run(
        [*PRE_COMMIT, "validate-manifest", str(MANIFEST)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_sample_config_is_valid_and_uses_every_hook():
    proc = subprocess.run([*PRE_COMMIT, "validate-config", str(SAMPLE)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    config = yaml.safe_load(SAMPLE.read_text())
    used = {hook["id"] for repo in config["repos"] for hook in repo["hooks"] if repo["repo"] != "local"}
    assert used == {hook["id"] for hook in hooks()}


def test_hook_definitions():
    by_id = {hook["id"]: hook for hook in hooks()}
    assert {"dispatchguard", "dispatchguard-fix", "dispatchguard-coverage"} <= set(by_id)
    for hook in by_id.values():
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "pyi"] and "types" not in hook  # stubs too
        assert hook["require_serial"] is True
        assert hook["entry"].split()[0] == "dispatchguard"
    # pre-commit names every staged file: exclude and .gitignore must still apply
    assert by_id["dispatchguard"]["entry"] == "dispatchguard check --force-exclude"
    assert by_id["dispatchguard-fix"]["entry"] == "dispatchguard fix --force-exclude"
    assert "args" not in by_id["dispatchguard-fix"]  # safe fixes only, as the docs promise
    coverage = by_id["dispatchguard-coverage"]
    assert coverage["entry"] == "dispatchguard coverage"
    assert coverage["stages"] == ["pre-push"]
    assert coverage["pass_filenames"] is False and coverage["always_run"] is True


def test_readme_lists_every_hook_id():
    readme = (ROOT / "README.md").read_text()
    section = re.search(r"^## pre-commit hooks\n(.*?)(?=^## |\Z)", readme, re.DOTALL | re.MULTILINE)
    assert section, "README.md has no '## pre-commit hooks' section"
    listed = set(re.findall(r"`([a-z0-9-]+)`", section.group(1)))
    missing = {hook["id"] for hook in hooks()} - listed
    assert not missing, f"README.md's pre-commit section does not list {sorted(missing)}"


def test_docs_page_lists_every_hook_id():
    page = (ROOT / "docs" / "pre-commit.md").read_text()
    for hook in hooks():
        assert f"`{hook['id']}`" in page or f"id: {hook['id']}" in page


def test_docs_rev_is_one_commit_of_this_repository_with_the_hooks():
    """No release is tagged yet: the `rev:` in the docs and the sample config is one commit (full
    SHA) of this repository's history whose tree has the hook manifest, the same everywhere."""
    revs: set[str] = set()
    for path in (SAMPLE, ROOT / "docs" / "pre-commit.md", ROOT / "docs" / "coverage-gate.md"):
        found = set(re.findall(r"^\s+rev: (\S+)", path.read_text(), re.MULTILINE))
        assert found, path
        revs |= found
    assert len(revs) == 1, revs
    (rev,) = revs
    assert re.fullmatch(r"[0-9a-f]{40}", rev), rev
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the commit cannot be looked up")
    git = ["git", "-C", str(ROOT)]
    assert subprocess.run([*git, "merge-base", "--is-ancestor", rev, "HEAD"], capture_output=True).returncode == 0
    manifest = subprocess.run([*git, "cat-file", "-e", f"{rev}:.pre-commit-hooks.yaml"], capture_output=True)
    assert manifest.returncode == 0


def test_the_package_version_is_the_one_of_pyproject():
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE).group(1)
    from dispatchguard import __version__

    assert __version__ == version


def test_hook_descriptions_name_no_rule_codes():
    """A description that enumerated codes went stale when DG104 came; the rule table is the list."""
    for hook in hooks():
        assert not re.search(r"\bDG\d{3}\b", hook["description"]), hook["id"]
