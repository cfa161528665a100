"""Suite-wide settings, and the real servers more than one test area needs. Area-specific fixtures
live in each tests/<area>/conftest.py. Imports sit inside the fixtures so that collecting, say, the
linter tests does not load httpx or werkzeug."""

import os

import pytest
from hypothesis import HealthCheck, settings

# CI machines are 2-core and shared: no per-example deadline, a bounded number of examples.
settings.register_profile(
    "default",
    deadline=None,
    max_examples=int(os.environ.get("DG_HYPOTHESIS_EXAMPLES", "150")),
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", parent=settings.get_profile("default"), max_examples=2000)
settings.load_profile(os.environ.get("DG_HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def _http_server():
    from pytest_httpserver import HTTPServer

    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()


@pytest.fixture
def server(_http_server):
    """A real HTTP server on 127.0.0.1 (pytest-httpserver), with no expectations set."""
    _http_server.clear()
    yield _http_server
    _http_server.clear()


@pytest.fixture(scope="session")
def _scripted_server():
    from dispatchguard.agent.testing import ScriptedLLMServer

    with ScriptedLLMServer() as llm_server:
        yield llm_server


@pytest.fixture
def llm_server(_scripted_server):
    """The scripted OpenAI-compatible model server on 127.0.0.1, empty script, no recorded request."""
    _scripted_server.set_script([])
    yield _scripted_server
    _scripted_server.set_script([])


@pytest.fixture
def llm(llm_server):
    from dispatchguard.agent import OpenAICompatibleLLM

    return OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted")
