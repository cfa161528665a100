"""DG101: a tool is called directly instead of through the dispatcher."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from dispatchguard.lint.resolve import TOOL

if TYPE_CHECKING:
    from dispatchguard.lint.analysis import Context

CODE = "DG101"
NAME = "direct-tool-call"
SUMMARY = "Tool called directly instead of through the dispatcher"
MESSAGE = "direct tool call `{call}` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`"
RUN_METHODS = frozenset({"run", "_run", "arun", "_arun", "invoke", "ainvoke"})
PRIVATE_RUN = frozenset({"_run", "_arun"})


def _is_self_like(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def describe(node: ast.AST, limit: int = 60) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_call(ctx: Context, node: ast.Call) -> None:
    if ctx.in_dispatcher:
        return
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in RUN_METHODS:
        receiver = func.value
        if _is_self_like(receiver):
            return
        if func.attr in PRIVATE_RUN or ctx.expr_kind(receiver) == TOOL:
            ctx.report(node, CODE, MESSAGE.format(call=f"{describe(receiver)}.{func.attr}(...)"))
        return
    if ctx.expr_kind(func) == TOOL:
        ctx.report(node, CODE, MESSAGE.format(call=f"{describe(func)}(...)"))


VALID = [
    # the usual suspects that merely have a run/invoke method
    "import subprocess\nsubprocess.run(['ls'], check=True)\n",
    "import asyncio\nasync def main(): ...\nasyncio.run(main())\n",
    "from flask import Flask\napp = Flask(__name__)\napp.run(debug=True)\n",
    "from langchain_core.prompts import ChatPromptTemplate\nchain = ChatPromptTemplate.from_template('x') | llm\nchain.invoke({'q': 1})\n",
    "from langchain_openai import ChatOpenAI\nllm = ChatOpenAI()\nllm.invoke('hello')\nllm.ainvoke('hello')\n",
    "from langchain.agents import AgentExecutor\nexecutor = AgentExecutor(agent=a, tools=[])\nexecutor.invoke({'input': 'x'})\n",
    "from concurrent.futures import ThreadPoolExecutor\nwith ThreadPoolExecutor() as pool:\n    pool.submit(print, 1)\n",
    "class Job:\n    def run(self):\n        return 1\n\nJob().run()\n",
    "class Pipeline:\n    def run(self): ...\n\ndef go(p: Pipeline):\n    p.run()\n",
    "import unittest\nunittest.main()\nrunner = unittest.TextTestRunner()\nrunner.run(suite)\n",
    "from crewai import Crew\ncrew = Crew(agents=[], tasks=[])\ncrew.kickoff()\n",
    "import trio\ntrio.run(main)\n",
    "def run(x):\n    return x\n\nrun(1)\n",
    "import uvicorn\nuvicorn.run('app:app')\n",
    # a tool calling its own methods
    "from crewai.tools import BaseTool\n\nclass T(BaseTool):\n    def _run(self, q):\n        return '{}'\n    async def _arun(self, q):\n        return self._run(q)\n",
    "from crewai.tools import BaseTool\n\nclass T(BaseTool):\n    def _run(self, q):\n        return super()._run(q)\n",
    "from crewai.tools import BaseTool\n\nclass T(BaseTool):\n    @classmethod\n    def build(cls):\n        return cls._run(None)\n",
    # inside the dispatcher
    "from crewai.tools import BaseTool\n\nclass T(BaseTool):\n    pass\n\nREG = {'t': T()}\n\ndef dispatch_tool(action):\n    return REG[action.name].run(**action.args)\n",
    "from crewai.tools import BaseTool\n\nclass T(BaseTool):\n    pass\n\nREG = {'t': T()}\n\nasync def adispatch_tool(action):\n    tool = REG.get(action.name)\n    return await tool.arun(**action.args)\n",
    # names that merely look like tools
    "tool = object()\ntool.run()\n",
    "def make():\n    pass\n\nsearch_tool = make()\nsearch_tool.run('q')\n",
    "from crewai.tools import BaseTool\n\ndef f(tool):\n    tool.run('x')\n",
    "from crewai.tools import BaseTool\n\ndef f(search_tool: BaseTool):\n    search_tool = object()\n    search_tool.run('x')\n",
    "registry = {}\nregistry['x'].run()\n",
    "import threading\nthreading.Thread(target=print).run()\n",
]

INVALID = [
    "from crewai.tools import BaseTool\n\nclass Search(BaseTool):\n    def _run(self, q):\n        return '{}'\n\nsearch = Search()\nsearch.run('q')  # error: DG101\n",
    "from crewai.tools import BaseTool\n\nclass Search(BaseTool):\n    pass\n\ndef go(tool: Search):\n    return tool.invoke('q')  # error: DG101\n",
    "from crewai.tools import BaseTool\n\ndef go(tool: BaseTool | None):\n    tool._run('q')  # error: DG101\n",
    "from langchain_core.tools import tool\n\n@tool\ndef search(q: str) -> str:\n    'Search.'\n    return '[]'\n\nsearch('q')  # error: DG101\nsearch.invoke({'q': 'x'})  # error: DG101\n",
    "from crewai.tools import BaseTool as Base\n\nclass A(Base):\n    pass\n\nclass B(A):\n    pass\n\nREGISTRY = {'b': B()}\nREGISTRY['b'].run('x')  # error: DG101\nREGISTRY.get('b').run('x')  # error: DG101\n",
    "from crewai.tools import BaseTool\n\nclass A(BaseTool):\n    pass\n\nTOOLS = [A()]\n\ndef go():\n    for t in TOOLS:\n        t.run('x')  # error: DG101\n",
    "from crewai.tools import BaseTool\n\nclass A(BaseTool):\n    pass\n\nREG = {'a': A()}\n\ndef go():\n    for name, t in REG.items():\n        t.run(name)  # error: DG101\n",
    "anything._run(1)  # error: DG101\nawait other._arun(2)  # error: DG101\n",
    "from crewai.tools import BaseTool\n\nclass Agent:\n    search: BaseTool\n\n    def act(self):\n        return self.search.run('q')  # error: DG101\n",
    "from crewai.tools import BaseTool\n\nclass A(BaseTool):\n    pass\n\nclass Agent:\n    def __init__(self):\n        self.tool = A()\n\n    async def act(self):\n        return await self.tool.arun('q')  # error: DG101\n",
    "import crewai_tools\n\ntool = crewai_tools.SerperDevTool()\ntool.run(search_query='x')  # error: DG101\n",
    "from crewai.tools import BaseTool\n\ndef go(tools: list[BaseTool]):\n    tools[0].run('x')  # error: DG101\n    return [t.run('y') for t in tools]  # error: DG101\n",
    "from langchain_core.tools import StructuredTool\n\nadder = StructuredTool.from_function(func=lambda a: a)\nadder.invoke({'a': 1})  # error: DG101\n",
]
