# Cases of DG101 (direct-tool-call), expanded by tests/lint/test_rules.py. Each `# case:` block is checked
# as a module of its own; `# error: DG101:COL MESSAGE` pins a finding (column and message) on its line.

# case: valid 1
from langchain_core.tools import tool

documented = tool(parse_docstring=True)
named = tool("search")

def search(q: str) -> str:
    """Search."""
    return q

search_tool = documented(search)
other = named(search)

def build():
    options = tool(return_direct=True)
    return options(search)

# case: valid 2
import subprocess
subprocess.run(['ls'], check=True)

# case: valid 3
import asyncio
async def main(): ...
asyncio.run(main())

# case: valid 4
from flask import Flask
app = Flask(__name__)
app.run(debug=True)

# case: valid 5
from langchain_core.prompts import ChatPromptTemplate
chain = ChatPromptTemplate.from_template('x') | llm
chain.invoke({'q': 1})

# case: valid 6
from langchain_openai import ChatOpenAI
llm = ChatOpenAI()
llm.invoke('hello')
llm.ainvoke('hello')

# case: valid 7
from langchain.agents import AgentExecutor
executor = AgentExecutor(agent=a, tools=[])
executor.invoke({'input': 'x'})

# case: valid 8
from concurrent.futures import ThreadPoolExecutor
with ThreadPoolExecutor() as pool:
    pool.submit(print, 1)

# case: valid 9
class Job:
    def run(self):
        return 1

Job().run()

# case: valid 10
class Pipeline:
    def run(self): ...

def go(p: Pipeline):
    p.run()

# case: valid 11
import unittest
unittest.main()
runner = unittest.TextTestRunner()
runner.run(suite)

# case: valid 12
from crewai import Crew
crew = Crew(agents=[], tasks=[])
crew.kickoff()

# case: valid 13
import trio
trio.run(main)

# case: valid 14
def run(x):
    return x

run(1)

# case: valid 15
import uvicorn
uvicorn.run('app:app')

# case: valid 16
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        return '{}'
    async def _arun(self, q):
        return self._run(q)

# case: valid 17
from crewai.tools import BaseTool

class T(BaseTool):
    def _run(self, q):
        return super()._run(q)

# case: valid 18
from crewai.tools import BaseTool

class T(BaseTool):
    @classmethod
    def build(cls):
        return cls._run(None)

# case: valid 19
from crewai.tools import BaseTool

class T(BaseTool):
    pass

REG = {'t': T()}

def dispatch_tool(action):
    return REG[action.name].run(**action.args)

# case: valid 20
from crewai.tools import BaseTool

class T(BaseTool):
    pass

REG = {'t': T()}

async def adispatch_tool(action):
    tool = REG.get(action.name)
    return await tool.arun(**action.args)

# case: valid 21
tool = object()
tool.run()

# case: valid 22
def make():
    pass

search_tool = make()
search_tool.run('q')

# case: valid 23
from crewai.tools import BaseTool

def f(tool):
    tool.run('x')

# case: valid 24
from crewai.tools import BaseTool

def f(search_tool: BaseTool):
    search_tool = object()
    search_tool.run('x')

# case: valid 25
registry = {}
registry['x'].run()

# case: valid 26
import threading
threading.Thread(target=print).run()

# case: valid 27
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(t: T):
    t = 3
    t.run()

# case: valid 28
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(t: T):
    for t in range(3):
        t.run()

# case: valid 29
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(t: T):
    with open('x') as t:
        t.run()

# case: valid 30
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(t: T):
    try:
        pass
    except Exception as t:
        t.run()

# case: valid 31
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(t: T):
    g = lambda t: t.run()
    return g

# case: valid 32
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(t: T):
    t += 1
    t.run()

# case: valid 33
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(t: T):
    a, t = 1, 2
    t.run()

# case: valid 34
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(*tools: int, **kw: T):
    tools[0].run()
    kw['a'].run()

# case: valid 35
from crewai.tools import BaseTool

class T(BaseTool):
    pass

class Holder:
    def __init__(self):
        self.t = None

    def go(self):
        self.t.run()

# case: valid 36
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(items: dict[str, int]):
    for k, v in items.items():
        v.run()

# case: valid 37
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(x: 'Unknown'):
    x.run()

# case: valid 38
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(x: 'not valid python (('):
    x.run()

# case: valid 39
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(cls_: type[T]):
    return cls_

# case: valid 40
from crewai.tools import BaseTool

