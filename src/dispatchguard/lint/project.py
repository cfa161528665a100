"""The project: its files and module names, modules loaded on demand, tool words and the gate.

Nothing is parsed up front. The module table (every module name -> the file that owns it) comes
from the file list. A module is loaded (its summary made, from the cache or by parsing) when a
question reaches it.

**Tool words and candidates.** A *tool word* is a configured base, decorator or package name, or
the name of a binding of a loaded module whose kind is tool-related. A file whose identifiers
include no tool word can neither hold a finding (but for ``._run`` calls) nor make another file's
name tool-related: every route to a tool names one, but for a star import (``STAR_IMPORT``: such a
module is a candidate anyway). :meth:`Project.close_words` therefore scans
the bytes of the files for tool words and loads only the *candidates* that name one, in rounds,
until no new word appears. What the resolver is then told about the project is exactly what a full
index would tell it, at the cost of parsing the candidates only.

**Toolkit members.** A public class member that is a tool (an ``@tool`` method of a toolkit, a class
attribute bound to a tool) names that tool on a receiver of unknown type when nothing else the
project defines has its name (:meth:`Project.tool_member`). The word rounds load every module with
such a member (it names a tool word) and every file that names it (the name becomes a word). A run
without word rounds (focused, the editor path) answers the same by loading, for each member name it
is asked about, the files whose bytes may bind it in a class body (:func:`member_names_in`, one scan
of every file per run) and, once one toolkit tool has the name, every file that names it.

**Import roots.** A module is known by its package name (the ``__init__.py`` chain), its
root-relative dotted path (also without a leading ``src``/``lib``: src layouts, namespace
packages), and its path relative to every *script folder* above it: a folder holding a script
(``main.py``, ``app.py``, ...), which Python puts on ``sys.path``, so that ``from tools.calc import
X`` in ``src/app/main.py`` or ``src/app/crew.py`` finds ``src/app/tools/calc.py``. A primary name
always wins over an alias. Aliases only add names: the word closure is unchanged.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from dispatchguard.lint.config import LintConfig, any_glob
from dispatchguard.lint.discovery import SourceFile
from dispatchguard.lint.environment import find_environment
from dispatchguard.lint.facts import FileFacts
from dispatchguard.lint.index import HOME_GROWN_BASE_NAMES, below_layout, module_names, names_in, summarise
from dispatchguard.lint.kinds import TOOL, TOOL_KINDS
from dispatchguard.lint.library import tool_list_sources
from dispatchguard.lint.member_scan import member_names_in, member_names_of
from dispatchguard.lint.modules import ModuleInfo
from dispatchguard.lint.notebook import virtual_bytes
from dispatchguard.lint.parsing import parse_bytes
from dispatchguard.lint.resolve import TOOL_MEMBERS_DEP, Resolver

PRIVATE_RUN = re.compile(rb"\._a?run\b")
#: A module with ``from module import *`` is a candidate from the first round: the names it
#: re-exports (a package's ``__init__``) reach tools without naming a tool word.
STAR_IMPORT = b"import *"
#: ``from . import name`` (any number of dots): an import that names no module
DOTS_IMPORT = re.compile(rb"from\s+\.+\s+import\b")  # a literal first: the regex engine skips ahead
#: Files run as scripts: their folder is on ``sys.path``, so its files and packages are imported
#: from it (``from tools.calculator import X`` in ``src/app/main.py``).
_FEW_WORDS = 16
SCRIPT_NAMES = frozenset({"main.py", "app.py", "run.py", "cli.py", "server.py", "manage.py", "__main__.py"})

#: What the project knows of a file it loaded: its summary, or why it cannot be checked.
Loaded = tuple[dict[str, Any] | None, list[Any] | None]  # (summary, error [line, col, reason])
#: A file parsed in this run: (key, bytes, tree).
ParsedFile = tuple[str, bytes, ast.Module]


class WordSet:
    """Tool words, and a fast test of whether a file names one of them.

    A word is named when it is one of the file's names (``index.names_in``); a *joint* word (the
    parts of a configured name outside the project, such as ``langchain_core.tools.tool``) when all
    its parts are: a file can only refer to ``tool`` of ``langchain_core.tools`` by naming all three.
    A *scoped* word is a binding of a project module, ``(name, stem)`` with the last part of the
    module's name: another file refers to it by an import naming the module (``from app.tools
    import add``, ``from .tools import add``, ``tools.add``), or by a relative import of dots only
    (``from . import add``), which names no module. So a common tool name (``add``, ``search``)
    no longer makes every file that calls ``set.add`` a candidate.
    """

    def __init__(
        self,
        words: Iterable[str],
        joint: Iterable[tuple[str, ...]] = (),
        scoped: Iterable[tuple[str, str]] = (),
    ) -> None:
        self.words = frozenset(w for w in words if w)
        self.joint = frozenset(parts for parts in joint if parts)
        self.scoped = frozenset((name, stem) for name, stem in scoped if name not in self.words)
        self.encoded = frozenset(w.encode() for w in self.words)
        self.encoded_joint = tuple(tuple(p.encode() for p in parts) for parts in sorted(self.joint))
        stems: dict[bytes, set[bytes]] = {}
        for name, stem in self.scoped:
            stems.setdefault(name.encode(), set()).add(stem.encode())
        self.stems = stems
        #: the module stems the scoped words need: a file naming none of them can only name a scoped
        #: word through a relative import of dots only
        self.scoped_stems = frozenset(stem for needed in stems.values() for stem in needed)
        #: every name that can take part in a match: a file's names are first cut down to these
        self.vocabulary = self.encoded.union(*self.encoded_joint, stems, self.scoped_stems)
        self.few = not self.joint and len(self.encoded) + len(stems) <= _FEW_WORDS

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WordSet) and (self.words, self.joint, self.scoped) == (
            other.words,
            other.joint,
            other.scoped,
        )

    def __hash__(self) -> int:
        return hash((self.words, self.joint, self.scoped))

    def __sub__(self, other: WordSet) -> WordSet:
        return WordSet(self.words - other.words, self.joint - other.joint, self.scoped - other.scoped)

    def __bool__(self) -> bool:
        return bool(self.words or self.joint or self.scoped)

    def named_in(self, data: bytes) -> bool:
        """Whether a name of ``data`` is a word, all the parts of a joint word are, or a scoped
        word is with its module (or with a relative import of dots only)."""
        if self.few and not any(word in data for word in (*self.encoded, *self.stems)):
            return False  # a later round looks for a few new words: a substring search rules most files out
        return self.named_among(self.vocabulary.intersection(names_in(data)), data)

    def named_among(self, names: frozenset[bytes] | set[bytes], data: bytes) -> bool:
        """:meth:`named_in`, given the names of ``data`` (at least those in :attr:`vocabulary`)."""
        if not self.encoded.isdisjoint(names) or any(names.issuperset(parts) for parts in self.encoded_joint):
            return True
        stems = self.stems
        named = [name for name in names if name in stems]
        if not named:
            return False
        return any(not names.isdisjoint(stems[name]) for name in named) or DOTS_IMPORT.search(data) is not None


class Project:
    """The files of a project, its modules (loaded on demand) and the resolver built on them."""

    def __init__(
        self, config: LintConfig, files: Iterable[SourceFile], *, keep_trees: Iterable[str] = ()
    ) -> None:
        """``keep_trees``: the keys of the files whose trees a parse keeps for :meth:`take_parsed`
        (the engine's files to report on); the tree of any other file is dropped once summarised."""
        self.config = config
        self.root = Path(config.root).absolute()
        self.files: dict[str, SourceFile] = {f.key: f for f in files}
        relpaths = [f.relpath for f in self.files.values()]
        self.package_dirs = package_dirs(relpaths)
        self.script_dirs = script_dirs(relpaths)
        self.module_names: dict[str, tuple[str, tuple[str, ...], bool]] = {}
        self.owners: dict[str, str] = {}  # module name -> key of the file that owns it
        self._name_files(list(self.files))
        self.environment, self.environment_reason = find_environment(self.root, config.python)
        if self.environment is not None:
            self.environment.forget_modules()  # a new project: library files are stat'ed again when read
        self.resolver = Resolver(config, self.owners, self, self.environment)
        self.infos: dict[str, ModuleInfo] = {}  # key -> loaded module
        self._defined: dict[str, int] = {}  # name -> how many loaded modules define it (class bodies, top level)
        self._tool_member_quals: dict[str, set[str]] = {}  # member name -> the project's tool members so named
        self._members_stamp: str | None = None  # tool_members_stamp, until a module is loaded
        # without word rounds (focused runs, the editor path): the toolkit members asked about
        self._member_files: dict[str, set[str]] | None = None  # member name -> files that may bind it
        self._members_read: set[str] = set()  # names whose every possible binding was judged
        self._definers_read: set[str] = set()  # names whose every definition is loaded
        self._members_pending: list[ModuleInfo] = []  # modules loaded since, binding one of those names
        self._reread: set[str] = set()  # files that appeared or changed since (unload, register)
        self.known: dict[str, Loaded] = {}  # key -> summary or error, from the cache or a parse
        self.candidates: set[str] | None = None  # None: every module may be loaded by `kind`
        self.keep_trees = frozenset(keep_trees)
        self.fresh: list[ParsedFile] = []  # parsed files of keep_trees, until take_parsed
        self.parsed = 0  # files parsed in this process
        self.walked = 0  # files walked by the rules in this process
        self.seeds = self._seed_words()
        self.top_names = frozenset(name.partition(".")[0] for name in self.owners)
        #: the last part of every module name: what a scoped word's module is named by
        self.module_stems = frozenset(name.rpartition(".")[2].encode() for name in self.owners)

    def _seed_words(self) -> WordSet:
        """The configuration's seed words, and the installed tool libraries' top-level names: a
        file that imports one may name its tools, so it is a candidate."""
        seeds = seed_words(self.config, self.owners)
        if self.environment is None:
            return seeds
        outside = {p for p in self.environment.word_packages if p not in self.owners}
        return WordSet(seeds.words | outside, seeds.joint)

    def _name_files(self, keys: list[str]) -> None:
        """Give the files their module names: primary names first, then the aliases no file owns
        as its primary name (a primary name wins over an alias)."""
        aliased: dict[str, str] = {}
        for key in keys:
            self._name(key, self.files[key], aliased)
        for alias, key in aliased.items():
            self.owners.setdefault(alias, key)
        self._own_primary_names(keys)

    def _name(self, key: str, file: SourceFile, aliased: dict[str, str]) -> None:
        if file.relpath.startswith("/"):
            names = outside_module_name(file.path)
        else:
            names = module_names(file.relpath, self.package_dirs)
            if self.script_dirs:
                names = self._script_aliases(file.relpath, names)
        self.module_names[key] = names
        primary, aliases, _ = names
        if file.relpath.endswith(".ipynb"):  # a notebook is imported by no one: a module file wins its name
            aliased.setdefault(primary, key)
        else:
            self.owners.setdefault(primary, key)
        for alias in aliases:
            aliased.setdefault(alias, key)

    def _script_aliases(
        self, relpath: str, names: tuple[str, tuple[str, ...], bool]
    ) -> tuple[str, tuple[str, ...], bool]:
        """Add the names a file has relative to the script folders above it (nearest first)."""
        primary, aliases, is_package = names
        parts = relpath.split("/")
        stem = parts[-1].rsplit(".", 1)[0]
        dotted = parts[:-1] if is_package else [*parts[:-1], stem]
        extra = list(aliases)
        for depth in range(len(parts) - 1, 0, -1):
            if "/".join(parts[:depth]) in self.script_dirs:
                name = ".".join(dotted[depth:])
                if name and name != primary and name not in extra:
                    extra.append(name)
        return primary, tuple(extra), is_package

    def import_roots(self) -> list[tuple[str, str]]:
        """The folders modules are named from, each with why (``--show-settings``)."""
        relpaths = [f.relpath for f in self.files.values() if not f.relpath.startswith("/")]
        roots = [(".", "the project root")]
        for folder in ("src", "lib"):
            if any(rel.startswith(folder + "/") for rel in relpaths):
                roots.append((folder, f"modules under {folder}/ are also named without it (a {folder} layout)"))
        nested = {_innermost_layout(rel) for rel in relpaths} - {None, "src", "lib"}
        for folder in sorted(nested):  # type: ignore[type-var]
            roots.append((folder, "modules below it are also named from it: a src layout inside the project"))
        scripts: dict[str, list[str]] = {}
        for rel in relpaths:
            folder, _, name = rel.rpartition("/")
            if folder in self.script_dirs and name in SCRIPT_NAMES:
                scripts.setdefault(folder, []).append(name)
        for folder, names in sorted(scripts.items()):
            roots.append((folder, f"holds {', '.join(sorted(names))}: Python puts a script's folder on sys.path"))
        return roots

    def environment_stamp(self) -> list[Any] | None:
        """What the results depend on in the installed environment (None: no environment)."""
        return self.environment.stamp() if self.environment is not None else None

    def register(self, file: SourceFile) -> None:
        """A file checked outside the project's file list (an editor's new buffer, stdin, an
        excluded path): its module takes the names no other file owns."""
        self.files[file.key] = file
        self._name_files([file.key])
        self._reread.add(file.key)
        self.resolver.forget()

    def _own_primary_names(self, keys: list[str]) -> None:
        """A file whose primary name another file owns (two examples' ``my_agent.utils.tools``) is
        known by the first of its names it owns: its own definitions must resolve to it."""
        for key in keys:
            primary, aliases, is_package = self.module_names[key]
            if self.owners.get(primary) == key:
                continue
            own = next((alias for alias in aliases if self.owners.get(alias) == key), None)
            if own is not None:
                rest = tuple(alias for alias in aliases if alias != own)
                self.module_names[key] = (own, (*rest, primary), is_package)

    # ---------------------------------------------------------------- loading (ModuleSource)

    def module(self, name: str, *, any_module: bool) -> ModuleInfo | None:
        """The resolver's :class:`ModuleSource` question: the module of the project module ``name``.

        Summarised on first use (from what is known, or by parsing the file); None when it does not
        parse, or when it is not a candidate and ``any_module`` is false. ``name`` must be in ``owners``.
        """
        key = self.owners[name]
        info = self.infos.get(key)
        if info is not None:
            return info
        if not any_module and self.candidates is not None and key not in self.candidates:
            return None
        return self.load(key)

    def load(self, key: str, data: bytes | None = None) -> ModuleInfo | None:
        """The module of a file, summarised from what is known of it or by parsing it."""
        info = self.infos.get(key)
        if info is not None:
            return info
        summary, _ = self.known.get(key) or self.parse(key, data)
        if summary is None:
            return None
        return self.add(key, summary)

    def parse(self, key: str, data: bytes | None = None) -> Loaded:
        """Read and parse a file (once per run); the tree of a file of ``keep_trees`` is kept for
        :meth:`take_parsed`, any other is dropped once summarised."""
        if data is None:
            try:
                data = virtual_bytes(self.files[key].path)
            except OSError as exc:
                loaded: Loaded = (None, [1, 1, f"cannot read the file: {exc.strerror or exc}"])
                self.known[key] = loaded
                return loaded
        tree, error = parse_bytes(data)
        self.parsed += 1
        loaded = (summarise(tree) if tree is not None else None, error)
        self.known[key] = loaded
        if tree is not None and key in self.keep_trees:
            self.fresh.append((key, data, tree))
        return loaded

    def take_parsed(self) -> list[ParsedFile]:
        """The files of ``keep_trees`` parsed since the last call, in the order parsed, with their
        bytes and trees; the project keeps them no longer. Parsing happens wherever a question
        reaches a module not loaded yet (a walk's, a lookup's): the caller takes the trees after
        each step that may ask one."""
        fresh, self.fresh = self.fresh, []
        return fresh

    def load_all(self, found: Iterable[tuple[str, bytes | None]]) -> None:
        """Load files one after the other, each ``(key, data)`` from its bytes when given."""
        for key, data in found:
            self.load(key, data)

    def add(self, key: str, summary: dict[str, Any]) -> ModuleInfo:
        """Make ``summary`` the loaded module of file ``key`` and return it; the resolver's memo is dropped."""
        name, aliases, is_package = self.module_names[key]
        info = ModuleInfo(name, is_package, summary, aliases)
        old = self.infos.get(key)
        if old is not None:  # a buffer replaces the file's summary
            self._count_definitions(old, -1)
        self.infos[key] = info
        self._count_definitions(info, 1)
        self._members_stamp = None
        if self._member_files is not None and key in self.files:
            names = member_names_of(info.members)
            self._index_members(key, names)
            if not self._members_read.isdisjoint(names):
                self._members_pending.append(info)
        self.resolver.forget()
        return info

    def unload(self, key: str) -> None:
        """Forget what was loaded or known of a file (it changed on disk, an editor's buffer
        replaces it): the next question that reaches it reads it again."""
        old = self.infos.pop(key, None)
        if old is not None:
            self._count_definitions(old, -1)
            prefix = f"{old.name}." if old.name else ""
            for cls, members in old.members.items():
                for name in members:
                    self._tool_member_quals.get(name, set()).discard(f"{prefix}{cls}.{name}")
            self._members_stamp = None
        self.known.pop(key, None)
        self._reread.add(key)
        self.resolver.forget()

    def _member_index(self) -> dict[str, set[str]]:
        """Member name -> the files of the project that may bind it in a class body, from what is
        loaded or known of a file, else from its bytes (:func:`member_names_in`); made once, kept
        up to date by :meth:`add`."""
        index = self._member_files
        if index is None:
            index = self._member_files = {}
            for key in list(self.files):
                info = self.infos.get(key)
                summary = (self.known.get(key) or (None, None))[0]
                if info is not None or summary is not None:
                    members = info.members if info is not None else summary.get("members", {})  # type: ignore[union-attr]
                    self._index_members(key, member_names_of(members))
                elif key not in self.known:  # else it does not parse: it binds nothing
                    try:
                        data = virtual_bytes(self.files[key].path)
                    except OSError:
                        continue
                    self._index_members(key, member_names_in(data))
        return index

    def _index_members(self, key: str, names: Iterable[str]) -> None:
        index = self._member_files
        assert index is not None
        for name in names:
            index.setdefault(name, set()).add(key)

    def _know_member(self, name: str) -> None:
        """Without word rounds, make :meth:`tool_member`'s answer for ``name`` what a run with them
        gives: every file of the project that may bind ``name`` in a class body is loaded and its
        binding judged (the word rounds load every module with a tool member: it names a tool
        word); once one toolkit tool has the name, every file that names it is loaded, so that its
        definitions are counted (the rounds load those too: the name is a tool word)."""
        if self._reread:
            self._read_again()
        if name not in self._members_read:
            self._members_read.add(name)
            for key in sorted(self._member_index().get(name, ())):
                info = self.load(key)
                if info is not None:
                    self._judge_member(info, name)
        while self._members_pending:  # loaded since: judged for every name asked about
            info = self._members_pending.pop()
            for asked in self._members_read.intersection(member_names_of(info.members)):
                self._judge_member(info, asked)
        if len(self._tool_member_quals.get(name, ())) == 1 and name not in self._definers_read:
            self._definers_read.add(name)
            self._load_definers(name)

    def _load_definers(self, name: str) -> None:
        """Load every file of the project not loaded yet that may define ``name``: its known
        summary does, or its bytes name it."""
        word = name.encode()
        for key in list(self.files):
            if key in self.infos:
                continue
            known = self.known.get(key)
            if known is not None:
                summary = known[0]
                if summary is not None and (name in summary.get("attrs", ()) or name in summary["defs"]):
                    self.load(key)
                continue
            try:
                data = virtual_bytes(self.files[key].path)
            except OSError:
                continue
            if word in data and word in names_in(data):
                self.load(key, data)

    def _read_again(self) -> None:
        """Files that appeared or changed since the member questions began and are not loaded
        again: indexed anew, and loaded when they may bind or define a name asked about."""
        reread, self._reread = self._reread, set()
        if self._member_files is None:
            return  # the index, once made, reads them as they are
        for key in sorted(reread):
            if key in self.infos or key not in self.files:
                continue  # loaded again since: add() indexed it
            try:
                data = virtual_bytes(self.files[key].path)
            except OSError:
                continue
            names = member_names_in(data)
            self._index_members(key, names)
            defined = self._definers_read and not {n.encode() for n in self._definers_read}.isdisjoint(names_in(data))
            if defined or not self._members_read.isdisjoint(names):
                info = self.load(key, data)
                if info is not None:
                    for asked in self._members_read.intersection(member_names_of(info.members)):
                        self._judge_member(info, asked)

    def _judge_member(self, info: ModuleInfo, name: str) -> None:
        """Note the tool members named ``name`` of ``info``'s classes (as :meth:`_tool_members`)."""
        kind = self.resolver.kind
        prefix = f"{info.name}." if info.name else ""
        for cls, members in info.members.items():
            qual = f"{prefix}{cls}.{name}"
            if name in members and kind(qual) == TOOL:
                quals = self._tool_member_quals.setdefault(name, set())
                if qual not in quals:
                    quals.add(qual)
                    self._members_stamp = None

    def tool_members_stamp(self) -> str:
        """A stamp of the answers :meth:`tool_member` gives now: empty when the project has no
        toolkit member, else a digest of each member name with its answer. Memoised until a module
        is loaded or the words change."""
        stamp = self._members_stamp
        if stamp is None:
            answers = sorted((name, self.tool_member(name) or "") for name in self._tool_member_quals)
            stamp = hashlib.blake2b(repr(answers).encode(), digest_size=8).hexdigest() if answers else ""
            self._members_stamp = stamp
        return stamp

    def _count_definitions(self, info: ModuleInfo, step: int) -> None:
        defined = self._defined
        for name in (*info.attrs, *info.defs):
            defined[name] = defined.get(name, 0) + step

    # ---------------------------------------------------------------- words

    def words(self) -> WordSet:
        """The seeds and every tool-related binding name of the loaded modules: scoped by its
        module for a definition or a project import in a project module, plain otherwise."""
        words = set(self.seeds.words)
        scoped: set[tuple[str, str]] = set()

        def keep(name: str, stem: str) -> None:
            if stem:
                scoped.add((name, stem))
            else:
                words.add(name)

        for key, info in list(self.infos.items()):
            stem = info.name.rpartition(".")[2] if key in self.files and info.name else ""
            # each name is looked up only while it is no word yet: the generators see ``words`` grow
            for name in self._tool_bindings(info, words):
                keep(name, stem)
            if key in self.files:  # a toolkit's tool member is reached through any receiver
                words.update(self._tool_members(info))
            for name, inside_target in self._tool_imports(info, words):
                # an installed library's tool is imported by its own name from anywhere
                keep(name, stem if inside_target else "")
        self._star_exports(scoped, keep)
        return WordSet(words, self.seeds.joint, scoped)

    def _tool_bindings(self, info: ModuleInfo, words: set[str]) -> Iterator[str]:
        """The names of ``info``'s definitions and classes that are tool-related (a class is when
        its body binds tools), but those in ``words``."""
        kind = self.resolver.kind
        prefix = f"{info.name}." if info.name else ""
        for name, descs in info.defs.items():
            if name not in words and _may_be_tool_related(descs) and kind(prefix + name) in TOOL_KINDS:
                yield name
        for name, members in info.members.items():
            if name not in words and any(kind(f"{prefix}{name}.{attr}") in TOOL_KINDS for attr in members):
                yield name

    def _tool_members(self, info: ModuleInfo) -> Iterator[str]:
        """The names of the tool members of ``info``'s classes (``@tool`` static methods of a
        toolkit, class attributes bound to tools), noted for :meth:`tool_member`: plain words, as a
        file reaches them on any receiver."""
        kind = self.resolver.kind
        prefix = f"{info.name}." if info.name else ""
        for name, members in info.members.items():
            for attr in members:
                qual = f"{prefix}{name}.{attr}"
                if not attr.startswith("_") and kind(qual) == TOOL:
                    quals = self._tool_member_quals.setdefault(attr, set())
                    if qual not in quals:
                        quals.add(qual)
                        self._members_stamp = None
                    yield attr

    def tool_member(self, name: str) -> str | None:
        """The qualified name of the one tool member of a project class named ``name`` (a toolkit's
        ``@tool`` method or tool attribute), when no other definition of the project's modules has
        that name (a method or class attribute of another class, a top-level function; the
        libraries' definitions are not counted) and no built-in type's member does; else None.
        Every file that defines the name names it: the word rounds load it once the words are
        complete; without them, :meth:`_know_member` loads it."""
        if name in _BUILTIN_MEMBERS or name.startswith("_"):
            return None
        if self.candidates is None:  # no word rounds: the files that may hold the answer are loaded now
            self._know_member(name)
        quals = self._tool_member_quals.get(name)
        if quals is None or len(quals) != 1 or self._defined.get(name, 0) != 1:
            return None
        return next(iter(quals))

    def _tool_imports(self, info: ModuleInfo, words: set[str]) -> Iterator[tuple[str, bool]]:
        """The names ``info`` imports that are tool-related, but those in ``words``, each with
        whether it comes from the project (a relative import, or one of its top-level names)."""
        kind = self.resolver.kind
        prefix = f"{info.name}." if info.name else ""
        for name, target in info.imports.items():
            if name not in words and kind(prefix + name) in TOOL_KINDS:
                yield name, target.startswith(".") or target.partition(".")[0] in self.top_names

    def _star_exports(self, scoped: set[tuple[str, str]], keep: Callable[[str, str], None]) -> None:
        """A module re-exports the names of the modules it star-imports (``from .orders import *``
        in ``app/tools/__init__.py``): a file reaches them naming that module (``app.tools``)."""
        exporters = [
            (info.name.rpartition(".")[2], frozenset(self._module_stem(info, target) for target in info.stars))
            for key, info in self.infos.items()
            if info.stars and key in self.files
        ]
        done: set[tuple[str, str]] = set()
        grown = bool(exporters)
        while grown:  # chains of star imports: until nothing is added
            grown = False
            for stem, sources in exporters:
                for name, source in list(scoped):
                    if source in sources and (name, stem) not in done:
                        done.add((name, stem))
                        keep(name, stem)
                        grown = True

    def _module_stem(self, info: ModuleInfo, target: str) -> str:
        """The last name part of the module an import of ``info`` names (``.orders``, ``app.tools``,
        or ``.`` resolved to the package)."""
        name = target if target.strip(".") else self.resolver.absolute(info, target)
        return name.rpartition(".")[2]

    def close_words(
        self,
        scan: Callable[[WordSet, WordSet | None], Iterable[tuple[str, bytes | None]]],
        load: Callable[[list[tuple[str, bytes | None]]], None] | None = None,
    ) -> WordSet:
        """Load the candidates, in rounds, until the tool words are complete; return them.

        ``scan(words, previous)`` yields ``(key, data)`` for the files not loaded yet that name one of
        ``words`` (only those not in ``previous`` need looking for), with their bytes when read;
        ``load`` loads a round's candidates, all of them (by default one after the other).
        """
        load = load or self.load_all
        self.candidates = set(self.infos)
        previous: WordSet | None = None
        words = self.seeds
        while True:
            found = list(scan(words, previous))
            self.candidates.update(key for key, _ in found)
            load(found)
            previous, words = words, self.words()
            if words == previous:  # loading only ever adds words
                return words

    # ---------------------------------------------------------------- per-file settings

    def facts(self, relpath: str) -> FileFacts:
        """What the rules' ``exempt`` judges a file by: whether it is a test or a tool module (globs)."""
        config = self.config
        return FileFacts(relpath, any_glob(config.test_patterns, relpath), any_glob(config.tool_modules, relpath))

    def deps_valid(
        self, deps: Iterable[list[Any]], class_deps: Iterable[list[Any]], return_deps: Iterable[list[Any]] = ()
    ) -> bool:
        """Whether a walk's recorded lookups still hold: each kind, full kind and return verdict is
        what the resolver answers now (which may load modules). A cached or speculative result is
        kept only then.
        """
        resolver = self.resolver
        kind, full_kind, returns = resolver.kind, resolver.full_kind, resolver.function_returns
        return (
            all((self.tool_members_stamp() if q == TOOL_MEMBERS_DEP else kind(q)) == k for q, k in deps)
            and all(full_kind(q) == k for q, k in class_deps)
            and all(returns(q) == v for q, v in return_deps)
        )


def _innermost_layout(relpath: str) -> str | None:
    """The innermost ``src``/``lib`` folder above a root-relative path (:func:`.index.module_names`
    also names the module from there), or None."""
    parts = relpath.split("/")
    below = below_layout(parts)
    return "/".join(parts[: len(parts) - len(below)]) if below is not None else None


def package_dirs(relpaths: Iterable[str]) -> frozenset[str]:
    """The folders (relative to the root, ``""`` for the root) that hold an ``__init__.py``."""
    return frozenset(
        rel[: -len("/__init__.py")] if "/" in rel else ""
        for rel in relpaths
        if rel.endswith("/__init__.py") or rel == "__init__.py"
    )


def script_dirs(relpaths: Iterable[str]) -> frozenset[str]:
    """The *script folders* below the root: those holding a script (:data:`SCRIPT_NAMES`) or a
    notebook (Jupyter runs it in its folder)."""
    return frozenset(
        rel.rpartition("/")[0]
        for rel in relpaths
        if "/" in rel and not rel.startswith("/")
        and (rel.rpartition("/")[2] in SCRIPT_NAMES or rel.endswith(".ipynb"))
    )  # fmt: skip


def seed_words(config: LintConfig, project_modules: Iterable[str] = ()) -> WordSet:
    """The words every route to a tool starts from: the configured bases, decorators and packages,
    and the libraries' functions and classes that make lists of tools.

    A configured name outside the project is a joint word of all its parts (its references name
    them all, in an import or an attribute chain); a bare name is the word it is. A base or
    decorator inside the project (which the project's own modules may import relatively) is the
    word of its last part. A package inside the project needs no seed: its modules' bindings are
    resolved from their summaries, like any module of the project.
    """
    modules = frozenset(project_modules)
    words: set[str] = set(HOME_GROWN_BASE_NAMES)  # a project's own tool base is found by its name
    joint: set[tuple[str, ...]] = set()
    # load_tools(...), toolkit.get_tools(): tools without a tool class's name (a library inside the
    # project is read like any of its modules)
    joint.update(tuple(sorted(pair)) for pair in tool_list_sources() if pair[0] not in modules)
    packages = frozenset(config.tool_packages)
    for entry in (*config.tool_bases, *config.tool_decorators, *packages):
        parts = [p for p in entry.split(".") if p]
        if not parts:
            continue
        inside = any(".".join(parts[:i]) in modules for i in range(1, len(parts) + 1))
        if len(parts) == 1 and not (inside and entry in packages):
            words.add(parts[0])
        elif inside:
            if entry not in packages:
                words.add(parts[-1])
        else:
            joint.add(tuple(sorted(set(parts))))
    return WordSet(words, joint)


def _may_be_tool_related(descs: list[Any]) -> bool:
    """Whether a name bound by these summary descriptions may be tool-related: undecorated functions
    and classes without bases (but tool bases) never are."""
    return any(d[1] or len(d) > 2 for d in descs if d[0] in ("def", "class")) or any(
        d[0] not in ("def", "class") for d in descs
    )


def may_have_findings(data: bytes, words: WordSet) -> bool:
    """The gate: False when a file names no tool word and calls no ``._run``/``._arun``."""
    return calls_private_run(data) or words.named_in(data)


def calls_private_run(data: bytes) -> bool:
    """Whether the bytes name a ``._run``/``._arun`` call (DG101 reports those even without a tool word)."""
    return b"run" in data and PRIVATE_RUN.search(data) is not None


def outside_module_name(path: Path) -> tuple[str, tuple[str, ...], bool]:
    """The module name of a file outside the project root: its package chain on disk."""
    parts = [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    is_package = path.stem == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), (), is_package


#: the members of the built-in types (``dict.get``, ``str.format``): never only a toolkit's
_BUILTIN_MEMBERS = frozenset(
    name for t in (object, dict, list, tuple, set, frozenset, str, bytes, int, float, type) for name in dir(t)
)
