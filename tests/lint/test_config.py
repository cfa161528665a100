"""Configuration discovery, validation, defaults and selection semantics."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from dispatchguard.lint import ConfigError, LintConfig, load_config
from dispatchguard.lint.config import DEFAULT_DISPATCHERS, DEFAULT_TOOL_BASES, CoverageConfig, find_root, glob_match


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_nearest_pyproject_with_table_wins(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.dispatchguard]\nstrict = true\n")
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = 'inner'\n")  # no table: skipped
    target = write(tmp_path / "pkg" / "mod.py", "")
    config = load_config([target])
    assert config.root == tmp_path.resolve()
    assert config.strict is True
    assert config.config_file == (tmp_path / "pyproject.toml").resolve()


def test_without_table_root_is_nearest_project(tmp_path: Path) -> None:
    write(tmp_path / "proj" / "pyproject.toml", "[project]\nname = 'x'\n")
    target = write(tmp_path / "proj" / "a" / "b.py", "")
    config = load_config([target])
    assert config.root == (tmp_path / "proj").resolve()
    assert config == LintConfig(root=(tmp_path / "proj").resolve())


def test_without_any_marker_root_is_the_checked_paths_parent(tmp_path: Path) -> None:
    """Never the current directory by accident: the common parent of what is checked."""
    target = write(tmp_path / "outer" / "inner" / "mod.py", "")
    write(tmp_path / "outer" / "other.py", "")
    info = find_root([target])
    assert (info.root, info.kind, info.config_file) == ((tmp_path / "outer" / "inner").resolve(), "parent", None)
    both = find_root([target, tmp_path / "outer" / "other.py"])
    assert both.root == (tmp_path / "outer").resolve()


@pytest.mark.parametrize("marker", [".git", "setup.py", "setup.cfg", "pyproject.toml"])
def test_without_table_root_is_nearest_marker(tmp_path: Path, marker: str) -> None:
    if marker == ".git":
        (tmp_path / "repo" / ".git").mkdir(parents=True)
    else:
        write(tmp_path / "repo" / marker, "")
    write(tmp_path / "pyproject.toml", "[project]\nname = 'far'\n")  # a farther marker loses
    target = write(tmp_path / "repo" / "pkg" / "deep" / "mod.py", "")
    info = find_root([target])
    assert (info.root, info.kind) == ((tmp_path / "repo").resolve(), "marker")
    assert marker in info.reason
    assert load_config([target]).root == (tmp_path / "repo").resolve()


def test_a_table_above_a_marker_wins(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.dispatchguard]\n")
    (tmp_path / "sub" / ".git").mkdir(parents=True)
    info = find_root([write(tmp_path / "sub" / "a.py", "")])
    assert (info.root, info.kind) == (tmp_path.resolve(), "config")


def test_all_keys_and_additive_defaults(tmp_path: Path) -> None:
    file = write(
        tmp_path / "pyproject.toml",
        """
