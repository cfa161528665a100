"""`dispatchguard serve`: arguments, clear errors, and the app handed to uvicorn."""

from __future__ import annotations

import sys

import pytest

from dispatchguard.cli import serve
from dispatchguard.cli.main import main


@pytest.fixture
def uvicorn_runs(monkeypatch):
    import uvicorn

    runs = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: runs.append((app, kw)))
    return runs


def test_serve_builds_the_app_and_runs_uvicorn(uvicorn_runs, llm_server, monkeypatch):
    monkeypatch.setenv("DISPATCHGUARD_LLM_API_KEY", "k")
    code = main(["serve", "--base-url", llm_server.base_url, "--model", "m", "--port", "9999",
                 "--max-steps", "3", "--no-tools"])
    assert code == 0
    ((app, kwargs),) = uvicorn_runs
    assert kwargs == {"host": "127.0.0.1", "port": 9999, "log_level": "info"}
    from fastapi.testclient import TestClient

    llm_server.set_script(["served"])
    with TestClient(app) as client:
        body = client.post("/chat", json={"message": "hi", "mode": "agent"}).json()
    assert body["response"] == "served" and body["steps"] == 1
    assert llm_server.headers[0]["authorization"] == "Bearer k"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--registry", "nocolon"], "module:attribute"),
        (["--registry", "no_such_module_xyz:R"], "cannot import"),
        (["--registry", "dispatchguard.runtime:NOPE"], "no attribute 'NOPE'"),
        (["--model", "m"], "DISPATCHGUARD_LLM_BASE_URL"),
    ],
)
def test_serve_reports_bad_settings(uvicorn_runs, monkeypatch, capsys, argv, message):
    monkeypatch.delenv("DISPATCHGUARD_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert main(["serve", *argv]) == 2
    assert message in capsys.readouterr().err
    assert uvicorn_runs == []


@pytest.mark.parametrize("module", ["fastapi", "uvicorn"])
def test_serve_without_the_extra_names_the_install_command(monkeypatch, capsys, module):
    monkeypatch.setitem(sys.modules, module, None)  # import fails with ModuleNotFoundError
    parser = __import__("argparse").ArgumentParser()
    serve.add_arguments(parser)
    assert serve.run(parser.parse_args([])) == 2
    err = capsys.readouterr().err
    assert module in err and "pip install 'dispatchguard[server]'" in err
