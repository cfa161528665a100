"""Phase 2a: resolution of tool classes, tools and registries across the whole project.

A :class:`Resolver` holds every module's summary and answers ``kind(qualified_name)``:

- ``"class"``: a tool class (derives from a configured tool base through any chain, or is a
  class from a configured tool package);
- ``"tool"``: a tool object (an instance of a tool class, a function decorated with a tool
  decorator, an item of a registry, a name annotated with a tool class);
- ``"registry"``: a container whose values are tools;
- ``"decorator"``: a configured tool decorator;
- ``None``: anything else (unknown names are never tools: precision first).

Imports and aliases are followed across modules, relative imports resolved, cycles cut.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from dispatchguard.lint.config import LintConfig
from dispatchguard.lint.index import ITEM_METHODS

CLASS = "class"
TOOL = "tool"
REGISTRY = "registry"
DECORATOR = "decorator"
PLAIN_CLASS = "plain-class"  # any other class of the project (DG103: returning an instance is not JSON)
_PRIORITY = (CLASS, TOOL, REGISTRY, DECORATOR, PLAIN_CLASS)
TOOL_KINDS = frozenset({CLASS, TOOL, REGISTRY, DECORATOR})
_TEXT_BASES = frozenset({"str", "bytes", "UserString"})
_MAX_DEPTH = 60


class ModuleInfo:
    __slots__ = ("name", "aliases", "is_package", "imports", "defs")

    def __init__(self, name: str, is_package: bool, summary: dict[str, Any], aliases: tuple[str, ...] = ()) -> None:
        self.name = name
        self.aliases = aliases
        self.is_package = is_package
        self.imports: dict[str, str] = summary["imports"]
        self.defs: dict[str, list] = summary["defs"]


def _split_names(entries: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    qualified = frozenset(e for e in entries if "." in e)
    bare = frozenset(e for e in entries if "." not in e)
    return qualified, bare


class Resolver:
    def __init__(self, config: LintConfig) -> None:
        self.config = config
        self.modules: dict[str, ModuleInfo] = {}
        self._aliases: set[str] = set()
        self._memo: dict[str, str | None] = {}
        self._depth = 0
        self._bases, self._bare_bases = _split_names(config.tool_bases)
        self._decorators, self._bare_decorators = _split_names(config.tool_decorators)
        self._packages = tuple(config.tool_packages)
        self._words: frozenset[str] | None = None
        self._words_digest: tuple[frozenset[str], str] | None = None

    # ---------------------------------------------------------------- building

    def add_module(
        self, name: str, aliases: Iterable[str], is_package: bool, summary: dict[str, Any], *, replace: bool = False
    ) -> ModuleInfo:
        """Add a module; a primary name taken already wins over a later one unless ``replace``."""
        aliases = tuple(aliases)
        info = ModuleInfo(name, is_package, summary, aliases)
        if replace or name not in self.modules or name in self._aliases:
            self.modules[name] = info
            self._aliases.discard(name)
        for alias in aliases:
            if alias not in self.modules:
                self.modules[alias] = info
                self._aliases.add(alias)
        self._memo.clear()
        self._words = None
        return info

    # ---------------------------------------------------------------- names

    def absolute(self, info: ModuleInfo, target: str) -> str:
        """Resolve a relative import target (leading dots) against the importing module."""
        if not target.startswith("."):
            return target
        level = len(target) - len(target.lstrip("."))
        parts = info.name.split(".") if info.name else []
        if not info.is_package:
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
        rest = target[level:]
        return ".".join([*parts, rest] if rest else parts)

    def local_qual(self, info: ModuleInfo, name: str) -> str | None:
        """The qualified name a dotted expression written in module ``info`` refers to."""
        head, _, tail = name.partition(".")
        target = info.imports.get(head)
        if target is not None:
            base = self.absolute(info, target)
        elif head in info.defs:
            base = f"{info.name}.{head}" if info.name else head
        else:
            return None
        return f"{base}.{tail}" if tail else base

    def split(self, qual: str) -> tuple[ModuleInfo | None, list[str]]:
        modules = self.modules
        head = qual
        while True:  # the longest prefix that is a module, without joining the parts again
            info = modules.get(head)
            if info is not None:
                return info, qual[len(head) + 1 :].split(".") if len(head) < len(qual) else []
            cut = head.rfind(".")
            if cut < 0:
                return None, qual.split(".")
            head = head[:cut]

    # ---------------------------------------------------------------- kinds

    def is_tool_base(self, qual: str) -> bool:
        return qual in self._bases or qual.rsplit(".", 1)[-1] in self._bare_bases

    def is_tool_decorator(self, qual: str) -> bool:
        return qual in self._decorators or qual.rsplit(".", 1)[-1] in self._bare_decorators

    def external_kind(self, qual: str) -> str | None:
        if self.is_tool_base(qual):
            return CLASS
        if self.is_tool_decorator(qual):
            return DECORATOR
        for package in self._packages:
            if qual.startswith(package + "."):
                last = qual.rsplit(".", 1)[-1]
                if last[:1].isupper() and not last.isupper():
                    return CLASS
        return None

    def kind(self, qual: str) -> str | None:
        try:
            return self._memo[qual]
        except KeyError:
            pass
        if self._depth > _MAX_DEPTH:
            return None
        self._memo[qual] = None  # cycle guard
        self._depth += 1
        try:
            result = self._compute(qual)
        finally:
            self._depth -= 1
        self._memo[qual] = result
        return result

    def _compute(self, qual: str) -> str | None:
        if qual in self._bases:  # a configured base may live in the project itself
            return CLASS
        if qual in self._decorators:
            return DECORATOR
        info, rest = self.split(qual)
        if info is None or not rest:
            return self.external_kind(qual) if info is None else None
        head, tail = rest[0], rest[1:]
        found: list[str | None] = []
        target = info.imports.get(head)
        if target is not None:
            found.append(self.kind(".".join([self.absolute(info, target), *tail])))
        if not tail:
            for desc in info.defs.get(head, ()):
                found.append(self.desc_kind(info, desc))
        else:
            found.append(self.external_kind(qual))
        return _best(found)

    def desc_kind(self, info: ModuleInfo, desc: list) -> str | None:
        tag = desc[0]
        if tag == "ref":
            return self.name_kind(info, desc[1])
        if tag == "call":
            return self.call_kind(info, desc[1])
        if tag == "class":
            for base in desc[1]:
                qual = self.local_qual(info, base)
                if (self.kind(qual) if qual else self.external_bare(base)) == CLASS:
                    return CLASS
            if any(base.rsplit(".", 1)[-1] in _TEXT_BASES for base in desc[1]):
                return None  # a str subclass may well hold JSON text
            return PLAIN_CLASS
        if tag == "def":
            for decorator in desc[1]:
                qual = self.local_qual(info, decorator) or decorator
                if self.kind(qual) == DECORATOR or self.is_tool_decorator(qual):
                    return TOOL
            return None
        if tag == "item":
            return TOOL if self.desc_kind(info, desc[1]) == REGISTRY else None
        if tag == "coll":
            kinds = {self.desc_kind(info, d) for d in desc[1]}
            return REGISTRY if TOOL in kinds else None
        if tag == "ann":
            return self.annotation_kind(lambda n: self.name_kind(info, n), desc)
        return None

    @staticmethod
    def annotation_kind(name_kind: Any, desc: list) -> str | None:
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

    def name_kind(self, info: ModuleInfo, name: str) -> str | None:
        qual = self.local_qual(info, name)
        return self.kind(qual) if qual else self.external_bare(name)

    def call_kind(self, info: ModuleInfo, callee: str) -> str | None:
        qual = self.local_qual(info, callee)
        if qual is None:
            return None
        return self.result_of_call(qual, self.kind)

    @staticmethod
    def result_of_call(qual: str, kind: Any) -> str | None:
        """What calling ``qual`` gives: a tool for a tool class, a tool decorator, a registry lookup
        (``REG.get``) or a tool class factory (``StructuredTool.from_function``)."""
        k = kind(qual)
        if k in (CLASS, DECORATOR):
            return TOOL
        parent, _, attr = qual.rpartition(".")
        if parent and (attr.startswith("from_") or attr in ITEM_METHODS):
            pk = kind(parent)
            if (pk == CLASS and attr.startswith("from_")) or (pk == REGISTRY and attr in ITEM_METHODS):
                return TOOL
        return None

    # ---------------------------------------------------------------- project-wide facts

    def words(self) -> frozenset[str]:
        """Every identifier through which a file could reach a tool-related object.

        A file that mentions none of these (and no ``_run``/``_arun``) cannot have a finding, so the
        checker skips its tree walk. Sound because every route to a tool names one of them: a
        binding name of a tool, class, registry or decorator anywhere in the project, or a
        component of a configured base, decorator or package name.
        """
        if self._words is None:
            words: set[str] = set()
            for entry in (*self.config.tool_bases, *self.config.tool_decorators):
                words.add(entry.rsplit(".", 1)[-1])
            for package in self.config.tool_packages:
                words.add(package.split(".", 1)[0])
            seen: set[int] = set()
            for info in self.modules.values():
                if id(info) in seen:
                    continue
                seen.add(id(info))
                prefix = f"{info.name}." if info.name else ""
                for name, descs in info.defs.items():
                    # undecorated functions and classes without bases are never tool-related
                    if any(d[1] for d in descs if d[0] in ("def", "class")) or any(
                        d[0] not in ("def", "class") for d in descs
                    ):
                        if self.kind(prefix + name) in TOOL_KINDS:
                            words.add(name)
                for name in info.imports:
                    if self.kind(prefix + name) in TOOL_KINDS:
                        words.add(name)
            self._words = frozenset(w for w in words if w)
        return self._words

    def words_digest(self) -> str:
        words = self.words()
        if self._words_digest is None or self._words_digest[0] is not words:
            self._words_digest = (words, hashlib.sha256("\n".join(sorted(words)).encode()).hexdigest()[:24])
        return self._words_digest[1]


def _best(kinds: list[str | None]) -> str | None:
    if len(kinds) <= 1:  # every kind is in _PRIORITY
        return kinds[0] if kinds else None
    present = set(kinds)
    for k in _PRIORITY:
        if k in present:
            return k
    return None
