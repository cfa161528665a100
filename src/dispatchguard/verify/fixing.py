"""``dispatchguard fix --verify``: a fix after which a tool works worse than before is taken back.

The fixes are applied as usual; then the tools of the files they changed (less those
``[tool.dispatchguard.verify] exclude`` names, as for ``dispatchguard verify``) are verified twice
with the same seed, on the fixed files and on the originals (written back for the while, then the
fixed bytes again), by one fork server that imports the project's libraries once for both runs.
A file in which a tool got worse gets its original bytes back, and the report says which tool and
why. A tool got worse when it:

- kept the contract before and no longer does (a violation, a crash, a hang);
- could be built before and no longer can;
- answered a value before (a dict, say: the finding the fix was for) and now raises, crashes or
  hangs: the fix turned a wrong answer into no answer (``json.dumps`` of a ``datetime``).

When the project has a dispatcher of its own that ``fix`` can call (the configured
``dispatchers``, else the dispatch point ``check`` detects, of the shapes DG101's fix calls: ``f(name,
args)``, ``INSTANCE.method(name, args)``, ``f(Action(name=..., args=...))``), each tool it serves
under exactly one registered name is also called *through it*, in the same worker, after the
tool's own calls: the fixed files' run draws the arguments from the tool's schema, the originals'
run sends the same ones (twice each: an answer that differs between two calls is not compared).
A file after whose fix the dispatcher answers differently for the same arguments is taken back
too (issue 35, property 1), unless its answer was not JSON text before and is now: the fix made
the dispatcher keep the contract (failure prose becoming the error object).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dispatchguard.atomic import atomic_write
from dispatchguard.fix.report import FixReport, SkippedFix
from dispatchguard.lint.config import LintConfig
from dispatchguard.lint.tool_facts import Dispatcher, ToolFacts, Unknown
from dispatchguard.verify.discover import ToolTarget, verify_targets
from dispatchguard.verify.runner import ToolReport, VerifyOptions, shared_server, verify_tools

#: Statuses in which a tool gave no answer at all.
_NO_ANSWER = ("crashed", "hung", "error")


def regression(was: ToolReport, now: ToolReport) -> str | None:
    """How a tool got worse from ``was`` (the originals) to ``now`` (the fixed files), or None."""
    if was.status == "not_built":
        return None
    if now.status == "not_built":
        return f"it can no longer be built ({now.detail})"
    if was.status == "verified" and now.status != "verified":
        return f"it kept the contract before; now {now.status}: {now.detail}"
    answered = was.status == "violation" and not was.detail.startswith("raised")
    if answered and (now.status in _NO_ANSWER or now.detail.startswith("raised")):
        return f"it answered a value before; now {now.status}: {now.detail}"
    return None


def verify_fixes(
    apply: Callable[[], FixReport],
    paths: Sequence[str | os.PathLike[str]],
    config: LintConfig,
    options: VerifyOptions,
    *,
    jobs: int = 1,
) -> FixReport:
    """Run ``apply`` (the fixer) over ``paths``, then take back the files whose fix made a tool
    worse (see the module docstring); their fixes are reported as skipped, with why."""
    from dispatchguard.lint.discovery import walk

    originals = {path: path.read_bytes() for path in walk(list(paths), config, Path(config.root))}
    report = apply()
    fixed = {path: data for path, old in originals.items() if (data := _read(path)) not in (old, None)}
    if not fixed:
        return report
    targets = verify_targets([str(path) for path in fixed], config)
    if not targets:
        return report
    plans = dispatch_plans(targets, config)
    with shared_server(targets, options) as server:  # the frameworks imported once for both runs
        after = verify_tools(targets, dataclasses.replace(options, dispatch=plans), jobs=jobs, server=server)
        for path in fixed:
            atomic_write(path, originals[path])
        try:
            replayed = dataclasses.replace(options, dispatch=replay_plans(plans, after))
            before = verify_tools(targets, replayed, jobs=jobs, server=server)
        finally:
            for path, data in fixed.items():
                atomic_write(path, data)
    worse: dict[Path, str] = {}
    for was, now in zip(before, after, strict=True):
        why = regression(was, now)
        plan = plans.get(now.target.label)
        if why is None and plan is not None:
            why = dispatcher_change(was, now, plan)
        if why is not None:  # paths are shown as the checker shows them: relative to the cwd
            file = Path(now.target.path).resolve()
            worse.setdefault(file, f"taken back by --verify: the fix made tool `{now.target.label}` worse: {why}")
    taken_back = [path for path in fixed if path.resolve() in worse]
    for path in taken_back:
        atomic_write(path, originals[path])
    return _without(report, worse, taken_back, config)


def dispatcher_change(was: ToolReport, now: ToolReport, plan: dict[str, Any]) -> str | None:
    """How the project's dispatcher answers differently for the tool after the fix (``now``) than
    before (``was``) for the same arguments, or None. Not compared: arguments the run before did
    not get to, an answer that differed between its two calls before (time, chance), and an answer
    that was not JSON text before and is now (the fix made the dispatcher keep the contract)."""
    answered = {_canonical(r.get("arguments")): r.get("answers") or [] for r in was.dispatched}
    for record in now.dispatched:
        old = answered.get(_canonical(record.get("arguments")))
        new = record.get("answers") or []
        if not old or not new or any(a != old[0] for a in old[1:]):
            continue
        if new[0] == old[0] or (_json_text(new[0]) and not _json_text(old[0])):
            continue
        return (
            f"the project's dispatcher `{plan['label']}` answers differently for `{plan['name']}` with "
            f"{_canonical(record.get('arguments'))}: before {_answer(old[0])}, now {_answer(new[0])}"
        )
    return None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def _json_text(answer: dict[str, Any]) -> bool:
    if answer.get("type") != "str" or not isinstance(answer.get("text"), str):
        return False
    try:
        json.loads(answer["text"])
    except ValueError:
        return False
    return True


def _answer(answer: dict[str, Any]) -> str:
    """An answer as the reason shows it: its text (cut), or what it raised, or the timeout."""
    if answer.get("timeout"):
        return "no answer in time"
    if answer.get("raised") is not None:
        return f"raised {answer['raised']}"
    text = answer.get("text") if answer.get("type") == "str" else answer.get("shown")
    shown = repr(text)
    return shown if len(shown) <= 120 else shown[:117] + "..."


def replay_plans(plans: dict[str, dict[str, Any]], after: list[ToolReport]) -> dict[str, dict[str, Any]]:
    """The plans of the originals' run: the arguments the fixed files' run sent, each twice."""
    sent = {r.target.label: [d.get("arguments") for d in r.dispatched] for r in after}
    return {label: {**plan, "arguments": sent.get(label, []), "repeat": 2} for label, plan in plans.items()}


def dispatch_plans(targets: Sequence[ToolTarget], config: LintConfig) -> dict[str, dict[str, Any]]:
    """Tool label -> how the worker calls the project's dispatcher for it (``job["dispatch"]``, see
    worker.py), for the tools a dispatcher of the project's own serves under exactly one name."""
    from dispatchguard.lint.engine import project_files

    files = project_files([config.root], config)[0]
    facts = ToolFacts(config, files)
    dispatchers = _own_dispatchers(facts)
    if not dispatchers and not config.dispatchers_configured:
        inferred = _inferred_entries(config, facts)
        if inferred:
            facts = ToolFacts(dataclasses.replace(config, dispatchers=(*config.dispatchers, *inferred)), files)
            dispatchers = _own_dispatchers(facts)
    plans: dict[str, dict[str, Any]] = {}
    for target in targets:
        for dispatcher in dispatchers:
            names = _served_names(facts, target, dispatcher)
            if len(names) == 1:
                plans[target.label] = _plan(facts, dispatcher, names.pop())
                break
    return plans


