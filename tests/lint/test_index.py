"""Phase 1 summaries and phase 2 resolution of module-level bindings, across modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dispatchguard.lint import LintConfig, check_paths
from dispatchguard.lint.index import module_names, summarise
from dispatchguard.lint.source import check_source

from ..conftest import about

BASE = "from crewai.tools import BaseTool\n\nclass T(BaseTool):\n    pass\n\n"


@pytest.mark.parametrize(
    ("defs", "use", "expected"),
    [
        ("t: 'T' = make()", "t.run()", True),
        ("t: 'not python ((' = make()", "t.run()", False),
        ("t: T", "t.run()", True),
        ("REG: dict[str, T] = {}", "REG['a'].run()", True),
        ("REG = {}\nREG['x']: T = make()", "REG['x'].run()", False),
        ("tools = [T()]\nfirst = tools[0]", "first.run()", True),
        ("REG = {'a': T()}\nbyname = {k: v for k, v in REG.items()}", "byname['a'].run()", True),
        ("REG = {'a': T()}\nvals = [v for v in REG.values()]", "vals[0].run()", True),
        ("REG = {'a': T()}\nkeys = [k for k, v in REG.items()]", "keys[0].run()", False),
        ("REG = {'a': T()}\nodd = [x for x in REG.keys()]", "odd[0].run()", False),
        ("REG = {'a': T()}\nboth = [v for v in REG for w in REG]", "both[0].run()", False),
        ("REG = {'a': T()}\ngot = REG.get('a')", "got.run()", True),
        ("maker = lambda: T()\nthing = maker()", "thing.run()", False),
        ("a = b = T()", "b.run()", True),
        ("x, y = T(), T()", "x.run()", False),
        ("count = 0\ncount += 1", "count.run()", False),
        ("TOOLS = []\nTOOLS.insert(0, T())", "TOOLS[0].run()", True),
        ("TOOLS = []\nTOOLS.extend(make())", "TOOLS[0].run()", False),
        ("REG = {}\nREG.update(a=T())", "REG['a'].run()", True),
        ("obj.attr = T()", "obj.attr.run()", False),
        ("t = (T() for _ in range(1))", "t.run()", False),
        ("t = T\nu = t()", "u.run()", True),
        ("from crewai.tools import tool\nt = tool(lambda q: q)", "t.run()", True),
        ("from langchain_core.tools import StructuredTool\nt = StructuredTool.from_function(f)", "t.invoke(1)", True),
        ("import typing\nt: typing.List[T] = []", "t[0].run()", True),
        ("t: type[T] = T\nu = t()", "u.run()", True),
        ("t: T | None = None", "t.run()", True),
        ("t: 'T | None' = None", "t.run()", True),
        ("t: tuple[T, ...] = ()", "t[0].run()", True),
        ("t: Gen[T] = make()", "t.run()", False),
    ],
)
def test_module_level_bindings_across_modules(defs: str, use: str, expected: bool) -> None:
    extra = {"pkg/__init__.py": "", "pkg/tools.py": BASE + defs + "\n"}
    name = use.split(".", 1)[0].split("[", 1)[0]
    source = f"from pkg.tools import {name}\n{use}\n"
    found = [f.code for f in about(check_source(source, path="pkg/agent.py", extra=extra)) if f.code == "DG101"]
    assert bool(found) is expected, (defs, use)


def test_summary_shapes() -> None:
    tree = ast.parse(
        "import a.b\nimport c.d as e\nfrom . import f\nfrom ..g import h as i\nfrom j import *\n"
        "try:\n    from k import T\nexcept ImportError:\n    class T:\n        pass\n"
        "with ctx():\n    w = 1\nif X:\n    @deco(1)\n    def fn():\n        pass\n"
    )
    summary = summarise(tree)
    assert summary["imports"] == {"a": "a", "e": "c.d", "f": ".f", "i": "..g.h", "T": "k.T"}
    assert summary["defs"]["T"] == [["class", []]]
    assert summary["defs"]["fn"] == [["def", ["deco"]]]
    assert summary["defs"]["w"] == []


@pytest.mark.parametrize(
    ("relpath", "packages", "expected"),
    [
        ("a/b/c.py", {"a/b", "a"}, ("a.b.c", ("a.b.c",)[1:], False)),
        ("a/b/c.py", {"a/b"}, ("b.c", ("a.b.c",), False)),
        ("src/pkg/__init__.py", {"src/pkg"}, ("pkg", ("src.pkg",), True)),
        ("src/pkg/mod.pyi", {"src/pkg"}, ("pkg.mod", ("src.pkg.mod",), False)),
        ("lib/x.py", set(), ("x", ("lib.x",), False)),
        ("top.py", set(), ("top", (), False)),
    ],
)
def test_module_names(relpath: str, packages: set[str], expected: tuple) -> None:
    assert module_names(relpath, frozenset(packages)) == expected


def test_files_outside_the_root_are_named_by_their_packages(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside" / "pkg"
    root.mkdir()
    outside.mkdir(parents=True)
    (outside / "__init__.py").write_text(BASE)
    (outside / "use.py").write_text("from pkg import T\nT().run()\n")
    report = check_paths([outside], LintConfig(root=root), use_cache=False)
    found = sorted((Path(f.path).name, f.code) for f in about(report.findings))
    assert found == [("use.py", "DG101"), ("use.py", "DG102")]


def test_walk_before_the_words_are_complete_is_redone(tmp_path: Path) -> None:
    # a.py names BaseTool, so it is parsed and walked in the first round, before z.py (which only
    # names Search, a tool word once y.py is loaded) tells that helper_tool is a tool
    (tmp_path / "a.py").write_text("from crewai.tools import BaseTool\nfrom z import helper_tool\nhelper_tool.run()\n")
    (tmp_path / "y.py").write_text(BASE.replace("class T(", "class Search("))
    (tmp_path / "z.py").write_text("from y import Search\nhelper_tool = Search()\n")
    (tmp_path / "plain.py").write_text("VALUE = 1\n")
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    found = [(Path(f.path).name, f.line, f.code) for f in about(report.findings)]
    assert found == [("a.py", 3, "DG101"), ("z.py", 2, "DG102")]
    assert report.files_parsed == 4  # y, z, a twice (its first walk's lookups no longer held); never plain.py
    assert report.files_walked == 4


def test_a_common_tool_name_makes_candidates_only_of_files_naming_its_module(tmp_path: Path) -> None:
    # ``add`` is a tool of tools/math.py: a file that only calls ``set.add`` names no module of it and
    # is never parsed; files reaching the tool by an import of its module, of a package re-exporting
    # it with a star import, or by a relative import of dots only, are
    tools = tmp_path / "app" / "tools"
    tools.mkdir(parents=True)
    (tools / "__init__.py").write_text("from .math import *\n")
    (tools / "math.py").write_text(
        "from langchain_core.tools import tool\n\n@tool\ndef add(a: int, b: int) -> int:\n    return a + b\n"
    )
    (tools / "nearby.py").write_text("from . import add\n\ndef total():\n    return add.invoke({'a': 1, 'b': 2})\n")
    app = tmp_path / "app"
    (app / "direct.py").write_text("from app.tools.math import add\n\ndef run():\n    return add.invoke({})\n")
    (app / "package.py").write_text("import app.tools\n\ndef run():\n    return app.tools.add.invoke({})\n")
    (tmp_path / "app" / "sets.py").write_text("seen = set()\n\ndef remember(x):\n    seen.add(x)\n")
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    found = sorted((Path(f.path).name, f.line, f.code) for f in about(report.findings))
    assert found == [
        ("direct.py", 4, "DG101"),
        ("math.py", 5, "DG104"),
        ("nearby.py", 4, "DG101"),
        ("package.py", 4, "DG101"),
    ]
    assert (report.files_checked, report.files_without_tool_word) == (6, 1)  # sets.py


def test_a_later_round_finds_a_tool_reached_by_a_relative_import_of_dots_only(tmp_path: Path) -> None:
    # Search becomes a word in the second round (base.py names BaseTool), scoped to its module; use.py
    # names Search but no module of it, through ``from . import Search``: it must still be scanned
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "base.py").write_text(BASE.replace("class T(", "class Search("))
    (package / "__init__.py").write_text("from .base import Search\n")
    (package / "use.py").write_text("from . import Search\n\ndef go():\n    return Search().run('q')\n")
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    found = sorted((Path(f.path).name, f.line, f.code) for f in about(report.findings))
    assert found == [("use.py", 4, "DG101"), ("use.py", 4, "DG102")]


def test_a_tool_a_class_body_binds_is_reached_through_the_class_from_another_module(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "meta.py").write_text(
        "from langchain_core.tools import tool\n\n\nclass GetCoinMetadata:\n"
        "    @tool('save_dataset')\n    @staticmethod\n    def save_dataset(query: str) -> str:\n"
        "        \"\"\"Save.\"\"\"\n        return '{}'\n"
    )
    (tmp_path / "main.py").write_text(
        "from tools.meta import GetCoinMetadata\n\n\ndef run(symbol):\n"
        "    return GetCoinMetadata.save_dataset.invoke(symbol)\n"
    )
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    assert [(Path(f.path).name, f.line, f.code) for f in about(report.findings)] == [("main.py", 5, "DG101")]


def test_extend_adds_every_item() -> None:
    extra = {"pkg/__init__.py": "", "pkg/tools.py": BASE + "TOOLS = []\nTOOLS.extend([make(), T()])\n"}
    found = about(check_source("from pkg.tools import TOOLS\nTOOLS[1].run()\n", path="pkg/agent.py", extra=extra))
    assert [f.code for f in found] == ["DG101"]


LAZY_PACKAGE = {
    "pkg/__init__.py": (
        "import importlib\n\n"
        "__all__ = ['SearchTool', 'Client']\n"
        "_module_lookup = {'SearchTool': 'pkg.search', 'Client': '.client', 'Odd': 'not a module path'}\n\n"
        "def __getattr__(name):\n"
        "    return getattr(importlib.import_module(_module_lookup[name], __name__), name)\n"
    ),
    "pkg/search.py": "from crewai.tools import BaseTool\n\nclass SearchTool(BaseTool):\n    pass\n",
    "pkg/client.py": "class Client:\n    def run(self):\n        return 1\n",
}


def test_lazy_exports_of_a_getattr_module_are_imports() -> None:
    summary = summarise(ast.parse(LAZY_PACKAGE["pkg/__init__.py"]))
    lazy = {"SearchTool": "pkg.search.SearchTool", "Client": ".client.Client"}
    assert summary["imports"] == {"importlib": "importlib", **lazy}
    plain = summarise(ast.parse("_module_lookup = {'SearchTool': 'pkg.search'}\n"))  # no __getattr__
    assert plain["imports"] == {}


def test_a_lazily_exported_tool_class_is_a_tool(tmp_path: Path) -> None:
    files = {**LAZY_PACKAGE, "app.py": "from pkg import SearchTool, Client\n\nSearchTool()\nClient().run()\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    found = about(check_paths([tmp_path], LintConfig(root=tmp_path, python=False), jobs=1, use_cache=False).findings)
    assert [(f.path.rsplit("/", 1)[-1], f.line, f.code) for f in found] == [("app.py", 3, "DG102")]


def test_a_parse_keeps_the_trees_of_the_files_asked_for_until_they_are_taken(tmp_path: Path) -> None:
    from dispatchguard.lint.discovery import SourceFile
    from dispatchguard.lint.project import Project

    (tmp_path / "tools.py").write_text(BASE)
    (tmp_path / "helpers.py").write_text("VALUE = 1\n")
    files = [SourceFile(tmp_path / name, name, (tmp_path / name).as_posix()) for name in ("tools.py", "helpers.py")]
    wanted = (tmp_path / "tools.py").as_posix()
    project = Project(LintConfig(root=tmp_path), files, keep_trees=[wanted])
    assert project.module("helpers", any_module=True) is not None  # parsed for a question, not kept
    assert project.take_parsed() == []
    assert project.module("tools", any_module=True) is not None
    ((key, data, tree),) = project.take_parsed()
    assert (key, data) == (wanted, BASE.encode())
    assert [type(node).__name__ for node in tree.body] == ["ImportFrom", "ClassDef"]
    assert project.take_parsed() == []  # handed over once
    assert project.module("tools", any_module=True) is not None  # loaded: never parsed again
    assert (project.parsed, project.take_parsed()) == (2, [])
    # a project that keeps no tree (the editor's, a fix pass's) summarises and drops every one
    plain = Project(LintConfig(root=tmp_path), files)
    assert plain.module("tools", any_module=True) is not None
    assert plain.take_parsed() == []


def test_a_file_to_report_on_that_a_walk_parses_is_walked_once_after_that_walk(tmp_path: Path) -> None:
    # a_use.py comes first: its walk asks what z_tools.T is, which parses z_tools.py (a file to report
    # on, too); z_tools.py is then walked from that tree, never parsed a second time
    (tmp_path / "a_use.py").write_text("from crewai.tools import BaseTool\nfrom z_tools import T\n\nT()._run()\n")
    (tmp_path / "z_tools.py").write_text(BASE + "T()._run()\n")
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    found = sorted((Path(f.path).name, f.line, f.code) for f in report.findings)
    assert [(name, line) for name, line, code in found if code == "DG101"] == [("a_use.py", 4), ("z_tools.py", 6)]
    assert (report.files_parsed, report.files_walked) == (2, 2)
