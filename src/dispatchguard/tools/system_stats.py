"""``system_stats``: CPU, memory and disk use of the machine running the agent, in percent."""

from __future__ import annotations

import psutil

from dispatchguard.runtime.json_text import ensure_json_str

from .settings import get_tool_settings


def system_stats() -> str:
    """CPU, memory and disk usage in percent, as JSON {"cpu_percent", "memory_percent", "disk_percent", "disk_path"}."""
    settings = get_tool_settings()
    return ensure_json_str(
        {
            "cpu_percent": psutil.cpu_percent(interval=settings.cpu_interval),
            "memory_percent": psutil.virtual_memory().percent,
            "disk_percent": psutil.disk_usage(settings.disk_path).percent,
            "disk_path": settings.disk_path,
        }
    )
