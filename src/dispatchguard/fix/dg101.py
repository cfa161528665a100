"""DG101 fix: route a direct tool call through the project's own dispatcher.

``calc.run(a=1, b=x)`` (and ``_run``, ``tool(...)``, ``invoke({...})``) becomes, by the shape of
the configured dispatcher (:attr:`~dispatchguard.lint.tool_facts.ToolFacts.dispatchers`):

* ``run_tool("calculator", {"a": 1, "b": x})``: a project function ``f(name, args)``;
* ``DISPATCHER.execute("calculator", {...})``: a method of a class with one module-level instance
  (``dispatchers = ["app.dispatch.Dispatcher.execute"]``), called on that instance;
* ``dispatch(ToolAction(name="calculator", args={...}))``: a function taking a model with a name
  and an args field, built with the project's own model class;

the first of the call's kind (an ``arun``/``ainvoke`` call needs an async dispatcher, and the other
way round). The name is the key the tool has in a registry the dispatcher looks tools up in by name
(``TOOLS[name]``, ``self.tools.get(action.name)``), and the call is rewritten only when its
receiver is provably the object registered under that key: a lookup of that key in that registry,
the module-level binding registered itself, or an instance built without arguments of a class
registered, without arguments, under exactly one key. A fallback table the dispatcher does not look
up, an instance configured otherwise (``TicketLookupTool(include_closed=True)``) or a value only
annotated with the class get no fix, and the reason. Comments and line breaks inside the call are
kept in the ``args`` dict (libcst parses the call alone); an import the call no longer needs is removed.

No fix, with the reason, also when: no dispatcher of these shapes is configured; arguments cannot
be mapped to parameter names (positional, ``*args``, ``**kwargs``, LangChain's
``callbacks=``/``config=``); importing the dispatcher into this module would be circular, or its
name is taken.

Fix safety: always **unsafe**. The call now returns the dispatcher's value (JSON text) instead of
the tool's own, and whatever the dispatcher does with errors and validation applies.
"""

from __future__ import annotations

import ast
import json
from typing import TYPE_CHECKING, Any

from dispatchguard.fix.base import Edit, FileContext, Fix, Import, NoFix
from dispatchguard.lint.index import dotted
from dispatchguard.lint.tool_facts import RUNTIME_REGISTRIES, Dispatcher, Registration, Unknown

if TYPE_CHECKING:
    import libcst as cst

SYNC_METHODS = frozenset({"run", "_run", "invoke"})
ASYNC_METHODS = frozenset({"arun", "_arun", "ainvoke"})
INVOKE_METHODS = frozenset({"invoke", "ainvoke"})
#: The function behind a tool object, called with the tool's arguments (``search.func(query=q)``).
WRAPPED_FUNCTIONS = frozenset({"func", "coroutine"})
ITEM_METHODS = frozenset({"get", "__getitem__"})
# Keywords of LangChain's run/invoke that configure the call rather than being tool arguments.
NON_ARGUMENT_KEYWORDS = frozenset({
    "callbacks", "config", "verbose", "run_manager", "tags", "metadata", "run_name", "run_id",
    "start_color", "color",
})  # fmt: skip


def _split_call(call: ast.Call) -> tuple[ast.expr, str]:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in SYNC_METHODS | ASYNC_METHODS | WRAPPED_FUNCTIONS:
        return func.value, func.attr
    return func, "__call__"


# --------------------------------------------------------------------------- the args dict


def _invoke_input(args: list[cst.Arg], method: str, configured: list[str]) -> cst.BaseExpression | NoFix:
    """``tool.invoke({...})``: the one dict literal it is given."""
    import libcst as cst

    only = args[0] if len(args) == 1 else None
    if configured or only is None or (only.keyword is not None and only.keyword.value != "input"):
        return NoFix(f"{method}(...) is fixed only with a single dict literal argument")
    if not isinstance(only.value, cst.Dict):
        return NoFix(f"{method}(...) input is not a dict literal, so its keys are not known")
    return only.value