class T(BaseTool):
    pass

import typing

def f(x: typing.Optional[int]):
    x.run()

# case: valid 41
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f():
    import os
    os.run()

# case: valid 42
from crewai.tools import BaseTool

class T(BaseTool):
    pass

REG = {}
REG['t'] = 3
REG['t'].run()

# case: valid 43
from . import sibling
sibling.tool.run()

# case: valid 44
from .tools import *
something.run()

# case: valid 45
def dispatch_tool(action):
    def inner():
        return action.tool._run()
    return inner()

# case: valid 46
def build():
    @staticmethod
    def helper(q):
        return q
    return helper.run()

# case: invalid 1
from crewai.tools import BaseTool

class Search(BaseTool):
    def _run(self, q):
        return '{}'

search = Search()
search.run('q')  # error: DG101:1 direct tool call `search.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 2
from crewai.tools import BaseTool

class Search(BaseTool):
    pass

def go(tool: Search):
    return tool.invoke('q')  # error: DG101:12 direct tool call `tool.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 3
from crewai.tools import BaseTool

def go(tool: BaseTool | None):
    tool._run('q')  # error: DG101:5 direct tool call `tool._run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 4
from langchain_core.tools import tool

@tool
def search(q: str) -> str:
    'Search.'
    return '[]'

search('q')  # error: DG101:1 direct tool call `search(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
search.invoke({'q': 'x'})  # error: DG101:1 direct tool call `search.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 5
from crewai.tools import BaseTool as Base

class A(Base):
    pass

class B(A):
    pass

REGISTRY = {'b': B()}
REGISTRY['b'].run('x')  # error: DG101:1 direct tool call `REGISTRY['b'].run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
REGISTRY.get('b').run('x')  # error: DG101:1 direct tool call `REGISTRY.get('b').run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 6
from crewai.tools import BaseTool

class A(BaseTool):
    pass

TOOLS = [A()]

def go():
    for t in TOOLS:
        t.run('x')  # error: DG101:9 direct tool call `t.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 7
from crewai.tools import BaseTool

class A(BaseTool):
    pass

REG = {'a': A()}

def go():
    for name, t in REG.items():
        t.run(name)  # error: DG101:9 direct tool call `t.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 8
anything._run(1)  # error: DG101:1 direct tool call `anything._run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
await other._arun(2)  # error: DG101:7 direct tool call `other._arun(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 9
from crewai.tools import BaseTool

class Agent:
    search: BaseTool

    def act(self):
        return self.search.run('q')  # error: DG101:16 direct tool call `self.search.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 10
from crewai.tools import BaseTool

class A(BaseTool):
    pass

class Agent:
    def __init__(self):
        self.tool = A()

    async def act(self):
        return await self.tool.arun('q')  # error: DG101:22 direct tool call `self.tool.arun(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 11
import crewai_tools

tool = crewai_tools.SerperDevTool()
tool.run(search_query='x')  # error: DG101:1 direct tool call `tool.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 12
from crewai.tools import BaseTool

def go(tools: list[BaseTool]):
    tools[0].run('x')  # error: DG101:5 direct tool call `tools[0].run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    return [t.run('y') for t in tools]  # error: DG101:13 direct tool call `t.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 13
from langchain_core.tools import StructuredTool

adder = StructuredTool.from_function(func=lambda a: a)
adder.invoke({'a': 1})  # error: DG101:1 direct tool call `adder.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 14
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(t: 'T'):
    t.run()  # error: DG101:5 direct tool call `t.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 15
from crewai.tools import BaseTool

class T(BaseTool):
    pass

import typing

def f(t: typing.Optional[T] = None):
    t.run()  # error: DG101:5 direct tool call `t.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 16
from crewai.tools import BaseTool

class T(BaseTool):
    pass

from typing import Annotated, Union

def f(a: Annotated[T, 'x'], b: Union[T, None]):
    a.run()  # error: DG101:5 direct tool call `a.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    b.run()  # error: DG101:5 direct tool call `b.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 17
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(*tools: T):
    for t in tools:
        t.run()  # error: DG101:9 direct tool call `t.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 18
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(tools: dict[str, T]):
    for name, t in tools.items():
        t.invoke(name)  # error: DG101:9 direct tool call `t.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    for t in tools.values():
        t.run()  # error: DG101:9 direct tool call `t.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    for i, t in enumerate(sorted(tools.values())):
        t.run(i)  # error: DG101:9 direct tool call `t.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 19
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(tools: list[T]):
    if (t := tools[0]):
        t.run()  # error: DG101:9 direct tool call `t.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 20
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(kind: type[T]):
    made = kind()
    made.run()  # error: DG101:5 direct tool call `made.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 21
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f():
    from crewai.tools import BaseTool as B
    def g(x: B):
        x.run()  # error: DG101:9 direct tool call `x.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    return g

