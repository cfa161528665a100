"""DG101 fix: route a direct tool call through the project's own dispatcher.

``calc.run(a=1, b=x)`` (and ``_run``, ``tool(...)``, ``invoke({...})``) becomes
``run_tool("calculator", {"a": 1, "b": x})``: the configured dispatcher whose signature the index
can read (a project function ``f(name, args)``, see :class:`~dispatchguard.lint.tool_facts.ToolFacts`)
and the key the tool is registered under in a registry that dispatcher's module reads. Comments
and line breaks inside the call are kept in the ``args`` dict (libcst parses the call alone).

No fix, with the reason, when: no dispatcher of that shape is configured; the registered name
cannot be proven (the receiver's class or binding is not found in a registry the dispatcher reads,
or it is registered under several names); the call is async and the dispatcher is not (or the
other way round); arguments cannot be mapped to parameter names (positional, ``*args``,
``**kwargs``, LangChain's ``callbacks=``/``config=``); importing the dispatcher into this module
would be circular, or its name is taken.

Fix safety: always **unsafe**. The call now returns the dispatcher's value (JSON text) instead of
the tool's own, and whatever the dispatcher does with errors and validation applies.
"""

from __future__ import annotations

import ast
import json
from typing import TYPE_CHECKING

from dispatchguard.fix.base import Edit, FileContext, Fix, Import, NoFix
from dispatchguard.lint.index import dotted
from dispatchguard.lint.tool_facts import RUNTIME_REGISTRIES, Dispatcher, Unknown

if TYPE_CHECKING:
    import libcst as cst

SYNC_METHODS = frozenset({"run", "_run", "invoke"})
ASYNC_METHODS = frozenset({"arun", "_arun", "ainvoke"})
INVOKE_METHODS = frozenset({"invoke", "ainvoke"})
ITEM_METHODS = frozenset({"get", "__getitem__"})
# Keywords of LangChain's run/invoke that configure the call rather than being tool arguments.
NON_ARGUMENT_KEYWORDS = frozenset({
    "callbacks", "config", "verbose", "run_manager", "tags", "metadata", "run_name", "run_id",
    "start_color", "color",
})  # fmt: skip


def _split_call(call: ast.Call) -> tuple[ast.expr, str]:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in SYNC_METHODS | ASYNC_METHODS:
        return func.value, func.attr
    return func, "__call__"