def _keyword_dict(call: cst.Call, keywords: list[cst.Arg]) -> cst.Dict:
    """``f(a=1, b=x)`` as ``{"a": 1, "b": x}``, keeping the comments and line breaks between them."""
    import libcst as cst

    no_space = cst.SimpleWhitespace("")
    elements = []
    for i, arg in enumerate(keywords):
        assert arg.keyword is not None
        comma = arg.comma
        if (
            i < len(keywords) - 1
            and isinstance(comma, cst.Comma)
            and not arg.whitespace_after_arg.deep_equals(no_space)
            and comma.whitespace_before.deep_equals(no_space)
        ):
            comma = comma.with_changes(whitespace_before=arg.whitespace_after_arg)
        elements.append(
            cst.DictElement(
                key=cst.SimpleString(json.dumps(arg.keyword.value)),
                value=arg.value,
                comma=comma,
                whitespace_before_colon=no_space,
                whitespace_after_colon=cst.SimpleWhitespace(" "),
            )
        )
    rbrace_ws = keywords[-1].whitespace_after_arg if keywords else no_space
    return cst.Dict(
        elements=elements,
        lbrace=cst.LeftCurlyBrace(whitespace_after=call.whitespace_before_args),
        rbrace=cst.RightCurlyBrace(whitespace_before=rbrace_ws),
    )


def _args_dict(call: cst.Call, method: str) -> cst.BaseExpression | NoFix:
    import libcst as cst  # only when a call is rewritten: most runs fix DG103 alone

    args = list(call.args)
    unmappable = _unmappable(args)
    if unmappable is not None:
        return unmappable
    keywords = [arg for arg in args if arg.keyword is not None]
    configured = sorted(k.keyword.value for k in keywords if k.keyword and k.keyword.value in NON_ARGUMENT_KEYWORDS)
    if method in INVOKE_METHODS:
        return _invoke_input(args, method, configured)
    if configured:
        return NoFix(f"{', '.join(configured)} configure the call; they are not tool arguments")
    if len(args) == 1 and args[0].keyword is None and isinstance(args[0].value, cst.Dict):
        return args[0].value  # LangChain: tool.run({"query": ...})
    if len(keywords) < len(args):
        return NoFix("positional arguments cannot be mapped to parameter names statically; pass them by keyword")
    return _keyword_dict(call, keywords)


def _unmappable(args: list[cst.Arg]) -> NoFix | None:
    stars = {arg.star for arg in args}
    if "**" in stars:
        return NoFix("**kwargs cannot be mapped to tool arguments safely; write the dispatcher call by hand")
    if "*" in stars:
        return NoFix("*args cannot be mapped to parameter names; write the dispatcher call by hand")
    return None


# --------------------------------------------------------------------------- the registered name


