"""The opt-in registry, the settings object, system_stats and environment_check."""

from __future__ import annotations

import json

import pytest

from dispatchguard import TOOL_REGISTRY
from dispatchguard.runtime.registry import ToolRegistry
from dispatchguard.tools import (
    REFERENCE_TOOLS,
    TOOLS,
    ToolSettings,
    configure_tools,
    environment_check,
    get_tool_settings,
    register_reference_tools,
)
from dispatchguard.tools.settings import DEFAULT_ENV_VARS, settings_from_env


def test_reference_registry_is_opt_in():
    assert sorted(REFERENCE_TOOLS) == sorted(TOOLS)
    assert not set(TOOLS) & set(TOOL_REGISTRY)  # importing the tools registered nothing globally
    assert REFERENCE_TOOLS.spec("file_writer").parallel_safe is False
    assert REFERENCE_TOOLS.spec("web_search").parallel_safe is True
    assert REFERENCE_TOOLS.schema("web_search")["properties"]["max_results"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 20,
        "description": "how many results to return (1 to 20).",
        "default": 5,
    }
    for name in REFERENCE_TOOLS:
        assert REFERENCE_TOOLS.schema(name)["additionalProperties"] is False
        assert REFERENCE_TOOLS.spec(name).description


def test_register_reference_tools_into_a_registry():
    registry = register_reference_tools(ToolRegistry(), names=["system_stats", "rss_feed"])
    assert sorted(registry) == ["rss_feed", "system_stats"]
    with pytest.raises(KeyError, match="no reference tool named nope"):
        register_reference_tools(ToolRegistry(), names=["nope"])


def test_register_reference_tools_defaults_to_the_global_registry():
    register_reference_tools()
    try:
        assert set(TOOLS) <= set(TOOL_REGISTRY)
    finally:
        for name in TOOLS:
            TOOL_REGISTRY.unregister(name)


def test_system_stats_through_dispatch(call):
    stats = call("system_stats")
    assert set(stats) == {"cpu_percent", "memory_percent", "disk_percent", "disk_path"}
    for key in ("cpu_percent", "memory_percent", "disk_percent"):
        assert 0 <= stats[key] <= 100
    assert call("system_stats", unexpected=1)["cpu_percent"] >= 0  # unknown args dropped by default


@pytest.mark.integration
def test_environment_check_reports_names_never_values(call, monkeypatch):
    secret = "sk-very-secret-value-123"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("EMPTY_ONE", "")
    configure_tools(env_vars=("OPENAI_API_KEY", "EMPTY_ONE", "NOT_SET_AT_ALL"))
    text = environment_check()
    assert secret not in text
    report = json.loads(text)
    assert report["env_vars"] == {"OPENAI_API_KEY": True, "EMPTY_ONE": False, "NOT_SET_AT_ALL": False}
    assert report["python_version"].count(".") == 2
    assert call("environment_check")["platform"] == report["platform"]


def test_tool_settings_from_env(monkeypatch):
    env = {
        "DISPATCHGUARD_TOOLS_SEARCH_URL": "http://127.0.0.1:8888/search",
        "DISPATCHGUARD_TOOLS_FILE_ROOT": "/srv/out",
        "DISPATCHGUARD_TOOLS_MAX_FILE_BYTES": "10",
        "DISPATCHGUARD_TOOLS_CPU_INTERVAL": "0.5",
        "DISPATCHGUARD_TOOLS_ENV_VARS": " A, B ,,C ",
    }
    s = settings_from_env(env)
    assert (s.search_url, s.file_root, s.max_file_bytes, s.cpu_interval, s.env_vars) == (
        "http://127.0.0.1:8888/search", "/srv/out", 10, 0.5, ("A", "B", "C"),
    )
    assert settings_from_env({"DISPATCHGUARD_TOOLS_SEARCH_URL": " "}).search_url is None
    assert settings_from_env({}) == ToolSettings() and ToolSettings().env_vars == DEFAULT_ENV_VARS
    with pytest.raises(ValueError, match="DISPATCHGUARD_TOOLS_MAX_FEED_BYTES='big'"):
        settings_from_env({"DISPATCHGUARD_TOOLS_MAX_FEED_BYTES": "big"})
    monkeypatch.setenv("DISPATCHGUARD_TOOLS_MAX_FILE_BYTES", "77")
    assert configure_tools(reset=True).max_file_bytes == 77
    assert get_tool_settings().max_file_bytes == 77
    assert configure_tools(max_feed_bytes=5).max_file_bytes == 77
