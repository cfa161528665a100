"""Engine guarantees on synthetic findings: dropped fixes, imports, atomic writes, exit codes."""

from __future__ import annotations

import ast

import libcst as cst
import pytest

from dispatchguard.fix import engine
from dispatchguard.fix.base import Fix, NoFix
from dispatchguard.fix.engine import FixReport, fix_source
from dispatchguard.fix.names import ProjectNames, _index_module, index_project
from dispatchguard.fix.splice import only_imports_changed
from dispatchguard.lint.findings import Finding

TOOL = b'''\
from crewai.tools import BaseTool


class KpiTool(BaseTool):
    name: str = "KPI Tracker"

    def _run(self, x):
        if x:
            return {"a": 1}
        return x.model_dump()
'''


def finding(line, col, end_line, end_col, code="DG103"):
    return Finding("t.py", line, col, code, "message", end_line, end_col)


def names_of(source: bytes) -> ProjectNames:
    project = ProjectNames()
    _index_module(ast.parse(source), "t", project)
    return project


def test_fixes_and_one_import():
    new, applied, skipped = fix_source(TOOL, [finding(9, 20, 9, 28), finding(10, 16, 10, 29)], unsafe=True)
    text = new.decode()
    assert 'return ensure_json_str({"a": 1})' in text
    assert "return x.model_dump_json()" in text
    assert text.count("from dispatchguard import ensure_json_str") == 1
    assert [a.safe for a in applied] == [False, False] and skipped == []
    ast.parse(new)


def test_nothing_applicable_returns_the_same_bytes():
    new, applied, skipped = fix_source(TOOL, [finding(5, 5, 5, 9, "DG102")])
    assert new == TOOL and applied == []
    assert skipped[0].kind == "unfixable" and "tool module" in skipped[0].reason


def test_unsafe_fix_needs_the_flag():
    source = b"class T:\n    def _run(self):\n        return str(self)\n"
    f = finding(3, 16, 3, 25)
    new, applied, skipped = fix_source(source, [f])
    assert new == source and skipped[0].kind == "unsafe" and "--unsafe-fixes" in skipped[0].reason
    new, applied, _ = fix_source(source, [f], unsafe=True)
    assert b"return ensure_json_str(str(self))" in new and applied[0].safe is False


def test_fix_that_would_not_parse_is_dropped(monkeypatch):
    def broken(finding, ctx):
        ret = next(n for n in ctx.positions if isinstance(n, cst.Return))
        return Fix(ret, ret.with_changes(value=cst.Name("lambda")), True, "broken")

    monkeypatch.setitem(engine.FIXERS, "DG103", broken)
    new, applied, skipped = fix_source(TOOL, [finding(9, 20, 9, 28)])
    assert new == TOOL and applied == []
    assert skipped[0].kind == "dropped" and "would not parse" in skipped[0].reason


def test_fix_outside_its_node_is_dropped(monkeypatch):
    def stray(finding, ctx):
        # a target that is not in the file: the replacement cannot land where it says
        ghost = cst.Return(cst.Integer("1"))
        return Fix(ghost, cst.Return(cst.Integer("2")), True, "stray")

    monkeypatch.setitem(engine.FIXERS, "DG103", stray)
    new, _applied, skipped = fix_source(TOOL, [finding(9, 20, 9, 28)])
    assert new == TOOL and skipped[0].kind == "dropped"


def test_fixer_crash_is_dropped_not_raised(monkeypatch):
    def crash(finding, ctx):
        raise RuntimeError("boom")

    monkeypatch.setitem(engine.FIXERS, "DG103", crash)
    new, _, skipped = fix_source(TOOL, [finding(9, 20, 9, 28)])
    assert new == TOOL and "boom" in skipped[0].reason


def test_unparseable_file_is_reported_not_raised():
    new, _applied, skipped = fix_source(b"def f(:\n", [finding(1, 1, 1, 2)])
    assert new == b"def f(:\n" and skipped[0].kind == "dropped"