def _registry_lookup(receiver: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """(container, key) of ``TOOLS["x"]`` or ``TOOLS.get("x")``."""
    if isinstance(receiver, ast.Subscript):
        return receiver.value, receiver.slice
    if (
        isinstance(receiver, ast.Call)
        and isinstance(receiver.func, ast.Attribute)
        and receiver.func.attr in ITEM_METHODS
        and receiver.args
    ):
        return receiver.func.value, receiver.args[0]
    return None


def _looked_up_name(
    ctx: FileContext, container: ast.expr, key_node: ast.expr, dispatcher: Dispatcher
) -> tuple[str, str] | NoFix:
    """The key of a lookup in a registry the dispatcher looks tools up in by name."""
    facts = ctx.facts
    name = dotted(container)
    if isinstance(container, ast.Name):
        qual = facts.binding_qual(ctx.key, ctx.tree, container)
    else:
        qual = facts.qualify(ctx.key, name) if name else None
    if qual is None or not facts.reads(dispatcher, facts.canonical(qual)):
        shown = f"`{name}`" if name else "a container"
        return NoFix(f"the tool is looked up in {shown}, which the dispatcher `{dispatcher.label}` does not look up")
    if not (isinstance(key_node, ast.Constant) and isinstance(key_node.value, str)):
        return NoFix("the registry key is not a string literal")
    return key_node.value, facts.canonical(qual)


def _no_registration(what: str, dispatcher: Dispatcher) -> NoFix:
    if dispatcher.runtime:
        return NoFix(
            'no dispatcher of the project is configured (set `dispatchers = ["pkg.module.run_tool"]` to a '
            f"function taking (name, args)), and {what} is not registered in a dispatchguard ToolRegistry "
            '(`REGISTRY.register("name", Tool())`)'
        )
    if not dispatcher.registries and not dispatcher.named:
        return NoFix(f"the dispatcher `{dispatcher.label}` looks no registry up by the tool's name (`TOOLS[name]`)")
    return NoFix(
        f"{what} is not registered under a literal key, nor under its own name, "
        f"in a registry `{dispatcher.label}` looks up"
    )


def _built(ctx: FileContext, receiver: ast.expr, binding: str | None) -> ast.expr:
    """The construction of the receiver: itself, or the call a module-level binding is assigned."""
    if binding is None or isinstance(receiver, ast.Call):
        return receiver
    return ctx.facts.construction(binding) or receiver


def _several(what: str, names: list[str]) -> NoFix:
    return NoFix(f"{what} is registered under several names ({', '.join(map(repr, names))})")


def _same_object(receiver: ast.expr, entry: Registration) -> str | None:
    """Why the receiver is not provably the registered object (None when it is): the binding
    registered itself, or both built by an argument-less call of the class."""
    if entry.by_reference:
        return None
    if not isinstance(receiver, ast.Call):
        return "its value is not built here, so it may be another instance than the registered one"
    if receiver.args or receiver.keywords:
        return f"`{ast.unparse(receiver)}` is configured otherwise than the instance registered as {entry.name!r}"
    value = entry.value
    if not isinstance(value, ast.Call) or value.args or value.keywords:
        return f"the instance registered as {entry.name!r} is configured otherwise (or not known)"
    return None


def _instance_name(ctx: FileContext, receiver: ast.expr, dispatcher: Dispatcher) -> tuple[str, str] | NoFix:
    facts = ctx.facts
    class_qual = facts.value_class(ctx.key, ctx.tree, receiver)
    binding = facts.binding_qual(ctx.key, ctx.tree, receiver)
    if class_qual is None and binding is None:
        return NoFix("the tool's class or binding is not statically known, so neither is its registered name")
    what = f"`{(class_qual or binding or '').rsplit('.', 1)[-1]}`"
    entries = facts.registrations(class_qual, binding, dispatcher)
    names = sorted({e.name for e in entries})
    if len(names) != 1:
        return _no_registration(what, dispatcher) if not names else _several(what, names)
    reasons = [r for r in (_same_object(_built(ctx, receiver, binding), e) for e in entries) if r is not None]
    if reasons:
        return NoFix(f"the receiver is not provably the tool the dispatcher serves as {names[0]!r}: {reasons[0]}")
    return names[0], entries[0].registry


def registered_name(ctx: FileContext, receiver: ast.expr, dispatcher: Dispatcher) -> tuple[str, str] | NoFix:
    """(registered name, canonical registry) of the tool ``receiver`` provably is."""
    bound = ctx.facts.bound_value(ctx.tree, receiver)
    if isinstance(bound, (ast.Subscript, ast.Call)):
        receiver = bound  # tool = REGISTRY["x"] / self.history = Tool(...): that value is the tool
    lookup = _registry_lookup(receiver)
    if lookup is not None and not dispatcher.runtime:  # a ToolRegistry's get() gives a spec, not the tool
        return _looked_up_name(ctx, *lookup, dispatcher)
    return _instance_name(ctx, receiver, dispatcher)


# --------------------------------------------------------------------------- the call


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


def _references(ctx: FileContext, wanted: list[tuple[str, str, tuple[str, ...]]]) -> tuple[Import, ...] | NoFix:
    imports: list[Import] = []
    for module, name, aliases in wanted:
        found = _reference(ctx, module, name, aliases)
        if isinstance(found, NoFix):
            return found
        imports.extend(found)
    return tuple(imports)


def _project_call(
    ctx: FileContext, dispatcher: Dispatcher, name: str, args_code: str
) -> tuple[str, tuple[Import, ...], str] | NoFix:
    """(call text, imports, description) through the project's dispatcher."""
    wanted = [(dispatcher.module, dispatcher.function, ())]
    argument = f"{json.dumps(name)}, {args_code}"
    if dispatcher.action is not None:
        model, name_field, args_field = dispatcher.action
        model_module, _, model_name = model.rpartition(".")
        wanted.append((model_module, model_name, ()))
        argument = f"{model_name}({name_field}={json.dumps(name)}, {args_field}={args_code})"
    imports = _references(ctx, wanted)
    if isinstance(imports, NoFix):
        return imports
    return f"{dispatcher.callee}({argument})", imports, f"{json.dumps(name)} through {dispatcher.label}"


def _runtime_call(
    ctx: FileContext, registry: str, name: str, args_code: str, is_async: bool
) -> tuple[str, tuple[Import, ...], str] | NoFix:
    """(call text, imports, description) through dispatchguard's ``dispatch_tool``."""
    function = "adispatch_tool" if is_async else "dispatch_tool"
    wanted: list[tuple[str, str, tuple[str, ...]]] = [
        ("dispatchguard", function, ("dispatchguard.runtime.dispatcher",)),
        ("dispatchguard", "ToolAction", ("dispatchguard.runtime.models",)),
    ]
    registry_arg = ""
    if registry not in RUNTIME_REGISTRIES:
        registry_module, _, registry_name = registry.rpartition(".")
        wanted.append((registry_module, registry_name, ()))
        registry_arg = f", registry={registry_name}"
    imports = _references(ctx, wanted)
    if isinstance(imports, NoFix):
        return imports
    text = f"{function}(ToolAction(name={json.dumps(name)}, args={args_code}){registry_arg})"
    where = f"dispatchguard's {function}" + (f" with {registry}" if registry_arg else "")
    return text, imports, f"{json.dumps(name)} through {where}"


def _flagged_call(ctx: FileContext, finding: Any) -> ast.Call | None:
    calls = ctx.nodes_at(finding.line, finding.col, ast.Call)
    exact = [
        c
        for c in calls
        if (c.end_lineno, ctx.char_col(c.end_lineno, c.end_col_offset)) == (finding.end_line, finding.end_col - 1)
    ]
    return (exact or calls)[-1] if (exact or calls) else None


def _args_code(ctx: FileContext, call: ast.Call, method: str) -> str | NoFix:
    import libcst as cst

    try:
        parsed = cst.parse_expression(ctx.source(call))
    except cst.ParserSyntaxError:
        return NoFix("libcst cannot parse the call")
    assert isinstance(parsed, cst.Call)
    args = _args_dict(parsed, method)
    return args if isinstance(args, NoFix) else cst.Module([]).code_for_node(args)


def fix(finding: Any, ctx: FileContext) -> Fix | NoFix:
    """Return an unsafe fix replacing the flagged call by a call of the configured dispatcher, with
    the imports it needs; NoFix with the reason when the call, a fitting dispatcher, the tool's
    registered name or a mapping of its arguments cannot be found."""
    call = _flagged_call(ctx, finding)
    if call is None:
        return NoFix("no call found at the finding's position")
    receiver, method = _split_call(call)
    is_async = method in ASYNC_METHODS or method == "coroutine"
    dispatcher = ctx.facts.dispatcher_for(is_async)
    if isinstance(dispatcher, Unknown):
        return NoFix(dispatcher.reason)
    found = registered_name(ctx, receiver, dispatcher)
    if isinstance(found, NoFix):
        return found
    name, registry = found
    args_code = _args_code(ctx, call, method)
    if isinstance(args_code, NoFix):
        return args_code
    if dispatcher.runtime:
        rewritten = _runtime_call(ctx, registry, name, args_code, is_async)
    else:
        rewritten = _project_call(ctx, dispatcher, name, args_code)
    if isinstance(rewritten, NoFix):
        return rewritten
    text, imports, description = rewritten
    return Fix((Edit(ctx.node_start(call), ctx.node_end(call), text),), False, description, imports)
