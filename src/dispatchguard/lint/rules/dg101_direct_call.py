"""DG101: a tool is called directly instead of through the dispatcher."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from dispatchguard.lint.kinds import TOOL
from dispatchguard.lint.rules.examples import snippet

if TYPE_CHECKING:
    from dispatchguard.lint.facts import FileFacts
    from dispatchguard.lint.walker import Context

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


def exempt(file: FileFacts) -> bool:
    """Tests call tools directly on purpose."""
    return file.is_test


def check_call(ctx: Context, node: ast.Call) -> None:
    if ctx.in_dispatcher:
        return
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in RUN_METHODS:
        receiver = func.value
        if _is_self_like(receiver):
            return
        if func.attr in PRIVATE_RUN or ctx.kind_of(receiver) == TOOL:
            ctx.report(node, CODE, MESSAGE.format(call=f"{describe(receiver)}.{func.attr}(...)"))
        return
    if ctx.callee_kind(node) == TOOL:
        ctx.report(node, CODE, MESSAGE.format(call=f"{describe(func)}(...)"))


VALID = [
    snippet("""
        from langchain_core.tools import tool

        documented = tool(parse_docstring=True)
        named = tool("search")

        def search(q: str) -> str:
            \"\"\"Search.\"\"\"
            return q

        search_tool = documented(search)
        other = named(search)

        def build():
            options = tool(return_direct=True)
            return options(search)
    """),
    snippet("""
        import subprocess
        subprocess.run(['ls'], check=True)
    """),
    snippet("""
        import asyncio
        async def main(): ...
        asyncio.run(main())
    """),
    snippet("""
        from flask import Flask
        app = Flask(__name__)
        app.run(debug=True)
    """),
    snippet("""
        from langchain_core.prompts import ChatPromptTemplate
        chain = ChatPromptTemplate.from_template('x') | llm
        chain.invoke({'q': 1})
    """),
    snippet("""
        from langchain_openai import ChatOpenAI
        llm = ChatOpenAI()
        llm.invoke('hello')
        llm.ainvoke('hello')
    """),
    snippet("""
        from langchain.agents import AgentExecutor
        executor = AgentExecutor(agent=a, tools=[])
        executor.invoke({'input': 'x'})
    """),
    snippet("""
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor() as pool:
            pool.submit(print, 1)
    """),
    snippet("""
        class Job:
            def run(self):
                return 1

        Job().run()
    """),
    snippet("""
        class Pipeline:
            def run(self): ...

        def go(p: Pipeline):
            p.run()
    """),
    snippet("""
        import unittest
        unittest.main()
        runner = unittest.TextTestRunner()
        runner.run(suite)
    """),
    snippet("""
        from crewai import Crew
        crew = Crew(agents=[], tasks=[])
        crew.kickoff()
    """),
    snippet("""
        import trio
        trio.run(main)
    """),
    snippet("""
        def run(x):
            return x

        run(1)
    """),
    snippet("""
        import uvicorn
        uvicorn.run('app:app')
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                return '{}'
            async def _arun(self, q):
                return self._run(q)
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            def _run(self, q):
                return super()._run(q)
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            @classmethod
            def build(cls):
                return cls._run(None)
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        REG = {'t': T()}

        def dispatch_tool(action):
            return REG[action.name].run(**action.args)
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        REG = {'t': T()}

        async def adispatch_tool(action):
            tool = REG.get(action.name)
            return await tool.arun(**action.args)
    """),
    snippet("""
        tool = object()
        tool.run()
    """),
    snippet("""
        def make():
            pass

        search_tool = make()
        search_tool.run('q')
    """),
    snippet("""
        from crewai.tools import BaseTool

        def f(tool):
            tool.run('x')
    """),
    snippet("""
        from crewai.tools import BaseTool

        def f(search_tool: BaseTool):
            search_tool = object()
            search_tool.run('x')
    """),
    snippet("""
        registry = {}
        registry['x'].run()
    """),
    snippet("""
        import threading
        threading.Thread(target=print).run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(t: T):
            t = 3
            t.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(t: T):
            for t in range(3):
                t.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(t: T):
            with open('x') as t:
                t.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(t: T):
            try:
                pass
            except Exception as t:
                t.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(t: T):
            g = lambda t: t.run()
            return g
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(t: T):
            t += 1
            t.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(t: T):
            a, t = 1, 2
            t.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(*tools: int, **kw: T):
            tools[0].run()
            kw['a'].run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        class Holder:
            def __init__(self):
                self.t = None

            def go(self):
                self.t.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(items: dict[str, int]):
            for k, v in items.items():
                v.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(x: 'Unknown'):
            x.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(x: 'not valid python (('):
            x.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(cls_: type[T]):
            return cls_
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        import typing

        def f(x: typing.Optional[int]):
            x.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f():
            import os
            os.run()
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        REG = {}
        REG['t'] = 3
        REG['t'].run()
    """),
    snippet("""
        from . import sibling
        sibling.tool.run()
    """),
    snippet("""
        from .tools import *
        something.run()
    """),
    snippet("""
        def dispatch_tool(action):
            def inner():
                return action.tool._run()
            return inner()
    """),
    snippet("""
        def build():
            @staticmethod
            def helper(q):
                return q
            return helper.run()
    """),
]

INVALID = [
    snippet("""
        from crewai.tools import BaseTool

        class Search(BaseTool):
            def _run(self, q):
                return '{}'

        search = Search()
        search.run('q')  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class Search(BaseTool):
            pass

        def go(tool: Search):
            return tool.invoke('q')  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        def go(tool: BaseTool | None):
            tool._run('q')  # error: DG101
    """),
    snippet("""
        from langchain_core.tools import tool

        @tool
        def search(q: str) -> str:
            'Search.'
            return '[]'

        search('q')  # error: DG101
        search.invoke({'q': 'x'})  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool as Base

        class A(Base):
            pass

        class B(A):
            pass

        REGISTRY = {'b': B()}
        REGISTRY['b'].run('x')  # error: DG101
        REGISTRY.get('b').run('x')  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class A(BaseTool):
            pass

        TOOLS = [A()]

        def go():
            for t in TOOLS:
                t.run('x')  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class A(BaseTool):
            pass

        REG = {'a': A()}

        def go():
            for name, t in REG.items():
                t.run(name)  # error: DG101
    """),
    snippet("""
        anything._run(1)  # error: DG101
        await other._arun(2)  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class Agent:
            search: BaseTool

            def act(self):
                return self.search.run('q')  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class A(BaseTool):
            pass

        class Agent:
            def __init__(self):
                self.tool = A()

            async def act(self):
                return await self.tool.arun('q')  # error: DG101
    """),
    snippet("""
        import crewai_tools

        tool = crewai_tools.SerperDevTool()
        tool.run(search_query='x')  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        def go(tools: list[BaseTool]):
            tools[0].run('x')  # error: DG101
            return [t.run('y') for t in tools]  # error: DG101
    """),
    snippet("""
        from langchain_core.tools import StructuredTool

        adder = StructuredTool.from_function(func=lambda a: a)
        adder.invoke({'a': 1})  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(t: 'T'):
            t.run()  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        import typing

        def f(t: typing.Optional[T] = None):
            t.run()  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        from typing import Annotated, Union

        def f(a: Annotated[T, 'x'], b: Union[T, None]):
            a.run()  # error: DG101
            b.run()  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(*tools: T):
            for t in tools:
                t.run()  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(tools: dict[str, T]):
            for name, t in tools.items():
                t.invoke(name)  # error: DG101
            for t in tools.values():
                t.run()  # error: DG101
            for i, t in enumerate(sorted(tools.values())):
                t.run(i)  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(tools: list[T]):
            if (t := tools[0]):
                t.run()  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(kind: type[T]):
            made = kind()
            made.run()  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f():
            from crewai.tools import BaseTool as B
            def g(x: B):
                x.run()  # error: DG101
            return g
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        class Agent:
            tool = T()

            def go(self):
                self.tool.run()  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        class Agent:
            def go(self):
                self.tool: T = make()
                self.tool.run()  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f():
            t: T
            t = make()
            local: T = make()
            local.run()  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        TOOLS = []
        TOOLS.append(T())
        TOOLS.extend([T()])
        REG = {}
        REG.update({'t': T()})

        def f():
            TOOLS[0].run()  # error: DG101
            REG['t'].run()  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        try:
            tool = T()
        except ImportError:
            tool = None

        with open('x'):
            other: T = make()

        if True:
            tool.run()  # error: DG101
            other.run()  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(registry: dict[str, T]):
            return [registry[k].run() for k in registry if k]  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        def f(tools: list[T]):
            return {t.name: t.run() for t in tools}  # error: DG101
    """),
    snippet("""
        from crewai.tools import BaseTool

        class T(BaseTool):
            pass

        class Agent:
            def __init__(self, t: T):
                self.t = t

            def go(self):
                run = lambda: self.t.run()  # error: DG101
                return run
    """),
    snippet("""
        from langchain_core.tools import tool

        def build():
            @tool('lookup')
            def lookup(q: str) -> str:
                '''Look up.'''
                return '[]'
            return lookup.invoke('x')  # error: DG101
    """),
]