def test_only_imports_changed():
    assert only_imports_changed("x = 1\n", "import os\nx = 1\n")
    assert only_imports_changed("from a import b\nx = 1\n", "from a import b, c\nx = 1\n")
    assert not only_imports_changed("x = 1\n", "x = 2\n")
    assert not only_imports_changed("x = 1\n", "import os\nx = 1\ny = 2\n")
    assert not only_imports_changed("x = (\n", "x = 1\n")


def test_existing_import_and_alias_are_reused():
    source = b'''\
from dispatchguard import ensure_json_str as to_json


class T:
    def _run(self):
        return [1, 2]
'''
    new, _, _ = fix_source(source, [finding(6, 16, 6, 22)], unsafe=True)
    assert b"return to_json([1, 2])" in new
    assert new.count(b"import") == 1


def test_name_taken_gets_an_alias():
    source = b'''\
from newsroom.dispatcher import dispatch_tool
from crewai.tools import BaseTool


class Kpi(BaseTool):
    name: str = "KPI"


def use(tool: Kpi):
    return tool.run(a=1)
'''
    new, _applied, _skipped = fix_source(source, [finding(10, 12, 10, 25, "DG101")], unsafe=True, project=names_of(source))
    text = new.decode()
    assert 'return dg_dispatch_tool(ToolAction(name="KPI", args={"a": 1}))' in text
    assert "from dispatchguard import ToolAction, dispatch_tool as dg_dispatch_tool" in text
    assert "from newsroom.dispatcher import dispatch_tool\n" in text


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        ("tool.run(1)", "positional arguments"),
        ("tool.run(**kw)", "**kwargs"),
        ("tool.run(*a)", "*args"),
        ("tool.run(a=1, callbacks=cb)", "callbacks configure the call"),
        ("tool.invoke(payload)", "not a dict literal"),
        ("tool.invoke({'a': 1}, config=c)", "single dict literal"),
        ("tool.invoke(other={'a': 1})", "single dict literal"),
        ("unknown.run(a=1)", "registered name is not statically known"),
    ],
)
def test_dg101_no_fix_says_why(call, reason):
    source = f'''\
from crewai.tools import BaseTool


class Kpi(BaseTool):
    name: str = "KPI"


def use(tool: Kpi, kw, a, cb, payload, c, unknown):
    return {call}
'''.encode()
    end = 12 + len(call)
    new, applied, skipped = fix_source(source, [finding(9, 12, 9, end, "DG101")], unsafe=True, project=names_of(source))
    assert new == source and applied == []
    assert reason in skipped[0].reason


@pytest.mark.parametrize(
    ("setup", "call", "name"),
    [
        ("REG = {'kpi': Kpi()}", "Kpi().run(a=1)", "kpi"),
        ("", "Kpi().run(a=1)", "KPI"),
        ("REG = {}\nREG['k2'] = Kpi()", "REG.get('k2').run(a=1)", "k2"),
        ("", "search.invoke({'q': 1})", "web_search"),
        ("", "plain.run(a=1)", "plain"),
        ("", "tool(a=1)", "KPI"),
    ],
)
def test_dg101_registered_name_sources(setup, call, name):
    source = f'''\
from crewai.tools import BaseTool
from langchain_core.tools import tool as lc_tool


class Kpi(BaseTool):
    name: str = "KPI"


@lc_tool("web_search")
def search(q):
    return q


@lc_tool
def plain(a):
    return a


{setup}


def use():
    tool = Kpi()
    return {call}
'''.encode()
    line = source.decode().splitlines().index(f"    return {call}") + 1
    new, applied, skipped = fix_source(
        source, [finding(line, 12, line, 12 + len(call), "DG101")], unsafe=True, project=names_of(source)
    )
    assert applied, skipped
    assert f'ToolAction(name="{name}"'.encode() in new


