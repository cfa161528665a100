"""Serve the /chat agent service over HTTP (needs the extra: pip install 'dispatchguard[server]').

The model server is any OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama, hosted): --base-url
and --model, or DISPATCHGUARD_LLM_BASE_URL and DISPATCHGUARD_LLM_MODEL; the API key, if one is
needed, only from DISPATCHGUARD_LLM_API_KEY (or OPENAI_API_KEY), never on the command line.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

HELP = "serve the /chat agent service (needs dispatchguard[server])"

DEFAULT_REGISTRY = "dispatchguard.runtime:TOOL_REGISTRY"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: %(default)s)")
    parser.add_argument("--base-url", help="model server URL, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", help="model name sent to the model server")
    parser.add_argument(
        "--registry", default=DEFAULT_REGISTRY, metavar="MODULE:NAME",
        help="the ToolRegistry offered to the model, e.g. dispatchguard.tools:REFERENCE_TOOLS "
        "(default: %(default)s)",
    )
    parser.add_argument("--no-tools", action="store_true", help="answer every mode directly")
    parser.add_argument("--max-steps", type=int, default=5, help="agent loop steps (default: 5)")
    parser.add_argument(
        "--tool-timeout", type=float, default=12.0, help="seconds per tool call (default: 12)"
    )
    parser.add_argument(
        "--max-body-bytes", type=int, default=64 * 1024,
        help="largest accepted request body (default: %(default)s)",
    )
    parser.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )


def load_registry(spec: str) -> Any:
    """Import ``module:attribute`` and return it; ValueError with a clear message otherwise."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"--registry must look like module:attribute, got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"--registry {spec}: cannot import {module_name!r} ({exc})") from None
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ValueError(f"--registry {spec}: {module_name!r} has no attribute {attribute!r}") from None


def run(args: argparse.Namespace) -> int:
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError as exc:
        print(
            f"dispatchguard serve: {exc.name or 'a server dependency'} is not installed; "
            "install the server extra: pip install 'dispatchguard[server]'",
            file=sys.stderr,
        )
        return 2
    from dispatchguard.agent.llm import LLMConfigError, OpenAICompatibleLLM
    from dispatchguard.server import create_app

    try:
        registry = load_registry(args.registry)
        llm = OpenAICompatibleLLM(base_url=args.base_url, model=args.model)
        app = create_app(
            registry, llm, max_steps=args.max_steps, tool_timeout=args.tool_timeout,
            allow_tools=not args.no_tools, max_body_bytes=args.max_body_bytes,
        )
    except (ValueError, LLMConfigError) as exc:
        print(f"dispatchguard serve: {exc}", file=sys.stderr)
        return 2
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0
