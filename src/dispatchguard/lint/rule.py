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
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from dispatchguard.lint.facts import FileFacts
    from dispatchguard.lint.scopes import FunctionInfo
    from dispatchguard.lint.walker import Context

#: Where the rule pages (``docs/rules/<CODE>.md``) are published.
PROJECT_URL = "https://github.com/dispatchguard/dispatchguard"
DOCS_URL = PROJECT_URL + "/blob/main/docs/rules/{code}.md"

CallCheck = Callable[["Context", ast.Call], None]
FunctionCheck = Callable[["Context", "FunctionInfo"], None]


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
