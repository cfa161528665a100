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
    if ctx.callee_kind(node) == TOOL:
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

# Scoping and binding forms the checker follows (and the ones it must not confuse with tools).
_BASE = "from crewai.tools import BaseTool\n\nclass T(BaseTool):\n    pass\n\n"
VALID += [
    _BASE + "def f(t: T):\n    t = 3\n    t.run()\n",
    _BASE + "def f(t: T):\n    for t in range(3):\n        t.run()\n",
    _BASE + "def f(t: T):\n    with open('x') as t:\n        t.run()\n",
    _BASE + "def f(t: T):\n    try:\n        pass\n    except Exception as t:\n        t.run()\n",
    _BASE + "def f(t: T):\n    g = lambda t: t.run()\n    return g\n",
    _BASE + "def f(t: T):\n    t += 1\n    t.run()\n",
    _BASE + "def f(t: T):\n    a, t = 1, 2\n    t.run()\n",
    _BASE + "def f(*tools: int, **kw: T):\n    tools[0].run()\n    kw['a'].run()\n",
    _BASE + "class Holder:\n    def __init__(self):\n        self.t = None\n\n    def go(self):\n        self.t.run()\n",
    _BASE + "def f(items: dict[str, int]):\n    for k, v in items.items():\n        v.run()\n",
    _BASE + "def f(x: 'Unknown'):\n    x.run()\n",
    _BASE + "def f(x: 'not valid python (('):\n    x.run()\n",
    _BASE + "def f(cls_: type[T]):\n    return cls_\n",
    _BASE + "import typing\n\ndef f(x: typing.Optional[int]):\n    x.run()\n",
    _BASE + "def f():\n    import os\n    os.run()\n",
    _BASE + "REG = {}\nREG['t'] = 3\nREG['t'].run()\n",
    "from . import sibling\nsibling.tool.run()\n",
    "from .tools import *\nsomething.run()\n",
    "def dispatch_tool(action):\n    def inner():\n        return action.tool._run()\n    return inner()\n",
]
INVALID += [
    _BASE + "def f(t: 'T'):\n    t.run()  # error: DG101\n",
    _BASE + "import typing\n\ndef f(t: typing.Optional[T] = None):\n    t.run()  # error: DG101\n",
    _BASE + "from typing import Annotated, Union\n\ndef f(a: Annotated[T, 'x'], b: Union[T, None]):\n    a.run()  # error: DG101\n    b.run()  # error: DG101\n",
    _BASE + "def f(*tools: T):\n    for t in tools:\n        t.run()  # error: DG101\n",
    _BASE + "def f(tools: dict[str, T]):\n    for name, t in tools.items():\n        t.invoke(name)  # error: DG101\n    for t in tools.values():\n        t.run()  # error: DG101\n    for i, t in enumerate(sorted(tools.values())):\n        t.run(i)  # error: DG101\n",
    _BASE + "def f(tools: list[T]):\n    if (t := tools[0]):\n        t.run()  # error: DG101\n",
    _BASE + "def f(kind: type[T]):\n    made = kind()\n    made.run()  # error: DG101\n",
    _BASE + "def f():\n    from crewai.tools import BaseTool as B\n    def g(x: B):\n        x.run()  # error: DG101\n    return g\n",
    _BASE + "class Agent:\n    tool = T()\n\n    def go(self):\n        self.tool.run()  # error: DG101\n",
    _BASE + "class Agent:\n    def go(self):\n        self.tool: T = make()\n        self.tool.run()  # error: DG101\n",
    _BASE + "def f():\n    t: T\n    t = make()\n    local: T = make()\n    local.run()  # error: DG101\n",
    _BASE + "TOOLS = []\nTOOLS.append(T())\nTOOLS.extend([T()])\nREG = {}\nREG.update({'t': T()})\n\ndef f():\n    TOOLS[0].run()  # error: DG101\n    REG['t'].run()  # error: DG101\n",
    _BASE + "try:\n    tool = T()\nexcept ImportError:\n    tool = None\n\nwith open('x'):\n    other: T = make()\n\nif True:\n    tool.run()  # error: DG101\n    other.run()  # error: DG101\n",
    _BASE + "def f(registry: dict[str, T]):\n    return [registry[k].run() for k in registry if k]  # error: DG101\n",
    _BASE + "def f(tools: list[T]):\n    return {t.name: t.run() for t in tools}  # error: DG101\n",
    _BASE + "class Agent:\n    def __init__(self, t: T):\n        self.t = t\n\n    def go(self):\n        run = lambda: self.t.run()  # error: DG101\n        return run\n",
]
INVALID += [
    "from langchain_core.tools import tool\n\ndef build():\n    @tool('lookup')\n    def lookup(q: str) -> str:\n        '''Look up.'''\n        return '[]'\n    return lookup.invoke('x')  # error: DG101\n",
]
VALID += ["def build():\n    @staticmethod\n    def helper(q):\n        return q\n    return helper.run()\n"]
