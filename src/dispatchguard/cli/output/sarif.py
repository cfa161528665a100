"""SARIF 2.1.0 for code scanning (GitHub, GitLab, IDE viewers).

One run; ``tool.driver.rules`` lists every rule from ``RULES`` (id, name, short and full
description, help URI), each result points at its rule by id and index. Findings silenced by
``# noqa`` are listed with ``suppressions: [{"kind": "inSource"}]``, findings matched by a
``--baseline`` file with ``{"kind": "external"}``, so a viewer shows them as suppressed rather than
losing them. Artifact URIs are relative to ``%SRCROOT%`` (the current directory), which the run
declares in ``originalUriBaseIds``.
"""

from __future__ import annotations

import json
import os
import string
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from dispatchguard.cli.output import PROJECT_URL, Context

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


def readable_template(message: str) -> str:
    """A rule's message template with its fields shown as ``<call>``, ``<reason>``: a viewer shows
    the rule's description as it is, so it must never show ``str.format`` braces."""
    fields = {name for _, name, _, _ in string.Formatter().parse(message) if name}
    return message.format_map({name: f"<{name}>" for name in fields})


def _rule_descriptor(rule: Any) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": f"{rule.summary}: {readable_template(rule.message)}."},
        "helpUri": rule.url,
        "defaultConfiguration": {"level": "error"},
    }


def _uri(path: str) -> dict[str, Any]:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(Path(path).as_posix()), "uriBaseId": "%SRCROOT%"}


def _fix(finding: Any) -> dict[str, Any]:
    """SARIF's fix: the finding's file, its edits as replacements (1-based, end exclusive)."""
    fix = finding.fix
    replacements = [
        {
            "deletedRegion": {
                "startLine": edit.line,
                "startColumn": edit.col,
                "endLine": edit.end_line,
                "endColumn": edit.end_col,
            },
            "insertedContent": {"text": edit.content},
        }
        for edit in fix.edits
    ]
    return {
        "description": {"text": f"{fix.message} ({fix.applicability})"},
        "artifactChanges": [{"artifactLocation": _uri(finding.path), "replacements": replacements}],
    }


def render(findings: Sequence[Any], context: Context) -> str:
    """Return a SARIF 2.1.0 log with one run listing every rule. Unlike the other formats it keeps
    silenced findings, marked with an ``inSource`` (noqa) or ``external`` (baseline) suppression."""
    codes = sorted(context.rules)
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for finding in findings:
        result: dict[str, Any] = {
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": "error",
            "message": {"text": finding.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": _uri(finding.path),
                        "region": {
                            "startLine": finding.line,
                            "startColumn": finding.col,
                            "endLine": finding.end_line,
                            "endColumn": finding.end_col,
                        },
                    }
                }
            ],
        }
        if finding.fix is not None:
            result["fixes"] = [_fix(finding)]
        if finding.suppressed:
            result["suppressions"] = [{"kind": "inSource"}]
        elif id(finding) in context.baselined:
            result["suppressions"] = [{"kind": "external", "justification": "listed in the baseline file"}]
        results.append(result)
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "dispatchguard",
                        "version": context.version or "0",
                        "informationUri": PROJECT_URL,
                        "rules": [_rule_descriptor(context.rules[code]) for code in codes],
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(context.cwd).as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