# case: invalid 22
from crewai.tools import BaseTool

class T(BaseTool):
    pass

class Agent:
    tool = T()

    def go(self):
        self.tool.run()  # error: DG101:9 direct tool call `self.tool.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 23
from crewai.tools import BaseTool

class T(BaseTool):
    pass

class Agent:
    def go(self):
        self.tool: T = make()
        self.tool.run()  # error: DG101:9 direct tool call `self.tool.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 24
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f():
    t: T
    t = make()
    local: T = make()
    local.run()  # error: DG101:5 direct tool call `local.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 25
from crewai.tools import BaseTool

class T(BaseTool):
    pass

TOOLS = []
TOOLS.append(T())
TOOLS.extend([T()])
REG = {}
REG.update({'t': T()})

def f():
    TOOLS[0].run()  # error: DG101:5 direct tool call `TOOLS[0].run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    REG['t'].run()  # error: DG101:5 direct tool call `REG['t'].run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 26
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
    tool.run()  # error: DG101:5 direct tool call `tool.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    other.run()  # error: DG101:5 direct tool call `other.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 27
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(registry: dict[str, T]):
    return [registry[k].run() for k in registry if k]  # error: DG101:13 direct tool call `registry[k].run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 28
from crewai.tools import BaseTool

class T(BaseTool):
    pass

def f(tools: list[T]):
    return {t.name: t.run() for t in tools}  # error: DG101:21 direct tool call `t.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid 29
from crewai.tools import BaseTool

class T(BaseTool):
    pass

class Agent:
    def __init__(self, t: T):
        self.t = t

    def go(self):
        run = lambda: self.t.run()  # error: DG101:23 direct tool call `self.t.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
        return run

# case: invalid 30
from langchain_core.tools import tool

def build():
    @tool('lookup')
    def lookup(q: str) -> str:
        '''Look up.'''
        return '[]'
    return lookup.invoke('x')  # error: DG101:12 direct tool call `lookup.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: valid a tool looked up by a run-time name is the project's dispatch point
from langchain_core.tools import tool

@tool
def search(q: str) -> str:
    """Search."""
    return q

TOOLS = [search]

class AdaptiveAgentExecutor:
    def _take_next_step(self, action):
        name_to_tool_map = {t.name: t for t in TOOLS}
        tool = name_to_tool_map[action.tool]
        return tool.run(action.tool_input)

def fallback(tools_by_name, call):
    return TOOLS_BY_NAME.get(call["name"]).invoke(call["args"])

TOOLS_BY_NAME = {t.name: t for t in TOOLS}


async def route(query: str, chooser):
    tool_name = None
    try:
        tool_name = (await chooser.ainvoke(query)).tool
    except ValueError:
        tool_name = None
    if tool_name not in TOOLS_BY_NAME:
        tool_name = "search"  # a fallback: the name is still chosen at run time
    chosen = TOOLS_BY_NAME[tool_name]
    return await chosen.ainvoke(query)

# case: valid a tool looked up by the name unpacked from the model's call is the project's dispatch point
from langchain_core.tools import tool


@tool
def lookup(q: str) -> str:
    """Look up."""
    return q


TOOL_MAP = {"lookup": lookup}


def tool_node(state: dict) -> list:
    outputs = []
    for call in state["messages"][-1].tool_calls:
        name, arguments = call["name"], call["args"]
        selected = TOOL_MAP.get(name)
        if selected is not None:
            outputs.append(selected.invoke(arguments))
    return outputs

# case: invalid a tool looked up by a name bound only to constants is a direct call
from langchain_core.tools import tool

@tool
def search(q: str) -> str:
    """Search."""
    return q

TOOLS_BY_NAME = {t.name: t for t in [search]}


def fixed(query: str, urgent: bool):
    name = "search"
    if urgent:
        name = "search"
    return TOOLS_BY_NAME[name].invoke(query)  # error: DG101:12 direct tool call `TOOLS_BY_NAME[name].invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: valid a loop over the model's tool calls routes them: the project's dispatch point
