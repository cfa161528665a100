"""Phase 1: a per-file summary of what a module binds at top level, and module naming.

A summary depends only on the file's content (so it is cached by content hash) and is plain JSON:

``{"imports": {local: target}, "defs": {name: [descriptor, ...]}}``, plus ``"keys": {registry:
[[key, descriptor], ...]}`` when the module registers values under literal string keys
(``TOOLS = {"calc": Calc()}``, ``TOOLS["calc"] = Calc()``, ``REG.register("calc", Calc())``): the
registered names the fixes use; ``"stars": [module, ...]`` for its ``from module import *`` (a
package's ``__init__`` re-exporting its modules' names); ``"members": {class: {name: descriptor}}``
for what a class body binds that may be a tool (a decorated method, a class attribute:
:func:`class_members`); ``"attrs": [name, ...]`` for the names every top-level class's body
binds (methods and class attributes: whether a tool member's name is defined elsewhere);
``"returns": {function: verdict}`` when a top-level function's
returns are all known to be JSON text, all known not to be, or it only raises (see
:func:`dispatchguard.lint.inference.module_returns.summarise_returns`: judged from this file alone),
and ``{"=name": class}`` for a top-level name bound only to one chat model class
(:func:`dispatchguard.lint.inference.module_returns.module_models`).

``target`` is a dotted name; relative imports keep their leading dots and are resolved against the
module's name later. Descriptors describe what a binding is, with names left unresolved:

- ``["class", [base, ...]]`` a class and its base expressions (dotted names);
  ``["class", [base, ...], "base"]`` for a project's own tool base (see :func:`is_home_grown_base`)
- ``["def", [decorator, ...]]`` a function and its decorators;
  ``["def", [decorator, ...], "makes", [desc, ...]]`` when every value it returns is one of these
  calls or names of the module (a factory: :func:`made_by`);
  ``["def", [decorator, ...], "subclass", position, parameter]`` when it returns a class derived
  from the class passed as that argument (``create_logged_tool(SearchTool)``: :func:`made_by`)
- ``["ref", dotted]`` an alias of another name
- ``["call", dotted]`` the result of calling a name (an instance when it is a class);
  ``["call", dotted, "options"]`` when the call passes options only (see :func:`options_only`):
  of a tool decorator, that gives a decorator, not a tool; ``["call", dotted, "args", [dotted
  or None, ...]]`` when a positional argument is a dotted name (a class factory's argument)
- ``["item", desc]`` an item looked up in a container (``REG["x"]``, ``REG.get("x")``)
- ``["coll", [desc, ...]]`` a dict (its values), list, tuple or set literal
- ``["ann", annotation]`` a name annotated with a type (see :func:`annotation_desc`)
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from typing import Any

from dispatchguard.lint.inference.module_returns import SyntaxFunction, summarise_returns

Desc = list[Any]

CONTAINER_TYPES = frozenset(
    {
        "list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection",
        "tuple", "Tuple", "set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet",
        "dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict",
    }
)  # fmt: skip
WRAPPER_TYPES = frozenset({"Optional", "Union", "Annotated", "ClassVar", "Final", "Required", "NotRequired"})
ITEM_METHODS = frozenset({"get", "pop", "setdefault", "__getitem__"})


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def annotation_desc(node: ast.AST | None) -> Desc | None:
    """``["ann", [names], [container names]]``: plain names (the value is an instance of one) and
    names inside containers (the value is a collection of instances); ``["ann", [], [], [types]]``
    for ``type[X]``. None when the annotation names nothing useful."""
    names: list[str] = []
    items: list[str] = []
    types: list[str] = []
    _collect_annotation(node, names, items, types, 0)
    if not (names or items or types):
        return None
    return ["ann", names, items, types]


def _collect_annotation(node: ast.AST | None, names: list, items: list, types: list, depth: int) -> None:
    if node is None or depth > 8:
        return
    if type(node) is ast.Name:  # the common case, as dotted() below would handle it
        if node.id not in ("None", "Any", "object"):
            names.append(node.id)
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        _collect_annotation(node.left, names, items, types, depth + 1)
        _collect_annotation(node.right, names, items, types, depth + 1)
        return
    name = dotted(node)
    if name is not None:
        if name not in ("None", "Any", "object"):
            names.append(name)
        return
    if isinstance(node, ast.Subscript):
        _collect_subscript(node, names, items, types, depth)


def _collect_subscript(node: ast.Subscript, names: list, items: list, types: list, depth: int) -> None:
    """``Optional[X]``/``Annotated[X, ...]`` (X), ``list[X]``/``dict[K, X]`` (X's items),
    ``type[X]`` (X's types), ``SomeTool[int]`` (an instance of SomeTool)."""
    base = dotted(node.value)
    if base is None:
        return
    last = base.rsplit(".", 1)[-1]
    args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if last in WRAPPER_TYPES:
        for arg in args[:1] if last in ("Annotated", "ClassVar", "Final") else args:
            _collect_annotation(arg, names, items, types, depth + 1)
    elif last in CONTAINER_TYPES:
        # the element type: the last argument (dict values, list items), not tuple's Ellipsis
        element = [a for a in args if not (isinstance(a, ast.Constant) and a.value is Ellipsis)][-1:]
        for arg in element:
            sub_names: list[str] = []
            _collect_annotation(arg, sub_names, [], [], depth + 1)
            items.extend(sub_names)
    elif last in ("type", "Type"):
        for arg in args:
            _collect_annotation(arg, types, [], [], depth + 1)
    else:  # a generic class: SomeTool[int] is an instance of SomeTool
        names.append(base)


#: The names a project gives its own replacement of a framework's tool base.
HOME_GROWN_BASE_NAMES = frozenset({"BaseTool", "Tool", "ToolBase", "AbstractTool", "BaseAgentTool", "AgentTool"})
#: the methods that run a tool (a summary records what a class's run methods return)
TOOL_RUN_METHODS = frozenset({"run", "_run", "arun", "_arun"})


def is_home_grown_base(stmt: ast.ClassDef) -> bool:
    """Whether a class is a project's own tool base: named like a framework's (``BaseTool``,
    ``Tool``), it has a run method and says what the model sees of a tool (``name`` and
    ``description``, at class level, as properties or set in ``__init__``). A framework's own tool classes have
    the same shape, so an installed library read from source is judged alike."""
    if stmt.name not in HOME_GROWN_BASE_NAMES:
        return False
    methods = {s.name: s for s in stmt.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if not TOOL_RUN_METHODS.intersection(methods):
        return False
    bound = _class_level_names(stmt.body)
    init = methods.get("__init__")
    if init is not None:
        bound |= _self_attributes(init)
    return {"name", "description"} <= bound


def class_attrs(stmt: ast.ClassDef) -> Iterator[str]:
    """The public names a class body binds by ``def`` or by assignment (a method's, an
    attribute's); private and special names (``_x``, ``__init__``) are left out, as no toolkit
    member so named is taken for a tool on an unknown receiver."""
    for item in stmt.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = [item.name]
        elif isinstance(item, ast.Assign):
            names = [t.id for t in item.targets if isinstance(t, ast.Name)]
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names = [item.target.id]
        else:
            continue
        yield from (name for name in names if not name.startswith("_"))


def class_members(stmt: ast.ClassDef) -> dict[str, Desc]:
    """What a class body binds that may be a tool, read as top-level bindings are: a method with
    decorators (``@tool("save_dataset") @staticmethod def save_dataset``, reached as
    ``GetCoinMetadata.save_dataset``) and a class attribute assigned a value (``search =
    SerperDevTool()``)."""
    members: dict[str, Desc] = {}
    for item in stmt.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decorators = [d for d in (dotted(_strip_call(d)) for d in item.decorator_list) if d]
            if any(d not in _PLAIN_DECORATORS for d in decorators):
                members[item.name] = ["def", decorators]
        elif isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
            desc = value_desc(item.value)
            if desc is not None:
                members[item.targets[0].id] = desc
    return members


_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "abstractmethod", "abc.abstractmethod"})


def _class_level_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for stmt in body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
        elif isinstance(stmt, ast.Assign):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            (d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else "") in _PROPERTIES
            for d in stmt.decorator_list
        ):
            names.add(stmt.name)  # ``@property @abstractmethod def name(self) -> str``
    return names


