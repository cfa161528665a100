"""JUnit XML, as ruff writes it, for CI systems that show test reports (GitLab ``reports: junit``,
Jenkins, Azure): one ``testsuite`` per file, one failed ``testcase`` per finding
(``name="org.dispatchguard.DG101"``, ``line`` and ``column`` attributes); a clean run is one passing
test case, ``No errors found``."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from dispatchguard.cli.output import Context, is_hidden

PACKAGE = "org.dispatchguard"


def _counts(element: ET.Element, tests: int, failures: int) -> None:
    element.attrib.update(tests=str(tests), skipped="0", failures=str(failures), errors="0")


def _testcase(suite: ET.Element, finding: Any) -> None:
    case = ET.SubElement(
        suite,
        "testcase",
        name=f"{PACKAGE}.{finding.code}",
        classname=os.path.splitext(finding.path)[0],
        line=str(finding.line),
        column=str(finding.col),
    )
    properties = ET.SubElement(case, "properties")
    ET.SubElement(properties, "property", name="severity", value="error")
    failure = ET.SubElement(case, "failure", message=finding.message)
    cell = "" if finding.cell is None else f"cell {finding.cell}, "
    failure.text = f"{cell}line {finding.line}, col {finding.col}, {finding.message}"


def render(findings: Sequence[Any], context: Context) -> str:
    """Return a JUnit XML document: one suite per file, one failed test case per unsilenced finding,
    or a single passing ``No errors found`` case when there is none."""
    shown = [f for f in findings if not is_hidden(f, context)]
    root = ET.Element("testsuites", name="dispatchguard")
    by_file: dict[str, list[Any]] = {}
    for finding in shown:
        by_file.setdefault(finding.path, []).append(finding)
    for path, group in by_file.items():
        suite = ET.SubElement(root, "testsuite", name=path)
        _counts(suite, len(group), len(group))
        suite.set("package", PACKAGE)
        for finding in group:
            _testcase(suite, finding)
    if not shown:
        suite = ET.SubElement(root, "testsuite", name="dispatchguard")
        _counts(suite, 1, 0)
        ET.SubElement(suite, "testcase", name="No errors found", classname="dispatchguard")
    _counts(root, max(1, len(shown)), len(shown))
    ET.indent(root, space="    ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
