"""DG102: a tool class is instantiated outside the configured tool modules."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from dispatchguard.lint.resolve import CLASS
from dispatchguard.lint.rules.dg101_direct_call import describe

if TYPE_CHECKING:
    from dispatchguard.lint.analysis import Context

CODE = "DG102"
NAME = "tool-instantiated-outside-tools-module"
SUMMARY = "Tool class instantiated outside the configured tool modules"
MESSAGE = (
    "tool class `{name}` instantiated outside the tool modules: create tools in a tool module "
    "and reach them through the registry"
)


def check_call(ctx: Context, node: ast.Call) -> None:
    func = node.func
    if isinstance(func, (ast.Name, ast.Attribute)) and ctx.callee_kind(node) == CLASS:
        ctx.report(node, CODE, MESSAGE.format(name=describe(func)))


VALID = [
    "from crewai.tools import BaseTool\n\nclass Search(BaseTool):\n    pass\n\ndef make(cls: type[Search]):\n    return cls\n",
    "class Search:\n    pass\n\nSearch()\n",
    "from crewai import Agent\nAgent(role='x', goal='y', backstory='z')\n",
    "from crewai.tools import BaseTool\n\nclass Search(BaseTool):\n    def __init__(self):\n        super().__init__()\n",
    "from crewai_tools import load_tools\nload_tools(['x'])\n",
    "from crewai_tools import MAX_RESULTS\nprint(MAX_RESULTS)\n",
    "from mytools import SerperDevTool\nSerperDevTool()\n",
    "from crewai.tools import BaseTool\nisinstance(x, BaseTool)\n",
]

INVALID = [
    "from crewai.tools import BaseTool\n\nclass Search(BaseTool):\n    pass\n\ns = Search()  # error: DG102\n",
    "from crewai_tools import SerperDevTool\n\ntool = SerperDevTool(n_results=3)  # error: DG102\n",
    "from langchain_community.tools import DuckDuckGoSearchRun\n\nsearch = DuckDuckGoSearchRun()  # error: DG102\n",
    "import crewai_tools as ct\n\ndef build():\n    return ct.ScrapeWebsiteTool()  # error: DG102\n",
    "from langchain_core.tools import Tool\n\nt = Tool(name='x', func=print, description='d')  # error: DG102\n",
    "from crewai.tools import BaseTool\n\nclass A(BaseTool):\n    pass\n\nclass B(A):\n    pass\n\ndef f():\n    class C(B):\n        pass\n    return C()  # error: DG102\n",
]