def _own_dispatchers(facts: ToolFacts) -> list[Dispatcher]:
    found = facts.dispatchers
    return [] if isinstance(found, Unknown) else [d for d in found if not d.runtime]


def _inferred_entries(config: LintConfig, facts: ToolFacts) -> list[str]:
    """The dispatch points ``check`` detects (no ``dispatchers`` configured), as entries of
    ``dispatchers``: ``module.function`` or ``module.Class.method``."""
    from dispatchguard.lint import check_paths

    keys = {Path(key).resolve(): key for key in facts.project.files}
    entries = []
    for shown, _, function in check_paths([str(config.root)], config, nested=False).dispatch_points:
        key = keys.get(Path(shown).resolve())
        if key is not None and function != "<module>" and function.count(".") <= 1:
            entries.append(f"{facts.module_name(key)}.{function}")
    return list(dict.fromkeys(entries))


def _served_names(facts: ToolFacts, target: ToolTarget, dispatcher: Dispatcher) -> set[str]:
    """The names ``dispatcher`` serves ``target`` under (registry keys, through the fix's index)."""
    qual = f"{target.module}.{target.name}"
    if target.kind == "entry":
        return {str(target.key)} if facts.reads(dispatcher, facts.canonical(qual)) else set()
    if target.kind == "class":
        return set(facts.registered_names(qual, None, dispatcher))
    if target.kind == "object":
        return set(facts.registered_names(facts.instance_class(qual), qual, dispatcher))
    return set()


def _plan(facts: ToolFacts, dispatcher: Dispatcher, name: str) -> dict[str, Any]:
    action = None
    if dispatcher.action is not None:
        module, _, cls = dispatcher.action[0].rpartition(".")
        action = [module, cls, dispatcher.action[1], dispatcher.action[2]]
    key = facts.module_key(dispatcher.module)
    depth = dispatcher.module.count(".") + (1 if key is not None and key.endswith("/__init__.py") else 0)
    root = str(Path(key).parents[depth]) if key is not None else None
    return {"module": dispatcher.module, "function": dispatcher.function, "method": dispatcher.method,
            "action": action, "name": name, "import_root": root, "label": dispatcher.label,
            "arguments": None, "repeat": 1}  # fmt: skip


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _without(report: FixReport, worse: dict[Path, str], taken_back: list[Path], config: LintConfig) -> FixReport:
    """The report with the taken-back files' fixes moved to ``skipped`` (with why) and their
    findings among the remaining ones again."""
    if not taken_back:
        return report
    from dispatchguard.lint import check_paths

    applied, skipped = [], list(report.skipped)
    for fix in report.applied:
        why = worse.get(Path(fix.path).resolve())
        if why is None:
            applied.append(fix)
        else:
            skipped.append(SkippedFix(fix.path, fix.line, fix.col, fix.code, why, "dropped", fix.cell))
    changed = [path for path in report.changed_files if Path(path).resolve() not in worse]
    again = [f for f in check_paths([str(p) for p in taken_back], config, nested=False).findings if not f.suppressed]
    return dataclasses.replace(
        report, applied=applied, skipped=skipped, changed_files=changed, remaining=[*report.remaining, *again]
    )
