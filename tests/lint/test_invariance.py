"""One answer per file (issue 32): whatever paths are named (any subset, any order, files or
folders), with the cache off, cold or warm, on standard input or through the editor path, a file
gets exactly the findings ``check .`` gives it at the project root.

The committed projects (``tests/lint/fixtures/invariance``): the issue's five-file CrewAI project
(a tool, the registry that builds it, the agent that runs it), a src layout with a home-grown tool
base in another package and a star-exporting ``__init__``, a monorepo with nested configurations,
notebooks beside a tool module. Each is checked by every subset of up to three of its files, in
the order given and reversed, and by every folder; then a Hypothesis strategy builds small projects
of the same parts and checks random subsets of them. The CLI runs in this process (its public
``main``), so that hundreds of runs cost seconds; ``test_invariance_frontends.py`` asks the same of
flake8, pylint, pre-commit and the language server in their own processes.
"""

from __future__ import annotations

import io
import itertools
import json
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dispatchguard.cli.main import main
from dispatchguard.lint.source import check_buffer, forget_editor_state

PROJECTS = Path(__file__).parent / "fixtures" / "invariance"
SOURCES = (".py", ".ipynb")

Findings = dict[str, set[tuple]]


class Checker:
    """The CLI, in this process, on one copy of a project."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
        self.root, self.capsys, self.monkeypatch = root, capsys, monkeypatch
        monkeypatch.chdir(root)
        forget_editor_state()

    def check(self, *args: str, stdin: bytes | None = None) -> Findings:
        if stdin is not None:
            self.monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        self.capsys.readouterr()
        status = main(["check", "--output-format", "json", "--exit-zero", *args])
        out = self.capsys.readouterr().out
        assert status == 0, out
        found: Findings = {}
        for item in json.loads(out):
            rel = Path(item["filename"]).resolve().relative_to(self.root.resolve()).as_posix()
            where = (item["cell"], item["location"]["row"], item["location"]["column"])
            found.setdefault(rel, set()).add((*where, item["code"], item["message"]))
        return found

    def files(self) -> list[str]:
        return sorted(
            p.relative_to(self.root).as_posix()
            for p in self.root.rglob("*")
            if p.suffix in SOURCES and ".dispatchguard_cache" not in p.parts
        )


def only(found: Findings, paths: list[str]) -> Findings:
    """The findings of the files under ``paths``."""
    return {
        rel: items
        for rel, items in found.items()
        if any(rel == p or rel.startswith(p.rstrip("/") + "/") for p in paths)
    }


@pytest.fixture(params=sorted(p.name for p in PROJECTS.iterdir()))
def project(request: pytest.FixtureRequest, tmp_path: Path, capsys, monkeypatch) -> Checker:
    root = tmp_path / request.param
    shutil.copytree(PROJECTS / request.param, root)
    return Checker(root, capsys, monkeypatch)


def test_every_project_has_findings_to_compare(project: Checker) -> None:
    """The property is only worth asking of projects where the answer is not empty everywhere."""
    reference = project.check("--no-cache", ".")
    assert len(reference) >= 2
    assert any(code in ("DG101", "DG103", "DG104") for items in reference.values() for *_, code, _ in items)


def test_every_subset_of_up_to_three_files_gets_the_findings_of_check_dot(project: Checker, tmp_path: Path) -> None:
    reference = project.check("--no-cache", ".")
    files = project.files()
    cache = str(tmp_path / "shared-cache")
    runs = 0
    for size in (1, 2, 3):
        for subset in itertools.combinations(files, size):
            for paths in (list(subset), list(reversed(subset))) if size > 1 else (list(subset),):
                # off, cold (a cache of its own), warm (the cache the runs before filled)
                how = (["--no-cache"], ["--cache-dir", str(tmp_path / f"cold-{runs}")], ["--cache-dir", cache])
                got = project.check(*how[runs % 3], "--force-exclude", *paths)
                assert got == only(reference, paths), (how[runs % 3], paths)
                runs += 1
    assert runs >= 3 * len(files)


def test_every_folder_and_the_root_named_any_way_get_the_same_findings(project: Checker, tmp_path: Path) -> None:
    reference = project.check("--no-cache", ".")
    folders = sorted({str(Path(rel).parent) for rel in project.files()} - {"."})
    for folder in folders:
        assert project.check("--no-cache", folder) == only(reference, [folder]), folder
        assert project.check("--no-cache", "-j2", f"{folder}/") == only(reference, [folder]), folder
    assert project.check("--cache-dir", str(tmp_path / "c"), "-j1", *folders, ".") == reference
    assert project.check("--cache-dir", str(tmp_path / "c"), str(project.root)) == reference  # warm, absolute


def test_standard_input_and_the_editor_path_give_each_file_its_findings(project: Checker) -> None:
    reference = project.check("--no-cache", ".")
    files = [rel for rel in project.files() if rel.endswith(".py")]
    for rel in files:
        got = project.check("--stdin-filename", rel, "-", stdin=(project.root / rel).read_bytes())
        assert got == only(reference, [rel]), rel
    # one editor session: buffers in any order, the project set up once for all of them
    for rel in reversed(project.files()):
        buffer = check_buffer(project.root / rel, (project.root / rel).read_bytes())
        got = {(f.cell, f.line, f.col, f.code, f.message) for f in buffer if not f.suppressed}
        assert got == reference.get(rel, set()), rel


# ------------------------------------------------------------------------------------------------
# Hypothesis: small projects made of the parts that decide DG101-DG104 across files

BASES = {
    "crewai": ("from crewai.tools import BaseTool", "BaseTool", "run", "query=q"),
    "langchain": ("from langchain_core.tools import BaseTool", "BaseTool", "invoke", '{"query": q}'),
}
RETURNS = {
    "dict": 'return {"query": query}',
    "json": 'return json.dumps({"query": query})',
    "fstring": 'return f"found {query}"',
}


@st.composite
def projects(draw: st.DrawFn) -> dict[str, str]:
    """relpath -> source: a tool module (a class, maybe on a base of the project's own in another
    package, or a ``@tool`` function), maybe a package ``__init__`` re-exporting it, a registry, a
    caller that runs the tool directly or through the registry, an unrelated module, and maybe a
    toolkit whose member a module that does not import it runs (its name maybe defined again)."""
    framework = draw(st.sampled_from(sorted(BASES)))
    import_base, base, method, args = BASES[framework]
    returned = RETURNS[draw(st.sampled_from(sorted(RETURNS)))]
    own_base = draw(st.booleans())
    function_tool = draw(st.booleans()) and framework == "langchain"
    reexport = draw(st.booleans())
    tools_dir = draw(st.sampled_from(["app/tools", "app/skills", "lib/tools"]))
    package = tools_dir.replace("/", ".")
    configs = ["[tool.dispatchguard]\n", f'[tool.dispatchguard]\ntool-modules = ["{tools_dir}/**"]\n']
    files = {"pyproject.toml": draw(st.sampled_from(configs))}
    for folder in ("app", *({tools_dir.split("/")[0]} - {"app"}), tools_dir, "core"):
        files[f"{folder}/__init__.py"] = ""
    if own_base:
        files["core/base.py"] = f"{import_base}\n\n\nclass OwnBase({base}):\n    pass\n"
        import_base, base = "from core.base import OwnBase", "OwnBase"
    if function_tool:
        files[f"{tools_dir}/search.py"] = (
            f"import json\n\nfrom langchain_core.tools import tool\n\n\n@tool\ndef search(query: str) -> str:\n"
            f'    """Search."""\n    {returned}\n'
        )
        made, name = "search", "search"
    else:
        files[f"{tools_dir}/search.py"] = (
            f"import json\n\n{import_base}\n\n\nclass SearchTool({base}):\n    name: str = \"search\"\n"
            f'    description: str = "Search."\n\n    def _run(self, query: str) -> str:\n        {returned}\n'
        )
        made, name = "SearchTool()", "SearchTool"
    source = package if reexport else f"{package}.search"
    if reexport:
        files[f"{tools_dir}/__init__.py"] = f"from .search import {name}\n"
    files["app/registry.py"] = f"from {source} import {name}\n\nTOOLS = {{\"search\": {made}}}\n"
    direct = draw(st.booleans())
    call = f'{made}.{method}({args})' if direct else f'TOOLS["search"].{method}({args})'
    files["app/agent.py"] = (
        f"from app.registry import TOOLS\nfrom {source} import {name}\n\n\ndef answer(q):\n    return {call}\n"
    )
    files["app/util.py"] = "def helper(x):\n    return x.run()\n"
    toolkit = draw(st.sampled_from(["none", "alone", "defined twice"]))
    if toolkit != "none":  # a toolkit handed to a module that does not import it
        files[f"{tools_dir}/kit.py"] = (
            "from langchain_core.tools import tool\n\n\nclass Kit:\n    @staticmethod\n    @tool\n"
            '    def lookup_news(q: str) -> str:\n        """News."""\n        return q\n'
        )
        files["app/analyst.py"] = "def analyse(kit, q):\n    return kit.lookup_news.invoke(q)\n"
    if toolkit == "defined twice":
        files["core/feeds.py"] = "class Feeds:\n    def lookup_news(self, q):\n        return [q]\n"
    return files


# capsys and monkeypatch are reset by each example's own calls (readouterr, chdir, setattr)
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=projects(), data=st.data())
def test_generated_projects_answer_the_same_for_any_subset(
    files: dict[str, str], data: st.DataObject, tmp_path_factory, capsys, monkeypatch
) -> None:
    root = tmp_path_factory.mktemp("generated")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    checker = Checker(root, capsys, monkeypatch)
    reference = checker.check("--no-cache", ".")
    assert reference, files  # every generated project breaks a rule somewhere (a direct call at least)
    modules = [rel for rel in sorted(files) if rel.endswith(".py") and files[rel]]
    for _ in range(2):
        paths = data.draw(st.lists(st.sampled_from(modules), min_size=1, max_size=3, unique=True))
        assert checker.check("--no-cache", *paths) == only(reference, paths), paths
    rel = data.draw(st.sampled_from(modules))
    assert checker.check("--stdin-filename", rel, "-", stdin=files[rel].encode()) == only(reference, [rel])


def test_add_noqa_on_any_two_files_silences_exactly_their_findings(tmp_path: Path, capsys, monkeypatch) -> None:
    """``--add-noqa`` acts on the same findings: named with any other file, a file gets a ``# noqa``
    for each finding ``check .`` gives it, and nothing else changes."""
    source = PROJECTS / "crew_registry"
    files = Checker(source, capsys, monkeypatch).files()
    for number, pair in enumerate(itertools.combinations(files, 2)):
        root = tmp_path / str(number)
        shutil.copytree(source, root)
        checker = Checker(root, capsys, monkeypatch)
        reference = checker.check("--no-cache", ".")
        capsys.readouterr()
        main(["check", "--no-cache", "--add-noqa", *pair])
        left = checker.check("--no-cache", ".")
        assert left == {rel: items for rel, items in reference.items() if rel not in pair}, pair
