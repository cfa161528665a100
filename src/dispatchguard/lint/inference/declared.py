"""What code outside the project declares it returns: the standard library and builtins from
typeshed, the project environment's stub packages, ``.pyi`` files and typed sources, all read
through ``typeshed_client`` (never imported, never run); for SDK clients the environment does not
have, the bundled table read from their sdists (:mod:`dispatchguard.lint.library`).

Only the verdicts DG103/DG104 need are answered: what a function or a method of a class returns
when its declared type is not JSON text (a container, a number, an instance of a class such as an
SDK's response or a message object), or whether a name is a class. ``str``, ``Any`` and anything
unreadable say nothing. ``typeshed_client`` is imported on the first question: most runs never ask
one (only a returned value the project's own code leaves unknown does).
"""

from __future__ import annotations

import ast
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dispatchguard.lint.index import dotted
from dispatchguard.lint.inference.returns import annotation_verdict
from dispatchguard.lint.library import sdk_class, sdk_method_returns, wrapper_class, wrapper_method_returns

logger = logging.getLogger(__name__)

#: How many base classes a method is looked for in.
_MAX_BASES = 12
#: Bases that make a class text, so its instances may be JSON text.
_TEXT_BASES = frozenset({"str", "UserString"})
#: Classes of the stubs that say nothing about a value: text, anything, the type checker's own.
_NO_VERDICT = frozenset({"str", "Any", "object", "LiteralString", "AnyStr", "Never", "NoReturn", "type"})


def stubs_stamp() -> int | None:
    """When the typeshed that ``typeshed_client`` bundles was installed (its package folder's
    mtime), found without importing it: cached verdicts that read it are stale after an upgrade."""
    for entry in sys.path:
        try:
            return (Path(entry or ".") / "typeshed_client" / "typeshed").stat().st_mtime_ns
        except OSError:
            continue
    return None


