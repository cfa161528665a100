"""The checking core of dispatchguard: configuration, project index, rules and engine.

Free of flake8, libcst and pydantic (``ast`` only) and never imports the code it checks.
"""

from __future__ import annotations

from dispatchguard.lint.config import ConfigError, LintConfig, load_config
from dispatchguard.lint.engine import check_paths
from dispatchguard.lint.findings import CheckReport, Finding
from dispatchguard.lint.rules import RULES
from dispatchguard.lint.source import check_source

__all__ = ["RULES", "CheckReport", "ConfigError", "Finding", "LintConfig", "check_paths", "check_source", "load_config"]