def _args_dict(call: cst.Call, method: str) -> cst.BaseExpression | NoFix:
    import libcst as cst  # only when a call is rewritten: most runs fix DG103 alone

    args = list(call.args)
    if any(arg.star == "**" for arg in args):
        return NoFix("**kwargs cannot be mapped to tool arguments safely; write the dispatcher call by hand")
    if any(arg.star == "*" for arg in args):
        return NoFix("*args cannot be mapped to parameter names; write the dispatcher call by hand")
    positional = [arg for arg in args if arg.keyword is None]
    keywords = [arg for arg in args if arg.keyword is not None]
    configured = sorted(k.keyword.value for k in keywords if k.keyword and k.keyword.value in NON_ARGUMENT_KEYWORDS)
    if method in INVOKE_METHODS:
        only = args[0] if len(args) == 1 else None
        if configured or only is None or (only.keyword is not None and only.keyword.value != "input"):
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
        if (
            i < len(keywords) - 1
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


def registered_name(ctx: FileContext, receiver: ast.expr, dispatcher: Dispatcher) -> tuple[str, str] | NoFix:
    """(registered name, canonical registry) of the tool ``receiver`` denotes."""
    facts = ctx.facts
    bound = facts.bound_value(ctx.tree, receiver)
    if isinstance(bound, (ast.Subscript, ast.Call)):
        receiver = bound  # tool = REGISTRY["x"]: the lookup names the tool
    lookup = receiver
    key_node: ast.expr | None = None
    if isinstance(receiver, ast.Subscript):
        lookup, key_node = receiver.value, receiver.slice
    elif (
        isinstance(receiver, ast.Call)
        and isinstance(receiver.func, ast.Attribute)
        and receiver.func.attr in ITEM_METHODS
        and receiver.args
    ):
        lookup, key_node = receiver.func.value, receiver.args[0]
    if key_node is not None and not dispatcher.runtime:  # a ToolRegistry's get() gives a spec, not the tool
        name = dotted(lookup)
        qual = (
            facts.binding_qual(ctx.key, ctx.tree, lookup)
            if isinstance(lookup, ast.Name)
            else (facts.qualify(ctx.key, name) if name else None)
        )
        if qual is None or not facts.reads(dispatcher, facts.canonical(qual)):
            return NoFix("the tool is looked up in a container the dispatcher does not read")
        if not (isinstance(key_node, ast.Constant) and isinstance(key_node.value, str)):
            return NoFix("the registry key is not a string literal")
        return key_node.value, facts.canonical(qual)
    class_qual = facts.value_class(ctx.key, ctx.tree, receiver)
    binding = facts.binding_qual(ctx.key, ctx.tree, receiver)
    if class_qual is None and binding is None:
        return NoFix("the tool's class or binding is not statically known, so neither is its registered name")
    names = facts.registered_names(class_qual, binding, dispatcher)
    what = f"`{(class_qual or binding or '').rsplit('.', 1)[-1]}`"
    if not names:
        if dispatcher.runtime:
            return NoFix(
                'no dispatcher of the project is configured (set `dispatchers = ["pkg.module.run_tool"]` to a '
                f"function taking (name, args)), and {what} is not registered in a dispatchguard ToolRegistry "
                '(`REGISTRY.register("name", Tool())`)'
            )
        return NoFix(f"{what} is not registered under a literal key in a registry the dispatcher reads")
    if len(names) > 1:
        return NoFix(f"{what} is registered under several names ({', '.join(sorted(map(repr, names)))})")
    return next(iter(names.items()))


def _reference(ctx: FileContext, module: str, name: str, aliases: tuple[str, ...] = ()) -> tuple[Import, ...] | NoFix:
    """The import that makes ``name`` of ``module`` usable here (none when the file has it)."""
    if ctx.facts.module_name(ctx.key) == module:
        return ()
    bound = ctx.facts.qualify(ctx.key, name)
    if bound is not None:
        if ctx.facts.canonical(bound) in {f"{m}.{name}" for m in (module, *aliases)}:
            return ()
        return NoFix(f"`{name}` already names something else in this module")
    if ctx.facts.imports_module(module, ctx.facts.module_name(ctx.key)):
        return NoFix(f"importing `{name}` from {module} here would be circular")
    return (Import(module, name),)


def fix(finding, ctx: FileContext) -> Fix | NoFix:
    calls = ctx.nodes_at(finding.line, finding.col, ast.Call)
    exact = [
        c
        for c in calls
        if (c.end_lineno, ctx.char_col(c.end_lineno, c.end_col_offset)) == (finding.end_line, finding.end_col - 1)
    ]
    if not (exact or calls):
        return NoFix("no call found at the finding's position")
    call = (exact or calls)[-1]
    dispatcher = ctx.facts.dispatcher
    if isinstance(dispatcher, Unknown):
        return NoFix(dispatcher.reason)
    receiver, method = _split_call(call)
    is_async = method in ASYNC_METHODS
    if not dispatcher.runtime and is_async != dispatcher.is_async:
        return NoFix(
            f"the call is {'async' if is_async else 'sync'} and the dispatcher "
            f"`{dispatcher.function}` is {'async' if dispatcher.is_async else 'not'}"
        )
    found = registered_name(ctx, receiver, dispatcher)
    if isinstance(found, NoFix):
        return found
    name, registry = found
    import libcst as cst

    try:
        parsed = cst.parse_expression(ctx.source(call))
    except cst.ParserSyntaxError:
        return NoFix("libcst cannot parse the call")
    assert isinstance(parsed, cst.Call)
    args = _args_dict(parsed, method)
    if isinstance(args, NoFix):
        return args
    args_code = cst.Module([]).code_for_node(args)
    if not dispatcher.runtime:
        imports = _reference(ctx, dispatcher.module, dispatcher.function)
        if isinstance(imports, NoFix):
            return imports
        text = f"{dispatcher.function}({json.dumps(name)}, {args_code})"
        where = f"{dispatcher.module}.{dispatcher.function}"
    else:
        function = "adispatch_tool" if is_async else "dispatch_tool"
        needed: list[Import] = []
        for imported, home in (
            (function, "dispatchguard.runtime.dispatcher"),
            ("ToolAction", "dispatchguard.runtime.models"),
        ):
            found_import = _reference(ctx, "dispatchguard", imported, (home,))
            if isinstance(found_import, NoFix):
                return found_import
            needed.extend(found_import)
        registry_arg = ""
        if registry not in RUNTIME_REGISTRIES:
            registry_module, _, registry_name = registry.rpartition(".")
            found_import = _reference(ctx, registry_module, registry_name)
            if isinstance(found_import, NoFix):
                return found_import
            needed.extend(found_import)
            registry_arg = f", registry={registry_name}"
        imports = tuple(needed)
        text = f"{function}(ToolAction(name={json.dumps(name)}, args={args_code}){registry_arg})"
        where = f"dispatchguard's {function}" + (f" with {registry}" if registry_arg else "")
    return Fix(
        edits=(Edit(ctx.node_start(call), ctx.node_end(call), text),),
        safe=False,
        description=f"{json.dumps(name)} through {where}",
        imports=imports,
    )
