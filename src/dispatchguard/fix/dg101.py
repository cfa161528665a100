"""DG101 fix: route a direct tool call through the dispatcher.

``tool.run(a=1, b=x)`` (and ``_run``, ``tool(...)``, ``invoke({...})``) becomes
``dispatch_tool(ToolAction(name="<registered name>", args={"a": 1, "b": x}))``; ``arun``,
``_arun`` and ``ainvoke`` use ``adispatch_tool`` (so ``await tool.arun(...)`` stays awaitable).
Comments and line breaks inside the call are kept in the ``args`` dict. The runtime names are
imported once, in the file's style.

The registered name must be statically known (see :mod:`dispatchguard.fix.names`): a registry
lookup with a literal key, the key a tool class is registered under, or the class's literal
``name`` attribute. Otherwise, and for arguments that cannot be mapped to parameter names
(positional arguments, ``**kwargs``, LangChain's ``callbacks=``/``config=``), there is no fix
and the reason is reported.

Fix safety: always **unsafe**. The call now goes through validation (``ToolAction`` accepts
primitives and lists of primitives only), returns JSON text instead of the tool's own value,
returns an error object instead of raising, and looks the tool up in the dispatcher's registry
(which must hold it under that name). Review each rewrite; apply with ``--unsafe-fixes``.
"""

from __future__ import annotations

import json

import libcst as cst
import libcst.matchers as m

from dispatchguard.fix.base import FileContext, Fix, NoFix

CODE = "DG101"

SYNC_METHODS = {"run", "_run", "invoke"}
ASYNC_METHODS = {"arun", "_arun", "ainvoke"}
INVOKE_METHODS = {"invoke", "ainvoke"}
ITEM_METHODS = {"get", "pop", "__getitem__"}
# Keywords of LangChain's run/invoke that configure the call rather than being tool arguments.
NON_ARGUMENT_KEYWORDS = {
    "callbacks", "config", "verbose", "run_manager", "tags", "metadata", "run_name", "run_id",
    "start_color", "color",
}  # fmt: skip
MAX_DEPTH = 6