from langchain_core.tools import tool

@tool
def convert(q: str) -> str:
    """Convert."""
    return q

@tool
def factor(q: str) -> str:
    """Factor."""
    return q

TOOLS_BY_NAME = {t.name: t for t in [convert, factor]}
reply = llm.invoke("hi")
for call in reply.tool_calls:
    if call["name"] == "convert":
        convert.invoke(call)
    if call["name"] == "factor":
        factor.invoke(call["args"])
    TOOLS_BY_NAME[call["name"]].invoke(call)

def step(message):
    for index, call in enumerate(message.get("tool_calls", [])):
        selected = TOOLS_BY_NAME[call["name"]]
        selected.invoke(**call["args"])

# case: invalid inside a loop over the model's calls, a tool run without the call is still direct
from langchain_core.tools import tool

@tool
def convert(q: str) -> str:
    """Convert."""
    return q

for call in reply.tool_calls:
    convert.invoke("10 USD")  # error: DG101:5 direct tool call `convert.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

    def later(q):
        return convert.invoke(call)  # error: DG101:16 direct tool call `convert.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid a constant key picks one tool: a direct call
from langchain_core.tools import tool

@tool
def search(q: str) -> str:
    """Search."""
    return q

TOOLS_BY_NAME = {"search": search}
SEARCH = "search"

def run_search(q):
    TOOLS_BY_NAME["search"].invoke(q)  # error: DG101:5 direct tool call `TOOLS_BY_NAME['search'].invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    return TOOLS_BY_NAME[SEARCH].invoke(q)  # error: DG101:12 direct tool call `TOOLS_BY_NAME[SEARCH].invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid tools held in a local list, tuple or dict are still tools
from langchain_core.tools import tool

@tool
def search(q: str) -> str:
    """Search."""
    return q

@tool
def calc(q: str) -> str:
    """Calculate."""
    return q

def answer(q):
    tools = [search, calc]
    for t in tools:
        t.invoke(q)  # error: DG101:9 direct tool call `t.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    pair = (search, calc)
    pair[0].invoke(q)  # error: DG101:5 direct tool call `pair[0].invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    named = {"search": search}
    return named["search"].invoke(q)  # error: DG101:12 direct tool call `named['search'].invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: valid a local list of other things is no registry
import subprocess

def answer(q):
    jobs = [subprocess, q]
    for job in jobs:
        job.run(q)

# case: invalid a parameter every call of its function fills with a tool is that tool
from langchain_core.tools import tool

@tool
def search(q: str) -> str:
    """Search."""
    return q


def ask(t, q):
    return t.invoke(q)  # error: DG101:12 direct tool call `t.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`


class Agent:
    def step(self, chosen, q):
        return chosen.run(q)  # error: DG101:16 direct tool call `chosen.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

    def go(self):
        return self.step(search, "x")


ask(search, "x")
ask(t=search, q="y")

# case: valid a parameter filled with other things at some call site is not known to be a tool
from langchain_core.tools import tool

@tool
def search(q: str) -> str:
    """Search."""
    return q


def ask(t, q):
    return t.invoke(q)


def never_called(t):
    return t.invoke("x")


ask(search, "x")
ask(make_chain(), "y")

# case: invalid an attribute set from a constructor parameter every construction fills with a tool
from langchain_core.tools import tool

@tool
def news(q: str) -> str:
    """News."""
    return q


class Analyst:
    def __init__(self, source, depth=1):
        self.source = source
        self.depth = depth

    def report(self, q):
        return self.source.invoke(q)  # error: DG101:16 direct tool call `self.source.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`


analyst = Analyst(news)
other = Analyst(source=news, depth=2)

# case: valid an attribute set from a parameter filled with something else once is unknown
from langchain_core.tools import tool

@tool
def news(q: str) -> str:
    """News."""
    return q


class Analyst:
    def __init__(self, source):
        self.source = source

    def report(self, q):
        return self.source.invoke(q)


Analyst(news)
Analyst(make_chain())

# case: invalid a tool made by a method of the class (a @tool defined in it and returned), run through self
from langchain_community.tools.tavily_search import TavilySearchResults
from langchain_core.tools import tool


