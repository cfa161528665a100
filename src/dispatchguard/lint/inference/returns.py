"""What a function gives back, as far as JSON text goes: the one classification of returned
expressions that DG103/DG104 (through the walker's query API) and the module index (syntax only,
for the return summaries of :mod:`.index`) share.

A verdict is :data:`JSON` (a JSON string), :data:`NEVER` (a function that only raises: it never
returns, which adds nothing to its caller's verdict), None (unknown), or a description of a value
that is not a JSON string (``"a dict"``, ``"text joined with ', '"``).

The :class:`Classifier` asks what it cannot see in the expression itself of a :class:`Knowledge`:
the walker's ``Context`` (the whole project) for the rules, :class:`ModuleKnowledge` (one module's
tree and its own imports) for the index.
"""

from __future__ import annotations

import ast
import datetime
import json
import re
from collections.abc import Callable
from typing import Protocol

from dispatchguard.lint.inference import model_text
from dispatchguard.lint.inference.control import ends, only_raises
from dispatchguard.lint.inference.tables import DEFERRED, Deferred, Table, function_table, merged, union
from dispatchguard.lint.library import chat_model_class

JSON = "json"
NEVER = "never"
#: The verdict of a chat model instance (``ChatOpenAI(...)``): a project function returning one is a
#: factory of models (:func:`.flow.chat_model_of`).
CHAT_MODEL = "a chat model"
# classification: "json", None (unknown), or a description of what is returned (not JSON)

#: What makes an agent executor, whose runs answer ``{"output": <the final answer>, ...}``.
AGENT_EXECUTORS = frozenset(
    f"{package}.{name}"
    for package in ("langchain.agents", "langchain.agents.agent", "langchain_classic.agents",
                    "langchain_classic.agents.agent")
    for name in ("AgentExecutor", "initialize_agent")
)
#: What makes a prebuilt agent graph, whose runs answer ``{"messages": [..., <the final answer>]}``.
AGENT_GRAPHS = frozenset(
    {
        "langgraph.prebuilt.create_react_agent", "langgraph.prebuilt.chat_agent_executor.create_react_agent",
        "langchain.agents.create_agent", "langchain.agents.factory.create_agent",
    }
)  # fmt: skip
_JSON_FUNCS = frozenset({"json.dumps", "simplejson.dumps", "ujson.dumps", "rapidjson.dumps"})
#: Parsers: what they give is the parsed value (a dict, a list, a number), not the text parsed.
_PARSERS = frozenset(
    {
        "json.loads", "json.load", "simplejson.loads", "ujson.loads", "orjson.loads", "rapidjson.loads",
        "ast.literal_eval", "yaml.safe_load", "yaml.load", "yaml.full_load", "tomllib.loads", "toml.loads",
    }
)  # fmt: skip
_NOT_JSON_BUILTINS = {
    "str": "`str(...)` (a Python repr)",
    "repr": "`repr(...)` (a Python repr)",
    "format": "`format(...)`",
    "dict": "a dict",
    "list": "a list",
    "tuple": "a tuple",
    "set": "a set",
    "frozenset": "a set",
    "sorted": "a list",
    "int": "a number",
    "float": "a number",
    "bool": "a bool",
    "len": "a number",
    "sum": "a number",
    "round": "a number",
    "abs": "a number",
    "bytes": "bytes",
}
_NOT_JSON_LITERALS = {
    ast.Dict: "a dict",
    ast.DictComp: "a dict",
    ast.List: "a list",
    ast.ListComp: "a list",
    ast.Set: "a set",
    ast.SetComp: "a set",
    ast.Tuple: "a tuple",
    ast.GeneratorExp: "a generator",
    ast.Lambda: "a function",
}
#: An f-string shaped like a JSON object or array: JSON most of the time, broken when a value holds
#: a quote, a backslash or a newline (no fix can wrap it: that would encode the object as a string).
HAND_WRITTEN_JSON = "JSON written by hand in an f-string (its values are not escaped)"
_NOT_JSON_METHODS = {
    "model_dump": "a dict (`.model_dump()`)",
    "dict": "a dict (`.dict()`)",
    "to_dict": "a dict (`.to_dict()`)",
    "to_markdown": "markdown text (`.to_markdown()`)",
    "to_html": "HTML (`.to_html()`)",
    "to_csv": "CSV text (`.to_csv()`)",
    "to_string": "a table as text (`.to_string()`)",
    "tolist": "a list (`.tolist()`)",
    "to_list": "a list (`.to_list()`)",
}
#: ``.get(key, default)`` with a default of one of these: the value is of the default's kind.
_DEFAULT_KINDS = {
    ast.List: "a list", ast.ListComp: "a list", ast.Dict: "a dict", ast.Set: "a set", ast.Tuple: "a tuple"
}  # fmt: skip
#: Declared types (return annotations) that are not JSON text, by their last name; ``str``, ``Any``
#: and names not listed say nothing (text of unknown content stays unknown).
_DECLARED = {
    **dict.fromkeys(("dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict", "Counter"), "a dict"),
    **dict.fromkeys(("list", "List", "Sequence", "MutableSequence", "deque"), "a list"),
    **dict.fromkeys(("tuple", "Tuple"), "a tuple"),
    **dict.fromkeys(("set", "Set", "frozenset", "FrozenSet", "AbstractSet"), "a set"),
    **dict.fromkeys(("int", "float", "complex", "Decimal", "Fraction"), "a number"),
    "bool": "a bool",
    **dict.fromkeys(("bytes", "bytearray"), "bytes"),
    **dict.fromkeys(("Generator", "Iterator", "AsyncGenerator", "AsyncIterator"), "a generator"),
    "None": "None",
    "NoneType": "None",
}
_UNIONS = frozenset({"Optional", "Union"})
_MAX_DEPTH = 12
# the characters JSON text can start and end with (after white space): objects, arrays, strings,
# numbers, true, false, null
_JSON_FIRST = frozenset('{["-0123456789tfn')
_JSON_IN_ARRAY = _JSON_FIRST | {"]"}
_JSON_WORDS = {"t": "true", "f": "false", "n": "null"}
_WORD = re.compile(r"\w*")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_JSON_LAST = frozenset('}]"0123456789el')
_ARITHMETIC = (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow)
_HTTP_METHODS = frozenset({"get", "post", "put", "patch", "delete", "head", "request", "send"})
_HTTP_LIBRARIES = frozenset({"requests", "httpx", "aiohttp", "urllib3"})