def _literal_str(node: cst.CSTNode | None) -> str | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _simple_name(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


class _Resolver:
    """What a receiver expression is bound to, following simple assignments and annotations."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        # `from pkg.tools import DataVisualizationTool as ChartTool`: ChartTool -> DataVisualizationTool
        self.aliases: dict[str, str] = {}
        for alias in m.findall(ctx.module, m.ImportAlias(asname=m.AsName())):
            assert isinstance(alias, cst.ImportAlias) and alias.asname is not None
            bound = alias.asname.name
            if isinstance(bound, cst.Name):
                self.aliases[bound.value] = _simple_name(alias.name) or bound.value

    def class_name(self, name: str | None) -> str | None:
        return self.aliases.get(name, name) if name else None

    def _enclosing(self, node: cst.CSTNode, kind: type) -> list[cst.CSTNode]:
        found = []
        current = self.ctx.parents.get(node)
        while current is not None:
            if isinstance(current, kind):
                found.append(current)
            current = self.ctx.parents.get(current)
        return found

    def registered_name(self, receiver: cst.BaseExpression, at: cst.CSTNode, depth: int = 0) -> str | None:
        if depth > MAX_DEPTH:
            return None
        project = self.ctx.project
        if isinstance(receiver, cst.Subscript) and len(receiver.slice) == 1:
            index = receiver.slice[0].slice
            if isinstance(index, cst.Index):
                return _literal_str(index.value)
            return None
        if isinstance(receiver, cst.Call):
            func = receiver.func
            if isinstance(func, cst.Attribute) and func.attr.value in ITEM_METHODS:
                return _literal_str(receiver.args[0].value) if receiver.args else None
            name = self.class_name(_simple_name(func))
            return project.registered_name(name) if name else None
        if isinstance(receiver, cst.Name):
            values = self._bindings_of_name(receiver.value, at)
            if values is None:
                return project.function_tool_name(receiver.value)
            return self._agree(values, at, depth)
        if m.matches(receiver, m.Attribute(value=m.Name("self") | m.Name("cls"))):
            assert isinstance(receiver, cst.Attribute)
            values = self._bindings_of_attribute(receiver.attr.value, at)
            return self._agree(values, at, depth) if values else None
        return None

    def _agree(self, values: list[cst.CSTNode], at: cst.CSTNode, depth: int) -> str | None:
        names = set()
        for value in values:
            if isinstance(value, cst.Annotation):
                cls = self.class_name(_annotation_class(value.annotation))
                names.add(self.ctx.project.registered_name(cls) if cls else None)
            else:
                names.add(self.registered_name(value, at, depth + 1))
        return names.pop() if len(names) == 1 else None

    def _bindings_of_name(self, name: str, at: cst.CSTNode) -> list[cst.CSTNode] | None:
        """Values assigned to ``name`` (or its annotation) in the innermost function that binds it,
        else at module level; None when nothing in this file binds it."""
        scopes: list[cst.CSTNode] = [*self._enclosing(at, cst.FunctionDef), self.ctx.module]
        for scope in scopes:
            values: list[cst.CSTNode] = []
            if isinstance(scope, cst.FunctionDef):
                params = scope.params
                for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                    if param.name.value == name:
                        if param.annotation is None:
                            return []
                        values.append(param.annotation)
            collector = _AssignCollector(name, scope)
            scope.visit(collector)
            values.extend(collector.values)
            if collector.other_binding or (collector.function_binding and values):
                return []
            if collector.function_binding:
                return None
            if values:
                return values
        return None

    def _bindings_of_attribute(self, attr: str, at: cst.CSTNode) -> list[cst.CSTNode]:
        classes = self._enclosing(at, cst.ClassDef)
        if not classes:
            return []
        cls = classes[0]
        collector = _SelfAttrCollector(attr)
        cls.visit(collector)
        return collector.values


def _annotation_class(node: cst.BaseExpression) -> str | None:
    if isinstance(node, (cst.Name, cst.Attribute)):
        return _simple_name(node)
    if isinstance(node, cst.SimpleString):
        text = _literal_str(node)
        return text.rsplit(".", 1)[-1] if text and text.replace(".", "").isidentifier() else None
    return None


class _AssignCollector(cst.CSTVisitor):
    """``name = value`` / ``name: T = value`` / ``name: T`` directly in ``scope`` (not nested defs)."""

    def __init__(self, name: str, scope: cst.CSTNode) -> None:
        self.name = name
        self.scope = scope
        self.values: list[cst.CSTNode] = []
        self.other_binding = False
        self.function_binding = False  # a def of that name: a function tool, looked up by name

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node is not self.scope and node.name.value == self.name:
            self.function_binding = True
        return node is self.scope

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        if node.name.value == self.name:
            self.other_binding = True
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if m.matches(target.target, m.Name(self.name)):
                self.values.append(node.value)
            elif self._mentions(target.target):
                self.other_binding = True

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if m.matches(node.target, m.Name(self.name)):
            self.values.append(node.value if node.value is not None else node.annotation)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if m.matches(node.target, m.Name(self.name)):
            self.other_binding = True

    def visit_For(self, node: cst.For) -> None:
        if self._mentions(node.target):
            self.other_binding = True

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            if item.asname is not None and self._mentions(item.asname.name):
                self.other_binding = True

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        bound = node.asname.name if node.asname else node.name
        if m.matches(bound, m.Name(self.name)):
            self.other_binding = True

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if m.matches(node.target, m.Name(self.name)):
            self.other_binding = True

    def _mentions(self, target: cst.CSTNode) -> bool:
        return bool(m.findall(target, m.Name(self.name)))


class _SelfAttrCollector(cst.CSTVisitor):
    """``self.attr = value`` in any method, and class-level ``attr: T [= value]``."""

    def __init__(self, attr: str) -> None:
        self.attr = attr
        self.values: list[cst.CSTNode] = []
        self._depth = 0

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._depth += 1
        return self._depth == 1

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._depth -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if m.matches(target.target, m.Attribute(value=m.Name("self"), attr=m.Name(self.attr))):
                self.values.append(node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if m.matches(node.target, m.Attribute(value=m.Name("self"), attr=m.Name(self.attr)) | m.Name(self.attr)):
            self.values.append(node.value if node.value is not None else node.annotation)


def _split_call(call: cst.Call) -> tuple[cst.BaseExpression, str]:
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in SYNC_METHODS | ASYNC_METHODS:
        return func.value, func.attr.value
    return func, "__call__"


def _args_dict(call: cst.Call, method: str) -> cst.BaseExpression | NoFix:
    args = list(call.args)
    if any(arg.star == "**" for arg in args):
        return NoFix("**kwargs cannot be mapped to tool arguments safely; write the ToolAction by hand")
    if any(arg.star == "*" for arg in args):
        return NoFix("*args cannot be mapped to parameter names; write the ToolAction by hand")
    positional = [arg for arg in args if arg.keyword is None]
    keywords = [arg for arg in args if arg.keyword is not None]
    configured = sorted(k.keyword.value for k in keywords if k.keyword and k.keyword.value in NON_ARGUMENT_KEYWORDS)
    if method in INVOKE_METHODS:
        if configured or len(args) != 1:
            return NoFix(f"{method}(...) is fixed only with a single dict literal argument")
        only = args[0]
        if only.keyword is not None and only.keyword.value != "input":
            return NoFix(f"{method}(...) is fixed only with a single dict literal argument")
        if not isinstance(only.value, cst.Dict):
            return NoFix(f"{method}(...) input is not a dict literal, so its keys are not known")
        return only.value
    if configured:
        return NoFix(f"{', '.join(configured)} configure the call; they are not tool arguments")
    if positional:
        if len(args) == 1 and isinstance(positional[0].value, cst.Dict):
            return positional[0].value  # LangChain: tool.run({"query": ...})
        return NoFix("positional arguments cannot be mapped to parameter names statically; pass them by keyword")
    elements = []
    for i, arg in enumerate(keywords):
        assert arg.keyword is not None
        comma = arg.comma
        last = i == len(keywords) - 1
        if (
            not last
            and isinstance(comma, cst.Comma)
            and not arg.whitespace_after_arg.deep_equals(cst.SimpleWhitespace(""))
            and comma.whitespace_before.deep_equals(cst.SimpleWhitespace(""))
        ):
            comma = comma.with_changes(whitespace_before=arg.whitespace_after_arg)
        elements.append(
            cst.DictElement(
                key=cst.SimpleString(json.dumps(arg.keyword.value)),
                value=arg.value,
                comma=comma,
                whitespace_before_colon=cst.SimpleWhitespace(""),
                whitespace_after_colon=cst.SimpleWhitespace(" "),
            )
        )
    rbrace_ws = keywords[-1].whitespace_after_arg if keywords else cst.SimpleWhitespace("")
    return cst.Dict(
        elements=elements,
        lbrace=cst.LeftCurlyBrace(whitespace_after=call.whitespace_before_args),
        rbrace=cst.RightCurlyBrace(whitespace_before=rbrace_ws),
    )


def fix_call(call: cst.Call, ctx: FileContext) -> Fix | NoFix:
    receiver, method = _split_call(call)
    args = _args_dict(call, method)
    if isinstance(args, NoFix):
        return args
    name = _Resolver(ctx).registered_name(receiver, call)
    if name is None:
        return NoFix(
            "the tool's registered name is not statically known (use a registry lookup with a "
            "literal key, or give the tool class a literal `name`)"
        )
    dispatcher = "adispatch_tool" if method in ASYNC_METHODS else "dispatch_tool"
    action = cst.Call(
        func=ctx.ref("ToolAction"),
        args=[
            cst.Arg(
                keyword=cst.Name("name"),
                value=cst.SimpleString(json.dumps(name)),
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
            ),
            cst.Arg(
                keyword=cst.Name("args"),
                value=args,
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
            ),
        ],
    )
    replacement = call.with_changes(
        func=ctx.ref(dispatcher),
        args=[cst.Arg(action)],
        whitespace_before_args=cst.SimpleWhitespace(""),
    )
    return Fix(
        target=call,
        replacement=replacement,
        safe=False,
        description=f"{dispatcher}(ToolAction(name={json.dumps(name)}, args=...))",
        names=(dispatcher, "ToolAction"),
    )


def find_target(ctx: FileContext, line: int, col: int, end_line: int, end_col: int) -> cst.Call | None:
    """The call the finding points at: it starts at (line, col); among calls starting there
    (``tool.run(x).strip()``), the one ending at (end_line, end_col), else the innermost tool-like one."""
    start = (line, col - 1)
    candidates = [
        (node, rng)
        for node, rng in ctx.positions.items()
        if isinstance(node, cst.Call) and (rng.start.line, rng.start.column) == start
    ]
    for node, rng in candidates:
        if (rng.end.line, rng.end.column) == (end_line, end_col - 1):
            return node
    toolish = [
        (node, rng) for node, rng in candidates
        if _split_call(node)[1] != "__call__" or not isinstance(node.func, cst.Call)
    ]  # fmt: skip
    if not toolish:
        return None
    return min(toolish, key=lambda item: (item[1].end.line, item[1].end.column))[0]


def fix(finding, ctx: FileContext) -> Fix | NoFix:
    target = find_target(ctx, finding.line, finding.col, finding.end_line, finding.end_col)
    if target is None:
        return NoFix("no call found at the finding's position")
    return fix_call(target, ctx)