class TravelAssistant:
    def __init__(self):
        self.search_tool = self._create_search_tool()
        self.tavily = self._tavily()

    def _create_search_tool(self):
        @tool
        def search_travel_info(query: str) -> str:
            """Search."""
            return query

        return search_travel_info

    def _tavily(self):
        tool = TavilySearchResults(max_results=3)
        return tool

    def flights(self, city):
        return self.search_tool.invoke(f"flights to {city}"), self.tavily.run(city)  # error: DG101:16 direct tool call `self.search_tool.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`  # error: DG101:63 direct tool call `self.tavily.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`


def make_weather_tool():
    @tool
    def weather(city: str) -> str:
        """Weather."""
        return city

    return weather


forecast = make_weather_tool().invoke("Paris")  # error: DG101:12 direct tool call `make_weather_tool().invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: valid a method that makes something else, or a function returned undecorated
class Assistant:
    def __init__(self):
        self.chain = self._make_chain()
        self.helper = self._helper()

    def _make_chain(self):
        return build_prompt() | build_llm()

    def _helper(self):
        def helper(q):
            return q

        return helper

    def ask(self, q):
        return self.chain.invoke(q), self.helper.invoke(q)

# case: valid tools told apart by a name the caller or the model gives: the project's own dispatch point
from crewai.tools import BaseTool
from langchain_core.tools import tool


class Search(BaseTool):
    def _run(self, q):
        return "{}"


@tool
def send_email(to: str) -> str:
    """Send."""
    return "{}"


class Agent:
    def __init__(self):
        self.tools = [Search()]

    def call_tool(self, tool_name: str, **kwargs):
        for candidate in self.tools:
            if hasattr(candidate, "name") and candidate.name == tool_name:
                return candidate._run(**kwargs)
        return None


def first_named(tools: list, name: str, query: str):
    found = next(t for t in tools if t.name == name)
    return found._run(query)


REGISTERED = [Search()]


def run_named(tool_name: str, tool_input):
    picked = None
    for candidate in REGISTERED:
        if candidate.name == tool_name:
            picked = candidate
            break
    if picked:
        return picked.invoke(tool_input)
    return None


def handle(reply, to: str):
    calls = getattr(reply, "tool_calls", None) or []
    for call in calls:
        if call["name"] == "send_email":
            args = dict(call.get("args") or {})
            args["to"] = to
            return send_email.invoke(args)
    return None

# case: invalid a tool picked by a constant name, or a name test outside the model's tool calls, is still a direct call
from langchain_community.tools import DuckDuckGoSearchRun
from langchain_core.tools import tool

TOOLS = [DuckDuckGoSearchRun()]


@tool("notify")
def notify_user(address: str, body: str = "") -> str:
    """Notify."""
    return body


def search(query: str):
    for candidate in TOOLS:
        if candidate.name == "search":
            return candidate.invoke(query)  # error: DG101:20 direct tool call `candidate.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    return None


def search_first(query: str):
    found = None
    for candidate in TOOLS:
        if candidate.name == "search":
            found = candidate
    return found.invoke(query)  # error: DG101:12 direct tool call `found.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`


def notify(event: dict, to: str):
    if event["name"] == "signup":
        return notify_user.invoke({"address": to})  # error: DG101:16 direct tool call `notify_user.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    return None

# case: invalid a module-level loop over tools (a script's, a notebook's) runs each directly
from langchain_community.agent_toolkits import SQLDatabaseToolkit
from langchain_community.tools import DuckDuckGoSearchRun

TOOLS = [DuckDuckGoSearchRun()]
for tool in TOOLS:
    print(tool.invoke("weather"))  # error: DG101:11 direct tool call `tool.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

kit = SQLDatabaseToolkit(db=db, llm=llm)
for sql_tool in kit.get_tools():
    sql_tool.run("SELECT 1")  # error: DG101:5 direct tool call `sql_tool.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: valid a module-level loop over other things
import subprocess

for command in (["ls"], ["pwd"]):
    subprocess.run(command, check=True)

for name in ["a", "b"]:
    name.run()

# case: invalid a tool the body of a class binds, run through the class
from crewai_tools import SerperDevTool
from langchain_core.tools import tool


class GetCoinMetadata:
    search = SerperDevTool()

    @tool("save_dataset")
    @staticmethod
    def save_dataset(query: str) -> str:
        """Save."""
        return "{}"

    @staticmethod
    def helper(query: str) -> str:
        return query


def main(symbol):
    GetCoinMetadata.helper(symbol)
    GetCoinMetadata.search.run(symbol)  # error: DG101:5 direct tool call `GetCoinMetadata.search.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    return GetCoinMetadata.save_dataset.invoke(symbol)  # error: DG101:12 direct tool call `GetCoinMetadata.save_dataset.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid a comprehension keeps the tools of a list: a constant key takes one of them to run it
