"""``environment_check``: Python version, platform, and which configured variables are set.

Only the names of the variables are reported (``true`` when set to a non-empty value), never their
values: an API key must not reach a model's context. The names come from
``DISPATCHGUARD_TOOLS_ENV_VARS`` (comma-separated).
"""

from __future__ import annotations

import os
import platform
import sys

from dispatchguard import __version__
from dispatchguard.runtime.json_text import ensure_json_str

from .settings import get_tool_settings


def environment_check() -> str:
    """Python version, platform and the presence (never the value) of the configured environment variables."""
    return ensure_json_str(
        {
            "python_version": platform.python_version(),
            "python_implementation": platform.python_implementation(),
            "platform": platform.platform(),
            "machine": platform.machine(),
            "executable_in_venv": sys.prefix != sys.base_prefix,
            "dispatchguard_version": __version__,
            "env_vars": {name: bool(os.environ.get(name)) for name in get_tool_settings().env_vars},
        }
    )
