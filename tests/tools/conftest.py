"""Fixtures for the reference-tool tests: a real server on 127.0.0.1, fresh settings, a file root."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dispatchguard import http
from dispatchguard.runtime.dispatcher import dispatch_tool
from dispatchguard.tools import REFERENCE_TOOLS, configure_tools


@pytest.fixture(autouse=True)
def fresh_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    for name in list(os.environ):
        if name.startswith(("DISPATCHGUARD_HTTP_", "DISPATCHGUARD_TOOLS_")):
            monkeypatch.delenv(name)
    http.reset_clients(reset_settings=True)
    # The test servers listen on 127.0.0.1, which the SSRF guard refuses unless allowed.
    http.configure(
        backoff_base=0.01, backoff_max=0.02, backoff_jitter=0.01, max_attempts=2, ssrf_allowlist=("127.0.0.1",)
    )
    root = tmp_path / "out"
    configure_tools(reset=True, file_root=str(root), cpu_interval=0.01)
    yield root
    http.reset_clients(reset_settings=True)
    configure_tools(reset=True)


@pytest.fixture
def call():
    """dispatch_tool on the reference registry, decoded: the JSON text must always parse."""

    def run(name: str, **args):
        text = dispatch_tool({"name": name, "args": args}, registry=REFERENCE_TOOLS)
        assert isinstance(text, str)
        return json.loads(text)

    return run
