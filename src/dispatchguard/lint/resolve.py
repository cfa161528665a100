"""Resolution of tool classes, tools and registries across the project, loading modules lazily.

A :class:`Resolver` answers ``kind(qualified_name)`` with one of :mod:`.kinds`: a tool class, a
tool, a registry, a tool decorator, or None (anything else; unknown names are never tools:
precision first). Names of the public tool libraries (crewai, crewai-tools, langchain,
langchain-core, langchain-community) are looked up in the bundled table of
:mod:`dispatchguard.lint.library` when the configuration does not name them. Imports and
aliases are followed across modules, relative imports resolved, cycles cut.

The resolver does not hold the whole project. It knows the project's module *names* (a table
built from the file list, without reading a file) and asks a :class:`ModuleSource` for a module's
summary when a question reaches it. The source may answer that a module is *not a candidate*: its
bytes name no tool word, so none of its bindings can be tool-related (see
:mod:`dispatchguard.lint.project`). :meth:`Resolver.kind` then answers without loading it, while
:meth:`Resolver.full_kind`, which also tells plain classes apart (DG103: returning an instance),
loads any module it needs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dispatchguard.lint.index import ITEM_METHODS
from dispatchguard.lint.inference.declared import DeclaredTypes
from dispatchguard.lint.kinds import CLASS, DECORATOR, FACTORY, PLAIN_CLASS, REGISTRY, TOOL
from dispatchguard.lint.library import NOT_A_TOOL, TOOL_CLASS, TOOL_DECORATOR, library_kind, library_tool_list
from dispatchguard.lint.modules import ModuleInfo

if TYPE_CHECKING:
    from dispatchguard.lint.config import LintConfig
    from dispatchguard.lint.environment import Environment

_PRIORITY = (CLASS, TOOL, REGISTRY, DECORATOR, FACTORY, PLAIN_CLASS)
_LIBRARY_PREFIXES = ("crewai", "langchain")  # the top-level packages the bundled table covers
_LIBRARY_KINDS = {TOOL_CLASS: CLASS, TOOL_DECORATOR: DECORATOR, NOT_A_TOOL: None}
_TEXT_BASES = frozenset({"str", "bytes", "UserString"})
_MAX_DEPTH = 60


class ModuleSource(Protocol):
    """Where the resolver gets modules from (the project, or a set of in-memory sources)."""

    def module(self, name: str, *, any_module: bool) -> ModuleInfo | None:
        """The module that owns ``name``; None when it is not loaded and either ``any_module`` is
        false and the module is not a candidate, or it cannot be parsed."""

    def tool_member(self, name: str) -> str | None:
        """The qualified name of the one tool member of a project class named ``name``, when no
        other definition the loaded modules know has that name; else None."""

    def tool_members_stamp(self) -> str:
        """A stamp of every answer :meth:`tool_member` gives now (a walk that asked records it under
        :data:`TOOL_MEMBERS_DEP`: its result holds while the stamp does)."""


#: the ``deps`` key under which a walk that asked for toolkit members records their stamp
TOOL_MEMBERS_DEP = "<tool members>"


class _NotCandidate:
    """A project module left unloaded: none of its bindings is tool-related."""


NOT_CANDIDATE = _NotCandidate()


def _split_names(entries: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    qualified = frozenset(e for e in entries if "." in e)
    bare = frozenset(e for e in entries if "." not in e)
    return qualified, bare


class Resolver:
    """Tells the rules what a qualified name is: tool class, tool, registry, decorator, or None.

    One per :class:`~dispatchguard.lint.project.Project`, which is also its :class:`ModuleSource`.
    Answers are memoised until :meth:`forget` (a module was loaded); the questions under way are
    kept on a stack so that import cycles end.
    """

    def __init__(
        self,
        config: LintConfig,
        names: Mapping[str, Any],
        source: ModuleSource,
        environment: Environment | None = None,
    ) -> None:
        """``names``: every module name of the project (primary names and aliases);
        ``environment``: the project's installed environment, whose tool libraries' sources answer
        for names outside the project."""
        self.config = config
        self.names = names
        self.source = source
        self.environment = environment
        self._memo: dict[str, str | None] = {}
        self._full_memo: dict[str, str | None] = {}
        self._stack: list[tuple[bool, str]] = []  # the questions under way
        self._bases, self._bare_bases = _split_names(config.tool_bases)
        self._decorators, self._bare_decorators = _split_names(config.tool_decorators)
        self._packages = tuple(config.tool_packages)
        self._declared: DeclaredTypes | None = None
        self._beside_memo: dict[tuple[str, str], str] = {}  # (module, absolute target) -> what it names
        self._root_prefix = Path(config.root).absolute().as_posix().rstrip("/") + "/"  # of the files' keys
        self._star_memo: dict[tuple[str, str], str | None] = {}  # (module, name) -> where its star import finds it
        # absolute target -> "" (outside the project: it means what it says), the folder its project
        # module is imported from (its root), or None (it names nothing)
        self._as_written: dict[str, str | None] = {}

    @property
    def declared(self) -> DeclaredTypes:
        """Declared types outside the project: the standard library, the environment's stubs and sources."""
        if self._declared is None:
            dirs = self.environment.import_dirs if self.environment is not None else ()
            self._declared = DeclaredTypes(dirs)
        return self._declared

    def outside(self, qual: str) -> bool:
        """Whether a qualified name is outside the project (no module of the project owns it)."""
        return self.split(qual, any_module=False)[0] is None

    def forget(self) -> None:
        """Drop memoised answers (a module was loaded); the questions under way keep their guard."""
        self._memo = dict.fromkeys((q for full, q in self._stack if not full), None)
        self._full_memo = dict.fromkeys((q for full, q in self._stack if full), None)

    # ---------------------------------------------------------------- names

    def absolute(self, info: ModuleInfo, target: str) -> str:
        """Resolve a relative import target (leading dots) against the importing module: its
        primary name, or the first of its aliases against which the target names a module of the
        project (a folder without ``__init__.py`` inside a package is a namespace package at run
        time: ``src/app/phase/run.py`` importing ``.tools.x`` means ``src.app.phase.tools.x``)."""
        if not target.startswith("."):
            return self._beside(info, target)
        resolved = _relative(info.name, info.is_package, target)
        if info.aliases and not self._names_module(resolved):
            for alias in info.aliases:
                candidate = _relative(alias, info.is_package, target)
                if self._names_module(candidate):
                    return candidate
        return resolved

    def _beside(self, info: ModuleInfo, target: str) -> str:
        """An absolute ``from`` import that names no module of the project, nor of the standard
        library or a tool library, or names one imported from a folder the importing module is not
        under (its import root: a monorepo's or an examples folder's applications, each with its own
        ``app`` or ``my_agent`` package): the same import from the importing module's folder or the
        nearest enclosing one, as Python finds it when that folder is on ``sys.path`` (a server or
        script run from there: ``from tools.custom_tool import X`` in ``src/app/crew.py`` is
        ``src/app/tools/custom_tool.py``), provided that module defines the name; else the target as
        written. A plain ``import requests`` stays what it says, and so does an import that module
        makes itself (a library's ``vectorstores/elasticsearch.py`` imports ``elasticsearch``, which
        its sibling modules import too)."""
        written = self._as_written.get(target)
        if written is None:
            head, dot, _ = target.partition(".")
            if not dot or _outside_package(head, self.environment):
                written = ""  # outside the project, or a plain import
            elif head in self.names or self._names_module(target):
                written = self._import_root(target)  # a module of the project: from which folder
            else:
                written = None  # nothing of that name: look beside
            self._as_written[target] = written
        key = (info.name, target)
        found = self._beside_memo.get(key)
        if found is None:
            if written is not None and (written == "" or self._relpath(info.name).startswith(written)):
                found = target  # outside the project, or a module under the importing module's own root
            else:
                # a package importing what its submodule imports asks this again: the target as written
                self._beside_memo[key] = target
                found = self._nearest_package(info, target)
            self._beside_memo[key] = found
        return found

    def _relpath(self, module: str) -> str:
        """The root-relative POSIX path of the file owning ``module`` ("" when none does)."""
        owner = self.names.get(module)
        if not isinstance(owner, str):
            return ""
        root = self._root_prefix
        return owner[len(root) :] if owner.startswith(root) else owner

    def _import_root(self, qual: str) -> str:
        """The folder (``"examples/chatbot/"``, or ``""`` for the project root) that must be on
        ``sys.path`` for ``qual`` to name the module of the project owning it (its longest module
        prefix): the owning file's folders above the module's own names."""
        module = qual
        while module and module not in self.names:
            module = module.rpartition(".")[0]
        relpath = self._relpath(module)
        folders = relpath.split("/")[:-1]  # a package's __init__.py: its folder is its last name
        names = module.count(".") + (1 if relpath.endswith("/__init__.py") else 0)
        kept = folders[: max(len(folders) - names, 0)]
        return "/".join(kept) + "/" if kept else ""

    def _nearest_package(self, info: ModuleInfo, target: str) -> str:
        parts = target.split(".")
        # a module or package the target starts with (inside namespace folders: ``app/tools/search.py``)
        heads = [".".join(parts[:k]) for k in range(1, len(parts) + 1)]
        names = self.names
        for module in (info.name, *info.aliases):
            folders = module.split(".") if module else []
            if not info.is_package:
                folders = folders[:-1]
            for depth in range(len(folders), 0, -1):
                prefix = ".".join(folders[:depth])
                # the folder must hold the import's first name before any module is looked at
                if any(f"{prefix}.{head}" in names for head in heads) and self._defines(f"{prefix}.{target}", target):
                    return f"{prefix}.{target}"
        return target

    def _defines(self, qual: str, target: str) -> bool:
        """Whether ``qual`` is a module of the project or a name one binds other than by importing
        ``target`` itself, the module being one of the names of ``target`` (loaded to tell, whatever
        the round: the answer must not change with the order modules are loaded in)."""
        info, rest = self.split(qual, any_module=True)
        if not isinstance(info, ModuleInfo) or len(rest) > target.count("."):
            return False
        return not rest or rest[0] in info.defs or (rest[0] in info.imports and info.imports[rest[0]] != target)

    def _names_module(self, qual: str) -> bool:
        """Whether ``qual`` is a module of the project, or a name in one (``from .m import X``)."""
        return qual in self.names or qual.rpartition(".")[0] in self.names

    def local_qual(self, info: ModuleInfo, name: str) -> str | None:
        """The qualified name a dotted expression written in module ``info`` refers to (a name a
        star import brings: the name in the first module of the project that binds it)."""
        head, _, tail = name.partition(".")
        target = info.imports.get(head)
        if target is not None:
            base = self.absolute(info, target)
        elif head in info.defs:
            base = f"{info.name}.{head}" if info.name else head
        elif info.stars and not head.startswith("_"):
            base = self._starred(info, head)
            if base is None:
                return None
        else:
            return None
        return f"{base}.{tail}" if tail else base

    def _starred(self, info: ModuleInfo, name: str) -> str | None:
        key = (info.name, name)
        if key in self._star_memo:
            return self._star_memo[key]
        self._star_memo[key] = None  # a star import cycle ends here
        for star in info.stars:
            module = self.absolute(info, star)
            found, rest = self.split(module, any_module=True)
            if isinstance(found, ModuleInfo) and not rest and (name in found.defs or name in found.imports):
                self._star_memo[key] = f"{module}.{name}"
                break
        return self._star_memo[key]

    def split(self, qual: str, *, any_module: bool) -> tuple[ModuleInfo | _NotCandidate | None, list[str]]:
        """The module that is the longest prefix of ``qual`` and the remaining parts; None for a
        name outside the project, :data:`NOT_CANDIDATE` for a project module left unloaded."""
        names = self.names
        head = qual
        while True:
            if head in names:
                if len(head) == len(qual):
                    shadowing = self._shadowing_package(qual, any_module)
                    if shadowing is not None:
                        return shadowing, [qual.rpartition(".")[2]]
                rest = qual[len(head) + 1 :].split(".") if len(head) < len(qual) else []
                info = self.source.module(head, any_module=any_module)
                return (info if info is not None else NOT_CANDIDATE), rest
            cut = head.rfind(".")
            if cut < 0:
                return None, qual.split(".")
            head = head[:cut]

    def _shadowing_package(self, qual: str, any_module: bool) -> ModuleInfo | None:
        """The package whose own binding of a submodule's name hides the submodule: after
        ``from .search import search`` in ``app/tools/__init__.py``, ``app.tools.search`` is the
        function, as Python's import leaves the package attribute (None: the name is the module)."""
        package, _, last = qual.rpartition(".")
        if not package or package not in self.names:
            return None
        info = self.source.module(package, any_module=any_module)
        if info is None or not info.is_package:
            return None
        if last in info.defs:
            return info
        target = info.imports.get(last)
        if target is None or qual.endswith(f".{target}"):  # ``from app.routers import hcps`` in it
            return None  # the submodule itself, named from an import root above the package
        if self.absolute(info, target) == qual:  # `from . import search`: the module
            return None
        return info

    # ---------------------------------------------------------------- kinds

    def is_tool_base(self, qual: str) -> bool:
        """Whether ``qual`` is a configured tool base (a bare configured name matches any last part)."""
        return qual in self._bases or qual.rsplit(".", 1)[-1] in self._bare_bases

    def is_tool_decorator(self, qual: str) -> bool:
        """Whether ``qual`` is a configured tool decorator (a bare configured name matches any last part)."""
        return qual in self._decorators or qual.rsplit(".", 1)[-1] in self._bare_decorators

    def external_kind(self, qual: str) -> str | None:
        """A name outside the project: a configured base or decorator; what the sources of the
        installed tool libraries say of it (a tool kind), or the bundled table of the tool libraries;
        and, for a name neither knows, a capitalised name of a configured tool package (a guess
        made only when no installed source has the name's module)."""
        if self.is_tool_base(qual):
            return CLASS
        if self.is_tool_decorator(qual):
            return DECORATOR
        installed: str | None = None
        read = False
        environment = self.environment
        if environment is not None and environment.covers(qual):
            info, rest = environment.split(qual)
            if info is not None:
                read = True
                installed = self._binding_kind(info, rest, qual, False, outside=True)
                if installed is not None:
                    return installed
        known = library_kind(qual) if qual.startswith(_LIBRARY_PREFIXES) else None
        if known is not None:
            return _LIBRARY_KINDS[known]
        if read:
            return None
        for package in self._packages:
            if qual.startswith(package + "."):
                last = qual.rsplit(".", 1)[-1]
                if last[:1].isupper() and not last.isupper():
                    return CLASS
        return None

    def kind(self, qual: str) -> str | None:
        """Tool-related kind of a qualified name: CLASS, TOOL, REGISTRY, DECORATOR or None."""
        return self._kind(qual, False)

    def full_kind(self, qual: str) -> str | None:
        """:meth:`kind`, or PLAIN_CLASS for any other class of the project (loads what it needs)."""
        return self._kind(qual, True)

    def _kind(self, qual: str, full: bool) -> str | None:
        memo = self._full_memo if full else self._memo
        try:
            return memo[qual]
        except KeyError:
            pass
        if len(self._stack) > _MAX_DEPTH:
            return None
        memo[qual] = None  # cycle guard
        self._stack.append((full, qual))
        try:
            result = self._compute(qual, full)
        finally:
            self._stack.pop()
        memo = self._full_memo if full else self._memo  # a load during the computation replaced it
        memo[qual] = result
        return result

    def _compute(self, qual: str, full: bool) -> str | None:
        if qual in self._bases:  # a configured base may live in the project itself
            return CLASS
        if qual in self._decorators:
            return DECORATOR
        info, rest = self.split(qual, any_module=full)
        if info is None:
            return self.external_kind(qual)
        if not rest:
            return None
        if info is NOT_CANDIDATE:
            return self.external_kind(qual) if len(rest) > 1 else None
        assert isinstance(info, ModuleInfo)
        return self._binding_kind(info, rest, qual, full, outside=False)

    def _binding_kind(self, info: ModuleInfo, rest: list[str], qual: str, full: bool, *, outside: bool) -> str | None:
        """The kind of ``rest`` in module ``info``: what it imports or defines under that name. A
        module of an installed library (``outside``) is read like the project's, but its classes are
        never PLAIN_CLASS (a library class may be text) and an attribute of its bindings is unknown."""
        if not rest:
            return None
        head, tail = rest[0], rest[1:]
        found: list[str | None] = []
        target = info.imports.get(head)
        if target is not None:
            found.append(self._kind(".".join([self.absolute(info, target), *tail]), full))
        if not tail:
            for desc in info.defs.get(head, ()):
                found.append(self.desc_kind(info, desc, full and not outside))
        elif not outside:
            member = info.members.get(head, {}).get(tail[0]) if len(tail) == 1 else None
            if member is not None:  # ``GetCoinMetadata.save_dataset``: a tool the class body binds
                found.append(self.desc_kind(info, member))
            elif len(tail) == 1:  # ``sheets.read_rows``: the same, reached through an instance
                found.append(self._instance_member(info, head, tail[0]))
            found.append(self.external_kind(qual))
        if not found and info.stars and not head.startswith("_"):
            # a name neither imported nor bound here may come from a star import
            for star in info.stars:
                found.append(self._kind(".".join([self.absolute(info, star), *rest]), full))
        return _best(found)

    def _instance_member(self, info: ModuleInfo, name: str, member: str) -> str | None:
        """A tool, for ``name.member`` where ``name`` is bound once, at the top level of ``info``, to
        an instance of a class (``sheets_tool = GoogleSheetsTool()``) whose body binds ``member`` to a
        tool (a ``@tool`` method, a class attribute assigned a tool); else None."""
        descs = info.defs.get(name, ())
        if len(descs) != 1 or descs[0][0] != "call" or name in info.imports:
            return None
        cls = self.local_qual(info, descs[0][1])
        return TOOL if cls is not None and self.kind(f"{cls}.{member}") == TOOL else None

    def desc_kind(self, info: ModuleInfo, desc: list, full: bool = False) -> str | None:
        """The kind of a binding's descriptor (see :mod:`.index`), by its tag."""
        tag = desc[0]
        if tag == "ref":
            return self.name_kind(info, desc[1], full)
        if tag == "call":
            marker = desc[2] if len(desc) > 2 else None
            return self.call_kind(info, desc[1], marker == "options", desc[3] if marker == "args" else ())
        if tag == "class":
            return CLASS if len(desc) > 2 else self.class_kind(info, desc[1], full)
        if tag == "def":
            return self.def_kind(info, desc)
        if tag == "item":
            return TOOL if self.desc_kind(info, desc[1]) == REGISTRY else None
        if tag == "coll":
            return REGISTRY if any(self.desc_kind(info, d) == TOOL for d in desc[1]) else None
        if tag == "ann":
            return self.annotation_kind(lambda n: self.name_kind(info, n), desc)
        return None

    def class_kind(self, info: ModuleInfo, bases: list[str], full: bool) -> str | None:
        """A tool class (a base is one), else, with ``full``, a plain class but for a text subclass."""
        for base in bases:
            qual = self.local_qual(info, base)
            if (self.kind(qual) if qual else self.external_bare(base)) == CLASS:
                return CLASS
        if not full or any(base.rsplit(".", 1)[-1] in _TEXT_BASES for base in bases):
            return None  # a str subclass may well hold JSON text
        return PLAIN_CLASS

    def def_kind(self, info: ModuleInfo, desc: list) -> str | None:
        """A tool, for a function with a tool decorator (a factory used as one included); a
        factory, for one whose returns are all tools (``["def", decorators, "makes", [desc, ...]]``);
        a tool decorator, for one that returns such a factory (``"decorator"``)."""
        for decorator in desc[1]:
            qual = self.local_qual(info, decorator) or decorator
            if self.kind(qual) in (DECORATOR, FACTORY) or self.is_tool_decorator(qual):
                return TOOL
        made = desc[2] if len(desc) > 2 else None
        if made in ("makes", "decorator") and all(self.desc_kind(info, d) == TOOL for d in desc[3]):
            return FACTORY if made == "makes" else DECORATOR
        return None

    @staticmethod
    def annotation_kind(name_kind: Any, desc: list) -> str | None:
        """The kind of a value annotated by an ``["ann", names, items, types]`` descriptor.

        A tool for an instance of a tool class, a registry for a container of them, a tool class for
        ``type[...]`` of one, else None; ``name_kind`` gives each named type's kind.
        """
        _, names, items, types = desc
        if any(name_kind(n) == CLASS for n in names):
            return TOOL
        if any(name_kind(n) == CLASS for n in items):
            return REGISTRY
        if any(name_kind(n) == CLASS for n in types):
            return CLASS
        return None

    def external_bare(self, name: str) -> str | None:
        """A name that is neither imported nor defined (star imports): only bare config entries."""
        return CLASS if name.rsplit(".", 1)[-1] in self._bare_bases else None

    def name_kind(self, info: ModuleInfo, name: str, full: bool = False) -> str | None:
        """The kind of a dotted name written in module ``info`` (imports and definitions followed; with
        ``full``, plain classes told apart); else a tool class only if it is a bare configured base.
        """
        qual = self.local_qual(info, name)
        return self._kind(qual, full) if qual else self.external_bare(name)

    def call_kind(
        self, info: ModuleInfo, callee: str, options_only: bool = False, args: list[str | None] | tuple = ()
    ) -> str | None:
        """What calling ``callee`` (written in ``info``) with positional ``args`` (dotted names or
        None) gives: :meth:`result_of_call`, or a tool class for a class factory of the project
        given a tool class (:meth:`subclass_position`); None if unbound."""
        qual = self.local_qual(info, callee)
        if qual is None:
            return None
        result = self.result_of_call(qual, self.kind, options_only)
        if result is None and args:
            classes = [i for i, arg in enumerate(args) if arg and self.name_kind(info, arg) == CLASS]
            if classes and self.subclass_position(qual) in classes:
                return CLASS
        return result

    @staticmethod
    def result_of_call(qual: str, kind: Any, options_only: bool = False) -> str | None:
        """What calling ``qual`` gives: a tool for a tool class, a tool decorator, a registry lookup
        (``REG.get``) or a tool class factory (``StructuredTool.from_function``); a decorator for
        a tool decorator called with options only (:func:`~dispatchguard.lint.index.options_only`);
        a registry for a library function declared to return tools (``load_tools``)."""
        k = kind(qual)
        if k == DECORATOR and options_only:
            return DECORATOR
        if k is None and qual.startswith(_LIBRARY_PREFIXES) and library_tool_list(qual):
            return REGISTRY  # load_tools(...), load_mcp_tools(...): a list of tools
        if k in (CLASS, DECORATOR, FACTORY):
            return TOOL
        parent, _, attr = qual.rpartition(".")
        if parent and (attr.startswith("from_") or attr in ITEM_METHODS):
            pk = kind(parent)
            if (pk == CLASS and attr.startswith("from_")) or (pk == REGISTRY and attr in ITEM_METHODS):
                return TOOL
        return None

    def subclass_position(self, qual: str) -> int | None:
        """The position of the argument whose subclass the project function ``qual`` returns (the
        index's ``["def", decorators, "subclass", position, parameter]``), else None. Loads any
        module it needs, as :meth:`function_returns` does."""
        found = self._defined(qual)
        if found is None:
            return None
        info, name = found
        descs = info.defs.get(name, ())
        if len(descs) != 1 or descs[0][0] != "def" or len(descs[0]) < 4 or descs[0][2] != "subclass":
            return None
        return descs[0][3]

    def _defined(self, qual: str) -> tuple[ModuleInfo, str] | None:
        """The project module that binds ``qual`` itself (imports and re-exports followed), and the name there."""
        for _ in range(_MAX_DEPTH):
            info, rest = self.split(qual, any_module=True)
            if not isinstance(info, ModuleInfo) or len(rest) != 1:
                return None
            name = rest[0]
            target = info.imports.get(name)
            if target is None:
                return info, name
            if name in info.defs:  # imported, and bound otherwise too (try/except ImportError)
                return None
            qual = self.absolute(info, target)
        return None

    def written_in_module_of(self, qual: str, names: list[str]) -> list[str | None]:
        """The qualified names ``names`` (dotted names as written) refer to in the project module
        that defines the function ``qual`` (a method's module for ``module.Class.method``); None
        for a name that module does not bind."""
        found = self._defined(qual)
        if found is None:
            owner = qual.rpartition(".")[0]
            found = self._defined(owner) if owner else None
        if found is None:
            return [None] * len(names)
        return [self.local_qual(found[0], name) for name in names]

    def function_returns(self, qual: str) -> str | None:
        """What the function ``qual`` returns, as the summary of the module that defines it records it
        (:mod:`dispatchguard.lint.inference.returns`: JSON, NEVER or a description of a value that is not a JSON
        string), following imports, aliases and re-exports; None when unknown. Loads any module it
        needs, as :meth:`full_kind` does."""
        found = self._defined(qual)
        if found is not None:
            return found[0].returns.get(found[1])
        owner, _, method = qual.rpartition(".")  # a run method of a class: ``module.Class._run``
        found = self._defined(owner) if owner else None
        return found[0].returns.get(f"{found[1]}.{method}") if found is not None else None


def _outside_package(head: str, environment: Environment | None) -> bool:
    """Whether a top-level name is a package outside the project that an import may mean: the
    standard library's, the bundled table's tool libraries, the environment's tool libraries."""
    return (
        head in sys.stdlib_module_names
        or head.startswith(_LIBRARY_PREFIXES)
        or (environment is not None and head in environment.packages)
    )


def _relative(module: str, is_package: bool, target: str) -> str:
    level = len(target) - len(target.lstrip("."))
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    rest = target[level:]
    return ".".join([*parts, rest] if rest else parts)


def _best(kinds: list[str | None]) -> str | None:
    if len(kinds) <= 1:  # every kind is in _PRIORITY
        return kinds[0] if kinds else None
    present = set(kinds)
    for k in _PRIORITY:
        if k in present:
            return k
    return None
