"""The one file walker: exclude, .gitignore/.ignore/.git/info/exclude, explicit paths, force-exclude."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from pathlib import Path

import pytest

from dispatchguard.lint import LintConfig, check_paths, load_config
from dispatchguard.lint.discovery import is_excluded, scan, walk


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def names(paths: list[Path], root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git work tree with ignore files at several levels."""
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root / ".gitignore", "generated/\n*.gen.py\n/top_only.py\n")
    write(root / ".git" / "info" / "exclude", "local_scratch.py\n")
    write(root / "pkg" / ".gitignore", "secret.py\n!keep.gen.py\n")
    write(root / "pkg" / ".ignore", "notes.py\n")
    for name in (
        "main.py",
        "stub.pyi",
        "top_only.py",
        "local_scratch.py",
        "generated/out.py",
        "pkg/mod.py",
        "pkg/top_only.py",  # "/top_only.py" is anchored to the repo's top
        "pkg/secret.py",
        "pkg/notes.py",
        "pkg/a.gen.py",
        "pkg/keep.gen.py",  # re-included by the deeper .gitignore
        "pkg/build/b.py",  # default exclude
        "pkg/__pycache__/c.py",
        "readme.txt",
        "nb.ipynb",
        "pkg/deep/nb2.ipynb",
    ):
        write(root / name, "")
    return root


@pytest.mark.integration
def test_walk_honours_every_ignore_source(repo: Path) -> None:
    config = LintConfig(root=repo)
    found = walk([repo], config, repo)
    assert names(found, repo) == ["main.py", "pkg/keep.gen.py", "pkg/mod.py", "pkg/top_only.py", "stub.pyi"]
    assert all(p.is_absolute() for p in found) and found == sorted(found)
    assert walk([repo / "pkg", repo, repo / "main.py"], config, repo) == found  # each file once


@pytest.mark.integration
def test_notebooks_are_listed_apart(repo: Path) -> None:
    result = scan([repo], LintConfig(root=repo), repo)
    assert names(result.notebooks, repo) == ["nb.ipynb", "pkg/deep/nb2.ipynb"]
    assert not any(p.suffix == ".ipynb" for p in result.files)
    explicit = scan([repo / "nb.ipynb", repo / "main.py"], LintConfig(root=repo), repo)
    assert names(explicit.files, repo) == ["main.py"] and names(explicit.notebooks, repo) == ["nb.ipynb"]


@pytest.mark.integration
def test_respect_gitignore_false_keeps_ignored_files(repo: Path) -> None:
    config = LintConfig(root=repo, respect_gitignore=False)
    found = names(walk([repo], config, repo), repo)
    assert {"generated/out.py", "pkg/secret.py", "pkg/notes.py", "local_scratch.py"} <= set(found)
    assert "pkg/build/b.py" not in found  # exclude still applies


def test_exclude_and_extend_exclude_use_git_patterns(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        '[tool.dispatchguard]\nextend-exclude = ["migrations", "docs/*.py", "!docs/keep.py"]\n',
    )
    for name in ("app/migrations/0001.py", "app/models.py", "docs/conf.py", "docs/keep.py", "docs/sub/x.py"):
        write(tmp_path / name)
    config = load_config([tmp_path])
    assert names(walk([tmp_path], config, config.root), tmp_path) == [
        "app/models.py",
        "docs/keep.py",
        "docs/sub/x.py",
    ]
    assert is_excluded(tmp_path / "app" / "migrations", config, config.root)
    assert is_excluded(tmp_path / "app" / "migrations" / "0001.py", config, config.root)
    assert not is_excluded(tmp_path / "app" / "models.py", config, config.root)
    assert not is_excluded(tmp_path.parent / "elsewhere.py", config, config.root)  # outside the root


@pytest.mark.integration
def test_explicit_paths_are_checked_unless_force_exclude(repo: Path) -> None:
    config = LintConfig(root=repo)
    explicit = [repo / "generated" / "out.py", repo / "pkg" / "secret.py", repo / "readme.txt"]
    assert walk(explicit, config, repo) == sorted(explicit)
    forced = dataclasses.replace(config, force_exclude=True)
    assert walk(explicit, forced, repo) == [repo / "readme.txt"]
    # an excluded directory given explicitly is walked as if it were the root ...
    write(repo / "generated" / "__pycache__" / "x.py")
    write(repo / "generated" / "sub" / "y.py")
    assert names(walk([repo / "generated"], config, repo), repo) == ["generated/out.py", "generated/sub/y.py"]
    # ... unless force-exclude is set
    assert walk([repo / "generated"], forced, repo) == []


@pytest.mark.integration
def test_check_paths_skips_ignored_files_of_the_project(repo: Path) -> None:
    """Ignored files are neither reported nor indexed; an explicitly named one is still checked."""
    write(repo / "generated" / "out.py", "x._run()\n")
    write(repo / "pkg" / "mod.py", "x._run()\n")
    config = LintConfig(root=repo)
    report = check_paths([repo], config, use_cache=False)
    assert {Path(f.path).name for f in report.findings} == {"mod.py"}
    report = check_paths([repo / "generated" / "out.py"], config, use_cache=False)
    assert [f.code for f in report.findings] == ["DG101"]
    forced = dataclasses.replace(config, force_exclude=True)
    assert check_paths([repo / "generated" / "out.py"], forced, use_cache=False).files_checked == 0


def test_walk_is_deterministic_and_tolerates_unreadable_dirs(tmp_path: Path) -> None:
    for name in ("b/z.py", "a/y.py", "a/x.py", "c.py"):
        write(tmp_path / name)
    locked = tmp_path / "locked"
    locked.mkdir()
    write(locked / "hidden.py")
    locked.chmod(0)
    try:
        config = LintConfig(root=tmp_path)
        first = walk([tmp_path], config, tmp_path)
        assert first == walk([tmp_path], config, tmp_path)
        expected = ["a/x.py", "a/y.py", "b/z.py", "c.py"]
        if os.access(locked, os.R_OK):  # running as root: permissions do not apply
            expected.append("locked/hidden.py")
        assert names(first, tmp_path) == expected
    finally:
        locked.chmod(0o755)


@pytest.mark.integration
def test_a_root_that_an_outer_repository_ignores_is_still_walked(repo: Path) -> None:
    """A project downloaded into an ignored folder (benchmarks/.data/<tree>) keeps its files; its
    own exclusions still apply inside it."""
    inner = repo / "generated" / "vendored_project"
    write(inner / "pyproject.toml", "[tool.dispatchguard]\n")
    write(inner / "pkg" / "a.py")
    write(inner / "pkg" / "__pycache__" / "a.py")
    write(inner / ".gitignore", "scratch.py\n")
    write(inner / "scratch.py")
    config = load_config([inner])
    assert config.root == inner
    assert names(walk([inner], config, config.root), inner) == ["pkg/a.py"]
    assert not is_excluded(inner / "pkg" / "a.py", config, config.root)
    assert is_excluded(inner / "pkg" / "__pycache__" / "a.py", config, config.root)
    assert is_excluded(inner / "scratch.py", config, config.root)
