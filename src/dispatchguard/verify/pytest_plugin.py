"""The pytest plugin of ``dispatchguard verify``: one test item per tool of the project.

Opt in with ``pytest --dispatchguard-verify`` or ``dispatchguard_verify = true`` in the pytest
configuration. The tools are found and run as ``dispatchguard verify`` does (the settings of
``[tool.dispatchguard.verify]`` apply); an item fails when its tool breaks the contract, hangs or
crashes, and is skipped when the tool cannot be built. Without the option the plugin adds nothing
and imports nothing beyond this module.
"""

from __future__ import annotations

from typing import Any

import pytest

OPTION = "--dispatchguard-verify"
INI = "dispatchguard_verify"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``--dispatchguard-verify`` option and the ``dispatchguard_verify`` ini flag."""
    what = "run every tool of the project and check its answers (dispatchguard verify)"
    parser.getgroup("dispatchguard").addoption(OPTION, action="store_true", default=False, help=what)
    parser.addini(INI, type="bool", default=False, help=what)


def _enabled(config: pytest.Config) -> bool:
    return bool(config.getoption(OPTION) or config.getini(INI))


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[Any]) -> None:
    """When the option or the ini flag is on, append one ``ToolItem`` per tool found under the
    rootdir; otherwise leave ``items`` alone and import nothing more."""
    if not _enabled(config):
        return
    from dispatchguard.lint.config import load_config
    from dispatchguard.verify.discover import verify_targets
    from dispatchguard.verify.runner import VerifyOptions

    root = str(config.rootpath)
    lint_config = load_config([root])  # read once: every item runs with its verify settings
    options = VerifyOptions.from_settings(lint_config.verify)
    targets = verify_targets([root], lint_config)
    server = SharedServer(options, targets)
    config.add_cleanup(server.close)
    for target in targets:
        name = f"dispatchguard-verify[{target.label}]"
        items.append(ToolItem.from_parent(session, name=name, target=target, options=options, server=server))


class SharedServer:
    """The fork server of this pytest process (under pytest-xdist, of this worker), started by the
    first item that runs, ended at the end of the session: the project's frameworks are imported
    once per process, not once per tool."""

    def __init__(self, options: Any, targets: list[Any]) -> None:
        self.options = options
        self.targets = targets
        self.server: Any = None

    def get(self) -> Any:
        """The running server (started now if it is not yet)."""
        if self.server is None:
            from dispatchguard.verify.runner import ForkServer, import_roots, preload_of, resolve_isolation

            level = resolve_isolation(self.options.isolation)
            self.server = ForkServer(self.options, level, preload_of(self.targets), import_roots(self.targets))
        return self.server

    def close(self) -> None:
        """End the server (if one was started) and everything below it."""
        if self.server is not None:
            self.server.close()
            self.server = None


class ToolItem(pytest.Item):
    """One tool, verified in its worker when the item runs."""

    def __init__(self, *, target: Any, options: Any, server: SharedServer, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = target
        self.options = options
        self.server = server

    def runtest(self) -> None:
        """Verify the tool with the rootdir's ``[tool.dispatchguard.verify]`` settings: skip it
        when it cannot be built; raise ``ContractBroken`` when it breaks the contract, crashes
        or hangs."""
        from dispatchguard.verify.runner import verify_tool

        report = verify_tool(self.target, self.options, server=self.server.get())
        if report.status == "not_built":
            pytest.skip(f"not built: {report.detail}")
        if report.failed:
            raise ContractBroken(report)

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        """Return ``path:line: CODE status: detail`` (and the failing arguments) for a broken
        contract; pytest's usual representation for any other exception."""
        if isinstance(excinfo.value, ContractBroken):
            report = excinfo.value.report
            text = f"{self.target.path}:{self.target.line}: {self.target.rule} {report.status}: {report.detail}"
            if report.arguments is not None:
                text += f"\narguments: {report.arguments}"
            return text
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int, str]:
        """Return the tool's definition (path, 0-based line) and ``tool LABEL``, for reports."""
        return self.target.path, self.target.line - 1, f"tool {self.target.label}"


class ContractBroken(Exception):
    """A tool broke the contract; carries its report."""

    def __init__(self, report: Any) -> None:
        super().__init__(report.detail)
        self.report = report
