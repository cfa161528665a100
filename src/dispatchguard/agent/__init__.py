"""Async tool execution, tool-result summaries, the bounded agent loop and model clients
(OpenAI-compatible and Anthropic, native tool calling or JSON in text).

See ``docs/agent.md``. Everything here is built on the runtime's dispatcher
(:func:`dispatchguard.dispatch_tool`): validation, JSON text and error objects come from there.
"""

from __future__ import annotations

from dispatchguard.agent.cancellable import CancelToken, RunCancelled, until_cancelled
from dispatchguard.agent.execute import (
    execute_tool,
    execute_tools,
    stranded_threads,
)
from dispatchguard.agent.llm import (
    AnthropicLLM,
    AsyncLLMClient,
    LLMClient,
    LLMConfigError,
    LLMError,
    ModelReply,
    OpenAICompatibleLLM,
    ToolCall,
    ToolCallingLLM,
)
from dispatchguard.agent.loop import (
    LoopResult,
    StepTrace,
    arun_tool_loop,
    run_tool_loop,
)
from dispatchguard.agent.summarize import (
    register_summarizer,
    summarize_tool_result,
    unregister_summarizer,
)

__all__ = [
    "AnthropicLLM",
    "AsyncLLMClient",
    "CancelToken",
    "LLMClient",
    "LLMConfigError",
    "LLMError",
    "LoopResult",
    "ModelReply",
    "OpenAICompatibleLLM",
    "RunCancelled",
    "StepTrace",
    "ToolCall",
    "ToolCallingLLM",
    "arun_tool_loop",
    "execute_tool",
    "execute_tools",
    "register_summarizer",
    "run_tool_loop",
    "stranded_threads",
    "summarize_tool_result",
    "unregister_summarizer",
    "until_cancelled",
]
