"""Build ``src/dispatchguard/lint/library/sdk_returns.json``: what the methods tools call on the
popular SDK clients declare they return, when that is not JSON text (a response object, a
message, a dict, rows), for projects whose environment does not have those SDKs installed.

The SDKs are never imported: their sdists are downloaded from PyPI (``pip download --no-deps
--no-binary :all:``, into a cache folder) and read with the checker's own declared-types reader
(:class:`dispatchguard.lint.inference.declared.DeclaredTypes`, ``typeshed_client`` over the
sources). For every public class each module of an SDK binds (defined there or re-exported, so
``mcp.ClientSession`` and ``mcp.client.session.ClientSession`` both), the methods in ``METHODS``
whose declared return is not JSON text are recorded with their verdict. An installed SDK read
from the environment always wins over the table.

Usage::

    .venv/bin/python scripts/build_sdk_table.py [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from build_library_table import download, package_dir

from dispatchguard.lint.inference.declared import DeclaredTypes

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "src" / "dispatchguard" / "lint" / "library" / "sdk_returns.json"
SDKS = [
    ("mcp", "1.30.0", "mcp"),  # the line applications import (`from mcp import ClientSession`)
    ("tavily-python", "0.8.5", "tavily"),
    ("exa-py", "2.28.0", "exa_py"),
    ("langchain-openai", "1.7.4", "langchain_openai"),
    ("langchain-anthropic", "1.7.10", "langchain_anthropic"),
    ("langchain-ollama", "1.1.0", "langchain_ollama"),
    ("langchain-groq", "1.1.3", "langchain_groq"),
]
#: read for the base classes the SDKs' classes derive from (chat models), not recorded
BASES = [("langchain-core", "1.8.2", "langchain_core")]
#: the methods a tool calls on a client and returns what they give
METHODS = (
    "invoke", "ainvoke", "batch", "abatch", "predict", "generate", "agenerate",
    "call_tool", "list_tools", "read_resource", "get_prompt", "list_resources", "list_prompts",
    "search", "extract", "crawl", "map", "qna_search", "get_search_context",
    "search_and_contents", "find_similar", "find_similar_and_contents", "get_contents", "answer",
)  # fmt: skip


def module_names(package: Path, import_name: str) -> list[str]:
    names = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if any(part.startswith("_") and part != "__init__" for part in parts) or "tests" in parts:
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def public_classes(declared: DeclaredTypes, module: str) -> list[str]:
    """The public names ``module`` binds to classes (defined there or imported)."""
    import typeshed_client

    names = typeshed_client.get_stub_names(module, search_context=declared.resolver.ctx) or {}
    public = (name for name in sorted(names) if not name.startswith("_"))
    return [f"{module}.{name}" for name in public if declared.is_class(f"{module}.{name}")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "dispatchguard-library")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    returns: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, version, import_name in (*SDKS, *BASES):
            shutil.copytree(package_dir(download(args.cache, name, version), import_name), root / import_name)
        declared = DeclaredTypes([root], bundled=False)
        for _, _, import_name in SDKS:
            for module in module_names(root / import_name, import_name):
                for cls in public_classes(declared, module):
                    verdicts = {m: v for m in METHODS if (v := declared.method_returns(cls, m)) is not None}
                    if verdicts:
                        returns[cls] = verdicts
    data = {
        "generated_by": "scripts/build_sdk_table.py",
        "libraries": {name: version for name, version, _ in (*SDKS, *BASES)},
        # class (as each module binds it) -> method -> what it declares it returns, not JSON text
        "method_returns": dict(sorted(returns.items())),
    }
    OUT.write_text(json.dumps(data, indent=0, separators=(",", ":")) + "\n")
    print(f"{OUT}: {sum(len(v) for v in returns.values())} methods of {len(returns)} classes")


if __name__ == "__main__":
    main()
