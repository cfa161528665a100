"""Text a chat model or an agent wrote, as a tool returns it: prose for a person, not JSON text,
unless the model was asked for JSON.

Recognised by what the declared types and the library tables say of the receiver, never by a
variable's name:

- ``llm.invoke(prompt).content`` (``ainvoke``, also through a name bound to the reply) of a chat
  model: a class whose ``invoke`` is declared to return a message (the environment's sources or
  the bundled SDK table), or a ``Chat...`` class of a chat model package (:mod:`..library`); also
  of a chain ending in one (``prompt | llm``);
- ``client.chat.completions.create(...).choices[0].message.content`` of an OpenAI-compatible
  client (``openai.OpenAI``, ``groq.Groq``...);
- ``chain.invoke(...)`` of a chain ending in ``StrOutputParser()``
  (``prompt | llm | StrOutputParser()``, a local, a module-level name or a ``self`` attribute);
- ``crew.kickoff(...).raw`` of a CrewAI ``Crew``.

Text from a model asked for JSON stays unknown: a ``response_format``/``format``/``json_schema``
keyword on the model, the call or a ``.bind(...)``, ``with_structured_output(...)``, a JSON or
pydantic output parser in the chain, a task with ``output_json``/``output_pydantic``, or a text
constant of the function or the chain that mentions JSON (a prompt asking for it).
"""

from __future__ import annotations

import ast
from typing import Protocol


class Function(Protocol):
    """A function as :mod:`.returns` sees it (the part read here)."""

    node: ast.AST

    @property
    def assigns(self) -> dict[str, list[ast.AST | None]]:
        """Local name -> the values bound to it (None: a binding whose value is unknown)."""

    def shadows(self, name: str) -> bool:
        """Whether ``name`` is bound locally."""


class Knowledge(Protocol):
    """The part of :class:`.returns.Knowledge` these questions read."""

    def qualified_name(self, node: ast.AST, fn: Function | None = None) -> str | None:
        """The dotted name ``node`` refers to (seen from ``fn``), or None."""

    def module_text(self, name: str) -> str | None:
        """The str constant a module-level name is bound to, else None."""

    def module_value(self, name: str) -> ast.expr | None:
        """The value of a module-level name's only binding, a plain assignment; else None."""

    def attribute_value(self, node: ast.AST, fn: Function) -> ast.expr | None:
        """The call or annotation ``self.<attr>`` is first bound to in ``fn``'s class, else None."""

    def instance_of(self, node: ast.AST, fn: Function, makers: frozenset[str]) -> str | None:
        """Which of ``makers`` made the value of ``node``, following its bindings; None otherwise."""

    def chat_model(self, node: ast.AST, fn: Function) -> str | None:
        """The chat model class outside the project ``node`` is an instance of, else None."""


MODEL_REPLY = "the chat model's reply (prose the model wrote)"
CHAIN_TEXT = "the text of a chain ending in `StrOutputParser` (prose the model wrote)"
CREW_TEXT = "the crew's final answer (prose the model wrote)"

#: Methods of a chat model that run it once and answer a message.
_MODEL_RUNS = frozenset({"invoke", "ainvoke", "predict_messages", "apredict_messages"})
#: Methods of a chat model that answer its text directly (legacy ``predict``).
_MODEL_TEXT_RUNS = frozenset({"predict", "apredict"})
_CHAIN_RUNS = frozenset({"invoke", "ainvoke"})
#: The messages a chat model's run is declared to give.
_MESSAGES = frozenset({"AIMessage", "BaseMessage", "AIMessageChunk", "BaseMessageChunk"})
#: OpenAI-compatible clients: ``client.chat.completions.create(...)`` gives a chat completion.
CHAT_CLIENTS = frozenset(
    f"{module}.{name}"
    for module, names in (
        ("openai", ("OpenAI", "AsyncOpenAI", "AzureOpenAI", "AsyncAzureOpenAI")),
        ("groq", ("Groq", "AsyncGroq")),
        ("together", ("Together", "AsyncTogether")),
        ("cerebras.cloud.sdk", ("Cerebras", "AsyncCerebras")),
    )
    for name in names
)
CREWS = frozenset({"crewai.Crew", "crewai.crew.Crew"})
_STR_PARSERS = frozenset({"StrOutputParser"})
_STR_PARSER_MODULES = ("langchain_core.output_parsers", "langchain.schema", "langchain.output_parsers")
#: Keywords that ask a model (or a completion) for JSON or for a schema.
_JSON_KEYWORDS = frozenset(
    {"response_format", "format", "json_schema", "json_mode", "output_format", "text_format", "output_json",
     "output_pydantic", "response_schema", "response_mime_type"}
)  # fmt: skip
#: Methods that turn a model into one answering JSON or objects.
_JSON_METHODS = frozenset({"bind", "with_structured_output", "bind_tools"})
_MAX_HOPS = 4
#: How far the names of a model's run are followed for a mention of JSON (``prompt = TEMPLATE.format(q)``).
_NAME_HOPS = 2