_PROPERTIES = frozenset({"property", "cached_property", "abstractproperty"})


def _self_attributes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {
        target.attr
        for stmt in ast.walk(function)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign))
        for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
    }


def value_desc(node: ast.AST | None, depth: int = 0) -> Desc | None:
    """Describe an assigned value, or None when it can never be a tool, class or registry."""
    if node is None or depth > 6:
        return None
    name = dotted(node)
    if name is not None:
        return ["ref", name]
    if isinstance(node, ast.Call):
        return _call_value_desc(node, depth)
    if isinstance(node, ast.Subscript):
        inner = value_desc(node.value, depth + 1)
        return ["item", inner] if inner is not None else None
    if isinstance(node, ast.Dict):
        return _coll(node.values, depth)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return _coll(node.elts, depth)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        element = node.value if isinstance(node, ast.DictComp) else node.elt
        inner = _loop_element(node.generators, element, depth) or value_desc(element, depth + 1)
        return ["coll", [inner]] if inner is not None else None
    return None


def _call_value_desc(node: ast.Call, depth: int) -> Desc | None:
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ITEM_METHODS:
        inner = value_desc(func.value, depth + 1)
        if inner is not None:
            return ["item", inner]
    callee = dotted(func)
    if callee is None:
        return None
    if options_only(node):
        return ["call", callee, "options"]
    args = [dotted(a) for a in node.args]
    return ["call", callee, "args", args] if any(args) else ["call", callee]


