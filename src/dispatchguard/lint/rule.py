"""What a rule is: one :class:`Rule` value per module of :mod:`dispatchguard.lint.rules`.

A rule module binds ``RULE = Rule(...)``: its code, name and messages, what it visits, its own
exemptions, the module of :mod:`dispatchguard.fix` that fixes it (named, never imported here: the
checker stays free of libcst) and a few canonical examples for its documentation. Everything that
lists rules (the engine, the walker, ``fix``, the output formats, the docs checks, the tests)
reads :data:`dispatchguard.lint.rules.RULES`, so adding a rule is one module, one page in
``docs/rules/`` and, for a fixable rule, one fixer module.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

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
FunctionCheck = Callable[[RuleContext, "FunctionInfo"], None]


@dataclass(frozen=True)
class Rule:
    """One rule. ``reporter`` says who reports it: ``"walk"`` rules visit the module's syntax
    through the hooks below; ``"engine"`` rules (DG001 unreadable file, DG002 unused ``# noqa``)
    are judged by the engine around the walk and have no hooks."""

    code: str
    name: str  #: kebab-case, as in noqa comments of other tools and in SARIF rule names
    summary: str
    message: str  #: a ``str.format`` template
    reporter: Literal["walk", "engine"] = "walk"
    check_call: CallCheck | None = None  #: every call of the module
    tool_methods: frozenset[str] = frozenset()  #: which methods of tool classes ``check_tool_method`` gets
    check_tool_method: FunctionCheck | None = None
    check_tool_function: FunctionCheck | None = None  #: functions the project makes tools of
    exempt: Callable[[FileFacts], bool] | None = None  #: files the rule never applies to
    fixer: str | None = None  #: the module of :mod:`dispatchguard.fix` whose ``fix`` fixes a finding
    fix_title: str = ""  #: what the fix does, one line (``fix --help``, docs)
    no_fix_reason: str = ""  #: for a rule without a fixer: what the user should do instead
    #: a new rule starts in preview: it runs only with ``preview = true`` or when its code is
    #: selected by name, so adding it changes no other rule's findings nor any project's
    preview: bool = False
    valid: tuple[str, ...] = ()  #: canonical examples for the rule's page; the cases live in tests
    invalid: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        hooks = (self.check_call, self.check_tool_method, self.check_tool_function)
        if self.reporter == "walk" and not any(hooks):
            raise TypeError(f"{self.code}: a walk rule needs check_call, check_tool_method or check_tool_function")
        if self.reporter == "engine" and any(hooks):
            raise TypeError(f"{self.code}: an engine rule has no walk hooks")
        if bool(self.check_tool_method) != bool(self.tool_methods):
            raise TypeError(f"{self.code}: check_tool_method and tool_methods go together")
        if self.fixer and self.no_fix_reason:
            raise TypeError(f"{self.code}: a fixable rule has no no_fix_reason")

    @property
    def url(self) -> str:
        """The rule's documentation page."""
        return DOCS_URL.format(code=self.code)

    def applies_to(self, facts: Callable[[], FileFacts]) -> bool:
        """Whether the rule applies to a file; ``facts`` is asked only by a rule with exemptions."""
        return self.exempt is None or not self.exempt(facts())
