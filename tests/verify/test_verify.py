"""`dispatchguard verify` on a project whose tools keep, break and escape the contract, through
the real CLI: every tool is found through the project index, built and run in its own worker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ..conftest import built_once
from .projects import KEYED_TOOL

pytestmark = pytest.mark.integration

LANGCHAIN_TOOLS = '''
import json
import os
import time
import urllib.request

from langchain_core.tools import BaseTool, tool


class Echo(BaseTool):
    name: str = "echo"
    description: str = "Echo the query as JSON."

    def _run(self, q: str) -> str:
        return json.dumps({"q": q}, ensure_ascii=False)


class Lookup(BaseTool):
    name: str = "lookup"
    description: str = "A dict, not JSON text."

    def _run(self, q: str) -> dict:
        return {"q": q}


class Picky(BaseTool):
    name: str = "picky"
    description: str = "Raises on an empty query."

    def _run(self, q: str) -> str:
        if not q:
            raise ValueError("empty query")
        return json.dumps(q)


class Quitter(BaseTool):
    name: str = "quitter"
    description: str = "Ends its process."

    def _run(self, q: str) -> str:
        os._exit(3)


class Sleeper(BaseTool):
    name: str = "sleeper"
    description: str = "Never answers."

    def _run(self, q: str) -> str:
        time.sleep(60)
        return "{}"


class Loud(BaseTool):
    name: str = "loud"
    description: str = "Prints two megabytes."

    def _run(self, q: str) -> str:
        print("x" * 2_000_000)
        return "{}"


class Fetcher(BaseTool):
    name: str = "fetcher"
    description: str = "Needs the internet."

    def _run(self, url: str) -> str:
        with urllib.request.urlopen("http://example.com/" + url) as response:
            return json.dumps(response.read().decode())


class Streamer(BaseTool):
    name: str = "streamer"
    description: str = "A generator."

    def _run(self, q: str):
        return (c for c in q)


class Keyed(BaseTool):
    name: str = "keyed"
    description: str = "Needs an API key."

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        if "SECRET_API_KEY" not in os.environ:
            raise RuntimeError("SECRET_API_KEY is not set")

    def _run(self, q: str) -> str:
        return "{}"


@tool
def add(a: int, b: int) -> str:
    """Add two integers."""
    return json.dumps(a + b)


@tool
def numbers(n: int) -> list:
    """A list, not JSON text."""
    return list(range(3))
'''

BROKEN = '''
from langchain_core.tools import BaseTool

import a_module_that_does_not_exist


class Orphan(BaseTool):
    name: str = "orphan"
    description: str = "Its module cannot be imported."

    def _run(self, q: str) -> str:
        return "{}"
'''


@pytest.fixture(scope="module")
def verified(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """The reports of one `verify` run (about 40 s of CPU), shared by the xdist workers."""
    folder = built_once(tmp_path_factory, "verify-project", verify_project)
    return json.loads((folder / "reports.json").read_text(encoding="utf-8"))


def verify_project(root: Path) -> None:
    """Write the project into ``root``, run `dispatchguard verify` on it, keep its reports in reports.json."""
    (root / "pyproject.toml").write_text(
        "[tool.dispatchguard.verify]\ncases = 5\ntimeout = 3\noutput-cap = 100000\n", encoding="utf-8"
    )
    (root / "app" / "tools").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("", encoding="utf-8")
    (root / "app" / "tools" / "__init__.py").write_text("", encoding="utf-8")
    (root / "app" / "tools" / "library.py").write_text(textwrap.dedent(LANGCHAIN_TOOLS), encoding="utf-8")
    (root / "app" / "tools" / "broken.py").write_text(textwrap.dedent(BROKEN), encoding="utf-8")
    env = {**os.environ, "SECRET_API_KEY": "not for the tools"}
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify", "--output-format", "json", "-j", "2"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    reports = {item["tool"]: item for item in json.loads(done.stdout)}
    reports["__stderr__"] = {"text": done.stderr}
    (root / "reports.json").write_text(json.dumps(reports), encoding="utf-8")


def test_every_tool_is_found_with_its_place_and_rule(verified: dict[str, dict]) -> None:
    tools = {name for name in verified if name.startswith("app.")}
    names = ("Echo", "Lookup", "Picky", "Quitter", "Sleeper", "Loud", "Fetcher", "Streamer", "Keyed", "add", "numbers")
    assert tools == {f"app.tools.library.{n}" for n in names} | {"app.tools.broken.Orphan"}
    echo = verified["app.tools.library.Echo"]
    assert (echo["filename"], echo["code"], echo["kind"]) == ("app/tools/library.py", "DG103", "class")
    assert verified["app.tools.library.add"]["code"] == "DG104"


def test_tools_that_keep_the_contract_are_verified(verified: dict[str, dict]) -> None:
    for name in ("Echo", "add"):
        report = verified[f"app.tools.library.{name}"]
        assert report["status"] == "verified", report
        assert report["calls"] == 5


@pytest.mark.parametrize(
    ("name", "status", "detail"),
    [
        ("Lookup", "violation", "returned dict, not str: {'q': "),
        ("numbers", "violation", "returned list, not str: [0, 1, 2]"),
        ("Streamer", "violation", "returned generator, not str: <generator>"),
        ("Picky", "violation", "raised ValueError: 'empty query'"),
        ("Fetcher", "violation", "network sealed by dispatchguard verify"),
        ("Sleeper", "violation", "did not answer within 3 s"),
        ("Loud", "violation", "printed 2000001 bytes (cap 100000)"),
        ("Quitter", "crashed", "the tool's process exited with code 3"),
        ("Keyed", "not_built", "RuntimeError: SECRET_API_KEY is not set"),
    ],
)
def test_each_way_of_breaking_the_contract_is_reported(verified: dict, name: str, status: str, detail: str) -> None:
    report = verified[f"app.tools.library.{name}"]
    assert report["status"] == status, report
    assert detail in report["detail"], report


def test_a_failing_call_is_shrunk_to_the_smallest_arguments(verified: dict[str, dict]) -> None:
    assert verified["app.tools.library.Picky"]["arguments"] == {"q": ""}


def test_a_module_that_fails_to_import_is_not_built_and_the_run_goes_on(verified: dict[str, dict]) -> None:
    orphan = verified["app.tools.broken.Orphan"]
    assert orphan["status"] == "not_built"
    assert "ModuleNotFoundError" in orphan["detail"] and "a_module_that_does_not_exist" in orphan["detail"]


def test_the_summary_counts_the_tools(verified: dict[str, dict]) -> None:
    assert "12 tools found: 2 verified, 8 broke the contract, 2 not built." in verified["__stderr__"]["text"]


def test_a_project_without_tools_exits_0(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.dispatchguard]\n", encoding="utf-8")
    (tmp_path / "plain.py").write_text("x = 1\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "0 tools found" in done.stderr


def test_bad_settings_are_exit_2(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.dispatchguard.verify]\ncases = 0\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "key 'cases': expected a positive whole number, got 0" in done.stderr


LOCAL_TOOL = '''
import json
import os
import socket

from langchain_core.tools import BaseTool


class Local(BaseTool):
    name: str = "local"
    description: str = "Reads a local service."

    def _run(self, q: str) -> str:
        with socket.create_connection(("127.0.0.1", int(os.environ["LOCAL_PORT"])), timeout=2) as conn:
            return json.dumps({"q": q, "answer": conn.recv(16).decode()})
'''


@pytest.fixture
def local_service():
    """A real TCP service on loopback that answers `ok` to every connection."""
    import socketserver
    import threading

    class Answer(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            self.request.sendall(b"ok")

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Answer)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(("loopback", "expected"), [("true", 0), ("false", 1)])
def test_loopback_only_when_allowed_and_text_output(tmp_path: Path, local_service: int, loopback, expected):
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.dispatchguard.verify]\ncases = 2\ntimeout = 2\nloopback = {loopback}\npass-env = ["LOCAL_PORT"]\n',
        encoding="utf-8",
    )
    (tmp_path / "local_tools.py").write_text(textwrap.dedent(LOCAL_TOOL), encoding="utf-8")
    env = {**os.environ, "LOCAL_PORT": str(local_service)}
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == expected, done.stdout + done.stderr
    if expected:
        [line] = done.stdout.splitlines()
        assert line.startswith("local_tools.py:9:1: DG103 tool `local_tools.Local` violation: raised OSError: ")
        assert "network sealed by dispatchguard verify: 127.0.0.1" in line and line.endswith('(arguments: {"q": ""})')
    else:
        assert done.stdout == ""
        assert "1 tool found: 1 verified, 0 broke the contract, 0 not built." in done.stderr


PYTEST_PROJECT = '''
import json

from langchain_core.tools import tool


@tool
def good(q: str) -> str:
    """Answers JSON."""
    return json.dumps({"q": q})


@tool
def bad(q: str) -> dict:
    """Answers a dict."""
    return {"q": q}
'''


def test_the_pytest_plugin_makes_one_item_per_tool_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.dispatchguard.verify]\ncases = 3\n", encoding="utf-8")
    (tmp_path / "tools.py").write_text(textwrap.dedent(PYTEST_PROJECT), encoding="utf-8")

    def pytest_run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
            cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip

    plain = pytest_run()
    assert plain.returncode == 5, plain.stdout  # no tests: the plugin adds nothing unasked
    asked = pytest_run("--dispatchguard-verify", "-rA")
    assert asked.returncode == 1, asked.stdout
    assert "PASSED ::dispatchguard-verify[tools.good]" in asked.stdout
    assert "FAILED ::dispatchguard-verify[tools.bad]" in asked.stdout
    assert "tools.py:14: DG104 violation: returned dict, not str" in asked.stdout


FACTORY_PROJECT = f'''
from langchain_core.tools import BaseTool

{KEYED_TOOL}

class Legacy(BaseTool):
    name: str = "legacy"
    description: str = "Excluded from verify: never run."

    def _run(self, q: str) -> dict:
        return {{"q": q}}
'''


def test_the_pytest_plugin_applies_the_verify_settings_as_the_cli_does(tmp_path: Path) -> None:
    """A tool that only a configured factory builds is built and run under the plugin, as under
    `dispatchguard verify`, not skipped as not built; an excluded tool gets no item."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.dispatchguard.verify]\ncases = 3\nexclude = ["tools.Leg*"]\n'
        '[tool.dispatchguard.verify.factories]\n"tools.Keyed" = "tools:make_keyed"\n',
        encoding="utf-8",
    )
    (tmp_path / "tools.py").write_text(textwrap.dedent(FACTORY_PROJECT), encoding="utf-8")
    plugin = ["-p", "no:cacheprovider", "-p", "no:randomly", "--dispatchguard-verify", "-rA"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *plugin],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert "FAILED ::dispatchguard-verify[tools.Keyed]" in done.stdout, done.stdout  # built by the factory
    assert "tools.py:5: DG103 violation: returned dict" in done.stdout, done.stdout
    assert "tools.Legacy" not in done.stdout, done.stdout
    assert "1 failed" in done.stdout and done.returncode == 1, done.stdout