class Function(Protocol):
    """A function as the classifier sees it (the walker's ``Function``, or :class:`SyntaxFunction`)."""

    node: ast.AST
    returns: list[ast.Return]

    @property
    def assigns(self) -> dict[str, list[ast.AST | None]]:
        """Local name -> the values bound to it (None: a binding whose value is unknown)."""

    @property
    def is_generator(self) -> bool:
        """Whether it yields (or binds with ``:=``): its returns then say nothing of its value."""

    def shadows(self, name: str) -> bool:
        """Whether ``name`` is bound locally."""


class Knowledge(Protocol):
    """What the classifier asks about names (see the walker's query API)."""

    #: Whether a call through a table of functions it cannot judge is recorded for later
    #: (:func:`.tables.deferred`: the index, which judges one file alone) or unknown (the walker).
    defers_tables: bool

    def qualified_name(self, node: ast.AST, fn: Function | None = None) -> str | None:
        """The dotted name ``node`` refers to (seen from ``fn``), or None for locals, builtins, unknowns."""

    def module_function(self, qual: str) -> Function | None:
        """The function (or ``Class.method``) of the module being judged named ``qual``, or None."""

    def method(self, fn: Function, name: str) -> Function | None:
        """The method ``name`` of ``fn``'s class, for ``self.name(...)`` calls; None when not known."""

    def local_function(self, fn: Function, name: str) -> Function | None:
        """The function ``fn`` defines as ``name`` in its own body (its only binding), or None."""

    def instance_method(self, node: ast.AST, name: str, fn: Function) -> Function | None:
        """The method ``name`` of this module's class whose instance ``node`` is (a module-level
        name bound once to ``Class(...)``: ``memory = Memory()``, then ``memory.summary()``); None
        otherwise."""

    def instance_method_returns(self, node: ast.AST, name: str, fn: Function) -> str | None:
        """What the method ``name`` of a class of another module of the project whose instance
        ``node`` is returns, as that module's summary records it (its run methods); None if unknown."""

    def function_returns(self, qual: str, constants: dict[int | str, str] | None = None) -> str | None:
        """Another module's function verdict from its summary (JSON, NEVER, a description); None if
        unknown. ``constants`` (position or keyword -> str constant) are the call's: a router over a
        table of functions keyed by that parameter calls only the functions under that key."""

    def is_class(self, qual: str) -> bool:
        """Whether ``qual`` is a class of the project (a call of it gives an instance, not JSON text)."""

    def module_text(self, name: str) -> str | None:
        """The str constant a module-level name is bound to, else None."""

    def module_literal(self, name: str) -> ast.expr | None:
        """The literal a module-level name is bound to (its only binding), else None."""

    def declared_returns(self, qual: str) -> str | None:
        """What a function outside the project declares it returns, when that is not JSON text."""

    def instance_class(self, node: ast.AST, fn: Function) -> str | None:
        """The qualified name of the class outside the project that ``node`` is an instance of."""

    def method_returns(self, class_qual: str, method: str) -> str | None:
        """What a method of a class outside the project declares it returns, when not JSON text."""

    def tool_output(self, node: ast.AST, method: str, fn: Function) -> str | None:
        """What running (``method``: ``invoke``, ``run``, ``batch``...) the library tool instance
        ``node`` gives, when that is not JSON text (``TavilySearch``: a dict)."""

    def instance_of(self, node: ast.AST, fn: Function, makers: frozenset[str]) -> str | None:
        """Which of ``makers`` (qualified names of classes or factory functions) made the value of
        ``node``, following its bindings; None when none did or it cannot tell."""

    def chat_model(self, node: ast.AST, fn: Function) -> str | None:
        """The chat model class outside the project ``node`` is an instance of (its ``invoke`` is
        declared to answer a message, or the library table names it), following its bindings."""

    def module_value(self, name: str) -> ast.expr | None:
        """The value a module-level name is bound to by its only binding, a plain assignment; else None."""

    def attribute_value(self, node: ast.AST, fn: Function) -> ast.expr | None:
        """The call or annotation ``self.<attr>`` is first bound to in ``fn``'s class, else None."""


