"""What the walk knows of the scopes it is in (module, classes, functions) and of the functions it
has seen: the state the walker's ``Context`` keeps and its handlers update."""

from __future__ import annotations

import ast


class Scope:
    """A scope the walk is in (``kind``: module, class or function) and what its names are bound to.

    The walk handlers push one per module, class, function, lambda and comprehension (the last two
    as function scopes); a :class:`FunctionInfo` keeps its chain of scopes until the walk ends.
    """

    __slots__ = (
        "artifact", "attr_types", "attrs", "classes", "fn", "functions", "is_tool", "kind", "makers", "methods",
        "name", "names", "picked", "quals",
    )

    def __init__(self, kind: str, name: str = "") -> None:
        self.kind = kind  # "module" | "class" | "function"
        self.names: dict[str, str | None] = {}  # local name -> kind (None: bound to a non-tool)
        self.quals: dict[str, str] = {}  # local name -> qualified name (local imports)
        self.classes: set[str] = set()  # function scopes: local names bound by a class statement
        self.functions: dict[str, FunctionInfo] = {}  # function scopes: the functions defined in it
        # function scopes: local names last bound to a tool told apart by a name known only at run
        # time (``if tool.name == tool_name: picked = tool``)
        self.picked: set[str] = set()
        self.attrs: dict[str, str | None] = {}  # class scopes: self.<attr> -> kind
        # class scopes: self.<attr> -> its annotation or the call that built it (what class it is)
        self.attr_types: dict[str, ast.expr] = {}
        # class scopes: method name -> its node, and what it makes (``index.made_by``, worked out on
        # the first ``self.method()`` call that asks)
        self.methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.makers: dict[str, list] = {}
        self.name = name
        self.is_tool = False  # class scopes: a tool class
        self.artifact = False  # class scopes: response_format = "content_and_artifact"
        self.fn: FunctionInfo | None = None


class FunctionInfo:
    """A function as the rules see it once the walk is over: its node, qualified name, returns,
    local assignments (name -> assigned values, in order) and whether it is a generator."""

    __slots__ = (
        "artifact", "assigns", "class_name", "is_generator", "key", "node", "qualname", "requested", "returns",
        "scopes",
    )

    def __init__(self, node: ast.AST, qualname: str, class_name: str | None) -> None:
        self.node = node
        self.qualname = qualname
        self.class_name = class_name  # the class the function is a method of, if any
        self.returns: list[ast.Return] = []
        self.assigns: dict[str, list[ast.AST | None]] = {}
        self.scopes: list[Scope] = []
        #: the variables of its loops over what the caller gave (a parameter, a part of one, a value a
        #: call made): the requested calls, whose names are known only at run time
        self.requested: set[str] = set()
        self.is_generator = False
        self.key: str | None = None  # "name" or "Class.name" for functions callable by name
        # a tool function declared with response_format="content_and_artifact": it returns
        # (content, artifact) and only the content reaches the model
        self.artifact = False

    def shadows(self, name: str) -> bool:
        """Whether ``name`` is bound locally (in this function or an enclosing one)."""
        return any(name in s.names or name in s.quals for s in self.scopes if s.kind == "function")
