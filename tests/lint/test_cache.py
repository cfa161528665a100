"""The result cache: reuse, invalidation through project facts, corruption and concurrency."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dispatchguard.lint import LintConfig, check_paths
from dispatchguard.lint.cache import CACHE_VERSION, ResultCache

from ..conftest import ABOUT, about

BASE = "from crewai.tools import BaseTool\n\nclass Base(BaseTool):\n    pass\n"
NOT_A_TOOL = "class Base:\n    pass\n"
TOOLS = "from proj.base import Base\n\nclass Search(Base):\n    pass\n\nsearch = Search()\n"
AGENT = "from proj.tools import search\n\ndef act():\n    return search.run('q')\n"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    pkg = tmp_path / "proj"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(BASE)
    (pkg / "tools.py").write_text(TOOLS)
    (pkg / "agent.py").write_text(AGENT)
    for i in range(5):
        (pkg / f"other{i}.py").write_text(f"import os\nVALUE = {i}\nos.getcwd()\n")
    return tmp_path


def _codes(report) -> list[tuple[str, str]]:
    return [(Path(f.path).name, f.code) for f in about(report.findings)]


def test_warm_run_reuses_everything(project: Path) -> None:
    config = LintConfig(root=project)
    cold = check_paths([project], config, jobs=1)
    assert _codes(cold) == [("agent.py", "DG101")]
    assert (project / ".dispatchguard_cache" / ".gitignore").exists()
    assert (cold.files_parsed, cold.files_walked) == (3, 3)  # base, tools, agent: the others name no tool word
    warm = check_paths([project], config, jobs=1)
    assert warm.findings == cold.findings
    assert (warm.files_parsed, warm.files_walked) == (0, 0)


def test_editing_a_base_class_invalidates_dependants_only(project: Path) -> None:
    config = LintConfig(root=project)
    check_paths([project], config, jobs=1)
    (project / "proj" / "base.py").write_text(NOT_A_TOOL + "\n")
    report = check_paths([project], config, jobs=1)
    assert _codes(report) == []  # Search is no longer a tool: the cached DG101 must not survive
    # the edited file names no tool word now: nothing is parsed; the files whose lookups changed
    # name no tool word either, so their walks are skipped
    assert (report.files_parsed, report.files_walked) == (0, 0)
    (project / "proj" / "base.py").write_text(BASE)
    assert _codes(check_paths([project], config, jobs=1)) == [("agent.py", "DG101")]


def test_new_tool_name_reaches_files_skipped_before(project: Path) -> None:
    config = LintConfig(root=project)
    (project / "proj" / "late.py").write_text("def go(helper):\n    return helper\n\nx = helper_tool.run()\n")
    assert _codes(check_paths([project], config, jobs=1)) == [("agent.py", "DG101")]
    (project / "proj" / "extra.py").write_text("from proj.tools import Search\nhelper_tool = Search()\n")
    (project / "proj" / "late.py").write_text(
        "from proj.extra import helper_tool\n\nx = helper_tool.run()\n"
    )
    codes = _codes(check_paths([project], config, jobs=1))
    assert ("late.py", "DG101") in codes and ("extra.py", "DG102") in codes


def test_config_change_uses_another_cache(project: Path) -> None:
    check_paths([project], LintConfig(root=project), jobs=1)
    report = check_paths([project], LintConfig(root=project, ignore=("DG101",)), jobs=1)
    assert about(report.findings) == []
    assert len(list((project / ".dispatchguard_cache" / f"v{CACHE_VERSION}").glob("*.json"))) == 2


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{",
        b"\xff\xfe",
        b'{"version": 0, "files": {}}',
        b'{"version": %d, "files": {"x": 3}}' % CACHE_VERSION,
        b'{"version": %d, "words": 7, "files": {}}' % CACHE_VERSION,
    ],
)
def test_corrupt_cache_is_ignored(project: Path, content: bytes) -> None:
    config = LintConfig(root=project)
    expected = check_paths([project], config, jobs=1).findings
    cache_file = ResultCache(project / ".dispatchguard_cache", config.fingerprint()).file
    cache_file.write_bytes(content)
    assert check_paths([project], config, jobs=1).findings == expected


def test_cache_entries_of_wrong_shape_are_ignored(project: Path) -> None:
    config = LintConfig(root=project)
    expected = check_paths([project], config, jobs=1).findings
    cache_file = ResultCache(project / ".dispatchguard_cache", config.fingerprint()).file
    data = json.loads(cache_file.read_text())
    for entry in data["files"].values():
        entry["result"] = {"findings": "nonsense"}
    cache_file.write_text(json.dumps(data))
    assert check_paths([project], config, jobs=1).findings == expected


@pytest.mark.parametrize(
    ("field", "value"),
    [("words", 7), ("joint", [["a", 1]]), ("scoped", [["name"]]), ("library", "nonsense"), ("library", {"x": [1]})],
)
def test_cached_words_or_library_of_wrong_shape_are_dropped_alone(project: Path, field: str, value: object) -> None:
    config = LintConfig(root=project)
    check_paths([project], config, jobs=1)
    cache = ResultCache(project / ".dispatchguard_cache", config.fingerprint())
    data = json.loads(cache.file.read_text())
    data[field] = value
    cache.file.write_text(json.dumps(data))
    cache.load()
    assert (cache.words is None) == (field != "library")
    assert cache.library == {}
    assert len(cache.entries) == 9  # the files' entries still read
    # a run with the words dropped scans every file again, and finds what a cold run finds
    assert _codes(check_paths([project], config, jobs=1)) == _codes(check_paths([project], config, use_cache=False))


def test_no_cache_writes_nothing(project: Path) -> None:
    check_paths([project], LintConfig(root=project), use_cache=False)
    assert not (project / ".dispatchguard_cache").exists()


def test_custom_cache_dir_and_read_only_location(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    check_paths([project], LintConfig(root=project), cache_dir=target)
    assert list(target.rglob("*.json"))
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    report = check_paths([project], LintConfig(root=project), cache_dir=blocker)  # cannot write: not fatal
    assert _codes(report) == [("agent.py", "DG101")]


@pytest.mark.integration
def test_concurrent_runs_do_not_corrupt_the_cache(project: Path) -> None:
    codes = tuple(sorted(ABOUT))
    script = textwrap.dedent(
        f"""
        from dispatchguard.lint import LintConfig, check_paths
        for _ in range(4):
            r = check_paths([{str(project)!r}], LintConfig(root={str(project)!r}, select={codes!r}), jobs=1)
            assert [f.code for f in r.findings] == ["DG101"], r.findings
        """
    )
    procs = [subprocess.Popen([sys.executable, "-c", script]) for _ in range(4)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    assert [f.code for f in check_paths([project], LintConfig(root=project, select=codes)).findings] == ["DG101"]


def test_deleted_files_leave_the_cache(project: Path) -> None:
    config = LintConfig(root=project)
    check_paths([project], config, jobs=1)
    (project / "proj" / "other0.py").unlink()
    check_paths([project], config, jobs=1)
    cache_file = ResultCache(project / ".dispatchguard_cache", config.fingerprint()).file
    assert not any(key.endswith("other0.py") for key in json.loads(cache_file.read_text())["files"])


def test_dispatchers_match_package_and_root_relative_module_names(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "runner.py").write_text("def go(x):\n    return x._run()\n")
    for name in ("app.runner.go", "runner.go", "go"):
        config = LintConfig(root=tmp_path, dispatchers=(name,))
        assert check_paths([tmp_path], config).findings == [], name  # no __init__.py: `runner` or `app.runner`
    config = LintConfig(root=tmp_path, dispatchers=("other.runner.go",))
    assert [f.code for f in check_paths([tmp_path], config).findings] == ["DG101"]


def test_upgrading_the_bundled_typeshed_invalidates_the_cache(project: Path) -> None:
    """Declared types come from the typeshed that typeshed_client bundles: another one (its
    folder's mtime, as a reinstall leaves it) means the cached verdicts may be stale."""
    import typeshed_client

    typeshed = Path(typeshed_client.__file__).parent / "typeshed"
    before = typeshed.stat()
    config = LintConfig(root=project)
    check_paths([project], config)
    assert check_paths([project], config).files_parsed == 0
    try:
        os.utime(typeshed, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        assert check_paths([project], config).files_parsed > 0
    finally:
        os.utime(typeshed, ns=(before.st_atime_ns, before.st_mtime_ns))
