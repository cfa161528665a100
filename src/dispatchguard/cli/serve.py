"""Serve the /chat agent service over HTTP (needs the extra: pip install 'dispatchguard[server]').

The model server is any OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama, hosted) or Anthropic's
Messages API (--provider anthropic): --base-url and --model, or DISPATCHGUARD_LLM_BASE_URL and
DISPATCHGUARD_LLM_MODEL; the API key, if one is needed, only from DISPATCHGUARD_LLM_API_KEY (or
OPENAI_API_KEY / ANTHROPIC_API_KEY), never on the command line. With --workers N, set
DISPATCHGUARD_REDIS_URL so that request ids and cancels are shared by the workers.
"""

from __future__ import annotations

import argparse
import os
import sys

from dispatchguard.cli.common import positive
from dispatchguard.server import DEFAULT_REGISTRY, SETTINGS_ENV

HELP = "serve the /chat agent service (needs dispatchguard[server])"

FACTORY = "dispatchguard.server.factory:app_from_environment"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the bind address, workers, model provider and server, registry, limits and timeouts."""
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: %(default)s)")
    parser.add_argument("--workers", type=positive(int), default=1,
                        help="worker processes (default: 1); share their state with DISPATCHGUARD_REDIS_URL")
    parser.add_argument("--provider", choices=["openai", "anthropic"], default="openai",
                        help="model API: OpenAI-compatible /chat/completions or Anthropic /v1/messages")
    parser.add_argument("--base-url", help="model server URL, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", help="model name sent to the model server")
    parser.add_argument("--text-tools", action="store_true",
                        help="tool calls as JSON in the reply's text, for models without native tool calling")
    parser.add_argument(
        "--registry", default=DEFAULT_REGISTRY, metavar="MODULE:NAME",
        help="the ToolRegistry offered to the model, e.g. dispatchguard.tools:REFERENCE_TOOLS "
        "(default: %(default)s)",
    )
    parser.add_argument("--no-tools", action="store_true", help="answer every mode directly")
    parser.add_argument("--max-steps", type=positive(int), default=5, help="agent loop steps (default: 5)")
    parser.add_argument(
        "--tool-timeout", type=positive(float), default=12.0, help="seconds per tool call (default: 12)"
    )
    parser.add_argument("--model-timeout", type=positive(float), default=120.0,
                        help="seconds per model request (default: 120)")
    parser.add_argument("--request-timeout", type=positive(float), default=None,
                        help="deadline of a whole /chat request in seconds, answered 504 (default: none)")
    parser.add_argument(
        "--max-body-bytes", type=positive(int), default=64 * 1024,
        help="largest accepted request body (default: %(default)s)",
    )
    parser.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )


def run(args: argparse.Namespace) -> int:
    """Serve the /chat app with uvicorn until it stops, then return 0; 2 (one line on stderr) when
    the server extra is missing or the settings are invalid. --workers > 1 pass the settings to
    the workers in the environment and warn when DISPATCHGUARD_REDIS_URL is not set."""
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
    from dispatchguard.server.factory import ServeSettings, build_app

    settings = ServeSettings(
        provider=args.provider, base_url=args.base_url, model=args.model,
        native_tools=not args.text_tools, model_timeout=args.model_timeout,
        request_timeout=args.request_timeout, registry=args.registry, allow_tools=not args.no_tools,
        max_steps=args.max_steps, tool_timeout=args.tool_timeout, max_body_bytes=args.max_body_bytes,
    )
    try:
        app = build_app(settings)  # also checks the settings before any worker starts
    except ValueError as exc:
        print(f"dispatchguard serve: {exc}", file=sys.stderr)
        return 2
    if args.workers == 1:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
        return 0
    if not os.environ.get("DISPATCHGUARD_REDIS_URL"):
        print("dispatchguard serve: warning: --workers without DISPATCHGUARD_REDIS_URL: each worker "
              "keeps its own request ids, so a cancel reaches the run only when it lands on the same worker",
              file=sys.stderr)
    os.environ[SETTINGS_ENV] = settings.to_json()
    uvicorn.run(FACTORY, factory=True, workers=args.workers, host=args.host, port=args.port,
                log_level=args.log_level)
    return 0
