"""Settings of the reference tools: defaults, ``DISPATCHGUARD_TOOLS_*`` variables, overrides in code.

- ``DISPATCHGUARD_TOOLS_SEARCH_URL``: SearxNG-compatible JSON search endpoint (unset: web_search
  answers ``not_configured``);
- ``DISPATCHGUARD_TOOLS_FILE_ROOT``: the only directory file_writer writes in (``output``);
- ``DISPATCHGUARD_TOOLS_MAX_FILE_BYTES``: largest text file_writer accepts, UTF-8 (1 MiB);
- ``DISPATCHGUARD_TOOLS_MAX_FEED_BYTES``: largest feed document rss_feed reads (5 MiB);
- ``DISPATCHGUARD_TOOLS_ENV_VARS``: comma-separated names environment_check reports as set or not,
  never their values;
- ``DISPATCHGUARD_TOOLS_DISK_PATH``: the filesystem system_stats reports on (the root);
- ``DISPATCHGUARD_TOOLS_CPU_INTERVAL``: seconds system_stats samples the CPU for (0.1);
- ``DISPATCHGUARD_TOOLS_RAG_INDEX``: the SQLite index file rag_search reads (unset: ``not_configured``);
- ``DISPATCHGUARD_TOOLS_RAG_COLLECTION``: the collection rag_search searches unless ``global`` (``default``);
- ``DISPATCHGUARD_TOOLS_IMAGE_URL``: the image endpoint generate_image names in its instruction.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from dispatchguard.http.settings import dataclass_from_env

ENV_PREFIX = "DISPATCHGUARD_TOOLS_"

DEFAULT_ENV_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "DISPATCHGUARD_TOOLS_SEARCH_URL")


@dataclass(frozen=True)
class ToolSettings:
    """The reference tools' settings: endpoints, size limits, paths and the rag index to search.

    Immutable; each field is read from ``DISPATCHGUARD_TOOLS_<FIELD>`` (listed in the module
    docstring). The tools read the ones in force through :func:`get_tool_settings`;
    :func:`configure_tools` replaces them in code.
    """

    search_url: str | None = None
    file_root: str = "output"
    max_file_bytes: int = 1024 * 1024
    max_feed_bytes: int = 5 * 1024 * 1024
    env_vars: tuple[str, ...] = DEFAULT_ENV_VARS
    disk_path: str = os.path.abspath(os.sep)
    cpu_interval: float = 0.1
    rag_index: str | None = None
    rag_collection: str = "default"
    image_url: str | None = None


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