def options_only(call: ast.Call) -> bool:
    """A call with no positional argument but a name: the options of a decorator factory
    (``tool(parse_docstring=True)``, CrewAI's ``tool("Search")``)."""
    args = call.args
    return not args or (len(args) == 1 and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str))


def _loop_element(generators: list[ast.comprehension], element: ast.AST, depth: int) -> Desc | None:
    """``[t for t in TOOLS]``, ``{t.name: t for t in TOOLS}``, ``{k: v for k, v in REG.items()}``:
    the element is an item of the iterated container."""
    if len(generators) != 1 or not isinstance(element, ast.Name):
        return None
    target, source = generators[0].target, generators[0].iter
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and not source.args:
        method = source.func.attr
        if method == "values" and isinstance(target, ast.Name) and target.id == element.id:
            inner = value_desc(source.func.value, depth + 1)
            return ["item", inner] if inner is not None else None
        if method == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            second = target.elts[1]
            if isinstance(second, ast.Name) and second.id == element.id:
                inner = value_desc(source.func.value, depth + 1)
                return ["item", inner] if inner is not None else None
        return None
    if isinstance(target, ast.Name) and target.id == element.id:
        inner = value_desc(source, depth + 1)
        return ["item", inner] if inner is not None else None
    return None


def _coll(values: Iterable[ast.AST | None], depth: int) -> Desc | None:
    descs = [d for d in (value_desc(v, depth + 1) for v in values if v is not None) if d is not None]
    return ["coll", descs] if descs else None


def summarise(tree: ast.Module) -> dict[str, Any]:
    """The summary of a module (top-level statements, including those under if/try/with)."""
    block = _Block()
    block.read(tree.body)
    imports, defs, keys, functions = block.imports, block.defs, block.keys, block.functions
    if "__getattr__" in defs:
        for name, target in lazy_exports(tree.body).items():
            if name not in imports and name not in defs:
                imports[name] = target
    summary: dict[str, Any] = {"imports": imports, "defs": defs}
    if block.stars:
        summary["stars"] = block.stars
    if block.members:
        summary["members"] = block.members
    if block.attrs:
        summary["attrs"] = sorted(block.attrs)
    if keys:
        summary["keys"] = keys
    # a tool's run methods too (``Class._run``): another tool holding an instance answers what they return
    methods = [
        (f"{node.name}.{method.name}", method)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        for method in node.body
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.name in TOOL_RUN_METHODS
    ]
    if functions or methods or defs:  # defs: module-level chat models (``"=llm"``) too
        returns = summarise_returns(tree.body, functions, imports, defs, methods)
        if returns:
            summary["returns"] = returns
    return summary


# every byte that cannot be part of a name becomes a space: ``split()`` then yields the names
_NAME_BYTES = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == 0x5F) else 0x20 for c in range(256))