class Classifier:
    """What a returned expression is: :data:`JSON`, None (unknown) or a description of a value
    that is not a JSON string. Text counts as not JSON only when its first or last character
    rules JSON out (``"Error: " + x``: no JSON value starts with ``E``), so unknown parts never
    make a finding."""

    def __init__(self, ctx: Knowledge) -> None:
        self.ctx = ctx
        self.in_progress: set[int] = set()
        # the local names being judged: ``x = x + "!"`` refers to itself, which can only end at
        # the depth limit with nothing learnt, after a number of steps exponential in that limit
        self.names_in_progress: set[tuple[int, str]] = set()
        self.edges_in_progress: set[tuple[int, str]] = set()
        # the str constants a call of this module passes by position or keyword, per function being
        # judged for it: a router keyed by a parameter judges only the entry of the key it is given
        self.passed: dict[int, dict[int | str, str]] = {}

    def function(self, fn: Function, depth: int) -> str | None:
        """The verdict of a call of ``fn``: JSON only if every return is JSON (a function that only
        raises never returns, which is JSON's verdict: it adds nothing), not JSON if every return
        is not, else None."""
        verdict = self.summary(fn, depth)
        return JSON if verdict == NEVER else verdict

    def summary(self, fn: Function, depth: int) -> str | None:
        """:meth:`function`, telling :data:`NEVER` apart (what the index records)."""
        if id(fn) in self.in_progress or depth > _MAX_DEPTH:
            return None
        self.in_progress.add(id(fn))
        try:
            if not ends(fn.node.body):  # type: ignore[attr-defined]
                return None
            if not fn.returns:
                verdict = NEVER if only_raises(fn.node.body) else None  # type: ignore[attr-defined]
            else:
                verdict = self._all_returns(fn, depth)
        finally:
            self.in_progress.discard(id(fn))
        # a generator gives a generator, whatever it returns (asked last: the index's functions
        # find it out by a walk of their body, needless when the returns tell nothing)
        return None if verdict is None or fn.is_generator else verdict

    def _all_returns(self, fn: Function, depth: int) -> str | None:
        verdicts = []
        for ret in fn.returns:
            verdict = self.classify(ret.value, fn, depth + 1) if ret.value is not None else "None"
            if verdict is None:  # one unknown return: the function is what it declares, if anything
                return None if JSON in verdicts else self.declared(fn)
            verdicts.append(verdict)
        if all(v == JSON for v in verdicts):
            return JSON
        if any(v.startswith(DEFERRED) for v in verdicts):  # a table judged elsewhere, with the other returns
            return merged(verdicts)
        bad = [v for v in verdicts if v != JSON]
        return bad[0] if len(bad) == len(verdicts) else None

    def declared(self, fn: Function) -> str | None:
        """What the function's return annotation says it returns, when that is not JSON text."""
        annotation = getattr(fn.node, "returns", None)
        what = self.annotation(annotation, fn) if annotation is not None else None
        if what is None:
            return None
        shown = annotation.value if isinstance(annotation, ast.Constant) else ast.unparse(annotation)
        return f"{what} (declared `-> {shown}`)"

    def annotation(self, node: ast.expr, fn: Function) -> str | None:
        """What the values of annotation ``node`` are when none is JSON text, else None.

        A name resolved in ``fn``'s scope to a class the Knowledge knows counts as ``an instance of``.
        """
        def project_class(base: ast.expr) -> bool:
            qual = self.ctx.qualified_name(base, fn) if isinstance(base, (ast.Name, ast.Attribute)) else None
            return qual is not None and self.ctx.is_class(qual)

        return annotation_verdict(node, project_class)

    def classify(self, node: ast.AST, fn: Function, depth: int) -> str | None:
        """The verdict of an expression, by its node type (``_CLASSIFIERS``)."""
        if depth > _MAX_DEPTH:
            return None
        literal = _NOT_JSON_LITERALS.get(type(node))
        if literal is not None:
            return literal
        handler = _CLASSIFIERS.get(type(node))
        return handler(self, node, fn, depth) if handler is not None else None

    def constant(self, node: ast.Constant, fn: Function, depth: int) -> str | None:
        """A str constant is JSON when it parses as JSON, else not; None, bytes, bools and numbers are not."""
        value = node.value
        if isinstance(value, str):
            try:
                json.loads(value)
            except ValueError:
                return "a string that is not JSON"
            return JSON
        if value is None or value is Ellipsis:
            return str(value)
        if isinstance(value, bytes):
            return "bytes"
        return "a bool" if isinstance(value, bool) else "a number"

    def fstring(self, node: ast.JoinedStr, fn: Function, depth: int) -> str:
        """An f-string: JSON written by hand when its text is shaped like a JSON object or array
        (``f'{{"error": "{e}"}}'``: its values are not escaped), else text."""
        return HAND_WRITTEN_JSON if hand_written_json(node) else "an f-string"

    def awaited(self, node: ast.Await, fn: Function, depth: int) -> str | None:
        """``await x``: the verdict of ``x`` (an awaited coroutine's result is what its function returns)."""
        return self.classify(node.value, fn, depth + 1)

    def either(self, node: ast.IfExp, fn: Function, depth: int) -> str | None:
        """``a if c else b``: JSON when both branches are, else the first branch known not to be; else None."""
        a = self.classify(node.body, fn, depth + 1)
        b = self.classify(node.orelse, fn, depth + 1)
        if a == JSON and b == JSON:
            return JSON
        if a is not None and b is not None and (a.startswith(DEFERRED) or b.startswith(DEFERRED)):
            return merged([a, b])
        return a if a not in (JSON, None) else (b if b not in (JSON, None) else None)

    def unary(self, node: ast.UnaryOp, fn: Function, depth: int) -> str | None:
        """A number for a signed or inverted number literal, a bool for ``not x``; else None."""
        return _unary(node)

    def named(self, node: ast.Name, fn: Function, depth: int) -> str | None:
        """A name's verdict from the values bound to it (see :meth:`name`)."""
        return self.name(node.id, fn, depth)

    def sliced(self, node: ast.Subscript, fn: Function, depth: int) -> str | None:
        """``text[:n]``: a slice of text that is not JSON is still not; JSON cut short is broken.
        ``result["output"]`` of an agent executor's run is the agent's final answer: prose; an item of
        a table of text (:meth:`text_table`) is text."""
        window = node.slice
        if isinstance(window, ast.Constant) and window.value == "output":
            return self.agent_answer(node.value, fn)
        if not isinstance(window, ast.Slice):  # an item: of a table of text, text; of a list grown here, its items'
            table = self.text_table(node.value, fn, depth)
            if table is not None:
                return f"text (a value of `{table}`)"
            return self.list_item(node.value, fn, depth)
        inner = self.classify(node.value, fn, depth + 1)
        if inner == JSON:
            return "JSON text cut short (a slice), not valid JSON" if window.upper is not None else None
        return inner if inner is not None and inner.startswith(_SLICED_VERDICTS) else None

    def list_item(self, node: ast.expr, fn: Function, depth: int) -> str | None:
        """An item of a local list every binding of which is a list display, grown by
        ``.append(x)``/``.insert(i, x)`` (``results.append(impl(*args))``, then ``results[0]``): what
        every item is, when each is known (JSON only if all are); None otherwise."""
        if not isinstance(node, ast.Name):
            return None
        bound = fn.assigns.get(node.id)
        if not bound or not all(isinstance(v, ast.List) for v in bound):
            return None
        added = appended(fn, node.id)
        items = [e for v in bound for e in v.elts]  # type: ignore[union-attr]
        if added is None or not items + added or any(isinstance(e, ast.Starred) for e in items + added):
            return None
        items += added
        key = (id(fn), node.id)
        if key in self.names_in_progress:
            return None
        self.names_in_progress.add(key)
        try:
            verdicts = [self.classify(e, fn, depth + 1) for e in items]
        finally:
            self.names_in_progress.discard(key)
        if None in verdicts:
            return None
        if any(v.startswith(DEFERRED) for v in verdicts):  # type: ignore[union-attr]
            return merged(verdicts)  # type: ignore[arg-type]
        return union(node.id, verdicts, TEXTUAL_VERDICTS, where=f"(an item of `{node.id}`)")

    def attribute(self, node: ast.Attribute, fn: Function, depth: int) -> str | None:
        """``.content`` of an agent's last message or of a chat model's reply, ``.raw`` of a crew's
        run (:mod:`.model_text`); None for any other attribute."""
        if node.attr == "content":
            return self.last_message(node, fn, depth) or model_text.content(self.ctx, node, fn)
        if node.attr == "raw":
            return model_text.crew_raw(self.ctx, node, fn)
        return None

    def last_message(self, node: ast.Attribute, fn: Function, depth: int) -> str | None:
        """``run["messages"][-1].content`` of a prebuilt agent graph's run (``create_react_agent``,
        ``create_agent``): its last message is the agent's final answer, prose. Any other attribute,
        or the messages of another graph (whose last message may be anything), is None."""
        last = node.value
        if node.attr != "content" or not (isinstance(last, ast.Subscript) and _is_last(last.slice)):
            return None
        messages = last.value
        if not (isinstance(messages, ast.Subscript) and isinstance(messages.slice, ast.Constant)):
            return None
        return self.agent_answer(messages.value, fn, AGENT_GRAPHS) if messages.slice.value == "messages" else None

    def agent_answer(self, node: ast.expr, fn: Function, makers: frozenset[str] = AGENT_EXECUTORS) -> str | None:
        """The final answer of an agent's run (``executor.invoke(...)`` of an instance ``makers``
        made, bound to a name or awaited): the text the model wrote for a person, not JSON text."""
        if isinstance(node, ast.Name):
            bound = fn.assigns.get(node.id) or []
            node = bound[0] if len(bound) == 1 and isinstance(bound[0], ast.expr) else node
        if isinstance(node, ast.Await):
            node = node.value
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            return None
        if node.func.attr not in ("invoke", "ainvoke"):
            return None
        return _AGENT_ANSWER if self.ctx.instance_of(node.func.value, fn, makers) else None

    def binop(self, node: ast.BinOp, fn: Function, depth: int) -> str | None:
        """``+``: text glued to JSON or to text that cannot be JSON, or a number; ``%``: a template JSON
        cannot start with; ``-``, ``/``, ``//``, ``**``: a number. Anything else is None.
        """
        op = node.op
        if isinstance(op, ast.Add):
            sides = [self.classify(node.left, fn, depth + 1), self.classify(node.right, fn, depth + 1)]
            if JSON in sides:
                return "text glued to JSON"
            if any(self.edges(node, fn, depth)):
                return "text glued to other values"
            if sides[0] == sides[1] == "a number":
                return "a number"
            return None
        if isinstance(op, ast.Mod):
            template = self.text(node.left)
            if template is not None and bad_start(template.partition("%")[0]):
                return "text formatted with `%`"
            return None
        if isinstance(op, _ARITHMETIC):
            return "a number (arithmetic)"
        return None

    def text(self, node: ast.AST) -> str | None:
        """The text of a str constant, or of a module-level name bound to one."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return self.ctx.module_text(node.id)
        return None

    def edges(self, node: ast.AST, fn: Function, depth: int) -> tuple[bool, bool]:
        """Whether the text ``node`` evaluates to surely starts / ends with a character no JSON
        text starts / ends with."""
        if depth > _MAX_DEPTH:
            return False, False
        text = self.text(node)
        if text is not None and not isinstance(node, ast.Name):
            return bad_start(text), bad_end(text)
        if isinstance(node, ast.JoinedStr) and node.values:
            first, last = node.values[0], node.values[-1]
            start = isinstance(first, ast.Constant) and bad_start(str(first.value))
            end = isinstance(last, ast.Constant) and bad_end(str(last.value))
            return start, end
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.edges(node.left, fn, depth + 1)[0], self.edges(node.right, fn, depth + 1)[1]
        if isinstance(node, ast.Name):
            return self.name_edges(node.id, fn, depth)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            template = self.text(node.func.value)
            if template is not None:  # up to its first placeholder, the template is the text
                return bad_start(re.split(r"[{}]", template, maxsplit=1)[0]), bad_end(template)
        return False, False

    def name_edges(self, name: str, fn: Function, depth: int) -> tuple[bool, bool]:
        """:meth:`edges` of a name: a module text constant, or every local value it is bound to
        (``+=`` growing the end)."""
        values = fn.assigns.get(name)
        if not values:
            text = None if fn.shadows(name) else self.ctx.module_text(name)
            return (bad_start(text), bad_end(text)) if text is not None else (False, False)
        plain = [v for v in values if not isinstance(v, ast.AugAssign)]
        grown = [v for v in values if isinstance(v, ast.AugAssign)]
        key = (id(fn), name)
        if not plain or None in plain or any(not isinstance(g.op, ast.Add) for g in grown):
            return False, False
        if key in self.edges_in_progress:
            return False, False
        self.edges_in_progress.add(key)
        try:
            return self._grown_edges(plain, grown, fn, depth)  # type: ignore[arg-type]
        finally:
            self.edges_in_progress.discard(key)

    def _grown_edges(
        self, plain: list[ast.expr], grown: list[ast.AugAssign], fn: Function, depth: int
    ) -> tuple[bool, bool]:
        """The edges of text bound to ``plain`` values and grown by the ``+=`` of ``grown``: its start
        is a plain value's, its end any of them; text grown from ``""`` starts as its first piece
        does (and ``""`` alone is no JSON either)."""
        pieces = [self.edges(g.value, fn, depth + 1) for g in grown]
        if grown and all(isinstance(v, ast.Constant) and v.value == "" for v in plain):
            return all(p[0] for p in pieces), all(p[1] for p in pieces)
        parts = [self.edges(v, fn, depth + 1) for v in plain]
        return all(p[0] for p in parts), all(e[1] for e in parts + pieces)

    def name(self, name: str, fn: Function, depth: int) -> str | None:
        """The verdict of a name: of every local value bound to it (JSON if all are, not JSON if all are
        known not to be), else of the module-level literal it names; ``+=`` counts when the text's edges
        rule JSON out. None when a binding is unknown or the name refers to itself.
        """
        values = fn.assigns.get(name)
        if not values:
            literal = None if fn.shadows(name) else self.ctx.module_literal(name)
            return None if literal is None else self.classify(literal, fn, depth + 1)
        if any(isinstance(v, ast.AugAssign) for v in values):
            return "text built with `+=`" if any(self.edges(ast.Name(id=name), fn, depth + 1)) else None
        key = (id(fn), name)
        if key in self.names_in_progress:
            return None
        self.names_in_progress.add(key)
        try:
            verdicts = [self.classify(v, fn, depth + 1) if v is not None else None for v in values]
        finally:
            self.names_in_progress.discard(key)
        if all(v == JSON for v in verdicts):
            return JSON
        if all(v not in (JSON, None) for v in verdicts):
            return verdicts[-1]
        return None

    def call(self, node: ast.Call, fn: Function, depth: int) -> str | None:
        """A call: a method whose name tells (``.model_dump()``, ``", ".join(...)``), a method of
        the same class or of an outside class's instance, a named function (JSON dumpers, the
        project's functions and classes, declared outside functions), a function defined in the
        caller's own body, a builtin."""
        func = node.func
        if isinstance(func, ast.Attribute):
            verdict = self.method_call(node, func, fn, depth)
            if verdict is not None:
                return verdict
        qual = self.ctx.qualified_name(func, fn)
        if qual == "asyncio.run" and node.args:  # ``asyncio.run(self._arun(q))``: what the coroutine returns
            return self.classify(node.args[0], fn, depth + 1)
        if qual is not None:
            return self.named_call(qual, fn, depth, node)
        if isinstance(func, ast.Name):
            local = self.ctx.local_function(fn, func.id)
            if local is not None:
                return self.function(local, depth + 1)
            builtin = self.builtin_call(func.id, node, fn, depth)
            if builtin is not None or not fn.assigns.get(func.id):
                return builtin
        return self.table_call(func, fn, depth)

    def table_call(self, func: ast.expr, fn: Function, depth: int) -> str | None:
        """A call of a function looked up in a table of functions (:func:`.tables.function_table`):
        the union of their verdicts (:func:`.tables.union`); None when one is unknown or a class.
        Judged from one module alone (the index), a table holding a function whose verdict that
        module cannot tell is recorded as such (:func:`.tables.deferred`), for the walker."""
        found = function_table(self.ctx, func, fn)
        if found is None:
            return None
        verdicts: list[str | None] = []
        for function in found.functions:
            qual = self.ctx.qualified_name(function, fn)
            if qual is None or self.ctx.is_class(qual):
                return None
            verdicts.append(self.named_call(qual, fn, depth + 1))
        position = key_parameter(fn, found.key) if found.key is not None and found.by_key else None
        whole = union(found.name, verdicts, TEXTUAL_VERDICTS)
        passed = _passed(self.passed.get(id(fn)), position, found.key) if whole is None else None
        if passed is not None and passed in found.by_key:  # type: ignore[operator]
            # a call of this module passes the key: only that entry's functions (their verdicts, asked above)
            found, verdicts = _picked(found, verdicts, passed)
            position, whole = None, union(found.name, verdicts, TEXTUAL_VERDICTS)
        if self.ctx.defers_tables and (None in verdicts or (whole is None and position is not None)):
            return _recorded(found, position)  # judged where the functions are known, or by the key passed
        return whole

    def method_call(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        """A ``receiver.method(...)`` call: by the method's name (``_METHOD_HANDLERS``,
        ``_NOT_JSON_METHODS``), then by a ``self``/``cls`` method's own verdict or that of a method of
        the module's class a module-level instance is made of, then by what a library
        tool answers when run, then by what the outside class of the receiver declares the method
        returns; None when none of these tells.
        """
        attr = func.attr
        handler = _METHOD_HANDLERS.get(attr)
        verdict = handler(self, node, func, fn, depth) if handler is not None else None
        if verdict is not None:
            return verdict
        if attr in _NOT_JSON_METHODS and not node.args:
            return _NOT_JSON_METHODS[attr]
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
            target = self.ctx.method(fn, attr)
            return self.function(target, depth + 1) if target is not None else None
        target = self.ctx.instance_method(receiver, attr, fn)
        if target is not None:
            return self.function(target, depth + 1)
        verdict = self.ctx.instance_method_returns(receiver, attr, fn)
        if verdict is not None:
            return verdict
        if attr in _AGENT_RUNS and self.ctx.instance_of(receiver, fn, AGENT_EXECUTORS):
            return _AGENT_ANSWER  # ``executor.run(q)``: the final answer alone
        if attr in _TEXT_RUNS:  # a chat model's ``predict``, a ``StrOutputParser`` chain's ``invoke``
            verdict = model_text.text_run(self.ctx, node, fn)
            if verdict is not None:
                return verdict
        if attr in _TOOL_RUNS:  # a tool function of the project run: what the function returns
            verdict = self.tool_function_run(receiver, fn, depth)
            if verdict is not None:
                return verdict
        answer = self.ctx.tool_output(receiver, attr, fn)
        if answer is not None:
            return answer
        cls = self.ctx.instance_class(receiver, fn)
        declared = self.ctx.method_returns(cls, attr) if cls is not None else None
        return _through(declared, f"{cls.rpartition('.')[2]}.{attr}") if declared is not None else None  # type: ignore[union-attr]

    def tool_function_run(self, receiver: ast.expr, fn: Function, depth: int) -> str | None:
        """What running a function of the project gives (``search.invoke(q)`` of a ``@tool def
        search``: only a tool has ``invoke``/``run``): its verdict, from this module or from the
        summary of the module defining it."""
        qual = self.ctx.qualified_name(receiver, fn)
        return self.project_function(qual, depth)[1] if qual is not None else None

    def project_function(self, qual: str, depth: int, call: ast.Call | None = None) -> tuple[bool, str | None]:
        """Whether ``qual`` is a function of the project, and its verdict: of this module (classified
        here), or of another, as its module's summary records it (given the str constants ``call``
        passes by position: a router keyed by one)."""
        constants = call_constants(call) if call is not None else None
        target = self.ctx.module_function(qual)
        if target is not None:
            if not constants:
                return True, self.function(target, depth + 1)
            before = self.passed.get(id(target))
            self.passed[id(target)] = constants
            try:
                return True, self.function(target, depth + 1)
            finally:
                if before is None:
                    del self.passed[id(target)]
                else:
                    self.passed[id(target)] = before
        summary = self.ctx.function_returns(qual, constants) if constants else self.ctx.function_returns(qual)
        if summary is None:
            return False, None
        return True, JSON if summary in (JSON, NEVER) else _through(summary, qual.rsplit(".", 1)[-1])

    def named_call(self, qual: str, fn: Function, depth: int, call: ast.Call | None = None) -> str | None:
        """A call of the function or class ``qual``: JSON dumpers and parsers, the Knowledge's function
        (classified here), another module's return summary, an instance of a project class, or the
        declared return of a function outside the project; None when none of them tells.
        """
        ctx = self.ctx
        last = qual.rsplit(".", 1)[-1]
        if qual in _JSON_FUNCS or last == "ensure_json_str" or _is_json_module_dumps(qual):
            return JSON
        if qual == "orjson.dumps":
            return "bytes (`orjson.dumps` without `.decode()`)"
        if qual in _PARSERS:
            return f"a parsed value (`{qual}`), not text"
        found, verdict = self.project_function(qual, depth, call)
        if found:
            return verdict
        if chat_model_class(qual):  # what a project's factory of models returns (``get_llm()``)
            return f"{CHAT_MODEL} (`{last}`)"
        if ctx.is_class(qual):
            return f"an instance of `{last}`"
        declared = ctx.declared_returns(qual)
        return _through(declared, last) if declared is not None else None

    def builtin_call(self, name: str, node: ast.Call, fn: Function, depth: int) -> str | None:
        """A builtin's verdict (``str(...)``, ``dict(...)``, ``len(...)``); None for a shadowed or unlisted name."""
        if name == "ensure_json_str":
            return JSON
        if name not in _NOT_JSON_BUILTINS or fn.shadows(name):
            return None
        if name == "str" and len(node.args) == 1 and self.classify(node.args[0], fn, depth + 1) == JSON:
            return JSON  # str() of JSON text is that text
        # str() of an unknown value: in tools, nearly always the repr of an API's result
        # (measured: the whole-tree sample's str() findings were right; 2 labelled false
        # alarms were str() of cached text)
        return _NOT_JSON_BUILTINS[name]

    # the methods whose name tells what they give (``_METHOD_HANDLERS``); None: the name alone
    # does not tell, the receiver may

    def _dunder_text(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        """``x.__str__()`` reads as ``str(x)``, ``x.__repr__()`` as ``repr(x)``; a ``self``/``cls``
        receiver is left to the class's own method."""
        receiver = func.value
        if node.args or node.keywords or (isinstance(receiver, ast.Name) and receiver.id in ("self", "cls")):
            return None
        builtin = "str" if func.attr == "__str__" else "repr"
        if builtin == "str" and self.classify(receiver, fn, depth + 1) == JSON:
            return JSON  # the str of JSON text is that text
        return _NOT_JSON_BUILTINS[builtin].replace(f"`{builtin}(...)`", f"`.{func.attr}()`")

    def _decoded(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        if not isinstance(func.value, ast.Call):
            return None
        inner = self.ctx.qualified_name(func.value.func, fn)
        return JSON if inner == "orjson.dumps" or self.classify(func.value, fn, depth + 1) == JSON else None

    def _joined(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        separator = self.text(func.value) if node.args else None
        return f"text joined with {separator!r}" if separator else None

    def _formatted(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        return "text formatted with `.format`" if any(self.edges(node, fn, depth)) else None

    def _isoformat(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        return None if node.args else "a date as text (`.isoformat()`)"

    def _strftime(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        # a format that renders no JSON for any date (``"%Y-%m-%d"``, ``"%B %d"``) gives date text;
        # a format of digits only (``"%Y"``) renders a JSON number, and a format from elsewhere is unknown
        text = self.text(node.args[0]) if node.args else None
        return "a date as text (`.strftime(...)`)" if text is not None and _never_json_date(text) else None

    def _stripped(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        inner = self.classify(func.value, fn, depth + 1)
        return inner if inner is not None and inner.startswith(_TEXT_VERDICTS) else None  # still text

    def _parsed_json(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        if node.args or node.keywords or not self.is_http_response(func.value, fn):
            return None
        return "a parsed value (`.json()` of an HTTP response), not text"

    def _json_text(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        return JSON

    def _run_coroutine(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        """``loop.run_until_complete(self._arun(q))``: what the coroutine returns."""
        return self.classify(node.args[0], fn, depth + 1) if len(node.args) == 1 else None

    def _defaulted(self, node: ast.Call, func: ast.Attribute, fn: Function, depth: int) -> str | None:
        key = node.args[0] if node.args else None
        if isinstance(key, ast.Constant) and key.value == "output":  # ``result.get("output", "...")``
            answer = self.agent_answer(func.value, fn)
            default = node.args[1] if len(node.args) == 2 else None
            if answer is not None and (default is None or _is_text(self.classify(default, fn, depth + 1))):
                return answer
        if len(node.args) == 1 and not node.keywords:
            # a table of text looked up without a default: text, or None when the key is missing
            table = self.text_table(func.value, fn, depth)
            return f"text or None (a value of `{table}`, or None from `.get`)" if table is not None else None
        default = node.args[1] if len(node.args) == 2 else None
        kind = _DEFAULT_KINDS.get(type(default)) if default is not None else None
        if kind is not None:
            return f"{kind} (the default of `.get`)"
        # a table of text looked up with a text default (``WEATHER.get(city, f"No data for {city}")``)
        if default is not None and _is_text(self.classify(default, fn, depth + 1)):
            table = self.text_table(func.value, fn, depth)
            return f"text (a value of `{table}` or the default of `.get`)" if table is not None else None
        return None

    def text_table(self, node: ast.expr, fn: Function, depth: int) -> str | None:
        """The name of a dict display ``node`` is bound to (its only binding, in the function or at
        module level) whose every value is text that is not JSON; else None."""
        if not isinstance(node, ast.Name):
            return None
        bound = fn.assigns.get(node.id)
        if bound:
            table = bound[0] if len(bound) == 1 else None
        else:
            table = None if fn.shadows(node.id) else self.ctx.module_literal(node.id)
        if not isinstance(table, ast.Dict) or not table.values or None in table.keys:
            return None
        return node.id if all(_is_text(self.classify(v, fn, depth + 1)) for v in table.values) else None

    def is_http_response(self, node: ast.AST, fn: Function) -> bool:
        """``requests.get(...)``, ``session.post(...)``, ``httpx.request(...)``, or a local name
        bound only to such calls."""
        if isinstance(node, ast.Name):
            values = fn.assigns.get(node.id) or [None]
            return all(v is not None and self.is_http_response(v, fn) for v in values)
        if isinstance(node, ast.Await):
            node = node.value
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            return False
        if node.func.attr not in _HTTP_METHODS:
            return False
        qual = self.ctx.qualified_name(node.func, fn)
        return qual is None or qual.split(".", 1)[0] in _HTTP_LIBRARIES


_STRIP_METHODS = frozenset({"strip", "rstrip", "lstrip"})
#: what running a tool gives: a tool function's (``@tool``) own return value
_TOOL_RUNS = frozenset({"invoke", "ainvoke", "run", "arun"})
_TEXT_RUNS = frozenset({"invoke", "ainvoke", "predict", "apredict"})
_AGENT_RUNS = frozenset({"run", "arun"})
_AGENT_ANSWER = "the agent's final answer (prose the model wrote)"
_CLASSIFIERS = {
    ast.Constant: Classifier.constant,
    ast.UnaryOp: Classifier.unary,
    ast.Await: Classifier.awaited,
    ast.IfExp: Classifier.either,
    ast.BinOp: Classifier.binop,
    ast.Name: Classifier.named,
    ast.Call: Classifier.call,
    ast.Subscript: Classifier.sliced,
    ast.Attribute: Classifier.attribute,
    ast.JoinedStr: Classifier.fstring,
}
_METHOD_HANDLERS = {
    "model_dump_json": Classifier._json_text,
    "ensure_json_str": Classifier._json_text,
    "decode": Classifier._decoded,
    "join": Classifier._joined,
    "format": Classifier._formatted,
    "isoformat": Classifier._isoformat,
    "strftime": Classifier._strftime,
    "json": Classifier._parsed_json,
    "get": Classifier._defaulted,
    "run_until_complete": Classifier._run_coroutine,
    "__str__": Classifier._dunder_text,
    "__repr__": Classifier._dunder_text,
    **dict.fromkeys(_STRIP_METHODS, Classifier._stripped),
}
# the verdicts that describe text (not JSON): stripping its white space leaves text of the same kind
_TEXT_VERDICTS = (
    "text", "an f-string", "a string that is not JSON", HAND_WRITTEN_JSON, model_text.MODEL_REPLY,
    model_text.CHAIN_TEXT, model_text.CREW_TEXT, "the agent's final answer",
)  # fmt: skip


def with_source(verdict: str, note: str, *, alone: str | None = None) -> str:
    """``verdict`` with ``note`` on where it came from: inside the ``(from ...)`` it ends with, if
    any (``text (from the functions of `ROUTES`, through `route`)``), else in a parenthetical of its
    own holding ``alone`` or the note (``a dict (what `TavilySearch` answers)``)."""
    if verdict.endswith(")") and verdict.startswith(" (from ", verdict.rfind(" (")):
        return f"{verdict[:-1]}, {note})"
    return f"{verdict} ({alone or note})"


def _through(verdict: str, function: str) -> str:
    return with_source(verdict, f"through `{function}`", alone=f"from `{function}`")


def _is_text(verdict: str | None) -> bool:
    return verdict is not None and verdict.startswith(_TEXT_VERDICTS)
# the verdicts whose slices keep them: text of those kinds, and the formats of _NOT_JSON_METHODS
_SLICED_VERDICTS = (*_TEXT_VERDICTS, "markdown", "HTML", "CSV", "a table as text", "a list", "a tuple", "bytes")
#: the verdicts of text of any kind (the union of functions that return several kinds is text)
TEXTUAL_VERDICTS = (
    *_TEXT_VERDICTS, "markdown", "HTML", "CSV", "a table as text", "a date as text", "JSON text cut short"
)  # fmt: skip



#: two dates every field of which differs (one digit and two digits, AM and PM, weekdays, months)
_SAMPLE_DATES = (datetime.datetime(2001, 2, 3, 4, 5, 6, 7), datetime.datetime(2024, 11, 27, 16, 30, 45, 123456))


def _never_json_date(fmt: str) -> bool:
    """Whether ``strftime(fmt)`` renders text that is not JSON for both sample dates."""
    for sample in _SAMPLE_DATES:
        try:
            json.loads(sample.strftime(fmt))
        except ValueError:  # JSONDecodeError, and a format strftime refuses
            continue
        return False
    return True


def annotation_verdict(node: ast.expr, is_class: Callable[[ast.expr], bool]) -> str | None:
    """What the values of a type annotation are, when none of them is JSON text: a container,
    number, bool, bytes, None, or an instance of a class (``is_class`` tells, for a name not in
    the table); a union is known only when every member is (``dict | None``); a string annotation
    is read as code; ``str``, ``Any`` and type variables say nothing."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    members = _union_members(node)
    if members is None:
        base = node.value if isinstance(node, ast.Subscript) else node
        name = _last_name(base)
        if name in _DECLARED:
            return _DECLARED[name]
        return f"an instance of `{name}`" if name is not None and is_class(base) else None
    verdicts = [annotation_verdict(member, is_class) for member in members]
    if None in verdicts:
        return None
    return next((v for v in verdicts if v != "None"), "None")


def _union_members(node: ast.expr) -> list[ast.expr] | None:
    """The members of ``X | Y``, ``Union[X, Y]`` or ``Optional[X]`` (X and None); None for no union."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [node.left, node.right]
    if not (isinstance(node, ast.Subscript) and _last_name(node.value) in _UNIONS):
        return None
    inner = node.slice
    members = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
    return [*members, ast.Constant(None)] if _last_name(node.value) == "Optional" else members


def hand_written_json(node: ast.JoinedStr) -> bool:
    """Whether an f-string's text is shaped like a JSON object or array: its first literal part
    starts with ``{`` or ``[`` and its last ends with ``}`` or ``]`` (white space aside), with values
    between them."""
    values = node.values
    if len(values) < 3 or not any(isinstance(v, ast.FormattedValue) for v in values):
        return False
    first, last = values[0], values[-1]
    if not (isinstance(first, ast.Constant) and isinstance(last, ast.Constant)):
        return False
    opening, closing = str(first.value).lstrip()[:1], str(last.value).rstrip()[-1:]
    return (opening, closing) in (("{", "}"), ("[", "]"))


def call_constants(call: ast.Call) -> dict[int | str, str]:
    """The str constants a call passes: by position (none after a ``*args``) and by keyword."""
    found: dict[int | str, str] = {}
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found[i] = arg.value
    for keyword in call.keywords:
        if keyword.arg is not None and isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str):
            found[keyword.arg] = keyword.value.value
    return found


def _passed(constants: dict[int | str, str] | None, position: int | None, name: str | None) -> str | None:
    """The key a call passes for the parameter ``name`` at ``position``, when it passes a str constant."""
    if not constants or position is None:
        return None
    return constants.get(position, constants.get(name or ""))


def _picked(found: Table, verdicts: list[str | None], key: str) -> tuple[Table, list[str | None]]:
    """The functions of a table under ``key`` (:attr:`.tables.Table.by_key`) and their verdicts."""
    chosen = {id(f) for f in found.by_key[key]}  # type: ignore[index]
    picked = [(f, v) for f, v in zip(found.functions, verdicts, strict=True) if id(f) in chosen]
    return Table(found.name, [f for f, _ in picked]), [v for _, v in picked]


def _recorded(found: Table, position: int | None) -> str | None:
    """The summary's record of a call through a table (:class:`.tables.Deferred`); None when a
    function is not written as a dotted name."""
    written = [dotted_name(f) for f in found.functions]
    by_key = {k: [dotted_name(f) for f in fs] for k, fs in (found.by_key or {}).items()}
    if None in written or any(None in fs for fs in by_key.values()):
        return None
    param = found.key if position is not None else None
    return Deferred(found.name, written, position=position, by_key=by_key, param=param).record()  # type: ignore[arg-type]


def key_parameter(fn: Function, name: str) -> int | None:
    """The position of ``name`` among the positional parameters of a plain function (not a
    method) that never binds it otherwise: the key its callers pass; else None."""
    args = getattr(fn.node, "args", None)
    if args is None or fn.assigns.get(name) not in (None, [None]):  # the walker's leave parameters out
        return None
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if positional[:1] in (["self"], ["cls"]) or name not in positional:
        return None
    return positional.index(name)


def appended(fn: Function, name: str) -> list[ast.expr] | None:
    """The values ``fn`` adds to the list ``name`` with ``name.append(x)`` or ``name.insert(i, x)``
    (nested functions and classes left out); None when it may change the list otherwise (another
    method of it, an item or slice assigned, the list handed to a call but ``len`` and ``join``)."""
    found: list[ast.expr] = []
    stack: list[ast.AST] = list(getattr(fn.node, "body", ()))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        use = _list_use(node, name)
        if use is True:
            return None
        if isinstance(use, ast.expr):
            found.append(use)
            stack.extend(node.args)  # type: ignore[attr-defined]
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _list_use(node: ast.AST, name: str) -> ast.expr | bool | None:
    """What ``node`` does to the list ``name``: the value an ``append``/``insert`` call adds; True
    when it may change the list otherwise; None when neither."""
    if isinstance(node, ast.Attribute) and _is_name(node.value, name):
        return node.attr not in _READ_ONLY_METHODS  # ``.extend(...)``, ``.pop()``, ``add = items.append``
    if isinstance(node, ast.Subscript) and _is_name(node.value, name):
        return not isinstance(node.ctx, ast.Load) or None
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and _is_name(func.value, name) and func.attr in ("append", "insert"):
        one = len(node.args) == (1 if func.attr == "append" else 2) and not node.keywords
        return node.args[-1] if one else True
    return True if _hands(node, name) else None


def _hands(call: ast.Call, name: str) -> bool:
    """Whether ``call`` hands the list ``name`` to a function that may change it (not ``len``, ``join``)."""
    if not any(_is_name(a, name) for a in [*call.args, *(k.value for k in call.keywords)]):
        return False
    func = call.func
    reads = isinstance(func, ast.Name) and func.id == "len"
    return not (reads or (isinstance(func, ast.Attribute) and func.attr == "join"))


#: Methods of a list that leave it as it is (a call of ``append``/``insert`` is read as an addition).
_READ_ONLY_METHODS = frozenset({"copy", "count", "index"})


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_last(index: ast.expr) -> bool:
    """``[-1]``."""
    return (
        isinstance(index, ast.UnaryOp)
        and isinstance(index.op, ast.USub)
        and isinstance(index.operand, ast.Constant)
        and index.operand.value == 1
    )


def dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` of a chain of names, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _last_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _unary(node: ast.UnaryOp) -> str | None:
    """``-1``, ``+2.5``, ``~mask`` are numbers; ``not x`` is a bool."""
    if isinstance(node.op, ast.Not):
        return "a bool"
    operand = node.operand
    if isinstance(operand, ast.Constant) and isinstance(operand.value, (int, float)) and not isinstance(
        operand.value, bool
    ):
        return "a number"
    return None


def _is_json_module_dumps(qual: str) -> bool:
    """``dumps`` of a JSON module (``bson.json_util.dumps``, ``simplejson.dumps``): JSON text;
    ``orjson.dumps`` gives bytes."""
    module, _, name = qual.rpartition(".")
    return name == "dumps" and "json" in module.rsplit(".", 1)[-1] and module != "orjson"


def bad_start(text: str) -> bool:
    """Whether text beginning with ``text`` (white space aside) cannot be JSON: it starts with a
    character no JSON text starts with, ``{`` then anything but a key or ``}``, ``[`` then
    anything but a value or ``]``, a word that is not ``true``/``false``/``null`` (``"no results"``,
    ``"failed: ..."``), or a whole literal or number followed by more (``"null pointer"``, ``"3 items"``).
    ``text`` is what the value surely starts with, verbatim (a template's text up to its first
    placeholder)."""
    stripped = text.lstrip()
    if not stripped:
        return False
    first = stripped[0]
    if first not in _JSON_FIRST:
        return True
    if first in "{[":
        rest = stripped[1:].lstrip()
        return bool(rest) and rest[0] not in ('"}' if first == "{" else _JSON_IN_ARRAY)
    if first == '"':
        return False
    keyword = _JSON_WORDS.get(first)
    if keyword is not None:
        word = _WORD.match(stripped).group()  # type: ignore[union-attr]
        return not keyword.startswith(word) or (word == keyword and bool(stripped[len(word) :].strip()))
    number = _JSON_NUMBER.match(stripped)
    if number is None:
        return len(stripped) > 1  # "-" alone may start a number
    tail = stripped[number.end() :]
    return bool(tail.strip()) and (tail[0].isspace() or tail[0] not in ".eE+-0123456789")


def bad_end(text: str) -> bool:
    """Whether ``text`` (white space aside) ends with a character no JSON text ends with."""
    stripped = text.rstrip()
    return bool(stripped) and stripped[-1] not in _JSON_LAST
