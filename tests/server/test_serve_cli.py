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


def test_serve_options_reach_the_service(uvicorn_runs, llm_server):
    import threading

    from fastapi.testclient import TestClient

    released = threading.Event()
    llm_server.set_script([lambda body: released.wait(10) and "late", "from anthropic"])
    assert main(["serve", "--base-url", llm_server.base_url, "--model", "m", "--request-timeout", "0.3",
                 "--model-timeout", "30"]) == 0
    ((app, _),) = uvicorn_runs
    with TestClient(app) as client:
        response = client.post("/chat", json={"message": "hi"})
    released.set()
    assert response.status_code == 504
    assert main(["serve", "--provider", "anthropic", "--base-url", llm_server.root_url, "--model", "c"]) == 0
    with TestClient(uvicorn_runs[1][0]) as client:
        assert client.post("/chat", json={"message": "hi"}).json()["response"] == "from anthropic"
    assert llm_server.paths[-1] == "/v1/messages"


def test_a_model_slower_than_the_model_timeout_is_502(uvicorn_runs, llm_server):
    import threading

    from fastapi.testclient import TestClient

    released = threading.Event()
    llm_server.set_script([], default=lambda body: released.wait(10) and "late")
    assert main(["serve", "--base-url", llm_server.base_url, "--model", "m", "--model-timeout", "0.2"]) == 0
    with TestClient(uvicorn_runs[0][0]) as client:
        response = client.post("/chat", json={"message": "hi"})
    released.set()
    assert response.status_code == 502 and "model request failed" in response.json()["detail"]


def test_workers_hand_the_settings_to_each_worker(uvicorn_runs, llm_server, monkeypatch, capsys):
    from dispatchguard.server import SETTINGS_ENV
    from dispatchguard.server.factory import ServeSettings, app_from_environment

    monkeypatch.setenv(SETTINGS_ENV, "")  # restored after the test
    monkeypatch.delenv("DISPATCHGUARD_REDIS_URL", raising=False)
    assert main(["serve", "--base-url", llm_server.base_url, "--model", "m", "--workers", "3",
                 "--text-tools", "--request-timeout", "9"]) == 0
    ((target, kwargs),) = uvicorn_runs
    assert target == serve.FACTORY and kwargs["factory"] is True and kwargs["workers"] == 3
    settings = ServeSettings.from_json(__import__("os").environ[SETTINGS_ENV])
    assert (settings.native_tools, settings.request_timeout, settings.model) == (False, 9.0, "m")
    assert "DISPATCHGUARD_REDIS_URL" in capsys.readouterr().err
    assert app_from_environment().title == "dispatchguard chat"
    monkeypatch.setenv(SETTINGS_ENV, '{"max_steps": 0}')
    with pytest.raises(ValueError, match=SETTINGS_ENV):
        app_from_environment()


@pytest.mark.parametrize("argv", [["--workers", "0"], ["--model-timeout", "-1"], ["--request-timeout", "x"]])
def test_serve_refuses_bad_numbers(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", *argv])
    assert exit_info.value.code == 2 and argv[0] in capsys.readouterr().err


@pytest.mark.integration
def test_the_server_package_loads_its_names_on_first_use():
    import subprocess

    code = (
        "import sys\n"
        "import dispatchguard.server as server, dispatchguard.cli.serve\n"
        "before = sorted({m.split('.')[0] for m in sys.modules} & {'fastapi', 'pydantic', 'redis'})\n"
        "from dispatchguard.server import create_app, RedisRequestState\n"
        "print(before, 'create_app' in dir(server), 'fastapi' in sys.modules)\n"
        "try:\n"
        "    server.no_such_name\n"
        "except AttributeError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [
        "[] True True", "module 'dispatchguard.server' has no attribute 'no_such_name'",
    ]
