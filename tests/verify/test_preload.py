"""What a run's fork server imports once (dispatchguard.verify.runner.preload_of): what the tools'
modules import, followed through the project's own modules (packages' ``__init__`` first, relative
imports resolved), then those project modules, read from source without importing anything."""

from __future__ import annotations

from pathlib import Path

from dispatchguard.lint import load_config
from dispatchguard.verify.discover import verify_targets
from dispatchguard.verify.runner import import_roots, preload_of

FILES = {
    "pyproject.toml": '[tool.dispatchguard]\ntool-decorators = ["app.lib.tool"]\n',
    "src/app/__init__.py": "from . import helpers\nfrom .tools import search\n",
    "src/app/lib.py": "def tool(function):\n    return function\n",
    "src/app/helpers.py": "import json\n\ntry:\n    import ujson\nexcept ImportError:\n    ujson = None\n",
    "src/app/tools/__init__.py": "",
    "src/app/tools/search.py": (
        "from __future__ import annotations\n\nimport requests\nfrom pydantic import BaseModel\n\n"
        "from ..lib import tool\nfrom .shared import session\n\n\n"
        "@tool\ndef search(q: str) -> str:\n    import numpy  # inside a function: not preloaded\n    return q\n"
    ),
    "src/app/tools/shared.py": "import httpx\n\nsession = None\n",
}


def test_the_preload_follows_the_projects_imports_and_ends_with_its_own_modules(tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    targets = verify_targets([str(tmp_path / "src")], load_config([tmp_path]))
    assert [t.label for t in targets] == ["app.tools.search.search"]
    assert import_roots(targets) == [str(tmp_path / "src")]
    assert preload_of(targets) == [
        "httpx", "json", "pydantic", "requests", "ujson",  # the frameworks, found through every module
        "app", "app.helpers", "app.lib", "app.tools", "app.tools.search", "app.tools.shared",  # then the project's
    ]  # fmt: skip
