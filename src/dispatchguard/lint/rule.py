"""What a rule is: one :class:`Rule` value per module of :mod:`dispatchguard.lint.rules`.

A rule module binds ``RULE = Rule(...)``: its code, name and messages, the hooks it declares
(:data:`HOOKS`, the one table of them), its own exemptions (test files are skipped unless it
``checks_tests``), the module of :mod:`dispatchguard.fix` that fixes it (named, never imported
here: the checker stays free of libcst) and a few canonical examples for its documentation.
Everything that lists rules (the engine, the walker, ``fix``, the output formats, ``check
--help``, the docs and their lists, the tests) reads :data:`dispatchguard.lint.rules.RULES`, so
adding a rule is one module, its case file and its page in ``docs/rules/`` (and, for a fixable
rule, one fixer module): ``tests/lint/test_new_rule.py`` holds CONTRIBUTING's recipe to it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from dispatchguard.lint.inference.returns import Knowledge

if TYPE_CHECKING:
    from dispatchguard.lint.facts import FileFacts
    from dispatchguard.lint.scopes import FunctionInfo

#: Where the rule pages (``docs/rules/<CODE>.md``) are published.
PROJECT_URL = "https://github.com/dispatchguard/dispatchguard"
DOCS_URL = PROJECT_URL + "/blob/main/docs/rules/{code}.md"


class RuleContext(Knowledge, Protocol):
    """All a rule sees of the walk: the questions below (the walker's ``Context`` answers them)
    and :class:`~dispatchguard.lint.inference.returns.Knowledge`'s, which the shared return
    classifier asks. A rule never reads the walker's state: a question it needs is added here,
    answered by the walker or the shared inference package, and documented."""

    strict: bool  #: the configuration's strict mode (DG103: also values of unknown origin)

    def report(self, node: ast.AST, code: str, message: str) -> None:
        """Record a finding of ``code`` spanning ``node`` (``# noqa`` is applied later)."""

    @property
    def function(self) -> FunctionInfo | None:
        """The innermost function the walk is in; None at module level and in a top-level class body."""

    @property
    def in_dispatcher(self) -> bool:
        """Whether the walk is inside a configured dispatcher function (where tools may be run)."""

    @property
    def own_dispatchers(self) -> tuple[str, ...]:
        """The project's configured dispatchers (dispatchguard's own left out), for messages."""

    @property
    def tool_modules_configured(self) -> bool:
        """Whether the configuration names the tool modules (an explicit setting means what it says)."""

    def kind_of(self, node: ast.AST) -> str | None:
        """What an expression is (:mod:`.kinds`: a tool, a tool class, a registry...), or None."""

    def callee_kind(self, node: ast.Call) -> str | None:
        """``kind_of(node.func)``, computed once per call however many rules ask."""

    def is_runtime_lookup(self, node: ast.AST) -> bool:
        """Whether ``node`` takes a tool out of a registry by a key known only at run time."""

    def routes_model_call(self, node: ast.Call) -> bool:
        """Whether a call passes on the model's tool call it is looping over (a dispatch point)."""

    def is_tool_constructor(self, func: ast.Attribute) -> bool:
        """Whether ``func`` is a classmethod constructor of a tool class (``Tool.from_function``)."""

    def defines_class(self, node: ast.AST) -> bool:
        """Whether a name refers to a class this module defines (at top level or around the walk)."""

    def filled_with_tools(self, name: str) -> bool:
        """Whether ``name`` is a parameter of the current function every call of which passes a tool."""

    def attribute_filled_with_tools(self, attr: str) -> bool:
        """Whether ``self.attr`` is set in ``__init__`` from a parameter every construction fills with a tool."""


CallCheck = Callable[[RuleContext, ast.Call], None]
ClassCheck = Callable[[RuleContext, ast.ClassDef], None]
FunctionCheck = Callable[[RuleContext, "FunctionInfo"], None]
NodeCheck = Callable[[RuleContext, Any], None]

#: The walk's events that are not a node type: a hook declared for one runs when the walk meets it.
TOOL_CLASS = "tool class"
TOOL_METHOD = "tool method"
TOOL_FUNCTION = "tool function"


@dataclass(frozen=True)
class Hook:
    """One way a rule visits a module: the :class:`Rule` field that declares it, the walk's event
    that runs it (an ``ast`` node type or one of the events above; None: the field maps node
    types to checks), what the check is given and when it runs."""

    field: str
    event: type[ast.AST] | str | None
    given: str
    when: str


#: Every hook a rule can declare. The walker, :class:`Rule`'s consistency checks, the docs and
#: CONTRIBUTING's recipe read this table (``tests/lint/test_rule_api.py`` holds them to it).
HOOKS: tuple[Hook, ...] = (
    Hook("check_call", ast.Call, "the `ast.Call`", "every call of the module, as the walk meets it"),
    Hook(
        "check_nodes",
        None,
        "the node",
        "a mapping `{ast node type: check}`: every node of those types the walk enters, as it meets it "
        "(before the walk goes into the node)",
    ),
    Hook(
        "check_tool_class",
        TOOL_CLASS,
        "the `ast.ClassDef`",
        "every class the walk takes for a tool class, before its body is walked",
    ),
    Hook(
        "check_tool_method",
        TOOL_METHOD,
        "the method's `FunctionInfo`",
        "the methods of tool classes named in the rule's `tool_methods`, once the module is walked",
    ),
    Hook(
        "check_tool_function",
        TOOL_FUNCTION,
        "the function's `FunctionInfo`",
        "every function the project makes a tool of (a tool decorator, `func=`, `from_function`), "
        "once the module is walked",
    ),
)


def hooks_by_event(rules: Iterable[Rule]) -> dict[type[ast.AST] | str, list[tuple[Rule, Callable[..., None]]]]:
    """The declared hooks of ``rules`` grouped by the walk's event that runs them (``ast`` node
    types and the events above), each with its rule, in the rules' order: what the walker dispatches."""
    events: dict[type[ast.AST] | str, list[tuple[Rule, Callable[..., None]]]] = {}
    for rule in rules:
        for hook in HOOKS:
            declared = getattr(rule, hook.field)
            if not declared:
                continue
            pairs = declared.items() if hook.event is None else [(hook.event, declared)]
            for event, check in pairs:
                events.setdefault(event, []).append((rule, check))
    return events


@dataclass(frozen=True)
class Rule:
    """One rule. ``reporter`` says who reports it: ``"walk"`` rules visit the module's syntax
    through the hooks they declare (:data:`HOOKS`: the ``check_*`` fields); ``"engine"`` rules
    (DG001 unreadable file, DG002 unused ``# noqa``) are judged by the engine around the walk and
    have no hooks."""

    code: str
    name: str  #: kebab-case, as in noqa comments of other tools and in SARIF rule names
    summary: str
    message: str  #: a ``str.format`` template
    reporter: Literal["walk", "engine"] = "walk"
    check_call: CallCheck | None = None  #: every call of the module
    check_nodes: Mapping[type[ast.AST], NodeCheck] = field(default_factory=dict, hash=False)  #: type -> check
    check_tool_class: ClassCheck | None = None  #: every tool class
    tool_methods: frozenset[str] = frozenset()  #: which methods of tool classes ``check_tool_method`` gets
    check_tool_method: FunctionCheck | None = None
    check_tool_function: FunctionCheck | None = None  #: functions the project makes tools of
    #: whether the rule also checks the files that match the test patterns; by default a walk rule
    #: skips them (tests call, build and declare throw-away tools on purpose), the engine applies it
    checks_tests: bool = False
    exempt: Callable[[FileFacts], bool] | None = None  #: other files the rule never applies to
    fixer: str | None = None  #: the module of :mod:`dispatchguard.fix` whose ``fix`` fixes a finding
    fix_title: str = ""  #: what the fix does, one line (``fix --help``, docs)
    no_fix_reason: str = ""  #: for a rule without a fixer: what the user should do instead
    #: a new rule starts in preview: it runs only with ``preview = true`` or when its code is
    #: selected by name, so adding it changes no other rule's findings nor any project's
    preview: bool = False
    valid: tuple[str, ...] = ()  #: canonical examples for the rule's page; the cases live in tests
    invalid: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        hooks = self.hooks
        if self.reporter == "walk" and not hooks:
            raise TypeError(f"{self.code}: a walk rule needs a hook: {', '.join(h.field for h in HOOKS)}")
        if self.reporter == "engine" and hooks:
            raise TypeError(f"{self.code}: an engine rule has no walk hooks")
        for node_type, check in dict(self.check_nodes).items():
            if not (isinstance(node_type, type) and issubclass(node_type, ast.AST)) or not callable(check):
                raise TypeError(f"{self.code}: check_nodes maps ast node types to checks, not {node_type!r}")
        if bool(self.check_tool_method) != bool(self.tool_methods):
            raise TypeError(f"{self.code}: check_tool_method and tool_methods go together")
        if self.fixer and self.no_fix_reason:
            raise TypeError(f"{self.code}: a fixable rule has no no_fix_reason")

    @property
    def hooks(self) -> tuple[str, ...]:
        """The hooks the rule declares (fields of :data:`HOOKS`), in the table's order."""
        return tuple(hook.field for hook in HOOKS if getattr(self, hook.field))

    @property
    def url(self) -> str:
        """The rule's documentation page."""
        return DOCS_URL.format(code=self.code)

    def applies_to(self, facts: Callable[[], FileFacts]) -> bool:
        """Whether the rule applies to a file: not a test file unless ``checks_tests``, and not
        ``exempt``; ``facts`` is asked only when one of them can say no."""
        if self.checks_tests and self.exempt is None:
            return True
        file = facts()
        return (self.checks_tests or not file.is_test) and (self.exempt is None or not self.exempt(file))