def test_dg101_self_attribute_and_annotations():
    source = b'''\
from crewai.tools import BaseTool


class Kpi(BaseTool):
    name: str = "KPI"


class Agent:
    helper: "Kpi"

    def __init__(self):
        self.kpi = Kpi()

    def go(self):
        return self.kpi.run(a=1), self.helper.run(b=2)
'''
    line = 15
    findings = [finding(line, 16, line, 33, "DG101"), finding(line, 35, line, 55, "DG101")]
    new, applied, skipped = fix_source(source, findings, unsafe=True, project=names_of(source))
    assert len(applied) == 2, skipped
    assert new.count(b'ToolAction(name="KPI"') == 2


def test_conflicting_bindings_have_no_static_name():
    source = b'''\
from crewai.tools import BaseTool


class A(BaseTool):
    name: str = "A"


class B(BaseTool):
    name: str = "B"


def use(flag):
    tool = A()
    if flag:
        tool = B()
    return tool.run(x=1)
'''
    _new, applied, skipped = fix_source(source, [finding(16, 12, 16, 25, "DG101")], unsafe=True, project=names_of(source))
    assert not applied and "not statically known" in skipped[0].reason


def test_names_follow_bases_and_registry(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "base.py").write_text("class Base:\n    name = 'base name'\n")
    (tmp_path / "pkg" / "tools.py").write_text(
        "from pkg.base import Base\nclass Child(Base):\n    pass\nclass Twice(Base):\n    pass\n"
        "R = {'a': Twice(), 'b': Twice()}\nR2 = {}\nR2.register('solo', Child())\n"
    )
    (tmp_path / "pkg" / "broken.py").write_text("def (:\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "skip.py").write_text("class Child:\n    name = 'nope'\n")
    project = index_project(tmp_path)
    assert project.registered_name("Child") == "solo"
    assert project.class_name_attr("Child") == "base name"
    assert project.registered_name("Twice") is None  # two keys: ambiguous
    assert project.registered_name("Missing") is None


def test_report_exit_codes():
    assert FixReport().exit_code == 0
    assert FixReport(changed_files=["a.py"]).exit_code == 1
    assert FixReport(remaining=[object()]).exit_code == 1


def test_dg103_no_fix_cases():
    source = b"class T:\n    def _run(self):\n        return (x for x in y)\n    def _arun(self):\n        return m.model_dump(mode='json')\n"
    findings = [finding(3, 16, 3, 30), finding(5, 16, 5, 41), finding(4, 5, 4, 8)]
    new, _applied, skipped = fix_source(source, findings, unsafe=True)
    assert new == source
    reasons = " | ".join(s.reason for s in skipped)
    assert "generator" in reasons and "mode" in reasons and "not a return statement" in reasons


def test_nofix_type():
    assert NoFix("x").reason == "x"


def test_import_alias_of_a_tool_class():
    tools = b'from crewai.tools import BaseTool\n\n\nclass DataVisualizationTool(BaseTool):\n    name: str = "Data Visualization"\n'
    agent = b'from app.tools import DataVisualizationTool as ChartTool\n\n\ndef chart():\n    chart_tool = ChartTool()\n    return chart_tool.run(kind="bar")\n'
    project = names_of(tools)
    new, applied, skipped = fix_source(agent, [finding(6, 12, 6, 38, "DG101")], unsafe=True, project=project)
    assert applied, skipped
    assert b'ToolAction(name="Data Visualization", args={"kind": "bar"})' in new


@pytest.mark.parametrize(
    ("body", "call"),
    [
        ("for tool in [Kpi()]:\n        pass", "tool.run(a=1)"),
        ("with Kpi() as tool:\n        pass", "tool.run(a=1)"),
        ("tool = Kpi()\n    tool += 1", "tool.run(a=1)"),
        ("import tool", "tool.run(a=1)"),
        ("(tool := Kpi())", "tool.run(a=1)"),
        ("tool, other = Kpi(), Kpi()", "tool.run(a=1)"),
        ("class tool:\n        pass", "tool.run(a=1)"),
        ("", "REG[key].run(a=1)"),
        ("", "REG[0].run(a=1)"),
        ("", "REG.get(key).run(a=1)"),
        ("", "REG.get().run(a=1)"),
        ("", "make()[1:2].run(a=1)"),
        ("", "bare.run(a=1)"),
        ("", "self.missing.run(a=1)"),
    ],
)
def test_dg101_bindings_that_hide_the_name(body, call):
    source = f'''\
from crewai.tools import BaseTool


class Kpi(BaseTool):
    name: str = "KPI"


def use(bare, key, REG, make, self):
    {body or "pass"}
    return {call}
'''.encode()
    line = source.decode().splitlines().index(f"    return {call}") + 1
    new, applied, skipped = fix_source(
        source, [finding(line, 12, line, 12 + len(call), "DG101")], unsafe=True, project=names_of(source)
    )
    assert not applied and new == source
    assert "not statically known" in skipped[0].reason


def test_dg101_langchain_dict_argument_and_chained_call():
    source = b'''\
from crewai.tools import BaseTool


class Kpi(BaseTool):
    name: str = "KPI"


def use(tool: Kpi):
    first = tool.run({"a": 1})
    second = tool.run(b=2).strip()
    return first, second
'''
    findings = [finding(9, 13, 9, 31, "DG101"), finding(10, 14, 10, 27, "DG101")]
    new, applied, skipped = fix_source(source, findings, unsafe=True, project=names_of(source))
    assert len(applied) == 2, skipped
    assert b'first = dispatch_tool(ToolAction(name="KPI", args={"a": 1}))' in new
    assert b'second = dispatch_tool(ToolAction(name="KPI", args={"b": 2})).strip()' in new


def test_dg101_chained_call_without_exact_end():
    source = b'class K:\n    name = "K"\n\n\ndef use(tool: K):\n    return tool.run(b=2).strip()\n'
    new, applied, skipped = fix_source(source, [finding(6, 12, 6, 99, "DG101")], unsafe=True, project=names_of(source))
    assert applied, skipped
    assert b'return dispatch_tool(ToolAction(name="K", args={"b": 2})).strip()' in new


def test_dg101_no_call_at_position():
    source = b"x = 1\n"
    new, applied, skipped = fix_source(source, [finding(1, 1, 1, 6, "DG101")], unsafe=True)
    assert new == source and "no call found" in skipped[0].reason


def test_dg101_space_before_comma_is_kept():
    source = b'class K:\n    name = "K"\n\n\ndef use(tool: K):\n    return tool.run(a=1 , b=2)\n'
    new, applied, skipped = fix_source(source, [finding(6, 12, 6, 31, "DG101")], unsafe=True, project=names_of(source))
    assert b'args={"a": 1 , "b": 2}' in new, new


def test_utf8_bom_and_crlf_are_kept():
    source = "\ufeffclass T:\r\n    def _run(self):\r\n        return {'é': 1}\r\n".encode()
    new, applied, _ = fix_source(source, [finding(3, 16, 3, 24)], unsafe=True)
    assert applied and new.startswith(b"\xef\xbb\xbf")
    assert new.count(b"\n") == new.count(b"\r\n")
    assert "return ensure_json_str({'é': 1})".encode() in new


def test_fix_changing_text_around_its_node_is_dropped(monkeypatch):
    """A fresh Return loses the original `;` spelling, which lives outside the node's range."""

    def fresh(finding, ctx):
        ret = next(n for n in ctx.positions if isinstance(n, cst.Return))
        return Fix(ret, cst.Return(value=cst.Name("x")), True, "fresh")

    monkeypatch.setitem(engine.FIXERS, "DG103", fresh)
    source = b"def f(x):\n    return [x] ;y = 1\n"
    new, applied, skipped = fix_source(source, [finding(2, 12, 2, 15)])
    assert new == source and applied == []
    assert "outside the node" in skipped[0].reason


def test_semicolons_are_kept_by_the_real_fixer():
    source = b"class T:\n    def _run(self):\n        x = 1 ;return [x] ;\n"
    new, applied, _ = fix_source(source, [finding(3, 23, 3, 26)], unsafe=True)
    assert applied
    assert b"x = 1 ;return ensure_json_str([x]) ;\n" in new