[tool.dispatchguard]
select = ["DG1"]
ignore = ["DG103"]
extend-select = ["DG001"]
per-file-ignores = { "legacy/*.py" = ["DG101", "DG102"], "scripts/**" = "DG103" }
exclude = ["vendored"]
extend-exclude = ["generated"]
strict = true
tool-bases = ["myproj.base.MyTool"]
tool_decorators = ["register_tool"]
tool-packages = ["acme_tools"]
tool-modules = ["myproj/registry.py"]
dispatchers = ["Runner.dispatch"]
test-patterns = ["qa/**"]
""",
    )
    config = load_config([tmp_path])
    assert config.select == ("DG1",) and config.ignore == ("DG103",) and config.extend_select == ("DG001",)
    assert config.per_file_ignores == (("legacy/*.py", ("DG101", "DG102")), ("scripts/**", ("DG103",)))
    assert config.exclude == ("vendored", "generated")
    assert config.tool_bases[: len(DEFAULT_TOOL_BASES)] == DEFAULT_TOOL_BASES
    assert config.tool_bases[-1] == "myproj.base.MyTool"
    assert "register_tool" in config.tool_decorators and "acme_tools" in config.tool_packages
    assert config.tool_modules == ("myproj/registry.py",)
    assert config.dispatchers == (*DEFAULT_DISPATCHERS, "Runner.dispatch")
    assert config.test_patterns == ("qa/**",)
    assert config.strict is True
    assert config.is_enabled("DG101") and not config.is_enabled("DG103") and config.is_enabled("DG001")
    assert config.ignored_for("legacy/old.py") == {"DG101", "DG102"}
    assert config.ignored_for("scripts/a/b.py") == {"DG103"}
    assert config.ignored_for("app.py") == frozenset()
    assert load_config([], config_file=file) == config


def test_default_dispatchers_and_selection() -> None:
    config = LintConfig()
    for name in ("dispatch_tool", "adispatch_tool", "dispatch_tool_result", "execute_tool"):
        assert name in config.dispatchers
    assert all(config.is_enabled(c) for c in ("DG001", "DG101", "DG102", "DG103"))
    assert not config.is_enabled("E501")
    more_specific = dataclasses.replace(config, ignore=("DG1",), select=("DG101",))
    assert more_specific.is_enabled("DG101") and not more_specific.is_enabled("DG102")
    everything = dataclasses.replace(config, select=("",))
    assert everything.is_enabled("XYZ1")


def test_fingerprint_is_stable_and_sensitive(tmp_path: Path) -> None:
    a = LintConfig(root=tmp_path)
    assert a.fingerprint() == LintConfig(root=tmp_path).fingerprint()
    assert a.fingerprint() != dataclasses.replace(a, strict=True).fingerprint()
    assert a.fingerprint() != dataclasses.replace(a, root=tmp_path / "x").fingerprint()
    assert a.fingerprint() == dataclasses.replace(a, config_file=tmp_path / "c.toml").fingerprint()
    assert a.fingerprint() == dataclasses.replace(a, force_exclude=True).fingerprint()
    assert a.fingerprint() != dataclasses.replace(a, respect_gitignore=False).fingerprint()  # other files indexed


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ("unknown-key = 1", "unknown-key"),
        ("strict = 'yes'", "strict"),
        ("select = 3", "select"),
        ("select = ['not a code']", "select"),
        ("tool-bases = ['']", "tool-bases"),
        ("per-file-ignores = ['x']", "per-file-ignores"),
        ("per-file-ignores = { 'a.py' = [1] }", "per-file-ignores"),
        ("ignore = ['dg1x']", "ignore"),
        ("select = ['E501']", "select"),
        ("extend-select = ['DG9']", "extend-select"),
        ("ignore = ['F']", "ignore"),
        ("per-file-ignores = { 'a.py' = ['DG101', 'E501'] }", "per-file-ignores"),
        ("force-exclude = 1", "force-exclude"),
        ("respect-gitignore = 'no'", "respect-gitignore"),
        ("coverage = 3", "coverage"),
        ("[tool.dispatchguard.coverage]\nthreshold = 90", "threshold"),
        ("[tool.dispatchguard.coverage]\nfail-under = 'high'", "fail-under"),
        ("[tool.dispatchguard.coverage]\nfail-under = nan", "fail-under"),
        ("[tool.dispatchguard.coverage]\ndata-file = ''", "data-file"),
        ("[tool.dispatchguard.coverage]\nbranch = 1", "branch"),
    ],
)
def test_broken_config_names_file_and_key(tmp_path: Path, body: str, key: str) -> None:
    file = write(tmp_path / "pyproject.toml", f"[tool.dispatchguard]\n{body}\n")
    with pytest.raises(ConfigError) as info:
        load_config([tmp_path])
    assert str(file.resolve()) in str(info.value)
    assert key in str(info.value)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("select = ['E501']", "unknown rule code or prefix 'E501' (known: DG001, DG002, DG101"),
        ("per-file-ignores = { 'a.py' = 'DG101, DG999' }", "(pattern 'a.py'): unknown rule code or prefix 'DG999'"),
        ("ignore = ['dg1x']", "'DG1X' is not a rule code or prefix"),
    ],
)
def test_unknown_codes_are_errors(tmp_path: Path, body: str, message: str) -> None:
    write(tmp_path / "pyproject.toml", f"[tool.dispatchguard]\n{body}\n")
    with pytest.raises(ConfigError) as info:
        load_config([tmp_path])
    assert message in str(info.value)


def test_coverage_subtable_is_read_with_the_rest(tmp_path: Path) -> None:
    """The table docs/coverage-gate.md documents is part of the configuration, not an unknown key."""
    write(
        tmp_path / "pyproject.toml",
        "[tool.dispatchguard]\nstrict = true\n[tool.dispatchguard.coverage]\n"
        "fail-under = 90\ninclude = ['src/*.py']\ndata_file = 'cov/.coverage'\nper-file = true\nbranch = false\n",
    )
    config = load_config([tmp_path])
    assert config.strict is True
    assert config.coverage == CoverageConfig(
        fail_under=90.0, include=("src/*.py",), data_file="cov/.coverage", per_file=True, branch=False
    )
    # the gate's settings never change findings: they are not part of the cache key
    assert config.fingerprint() == dataclasses.replace(config, coverage=CoverageConfig()).fingerprint()


def test_ignore_file_switches(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.dispatchguard]\nforce-exclude = true\nrespect_gitignore = false\n")
    config = load_config([tmp_path])
    assert config.force_exclude is True and config.respect_gitignore is False
    assert LintConfig().force_exclude is False and LintConfig().respect_gitignore is True


def test_invalid_toml_and_missing_file(tmp_path: Path) -> None:
    file = write(tmp_path / "pyproject.toml", "[tool.dispatchguard\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config([tmp_path])
    with pytest.raises(ConfigError, match="not found"):
        load_config([], config_file=tmp_path / "missing.toml")
    write(tmp_path / "other.toml", "[tool]\ndispatchguard = 3\n")
    with pytest.raises(ConfigError, match="must be a table"):
        load_config([], config_file=tmp_path / "other.toml")
    del file


def test_config_file_without_table_gives_defaults(tmp_path: Path) -> None:
    file = write(tmp_path / "conf.toml", "[other]\nx = 1\n")
    config = load_config([], config_file=file)
    assert config.root == tmp_path.resolve() and config.strict is False


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("**/tools/**", "tools/a.py", True),
        ("**/tools/**", "pkg/tools/sub/a.py", True),
        ("**/tools/**", "pkg/toolsx/a.py", False),
        ("**/tools.py", "tools.py", True),
        ("**/tools.py", "a/b/tools.py", True),
        ("tests/**", "tests/x/test_a.py", True),
        ("tests/**", "src/tests.py", False),
        ("**/test_*.py", "test_a.py", True),
        ("*.egg-info", "src/x.egg-info", True),
        ("build", "pkg/build/x.py", True),
        ("./docs/", "docs/conf.py", True),
        ("a?c.py", "abc.py", True),
    ],
)
def test_globs(pattern: str, path: str, expected: bool) -> None:
    assert glob_match(pattern, path) is expected


@pytest.mark.parametrize("key", ["select", "ignore", "extend-exclude", "tool-bases", "dispatchers"])
def test_a_string_where_a_list_is_expected_is_an_error(tmp_path: Path, key: str) -> None:
    """``select = "DG101"`` ran silently as if it were a list; per-file-ignores strings stay valid."""
    write(tmp_path / "pyproject.toml", f'[tool.dispatchguard]\n{key} = "DG101"\n')
    with pytest.raises(ConfigError) as info:
        load_config([tmp_path])
    assert f"key 'tool.dispatchguard.{key}': expected a list of strings, got the string 'DG101'" in str(info.value)
    assert "(write ['DG101'])" in str(info.value)


def test_a_rule_in_preview_runs_only_when_preview_is_on_or_its_code_is_selected() -> None:
    """issue 36: a new rule starts in preview (``Rule(preview=True)``), as in ruff: a prefix does not
    reach it, its very code or ``preview = true`` does, and an ignore still wins."""
    default = LintConfig()
    assert default.is_enabled("DG101", preview=False)
    assert not default.is_enabled("DG105", preview=True)
    assert not LintConfig(select=("DG1",)).is_enabled("DG105", preview=True)
    assert LintConfig(extend_select=("DG105",)).is_enabled("DG105", preview=True)
    assert LintConfig(select=("DG105",)).is_enabled("DG105", preview=True)
    assert LintConfig(preview=True).is_enabled("DG105", preview=True)
    assert not LintConfig(preview=True, ignore=("DG105",)).is_enabled("DG105", preview=True)


def test_preview_is_read_from_the_table(tmp_path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.dispatchguard]\npreview = true\n")
    assert load_config([tmp_path]).preview is True
    (tmp_path / "pyproject.toml").write_text('[tool.dispatchguard]\npreview = "yes"\n')
    with pytest.raises(ConfigError, match="preview"):
        load_config([tmp_path])