def reply_of(ctx: Knowledge, node: ast.expr, fn: Function) -> ast.expr:
    """``node`` with ``await`` and a local name bound once followed to the expression it stands for."""
    for _ in range(_MAX_HOPS):
        if isinstance(node, ast.Await):
            node = node.value
        elif isinstance(node, ast.Name):
            bound = fn.assigns.get(node.id) or []
            if len(bound) != 1 or not isinstance(bound[0], ast.expr):
                return node
            node = bound[0]
        else:
            return node
    return node


def content(ctx: Knowledge, node: ast.Attribute, fn: Function) -> str | None:
    """``reply.content``: the chat model's reply, or an OpenAI-style ``choices[0].message.content``."""
    reply = reply_of(ctx, node.value, fn)
    if isinstance(reply, ast.Call) and isinstance(reply.func, ast.Attribute) and reply.func.attr in _MODEL_RUNS:
        return MODEL_REPLY if model_run(ctx, reply, fn) else None
    if isinstance(reply, ast.Attribute) and reply.attr == "message":  # ``completion.choices[0].message``
        choice = reply_of(ctx, reply.value, fn)
        if isinstance(choice, ast.Subscript) and isinstance(choice.value, ast.Attribute):
            if choice.value.attr == "choices":
                completion = reply_of(ctx, choice.value.value, fn)
                return MODEL_REPLY if completion_run(ctx, completion, fn) else None
    return None


def model_run(ctx: Knowledge, call: ast.Call, fn: Function) -> bool:
    """Whether ``call`` runs a chat model once (``llm.invoke(prompt)``) that was not asked for JSON."""
    receiver = call.func.value  # type: ignore[attr-defined]
    if ctx.chat_model(receiver, fn) is not None:
        return not asks_json(ctx, fn, call, *built_by(ctx, receiver, fn))
    chain = chain_of(ctx, receiver, fn)  # ``prompt | llm``: the model's message is the chain's answer
    if not (isinstance(chain, ast.BinOp) and isinstance(chain.op, ast.BitOr)):
        return False
    if ctx.chat_model(chain.right, fn) is None:
        return False
    return not asks_json(ctx, fn, call, chain, *built_by(ctx, chain.right, fn))


def chain_of(ctx: Knowledge, node: ast.expr, fn: Function) -> ast.expr | None:
    """The expression a runnable stands for: a local bound once, a module-level name, a ``self``
    attribute bound in a method (``self.chain = prompt | llm``), or the expression itself."""
    node = reply_of(ctx, node, fn)
    if isinstance(node, ast.Name):
        return ctx.module_value(node.id) if not fn.shadows(node.id) else None
    if isinstance(node, ast.Attribute):
        return ctx.attribute_value(node, fn)
    return node


def text_run(ctx: Knowledge, call: ast.Call, fn: Function) -> str | None:
    """What a call that answers text gives: a chat model's ``predict(...)`` or a ``StrOutputParser``
    chain's ``invoke(...)``; None for any other call."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr in _MODEL_TEXT_RUNS:
        return MODEL_REPLY if model_run(ctx, call, fn) else None
    if func.attr in _CHAIN_RUNS:
        chain = chain_of(ctx, func.value, fn)
        if chain is not None and string_chain(ctx, chain, fn) and not asks_json(ctx, fn, call, chain):
            return CHAIN_TEXT
    return None


def completion_run(ctx: Knowledge, node: ast.expr, fn: Function) -> bool:
    """``client.chat.completions.create(...)`` of an OpenAI-compatible client, not asked for JSON."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "create"):
        return False
    completions = node.func.value
    if not (isinstance(completions, ast.Attribute) and completions.attr == "completions"):
        return False
    chat = completions.value
    if not (isinstance(chat, ast.Attribute) and chat.attr == "chat"):
        return False
    if ctx.instance_of(chat.value, fn, CHAT_CLIENTS) is None:
        return False
    return not asks_json(ctx, fn, node)


def crew_raw(ctx: Knowledge, node: ast.Attribute, fn: Function) -> str | None:
    """``crew.kickoff(...).raw`` of a CrewAI ``Crew`` whose tasks ask for no JSON."""
    run = reply_of(ctx, node.value, fn)
    if not (isinstance(run, ast.Call) and isinstance(run.func, ast.Attribute)):
        return None
    if run.func.attr not in ("kickoff", "kickoff_async"):
        return None
    receiver = run.func.value
    if ctx.instance_of(receiver, fn, CREWS) is None:
        return None
    built = built_by(ctx, receiver, fn)
    tasks = _crew_tasks(ctx, built, fn)
    if tasks is None:  # its tasks cannot be read: they may ask for JSON
        return None
    return None if asks_json(ctx, fn, run, *built, *tasks) else CREW_TEXT