from langchain_mcp_adapters.tools import load_mcp_tools


async def start(session, url):
    tools = await load_mcp_tools(session)
    tools_by_name = {t.name: t for t in tools}
    goto = tools_by_name.get("goto")
    await goto.ainvoke({"url": url})  # error: DG101:11 direct tool call `goto.ainvoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    kept = [tool for tool in tools_by_name.values()]
    kept[0].invoke({})  # error: DG101:5 direct tool call `kept[0].invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    readers = [t for t in tools if t.name.startswith("read")]
    return readers[0].invoke({})  # error: DG101:12 direct tool call `readers[0].invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: valid the tool node of a hand-written graph runs the tool the model named, out of a comprehension of the tools
from langchain_core.messages import ToolMessage
from langchain_mcp_adapters.tools import load_mcp_tools


async def tool_node(state, session):
    tools = await load_mcp_tools(session)
    tools_by_name = {t.name: t for t in tools}
    outputs = []
    for tool_call in state["messages"][-1].tool_calls:
        result = await tools_by_name[tool_call["name"]].ainvoke(tool_call["args"])
        outputs.append(ToolMessage(content=result, tool_call_id=tool_call["id"]))
    return {"messages": outputs}

# case: invalid a toolkit's tool member, on a toolkit handed in from another module, is that tool
# file: app/toolkit.py
from crewai.tools import BaseTool
from langchain_core.tools import tool


class SearchTool(BaseTool):
    name: str = "search"
    description: str = "Search."

    def _run(self, q: str) -> str:
        return q


class Toolkit:
    web_lookup = SearchTool()

    @staticmethod
    @tool
    def get_google_news(query: str) -> str:
        """News."""
        return query

# file: app/factory.py
from app.analyzer import UnifiedNewsAnalyzer
from app.toolkit import Toolkit


def make():
    return UnifiedNewsAnalyzer(Toolkit())

# file: app/analyzer.py
class UnifiedNewsAnalyzer:
    def __init__(self, toolkit):
        self.toolkit = toolkit

    def news(self, q):
        return self.toolkit.get_google_news.invoke({"query": q})  # error: DG101:16 direct tool call `self.toolkit.get_google_news.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

    def lookup(self, q):
        return self.toolkit.web_lookup.run(q)  # error: DG101:16 direct tool call `self.toolkit.web_lookup.run(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`


def guarded(toolkit, q):
    if hasattr(toolkit, "get_google_news"):
        return toolkit.get_google_news.invoke(q)  # error: DG101:16 direct tool call `toolkit.get_google_news.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    news = getattr(toolkit, "get_google_news")
    return news.invoke(q)  # error: DG101:12 direct tool call `news.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: valid a member name another class also defines, or a built-in type's, names no tool on an unknown receiver
# file: app/toolkit.py
from langchain_core.tools import tool


class Toolkit:
    @staticmethod
    @tool
    def get_google_news(query: str) -> str:
        """News."""
        return query

    @staticmethod
    @tool
    def get(query: str) -> str:
        """Get a page."""
        return query


class NewsFeed:
    def get_google_news(self):
        return []

# file: app/analyzer.py
def analyse(source, options, q):
    source.get_google_news.invoke(q)
    return options.get("depth", 1)

# case: valid a toolkit member's name called as a method on a receiver of unknown type is a library client's method
# file: app/toolkit.py
from langchain_core.tools import tool


class Toolkit:
    @staticmethod
    @tool
    def search(query: str) -> str:
        """Search."""
        return query

# file: app/index.py
def find(es, q):
    return es.search(index="docs", q=q)


def find_all(clients, q):
    return [client.search(q) for client in clients]

# case: invalid a graph's node functions run tool objects a module built or the builder filled in, beside its ToolNode
# file: app/tools.py
from langchain_community.tools.tavily_search import TavilySearchResults

web_search_tool = TavilySearchResults(k=3)

# file: app/graph.py
import functools
from functools import partial

from langgraph.graph import StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from app.tools import web_search_tool


def web_search(state):
    return {"documents": web_search_tool.invoke({"query": state["question"]})}  # error: DG101:26 direct tool call `web_search_tool.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`


def search_node(state, tool):
    return {"documents": tool.invoke({"query": state["question"]})}  # error: DG101:26 direct tool call `tool.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`