def names_in(data: bytes) -> list[bytes]:
    """The names in source bytes (what the byte scans for tool words look for): every maximal run of
    ASCII letters, digits and underscores, repeats included (a set's ``intersection`` or
    ``isdisjoint`` takes them as they are: cheaper than building a set of every name). In code these
    are the identifiers and number literals; in a string or comment ``12Tool`` is one run, which
    names nothing. Twice as fast as a regular expression's ``findall``, and the scans read every
    file of a project."""
    return data.translate(_NAME_BYTES).split()
_MODULE_PATH = re.compile(r"\.*[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|\.+")


def lazy_exports(body: list[ast.stmt]) -> dict[str, str]:
    """The names a module with a ``__getattr__`` exports lazily, as ``{name: dotted target}``:
    ``{"Name": "package.module"}`` tables (``langchain_community.tools``, the legacy
    ``langchain.tools``; a relative module keeps its dots), and the ``__all__`` names that a
    ``__getattr__`` forwards to another module (``from langchain_community import tools`` ...
    ``getattr(tools, name)``)."""
    found: dict[str, str] = {}
    forwarded = _forwarded_module(body)
    if forwarded is not None:
        found.update((name, f"{forwarded}.{name}") for name in _dunder_all(body))
    for node in body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Dict):
            found.update(_module_table(value))
    return found