def _crew_tasks(ctx: Knowledge, built: list[ast.Call], fn: Function) -> list[ast.Call] | None:
    """The calls that build the tasks of a crew built by ``built`` (``tasks=[draft, review]``), or
    None when one cannot be read."""
    lists = [reply_of(ctx, k.value, fn) for call in built for k in call.keywords if k.arg == "tasks"]
    if not lists or not all(isinstance(t, (ast.List, ast.Tuple)) for t in lists):
        return None
    items = [_bound(ctx, e, fn) for t in lists for e in t.elts]  # type: ignore[attr-defined]
    return items if items and None not in items else None  # type: ignore[return-value]


def _bound(ctx: Knowledge, node: ast.expr, fn: Function) -> ast.expr | None:
    """A call a name stands for (a local bound once, or a module-level name), else None."""
    node = reply_of(ctx, node, fn)
    if isinstance(node, ast.Name) and not fn.shadows(node.id):
        node = ctx.module_value(node.id)  # type: ignore[assignment]
    return node if isinstance(node, ast.Call) else None


def built_by(ctx: Knowledge, node: ast.expr, fn: Function) -> list[ast.Call]:
    """The calls that built the object ``node`` stands for, when they can be seen: a call, a local
    or a module-level name bound to one."""
    node = reply_of(ctx, node, fn)
    if isinstance(node, ast.Name) and not fn.shadows(node.id):
        value = ctx.module_value(node.id)
        node = value if value is not None else node
    elif isinstance(node, ast.Attribute):  # ``self.llm``, built in a method or declared as a field
        value = ctx.attribute_value(node, fn)
        node = value if value is not None else node
    return [node] if isinstance(node, ast.Call) else []


def string_chain(ctx: Knowledge, node: ast.expr, fn: Function) -> bool:
    """``prompt | llm | StrOutputParser()``: a ``|`` chain whose last step is a string output parser."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr)):
        return False
    last = node.right
    if not isinstance(last, ast.Call):
        return False
    qual = ctx.qualified_name(last.func, fn)
    if qual is None:
        return False
    module, _, name = qual.rpartition(".")
    return name in _STR_PARSERS and module.startswith(_STR_PARSER_MODULES)


def asks_json(ctx: Knowledge, fn: Function, *nodes: ast.AST) -> bool:
    """Whether the model behind these expressions was asked for JSON: a JSON keyword, a JSON
    method (``.bind(...)``, ``.with_structured_output(...)``), a JSON or pydantic parser, or text
    that mentions JSON, in them, in the names they use (two steps) or in the function's own text."""
    seen: set[int] = set()
    stack: list[tuple[ast.AST, int]] = [(n, 0) for n in nodes]
    stack.extend((stmt, _MAX_HOPS) for stmt in _own_text(fn))  # its prompts, not its names
    while stack:
        node, hops = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for sub in ast.walk(node):
            if _json_mark(sub):
                return True
            if isinstance(sub, ast.Name) and hops < _NAME_HOPS:
                values = _name_values(ctx, fn, sub.id)
                if values is None:
                    return True
                stack.extend((v, hops + 1) for v in values)
    return False


def _own_text(fn: Function) -> list[ast.stmt]:
    """The statements of the function, its docstring left out (it tells the caller, it asks the
    model nothing)."""
    body = list(getattr(fn.node, "body", ()))
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        return body[1:]
    return body


def _name_values(ctx: Knowledge, fn: Function, name: str) -> list[ast.AST] | None:
    """The values a name used by a model's run stands for (its local bindings, else its module-level
    one); None when it is a module-level text that mentions JSON."""
    if not fn.shadows(name):
        text = ctx.module_text(name)
        if text is not None and "json" in text.lower():
            return None
    values = [v for v in fn.assigns.get(name) or [] if v is not None]
    if not values and not fn.shadows(name):
        value = ctx.module_value(name)
        return [value] if value is not None else []
    return values


def _json_mark(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):  # a prompt asking for JSON, ``model_kwargs={"response_format": ...}``
        return isinstance(node.value, str) and ("json" in node.value.lower() or node.value in _JSON_KEYWORDS)
    if isinstance(node, ast.keyword):
        return node.arg in _JSON_KEYWORDS
    if isinstance(node, ast.Attribute):
        return node.attr in _JSON_METHODS or "Json" in node.attr or "Pydantic" in node.attr
    if isinstance(node, ast.Name):
        return "Json" in node.id or "Pydantic" in node.id
    return False