def rerun_node(state, tool, limit):
    return tool.invoke(state["question"])[:limit]  # error: DG101:12 direct tool call `tool.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`


def make_node(tool):
    def node(state):
        return {"documents": tool.invoke(state["question"])}  # error: DG101:30 direct tool call `tool.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

    return node


def build():
    builder = StateGraph(dict)
    builder.add_node("web_search", web_search)
    builder.add_node("search", partial(search_node, tool=web_search_tool))
    builder.add_node("rerun", functools.partial(rerun_node, tool=web_search_tool, limit=3))
    builder.add_node("closure", make_node(web_search_tool))
    builder.add_node("tools", ToolNode([web_search_tool]))
    builder.add_conditional_edges("search", tools_condition)
    return builder.compile()

# case: valid a node filled with something else by the builder, or a closure over a rebound name, runs no known tool
from functools import partial

from langchain_community.tools.tavily_search import TavilySearchResults
from langgraph.graph import StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

web_search_tool = TavilySearchResults(k=3)


def search_node(state, tool):
    return tool.invoke(state["question"])


def make_node(tool):
    def node(state):
        tool = state["runner"]
        return tool.invoke(state["question"])

    return node


def make_other(tool):
    def node(state):
        return tool.invoke(state["question"])

    return node


def build(llm):
    builder = StateGraph(dict)
    builder.add_node("search", partial(search_node, tool=llm))
    builder.add_node("closure", make_node(web_search_tool))
    builder.add_node("other", make_other(web_search_tool))
    builder.add_node("model", make_other(llm))
    builder.add_node("tools", ToolNode([web_search_tool]))
    builder.add_conditional_edges("search", tools_condition)
    return builder.compile()

# case: valid an executor subclass, a tool-call handler class and a fallback's second branch run the requested calls by name: dispatch points
from langchain.agents import AgentExecutor
from langchain_core.tools import tool


@tool
def search(q: str) -> str:
    """Search."""
    return q


TOOLS = [search]


class StreamingExecutor(AgentExecutor):
    def _iter_next_step(self, name_to_tool_map, color_mapping, inputs, intermediate_steps, run_manager=None):
        output = self.agent.plan(intermediate_steps, **inputs)
        actions = [output]
        name_to_tool_map = {t.name: t for t in TOOLS}
        for agent_action in actions:
            if agent_action.tool in name_to_tool_map:
                tool = name_to_tool_map[agent_action.tool]
                yield tool.run(agent_action.tool_input)


class CallHandler:
    def __init__(self):
        self.tools = {t.name: t for t in TOOLS}

    def process(self, requested_calls):
        results = []
        for i, call in enumerate(requested_calls):
            results.append(self.tools[call["function"]["name"]].invoke(call["args"]))
        return results


def run_with_fallback(message):
    by_name = {t.name: t for t in TOOLS}
    for call in message.additional_kwargs["function_calls"]:
        try:
            return by_name[call.get("name")].invoke(call["arguments"])
        except KeyError:
            for candidate in TOOLS:
                if candidate.name == call["name"]:
                    return candidate.run(call["arguments"])

# case: invalid a loop over a module's own plan, over a registry's names, or over what else the caller gave runs chosen tools directly
from langchain_core.tools import tool


@tool
def search(q: str) -> str:
    """Search."""
    return q


TOOLS = {"search": search}
PLAN = [{"name": "search", "args": {"q": "x"}}]


def replay():
    for step in PLAN:
        TOOLS[step["name"]].invoke(step["args"])  # error: DG101:9 direct tool call `TOOLS[step['name']].invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`


def run_all(names, documents):
    for name in TOOLS:
        TOOLS[name].invoke("x")  # error: DG101:9 direct tool call `TOOLS[name].invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    for document in documents:
        TOOLS[document.title].invoke(document.text)  # error: DG101:9 direct tool call `TOOLS[document.title].invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid the function behind a tool object run directly: .func(...) and .coroutine(...) of a @tool, a Tool, a project's own @tool
# file: app/framework.py
from typing import Any, Callable

from pydantic import BaseModel


