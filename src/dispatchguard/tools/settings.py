"""Settings of the reference tools: defaults, ``DISPATCHGUARD_TOOLS_*`` variables, overrides in code.

==============================  ==========================================  =====================
variable                        meaning                                     default
==============================  ==========================================  =====================
DISPATCHGUARD_TOOLS_SEARCH_URL  SearxNG-compatible JSON search endpoint     unset (tool errors)
DISPATCHGUARD_TOOLS_FILE_ROOT   directory file_writer is confined to        ./output
DISPATCHGUARD_TOOLS_MAX_FILE_BYTES  largest text file_writer accepts (UTF-8)  1048576
DISPATCHGUARD_TOOLS_MAX_FEED_BYTES  largest feed document rss_feed reads     5242880
DISPATCHGUARD_TOOLS_ENV_VARS    comma-separated names environment_check     OPENAI_API_KEY,...
                                reports as present/absent (never values)
DISPATCHGUARD_TOOLS_DISK_PATH   filesystem system_stats reports on          / (or the drive)
DISPATCHGUARD_TOOLS_CPU_INTERVAL  seconds system_stats samples the CPU for  0.1
==============================  ==========================================  =====================
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from dispatchguard.http.settings import dataclass_from_env

ENV_PREFIX = "DISPATCHGUARD_TOOLS_"

DEFAULT_ENV_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "DISPATCHGUARD_TOOLS_SEARCH_URL")


@dataclass(frozen=True)
class ToolSettings:
    search_url: str | None = None
    file_root: str = "output"
    max_file_bytes: int = 1024 * 1024
    max_feed_bytes: int = 5 * 1024 * 1024
    env_vars: tuple[str, ...] = field(default=DEFAULT_ENV_VARS)
    disk_path: str = os.path.abspath(os.sep)
    cpu_interval: float = 0.1


def settings_from_env(environ: Mapping[str, str] | None = None) -> ToolSettings:
    """Defaults overridden by every ``DISPATCHGUARD_TOOLS_*`` variable present."""
    return dataclass_from_env(ToolSettings, ENV_PREFIX, environ)


_lock = threading.Lock()
_settings: ToolSettings | None = None


def get_tool_settings() -> ToolSettings:
    """The current settings (read from the environment on first use)."""
    global _settings
    with _lock:
        if _settings is None:
            _settings = settings_from_env()
        return _settings


def configure_tools(*, reset: bool = False, **overrides: object) -> ToolSettings:
    """Override settings in code; ``reset=True`` starts again from the environment."""
    global _settings
    base = settings_from_env() if reset else get_tool_settings()
    new = dataclasses.replace(base, **overrides)  # type: ignore[arg-type]
    with _lock:
        _settings = new
    return new
