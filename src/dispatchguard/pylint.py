"""pylint front end: ``pylint --load-plugins=dispatchguard.pylint``, the same findings as
``dispatchguard check`` through pylint's reporters, ``# pylint: disable=`` and its configuration.

Each DG code is a pylint message whose symbol is the rule's name (``direct-tool-call``) and whose
id is pylint's letter and four digits: the category (E for DG001, a file that cannot be checked;
W for the rest) then 9 and the code's digits, so DG101 is W9101 and DG001 is E9001 (``MESSAGE_IDS``).
pylint wants every message of one checker to share the id's two middle digits, so there is one
checker per family (``90``: the engine's DG0xx, ``91``: DG1xx), all named ``dispatchguard``:
``--disable=all --enable=dispatchguard`` runs exactly these checks.

A module goes down the editor path of :mod:`dispatchguard.lint.source` (``check_buffer``: the
project set up once per process, the modules the file's names lead to loaded as needed), with the
``[tool.dispatchguard]`` settings above the file and our ``# noqa`` grammar; pylint's own
``# pylint: disable=direct-tool-call`` works on top. Files that ``exclude``/``extend-exclude`` or
an ignore file exclude are not reported (as if ``force-exclude`` were set, like the flake8 plugin:
a plugin cannot tell a file named on the command line from one found under a folder).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pylint.checkers import BaseRawFileChecker

from dispatchguard.lint import RULES, ConfigError, Finding
from dispatchguard.lint.discovery import is_excluded
from dispatchguard.lint.source import check_buffer, editor_config

if TYPE_CHECKING:
    from astroid import nodes
    from pylint.lint import PyLinter

CHECKER_NAME = "dispatchguard"
UNCHECKABLE = "DG001"


def message_id(code: str) -> str:
    """DG101 -> W9101; DG001 (the file cannot be checked) -> E9001."""
    return ("E" if code == UNCHECKABLE else "W") + "9" + code[2:]


MESSAGE_IDS = {code: message_id(code) for code in sorted(RULES)}
CODES = {msgid: code for code, msgid in MESSAGE_IDS.items()}


class _Findings:
    """The findings of the module last checked: every family's checker reads one check."""

    key: tuple[str, bytes] | None = None
    findings: Sequence[Finding] = ()

    @classmethod
    def of(cls, node: nodes.Module) -> Sequence[Finding]:
        path = Path(node.file or "stdin.py").absolute()
        with node.stream() as stream:
            data = stream.read()
        if cls.key != (str(path), data):
            cls.key, cls.findings = (str(path), data), check_module(path, data)
        return cls.findings


def check_module(path: Path, data: bytes) -> list[Finding]:
    """The unsilenced findings of a file, as ``dispatchguard check`` reports them."""
    try:
        config = editor_config(path)
    except ConfigError as exc:
        return [Finding(str(path), 1, 1, UNCHECKABLE, f"cannot check this file: {exc}", 1, 1)]
    if is_excluded(path, config, config.root):
        return []
    return [f for f in check_buffer(path, data, config) if not f.suppressed]


class DispatchguardChecker(BaseRawFileChecker):
    """The checks of one message family; the subclasses made below hold their messages."""

    name = CHECKER_NAME
    msgs: ClassVar[dict[str, Any]] = {}

    def process_module(self, node: nodes.Module) -> None:
        """Report the findings of this checker's message family for ``node``.

        The file is checked once per content for all families (the last result is cached).
        """
        for finding in _Findings.of(node):
            msgid = MESSAGE_IDS.get(finding.code)
            if msgid not in self.msgs:
                continue
            self.add_message(
                msgid,
                line=finding.line,
                col_offset=finding.col - 1,
                end_lineno=finding.end_line,
                end_col_offset=finding.end_col - 1,
                args=(finding.message,),
            )


def _messages(codes: Sequence[str]) -> dict[str, Any]:
    return {
        MESSAGE_IDS[code]: (
            "%s",
            RULES[code].name,
            f"{RULES[code].summary} ({code}; {RULES[code].url})",
        )
        for code in codes
    }


def checkers() -> list[type[DispatchguardChecker]]:
    """One checker class per message family (the id's two middle digits)."""
    ordered = sorted(MESSAGE_IDS, key=lambda code: MESSAGE_IDS[code][1:])
    families = groupby(ordered, key=lambda code: MESSAGE_IDS[code][1:3])
    return [
        type(f"DispatchguardChecker{family}", (DispatchguardChecker,), {"msgs": _messages(list(codes))})
        for family, codes in families
    ]


def register(linter: PyLinter) -> None:
    """pylint's plugin entry point."""
    for checker in checkers():
        linter.register_checker(checker(linter))
