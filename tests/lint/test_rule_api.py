"""A rule is local (issue 36): the rule modules ask the walk only what
:class:`~dispatchguard.lint.rule.RuleContext` declares, and the walker answers all of it. A rule
that needs more adds a documented question there; it never reads the walker's state."""

from __future__ import annotations

import ast
import dataclasses
import typing
from pathlib import Path

import pytest

import dispatchguard.lint.rules as rules_package
from dispatchguard.lint.config import LintConfig
from dispatchguard.lint.discovery import SourceFile
from dispatchguard.lint.facts import FileFacts
from dispatchguard.lint.index import summarise
from dispatchguard.lint.project import Project
from dispatchguard.lint.rule import HOOKS, Rule, RuleContext
from dispatchguard.lint.rules import RULES
from dispatchguard.lint.walker import Context

RULES_DIR = Path(rules_package.__file__).parent


def declared() -> set[str]:
    names: set[str] = set()
    for cls in RuleContext.__mro__:
        if cls is object or cls is typing.Protocol or cls.__name__ == "Generic":
            continue
        names |= {n for n in vars(cls) if not n.startswith("_")} | set(getattr(cls, "__annotations__", {}))
    return names


def test_rule_modules_ask_only_what_the_rule_context_declares() -> None:
    allowed = declared()
    asked = {}
    for path in sorted(RULES_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ctx":
                asked.setdefault(node.attr, path.name)
    assert asked, "the rule modules ask the walk nothing: the test reads the wrong folder"
    unknown = {attr: where for attr, where in asked.items() if attr not in allowed}
    assert not unknown, f"rules read the walker outside RuleContext: {unknown}"


def test_the_walker_answers_every_question_of_the_rule_context() -> None:
    missing = sorted(name for name in declared() if not hasattr(Context, name) and name != "strict")
    assert not missing


# ---------------------------------------------------------------- declared hooks


def walk(source: str, *rules: Rule, path: str = "app/agent.py") -> list[tuple[int, str, str]]:
    """(line, code, message) of what ``rules`` report on ``source``, walked as the engine walks a file."""
    config = LintConfig()
    project = Project(config, [SourceFile(config.root / path, path, path)])
    tree = ast.parse(source)
    summary = summarise(tree)
    project.known[path] = (summary, None)
    ctx = Context(project.resolver, project.add(path, summary), rules=rules, dispatchers=(), strict=False)
    return [(line, code, message) for line, _, _, _, code, message in ctx.run(tree)]


def undescribed(ctx: RuleContext, node: ast.ClassDef) -> None:
    """DG105 as the issue tells it: a tool class with no ``description``."""
    names = {t.id for s in node.body if isinstance(s, (ast.Assign, ast.AnnAssign))
             for t in (s.targets if isinstance(s, ast.Assign) else [s.target]) if isinstance(t, ast.Name)}  # fmt: skip
    if "description" not in names:
        ctx.report(node, "DG199", f"tool class `{node.name}` has no description")


TOOL_CLASSES = """\
from crewai.tools import BaseTool

class Search(BaseTool):
    name: str = "search"
    description: str = "Search the web."

class Fetch(BaseTool):
    name: str = "fetch"

class Helper:
    pass

def build():
    class Local(BaseTool):
        pass
    return Local()
"""


def test_a_class_hook_sees_every_tool_class_and_only_those() -> None:
    rule = Rule(code="DG199", name="x", summary="x", message="x", check_tool_class=undescribed)
    assert walk(TOOL_CLASSES, rule) == [
        (7, "DG199", "tool class `Fetch` has no description"),
        (14, "DG199", "tool class `Local` has no description"),
    ]


def test_node_hooks_see_every_node_of_their_types_in_walk_order() -> None:
    seen: list[tuple[str, int]] = []
    rule = Rule(
        code="DG199",
        name="x",
        summary="x",
        message="x",
        check_nodes={
            ast.Raise: lambda ctx, node: seen.append(("raise", node.lineno)),
            ast.Name: lambda ctx, node: seen.append((node.id, node.lineno)) if node.id == "secret" else None,
        },
    )
    source = "def f(x):\n    if x:\n        raise ValueError(secret)\n    return [secret for _ in x]\n"
    assert walk(source, rule) == []
    assert seen == [("raise", 3), ("secret", 3), ("secret", 4)]


def test_hooks_of_several_rules_run_in_the_rules_order_and_calls_still_reach_the_walk() -> None:
    order: list[str] = []
    first = Rule(code="DG198", name="x", summary="x", message="x", check_call=lambda ctx, n: order.append("call"))
    second = Rule(
        code="DG199", name="x", summary="x", message="x", check_nodes={ast.Call: lambda ctx, n: order.append("node")}
    )
    # the call hooks run before the walk's own handling of the call: the tool function is still found
    tool_function = Rule(
        code="DG197", name="x", summary="x", message="x",
        check_tool_function=lambda ctx, fn: ctx.report(fn.node, "DG197", fn.qualname),
    )  # fmt: skip
    source = (
        "from langchain_core.tools import StructuredTool\n\ndef f(q):\n    return q\n\n"
        "t = StructuredTool.from_function(f)\n"
    )
    assert walk(source, first, second, tool_function) == [(3, "DG197", "f")]
    assert order == ["call", "node"]


def test_every_hook_of_the_table_is_a_field_of_rule_and_declares_it() -> None:
    fields = {f.name for f in dataclasses.fields(Rule)}
    assert {hook.field for hook in HOOKS} <= fields
    assert {name for name in fields if name.startswith("check_") and name != "checks_tests"} == {h.field for h in HOOKS}
    for hook in HOOKS:
        value = {ast.Raise: print} if hook.field == "check_nodes" else print
        extra = {"tool_methods": frozenset({"run"})} if hook.field == "check_tool_method" else {}
        rule = Rule(code="DG199", name="x", summary="x", message="x", **{hook.field: value}, **extra)
        assert rule.hooks == (hook.field,)


def test_the_hooks_the_rule_modules_declare_are_listed() -> None:
    assert {code: RULES[code].hooks for code in ("DG001", "DG002", "DG101", "DG102", "DG103", "DG104")} == {
        "DG001": (),
        "DG002": (),
        "DG101": ("check_call",),
        "DG102": ("check_call",),
        "DG103": ("check_tool_method",),
        "DG104": ("check_tool_function",),
    }


def test_node_hooks_take_node_types() -> None:
    with pytest.raises(TypeError, match="check_nodes maps ast node types to checks"):
        Rule(code="DG199", name="x", summary="x", message="x", check_nodes={"Call": print})


# ---------------------------------------------------------------- the test-file exemption


@pytest.mark.parametrize(
    ("fields", "test_file", "tool_module", "applies"),
    [
        ({}, False, False, True),
        ({}, True, False, False),  # the default: test files are skipped
        ({"checks_tests": True}, True, False, True),  # a rule opts out of the default
        ({"exempt": lambda f: f.is_tool_module}, False, True, False),
        ({"exempt": lambda f: f.is_tool_module}, True, False, False),
        ({"checks_tests": True, "exempt": lambda f: f.is_tool_module}, True, False, True),
    ],
)
def test_a_rule_skips_test_files_unless_it_checks_tests(
    fields: dict, test_file: bool, tool_module: bool, applies: bool
) -> None:
    rule = Rule(code="DG199", name="x", summary="x", message="x", check_call=print, **fields)
    assert rule.applies_to(lambda: FileFacts("x.py", test_file, tool_module)) is applies


def test_no_rule_module_restates_the_test_file_exemption() -> None:
    restated = sorted(path.name for path in RULES_DIR.glob("dg*.py") if "is_test" in path.read_text(encoding="utf-8"))
    assert not restated


@pytest.mark.parametrize("checks_tests", [False, True])
def test_the_engine_applies_the_test_file_default(checks_tests: bool) -> None:
    rule = Rule(code="DG199", name="x", summary="x", message="x", check_call=print, checks_tests=checks_tests)
    config = LintConfig()
    path = "tests/test_fetch.py"
    project = Project(config, [SourceFile(config.root / path, path, path)])
    assert rule.applies_to(lambda: project.facts(path)) is checks_tests
    assert rule.applies_to(lambda: project.facts("app/fetch.py"))