def _dunder_all(body: list[ast.stmt]) -> list[str]:
    """The string names of a module's ``__all__`` list or tuple (the last one)."""
    exported: list[str] = []
    for node in body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            if isinstance(node.value, (ast.List, ast.Tuple)):
                names = node.value.elts
                exported = [e.value for e in names if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return exported


def _forwarded_module(body: list[ast.stmt]) -> str | None:
    """The module a ``__getattr__`` imports its names from (``from package import module``)."""
    forwarded = None
    for node in body:
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and inner.module and len(inner.names) == 1 and not inner.level:
                    forwarded = f"{inner.module}.{inner.names[0].name}"
    return forwarded


def _module_table(value: ast.Dict) -> Iterator[tuple[str, str]]:
    """``{"Name": "package.module"}`` entries: the name, and where it lives."""
    for key, target in zip(value.keys, value.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            continue
        if isinstance(target, ast.Constant) and isinstance(target.value, str) and _MODULE_PATH.fullmatch(target.value):
            module = target.value
            yield key.value, f"{module}{'' if module.endswith('.') else '.'}{key.value}"


def _record_keys(
    keys: dict[str, list[list[Any]]], registry: str, pairs: Iterable[tuple[ast.AST | None, ast.AST]]
) -> None:
    for key, value in pairs:
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            desc = value_desc(value)
            if desc is not None and desc[0] in ("ref", "call"):
                keys.setdefault(registry, []).append([key.value, desc])


def _bind(defs: dict[str, list[Desc]], imports: dict[str, str], name: str, desc: Desc | None) -> None:
    # an import of the same name stays: ``try: from x import T`` / ``except ImportError: class T``
    if desc is None:
        defs.setdefault(name, [])
    else:
        defs.setdefault(name, []).append(desc)


def import_bindings(stmt: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
    """``(local name, dotted target)`` for every name an import binds: ``import a.b`` binds ``a``,
    ``import a.b as c`` binds ``c`` to ``a.b``; a relative ``from`` import keeps its leading dots
    (the resolver makes it absolute); ``*`` binds nothing we can know."""
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.asname:
                yield alias.asname, alias.name
            else:
                head = alias.name.split(".", 1)[0]
                yield head, head
        return
    base = "." * stmt.level + (stmt.module or "")
    sep = "" if base.endswith(".") or not base else "."
    for alias in stmt.names:
        if alias.name != "*":
            yield alias.asname or alias.name, f"{base}{sep}{alias.name}"


class _Block:
    """What the top-level statements of a module bind, statement by statement (``_STATEMENTS``
    says which method reads which kind of statement; if/try/with bodies are read as top level)."""

    def __init__(self) -> None:
        self.imports: dict[str, str] = {}
        self.defs: dict[str, list[Desc]] = {}
        self.keys: dict[str, list[list[Any]]] = {}
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.type_vars: set[str] = set()  # names bound to ``TypeVar(...)`` so far
        self.stars: list[str] = []  # the modules of ``from module import *``
        self.members: dict[str, dict[str, Desc]] = {}  # class -> what its body binds that may be a tool
        self.attrs: list[str] = []  # the names the classes' bodies bind (methods, class attributes), once per class

    def read(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            handler = _STATEMENTS.get(type(stmt))
            if handler is not None:
                handler(self, stmt)

    def imported(self, stmt: ast.Import | ast.ImportFrom) -> None:
        self.imports.update(import_bindings(stmt))
        if isinstance(stmt, ast.ImportFrom) and any(alias.name == "*" for alias in stmt.names):
            self.stars.append("." * stmt.level + (stmt.module or ""))

    def class_def(self, stmt: ast.ClassDef) -> None:
        bases = [b for b in (dotted(_strip_subscript(b)) for b in stmt.bases) if b]
        desc: Desc = ["class", bases, "base"] if is_home_grown_base(stmt) else ["class", bases]
        _bind(self.defs, self.imports, stmt.name, desc)
        self.attrs.extend(set(class_attrs(stmt)))
        members = class_members(stmt)
        if members:
            self.members[stmt.name] = members
        else:
            self.members.pop(stmt.name, None)

    def function_def(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        decorators = [d for d in (dotted(_strip_call(d)) for d in stmt.decorator_list) if d]
        _bind(self.defs, self.imports, stmt.name, ["def", decorators, *made_by(stmt, self.type_vars)])
        self.functions.append(stmt)

    def assign(self, stmt: ast.Assign) -> None:
        desc = value_desc(stmt.value)
        if desc is not None and desc[0] == "call" and desc[1].rsplit(".", 1)[-1] == "TypeVar":
            self.type_vars.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        for target in stmt.targets:
            _bind_target(target, desc, self.imports, self.defs)
            _assigned_keys(target, stmt.value, self.keys)

    def ann_assign(self, stmt: ast.AnnAssign) -> None:
        target, value = stmt.target, stmt.value
        if isinstance(target, ast.Name):
            _bind(self.defs, self.imports, target.id, annotation_desc(stmt.annotation))
            if value is not None:
                _bind(self.defs, self.imports, target.id, value_desc(value))
                _assigned_keys(target, value, self.keys)
        elif isinstance(target, ast.Subscript) and value is not None:
            _bind_target(target, value_desc(value), self.imports, self.defs)

    def aug_assign(self, stmt: ast.AugAssign) -> None:
        if isinstance(stmt.target, ast.Name):
            _bind(self.defs, self.imports, stmt.target.id, value_desc(stmt.value))

    def expression(self, stmt: ast.Expr) -> None:
        if isinstance(stmt.value, ast.Call):
            _summarise_mutation(stmt.value, self.imports, self.defs)
            _registered_keys(stmt.value, self.keys)

    def branches(self, stmt: ast.If) -> None:
        self.read(stmt.body)
        self.read(stmt.orelse)

    def attempt(self, stmt: ast.Try) -> None:
        self.read(stmt.body)
        for handler in stmt.handlers:
            self.read(handler.body)
        self.read(stmt.orelse)
        self.read(stmt.finalbody)

    def with_body(self, stmt: ast.With | ast.AsyncWith) -> None:
        self.read(stmt.body)


_STATEMENTS: dict[type, Any] = {
    ast.Import: _Block.imported,
    ast.ImportFrom: _Block.imported,
    ast.ClassDef: _Block.class_def,
    ast.FunctionDef: _Block.function_def,
    ast.AsyncFunctionDef: _Block.function_def,
    ast.Assign: _Block.assign,
    ast.AnnAssign: _Block.ann_assign,
    ast.AugAssign: _Block.aug_assign,
    ast.Expr: _Block.expression,
    ast.If: _Block.branches,
    ast.Try: _Block.attempt,
    getattr(ast, "TryStar", ast.Try): _Block.attempt,
    ast.With: _Block.with_body,
    ast.AsyncWith: _Block.with_body,
}


def _registered_keys(call: ast.Call, keys: dict[str, list[list[Any]]]) -> None:
    """``REG.register("k", v)`` at top level (dispatchguard's ``ToolRegistry.register``)."""
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "register"
        and isinstance(func.value, ast.Name)
        and len(call.args) >= 2
    ):
        _record_keys(keys, func.value.id, [(call.args[0], call.args[1])])


def _assigned_keys(target: ast.AST, value: ast.AST, keys: dict[str, list[list[Any]]]) -> None:
    """``REG = {"k": v}`` and ``REG["k"] = v`` at top level."""
    if isinstance(target, ast.Name) and isinstance(value, ast.Dict):
        _record_keys(keys, target.id, zip(value.keys, value.values, strict=True))
    elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        _record_keys(keys, target.value.id, [(target.slice, value)])


def _bind_target(target: ast.AST, desc: Desc | None, imports: dict, defs: dict) -> None:
    if isinstance(target, ast.Name):
        _bind(defs, imports, target.id, desc)
    elif isinstance(target, ast.Subscript) and desc is not None:
        # REG["name"] = SomeTool(): REG holds tools
        name = dotted(target.value)
        if name is not None and "." not in name:
            defs.setdefault(name, []).append(["coll", [desc]])
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _bind_target(elt, None, imports, defs)


def _summarise_mutation(call: ast.Call, imports: dict, defs: dict) -> None:
    """``REG.update({...})``, ``TOOLS.append(x)``, ``TOOLS.extend([...])``: the container holds tools."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return
    if func.attr in ("append", "add", "extend", "update", "insert", "setdefault", "__setitem__"):
        values = [value_desc(a) for a in call.args]
        if func.attr in ("extend", "update"):  # the items of the argument, not the argument
            values = [item for v in values if v and v[0] == "coll" for item in v[1]]
            values += [value_desc(k.value) for k in call.keywords]
        descs = [v for v in values if v is not None]
        if descs and (func.value.id in defs):
            defs[func.value.id].append(["coll", descs])


def made_by(function: ast.FunctionDef | ast.AsyncFunctionDef, type_vars: Iterable[str] = ()) -> Desc:
    """What a function makes, as the tail of its ``def`` descriptor (empty when it is neither):

    - ``["subclass", position, parameter]``: a class derived from the class its argument is, by its
      annotations (``(base: Type[T]) -> Type[T]``, ``T`` one of ``type_vars`` or a type parameter
      of the function) or its body (a class defined on a parameter's value, then returned);
    - ``["makes", [desc, ...]]``: every value it returns is a call or a name of the module (a local
      name bound only to such calls counts as them), or a function it defines with decorators
      (``["def", decorators]``: ``@tool def search(...)`` then ``return search``); ``None``
      returns are left out. Whether those
      are tools is the resolver's question (a tool factory: ``def get_search_tool(): return
      SearchTool(...)``);
    - ``["decorator", [desc, ...]]``: it returns a function defined in it, which makes those (a
      decorator factory: ``def tagged_tool(*tags): def deco(fn): return tool(fn) ...; return deco``).
    """
    syntax = SyntaxFunction(function)
    if not any(type(r.value) in (ast.Name, ast.Call) for r in syntax.returns):
        return []  # most functions: what they return is neither a name nor a call
    args = function.args
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    type_params = {getattr(p, "name", "") for p in getattr(function, "type_params", ())}
    subclass = _subclass_parameter(function, syntax, params, {*type_vars, *type_params})
    if subclass is not None:
        return ["subclass", params.index(subclass), subclass]
    made: list[Desc] = []
    inner = _returned_inner_function(function, syntax)
    if inner is not None:
        if inner.decorator_list:  # what its decorators made of it: a tool, for a tool decorator
            return ["makes", [["def", [d for d in (dotted(_strip_call(d)) for d in inner.decorator_list) if d]]]]
        inner_made = made_by(inner)
        return ["decorator", inner_made[1]] if inner_made[:1] == ["makes"] else []
    for ret in syntax.returns:
        values = _returned_values(syntax, ret.value)
        if values is None:
            return []
        made.extend(values)
    return ["makes", made] if made else []


def _returned_inner_function(
    function: ast.FunctionDef | ast.AsyncFunctionDef, syntax: SyntaxFunction
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function defined in ``function``'s body that every return of it returns, if there is one."""
    returns = syntax.returns
    if not returns or not all(isinstance(r.value, ast.Name) for r in returns):
        return None
    names = {r.value.id for r in returns}  # type: ignore[union-attr]
    if len(names) != 1:
        return None
    name = names.pop()
    defined = [s for s in function.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name]
    if len(defined) != 1 or len(syntax.assigns.get(name, ())) != 1:
        return None
    return defined[0]


def _returned_values(function: SyntaxFunction, value: ast.expr | None) -> list[Desc] | None:
    """The descriptors of a returned value (a local name: of every value bound to it); None when
    one is not a call of a module's name, nor a module's name."""
    if value is None or (isinstance(value, ast.Constant) and value.value is None):
        return []
    if isinstance(value, ast.Name):
        bound = function.assigns.get(value.id)
        if bound is None:
            return [["ref", value.id]]
        values: list[Desc] = []
        for item in bound:
            desc = _call_desc(function, item)
            if desc is None:
                return None
            values.append(desc)
        return values
    desc = _call_desc(function, value)
    return [desc] if desc is not None else None


def _call_desc(function: SyntaxFunction, value: ast.AST | None) -> Desc | None:
    """A call of a name of the module (not of a local or a parameter of ``function``)."""
    if not isinstance(value, ast.Call):
        return None
    desc = value_desc(value)
    if desc is None or desc[0] != "call" or function.shadows(desc[1].partition(".")[0]):
        return None
    return desc


def _subclass_parameter(
    function: ast.FunctionDef | ast.AsyncFunctionDef, syntax: SyntaxFunction, params: list[str], type_vars: set[str]
) -> str | None:
    returned = _type_variable(function.returns)
    if returned in type_vars:
        args = function.args
        for arg in (*args.posonlyargs, *args.args):
            if _type_variable(arg.annotation) == returned:
                return arg.arg
    classes = {
        stmt.name: stmt
        for stmt in function.body
        if isinstance(stmt, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id in params for b in stmt.bases)
    }
    if not classes:
        return None
    for ret in syntax.returns:
        if isinstance(ret.value, ast.Name) and ret.value.id in classes:
            return next(b.id for b in classes[ret.value.id].bases if isinstance(b, ast.Name) and b.id in params)
    return None


def _type_variable(annotation: ast.expr | None) -> str | None:
    """``T`` of ``Type[T]`` / ``type[T]`` / ``typing.Type[T]``, else None."""
    if not isinstance(annotation, ast.Subscript) or not isinstance(annotation.slice, ast.Name):
        return None
    outer = dotted(annotation.value)
    return annotation.slice.id if outer is not None and outer.rsplit(".", 1)[-1] in ("Type", "type") else None


def _strip_subscript(node: ast.AST) -> ast.AST:
    return node.value if isinstance(node, ast.Subscript) else node


def _strip_call(node: ast.AST) -> ast.AST:
    return node.func if isinstance(node, ast.Call) else node


# --------------------------------------------------------------------------------------------
# module names


def module_names(relpath: str, package_dirs: frozenset[str]) -> tuple[str, tuple[str, ...], bool]:
    """(primary dotted name, alias names, is_package) of a root-relative POSIX path.

    The primary name follows Python's packages: the file's directory chain upwards as long as each
    directory has an ``__init__.py``. The aliases are the full root-relative dotted path (and that
    path without a leading ``src``/``lib``, and the path below the innermost ``src``/``lib`` folder:
    a project of its own inside the repository, ``app/src/pkg/mod.py`` imported as ``pkg.mod``), for
    projects that import from the root without ``__init__`` files.
    """
    parts = relpath.split("/")
    stem = parts[-1]
    for suffix in (".pyi", ".py", ".ipynb"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    is_package = stem == "__init__"
    dirs = parts[:-1]
    chain: list[str] = []
    for i in range(len(dirs), 0, -1):
        if "/".join(dirs[:i]) in package_dirs:
            chain.insert(0, dirs[i - 1])
        else:
            break
    primary = ".".join(chain if is_package else [*chain, stem])
    full = dirs if is_package else [*dirs, stem]
    aliases = []
    for candidate in (full, full[1:] if full[:1] in (["src"], ["lib"]) else None, below_layout(full)):
        if candidate:
            name = ".".join(candidate)
            if name != primary and name not in aliases:
                aliases.append(name)
    return primary, tuple(aliases), is_package


def below_layout(parts: list[str]) -> list[str] | None:
    """The dotted parts below the innermost ``src``/``lib`` folder (``app/src/pkg/mod.py``, a project
    of its own inside the repository, whose installed package is imported as ``pkg.mod``), or None."""
    layouts = [i for i, part in enumerate(parts[:-1]) if part in ("src", "lib")]
    return parts[layouts[-1] + 1 :] if layouts else None