class DeclaredTypes:
    """Declared return types outside the project, for the import folders of its environment
    (none: the standard library only)."""

    def __init__(self, import_dirs: Sequence[Path] = (), *, bundled: bool = True) -> None:
        self.import_dirs = tuple(import_dirs)
        #: whether the bundled table of SDKs answers for the classes the import folders lack (not
        #: when the table itself is built)
        self.bundled = bundled
        self._resolver: Any = None
        self._memo: dict[tuple[str, str], str | None] = {}

    def function_returns(self, qual: str) -> str | None:
        """What the function ``qual`` (``time.time``, ``subprocess.run``) declares it returns,
        when that is not JSON text; None when unknown."""
        return self._memoised(("function", qual), lambda: self._function(qual))

    def method_returns(self, class_qual: str, method: str) -> str | None:
        """What ``method`` of the class ``class_qual`` declares it returns (its own annotation, or
        the first base class that declares the method), when that is not JSON text; for an SDK
        client the environment does not have, what the bundled table of SDKs records; for an API
        wrapper of the tool libraries that declares nothing useful (``-> str``), what the bundled
        table's summary of its source says (``WikipediaAPIWrapper.run``: prose)."""
        return self._memoised((class_qual, method), lambda: self._method_or_sdk(class_qual, method))

    def is_class(self, qual: str) -> bool:
        """Whether ``qual`` is a class in the stubs or sources outside the project, or an SDK client
        class of the bundled table (False if unreadable)."""
        return self._memoised(("class", qual), lambda: "class" if self._is_class(qual) else None) is not None

    def _is_class(self, qual: str) -> bool:
        return self._class(qual) is not None or (self.bundled and (sdk_class(qual) or wrapper_class(qual)))

    def _method_or_sdk(self, class_qual: str, method: str) -> str | None:
        if self._class(class_qual) is not None or not self.bundled:  # read from the environment: it wins
            declared = self._method(class_qual, method)
        else:
            declared = sdk_method_returns(class_qual, method)
        if declared is not None or not self.bundled:
            return declared
        # an API wrapper's ``-> str`` says nothing of JSON; the summary of its source does
        return wrapper_method_returns(class_qual, method)

    # ---------------------------------------------------------------- typeshed_client

    def _memoised(self, key: tuple[str, str], compute: Any) -> Any:
        if key not in self._memo:
            try:
                self._memo[key] = compute()
            except Exception as exc:  # a stub or source we cannot read says nothing
                logger.debug("declared types: %s: %s", key, exc)
                self._memo[key] = None
        return self._memo[key]

    @property
    def resolver(self) -> Any:
        """The ``typeshed_client`` resolver of the import folders, made (and imported) on first use."""
        if self._resolver is None:
            import typeshed_client

            version = sys.version_info[:2]
            context = typeshed_client.get_search_context(
                search_path=list(self.import_dirs), allow_py_files=True, version=version
            )
            self._resolver = typeshed_client.Resolver(context)
        return self._resolver

    def _lookup(self, qual: str) -> tuple[str, Any] | None:
        """(module, node) of a fully qualified name, re-exports followed."""
        import typeshed_client

        module, _, _name = qual.rpartition(".")
        if not module:
            module = "builtins"
        info = self.resolver.get_fully_qualified_name(qual if "." in qual else f"builtins.{qual}")
        if isinstance(info, typeshed_client.ImportedInfo):
            module, info = ".".join(info.source_module), info.info
        if not isinstance(info, typeshed_client.NameInfo):
            return None
        return module, info

    def _function(self, qual: str) -> str | None:
        found = self._lookup(qual)
        if found is None:  # a class's method called on the class (``datetime.now()``)
            owner, _, method = qual.rpartition(".")
            return self._method(owner, method) if owner and self._class(owner) else None
        module, info = found
        bound = self._bound_method(module, info.ast)
        return self._method(*bound) if bound is not None else self._returns_of(module, info.ast)

    def _bound_method(self, module: str, node: Any) -> tuple[str, str] | None:
        """``(class, method)`` for a module-level name bound to a method of a module-level instance
        (typeshed's ``randint = _inst.randint``, with ``_inst: Random``)."""
        import typeshed_client

        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute)):
            return None
        owner = node.value.value
        if not isinstance(owner, ast.Name):
            return None
        info = self.resolver.get_name(typeshed_client.ModulePath(tuple(module.split("."))), owner.id)
        annotation = info.ast.annotation if isinstance(info, typeshed_client.NameInfo) and isinstance(
            info.ast, ast.AnnAssign
        ) else None
        name = dotted(annotation) if annotation is not None else None
        return (self._qualify(module, name), node.value.attr) if name is not None else None

    def _class(self, qual: str) -> tuple[str, Any] | None:
        found = self._lookup(qual)
        if found is None or not isinstance(found[1].ast, ast.ClassDef):
            return None
        return found

    def _method(self, class_qual: str, method: str) -> str | None:
        queue, seen = [class_qual], set()
        while queue and len(seen) < _MAX_BASES:
            qual = queue.pop(0)
            seen.add(qual)
            found = self._class(qual)
            if found is None:
                continue
            module, info = found
            child = (info.child_nodes or {}).get(method)
            if child is not None:
                return self._returns_of(module, child.ast, self_class=info.ast.name)
            for base in info.ast.bases:
                name = dotted(base.value if isinstance(base, ast.Subscript) else base)
                if name is not None:
                    base_qual = self._qualify(module, name)
                    if base_qual not in seen:
                        queue.append(base_qual)
        return None

    def _qualify(self, module: str, name: str) -> str:
        """The fully qualified name a name written in ``module`` refers to."""
        import typeshed_client

        head, _, tail = name.partition(".")
        info = self.resolver.get_name(typeshed_client.ModulePath(tuple(module.split("."))), head)
        if isinstance(info, typeshed_client.ImportedInfo):
            base = ".".join(info.source_module)
            inner = info.info
            base = f"{base}.{inner.name}" if isinstance(inner, typeshed_client.NameInfo) else base
        elif type(info) is tuple:  # a module path (a NewType of tuple): ``import mcp.types as types``
            base = ".".join(info)
        else:
            base = f"{module}.{head}"
        return f"{base}.{tail}" if tail else base

    def _returns_of(self, module: str, node: Any, self_class: str | None = None) -> str | None:
        """The verdict of a function node's return annotation (``Self``: an instance of
        ``self_class``); overloads must all agree."""
        import typeshed_client

        if isinstance(node, typeshed_client.OverloadedName):
            verdicts = {self._returns_of(module, d, self_class) for d in node.definitions}
            return verdicts.pop() if len(verdicts) == 1 else None
        if isinstance(node, typeshed_client.NameInfo):
            node = node.ast
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.returns is None:
            return None
        if self_class is not None and dotted(node.returns) in ("Self", "typing.Self", "typing_extensions.Self"):
            return f"an instance of `{self_class}`"

        def is_class(base: ast.expr) -> bool:
            name = dotted(base)
            if name is None or name.rpartition(".")[2] in _NO_VERDICT:
                return False
            found = self._class(self._qualify(module, name))
            return found is not None and not any(dotted(b) in _TEXT_BASES for b in found[1].ast.bases)

        return annotation_verdict(node.returns, is_class)