class BaseTool(BaseModel):
    name: str
    description: str

    def run(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


class Tool(BaseTool):
    func: Callable

    def run(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)


def tool(func: Callable) -> Tool:
    return Tool(name=func.__name__, description=func.__doc__ or "", func=func)

# file: app/tools.py
from langchain_core.tools import StructuredTool, tool

from app import framework


@tool
def get_news(ticker: str) -> str:
    """News."""
    return ticker


@framework.tool
def scrape_content(url: str) -> str:
    """Scrape."""
    return url


async def fetch(url: str) -> str:
    return url


fetcher = StructuredTool.from_function(coroutine=fetch, name="fetch", description="Fetch.")

# file: app/nodes.py
from app.tools import fetcher, get_news, scrape_content


def sentiment_node(state):
    news = get_news.func(state["ticker"])  # error: DG101:12 direct tool call `get_news.func(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    page = scrape_content.func(state["url"])  # error: DG101:12 direct tool call `scrape_content.func(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    return news, page


async def fetch_node(state):
    return await fetcher.coroutine(state["url"])  # error: DG101:18 direct tool call `fetcher.coroutine(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: valid .func of what is not a tool, a tool's own .func, and .func runs inside a dispatch point
import functools

from langchain_core.tools import BaseTool, tool


@tool
def sql_tool(query: str) -> str:
    """SQL."""
    return query


@tool
def chat_tool(query: str) -> str:
    """Chat."""
    return query


TOOLS = {"sql": sql_tool, "chat": chat_tool}


class Wrapped(BaseTool):
    name: str = "wrapped"
    description: str = "Wrapped."

    def _run(self, q: str) -> str:
        return self.func(q)


def execute_tool(tool_name, query):
    if tool_name == "sql":
        return sql_tool.func(query)
    return chat_tool.func(query)


def run_requested(name, query):
    return TOOLS[name].func(query)


bound = functools.partial(print, "x")
bound.func("y")

# case: invalid a @tool member of a project class reached through a module-level instance of the class, from another module
# file: app/sheets.py
from langchain_core.tools import tool


class GoogleSheetsTool:
    def __init__(self):
        self.client = None

    def get_sheet(self):
        return self.client

    @tool
    def read_tasks_from_sheet(self, sheet_url: str) -> str:
        """Read the tasks."""
        return sheet_url


sheets_tool = GoogleSheetsTool()

# file: app/researcher.py
from app.sheets import sheets_tool


def research(url):
    sheets_tool.get_sheet()
    rows = sheets_tool.read_tasks_from_sheet(url)  # error: DG101:12 direct tool call `sheets_tool.read_tasks_from_sheet(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    more = sheets_tool.read_tasks_from_sheet.invoke({"sheet_url": url})  # error: DG101:12 direct tool call `sheets_tool.read_tasks_from_sheet.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
    return rows, more

# case: valid an instance's plain methods, an instance rebound, and an instance of a class with no tool member
# file: app/sheets.py
from langchain_core.tools import tool


class Sheets:
    @tool
    def read_rows(self, url: str) -> str:
        """Read."""
        return url

    def read(self, url):
        return url


class Plain:
    @staticmethod
    def read_rows(url):
        return url


sheets = Sheets()
either = Sheets()
either = Plain()
plain = Plain()

# file: app/researcher.py
from app.sheets import either, plain, sheets


def research(url):
    sheets.read(url)
    either.read_rows(url)
    return plain.read_rows(url)

# case: invalid a project inside the repository, named as its package, with a src folder: its modules are imported by the name below src
# file: bot/__init__.py
# file: bot/src/__init__.py
# file: bot/src/bot/__init__.py
# file: bot/src/bot/tools/__init__.py
# file: bot/src/bot/tools/web.py
from langchain_core.tools import tool


@tool
def scrape_content(url: str) -> str:
    """Scrape."""
    return url

# file: bot/src/bot/agents/__init__.py
# file: bot/src/bot/agents/researcher.py
from bot.tools.web import scrape_content


def research(url):
    return scrape_content.invoke(url)  # error: DG101:12 direct tool call `scrape_content.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`

# case: invalid a package importing its own submodules by the name its project root gives them, as a module beside it does
# file: backend/__init__.py
# file: backend/app/__init__.py
# file: backend/app/routers/__init__.py
from app.routers import hcps

# file: backend/app/routers/hcps.py
from langchain_core.tools import tool


@tool
def lookup(name: str) -> str:
    """Look an HCP up."""
    return name

# file: backend/app/main.py
from app.routers import hcps


def startup():
    return hcps.lookup.invoke("x")  # error: DG101:12 direct tool call `hcps.lookup.invoke(...)` bypasses the dispatcher: go through `dispatch_tool(ToolAction(...))`
