# Cases of DG102 (tool-instantiated-outside-tools-module), expanded by tests/lint/test_rules.py. Each `# case:` block is checked
# as a module of its own; `# error: DG102:COL MESSAGE` pins a finding (column and message) on its line.

# case: valid 1
from crewai.tools import BaseTool

class Search(BaseTool):
    pass

search = Search()  # the module that defines a tool may build it

# case: valid 2
from crewai.tools import BaseTool

def adapt(action):
    class ActionTool(BaseTool):
        name: str = action.name

    return ActionTool()  # an adapter builds the tools it defines

# case: valid 3
from crewai.tools import BaseTool

class Search(BaseTool):
    pass

def make(cls: type[Search]):
    return cls

# case: valid 4
class Search:
    pass

Search()

# case: valid 5
from crewai import Agent
Agent(role='x', goal='y', backstory='z')

# case: valid 6
from crewai.tools import BaseTool

class Search(BaseTool):
    def __init__(self):
        super().__init__()

# case: valid 7
from crewai_tools import load_tools
load_tools(['x'])

# case: valid 8
from crewai_tools import MAX_RESULTS
print(MAX_RESULTS)

# case: valid 9
from mytools import SerperDevTool
SerperDevTool()

# case: valid 10
from crewai.tools import BaseTool
isinstance(x, BaseTool)

# case: invalid 1
from crewai_tools import SerperDevTool

tool = SerperDevTool(n_results=3)  # error: DG102:8 tool class `SerperDevTool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry

# case: invalid 2
from langchain_community.tools import DuckDuckGoSearchRun

search = DuckDuckGoSearchRun()  # error: DG102:10 tool class `DuckDuckGoSearchRun` instantiated outside the tool modules: create tools in a tool module and reach them through the registry

# case: invalid 3
import crewai_tools as ct

def build():
    return ct.ScrapeWebsiteTool()  # error: DG102:12 tool class `ct.ScrapeWebsiteTool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry

# case: invalid 4
from langchain_core.tools import Tool

t = Tool(name='x', func=print, description='d')  # error: DG102:5 tool class `Tool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry

# case: invalid 5
from crewai_tools import SerperDevTool

def agent_tools():
    tools = [SerperDevTool()]  # error: DG102:14 tool class `SerperDevTool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry
    return tools

# case: valid a toolkit's get_tools() and an adapter build tools (zero-config factories)
from crewai_tools import SerperDevTool
from langchain_core.tools import BaseToolkit, StructuredTool

class NewsToolkit(BaseToolkit):
    def get_tools(self):
        return [SerperDevTool()]

def to_langchain(server_tools, session):
    converted = []
    for tool in server_tools:
        converted.append(StructuredTool(name=tool.name, description=tool.description, coroutine=session.call))
    return converted

def convert(mcp_tool):
    return StructuredTool(name=mcp_tool.name, description="", func=print)

def build_search_tools():
    try:
        return [SerperDevTool()]
    except ImportError:
        return []

def create_adapter(registry, tool_name: str):
    unified = registry.get_tool(tool_name)
    return StructuredTool(name=unified.name, description=unified.description, func=unified.run)

# case: invalid a tool with a literal name built in agent code is still reported
from crewai_tools import SerperDevTool
from langchain_core.tools import StructuredTool

def build_agent(settings):
    helper = settings.get_helper()
    helped = StructuredTool(name=helper.name, description="", func=print)  # error: DG102:14 tool class `StructuredTool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry
    search = SerperDevTool()  # error: DG102:14 tool class `SerperDevTool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry
    echo = StructuredTool(name="echo", description="", func=print)  # error: DG102:12 tool class `StructuredTool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry
    return [helped, search, echo]

# case: invalid a classmethod constructor builds a tool of its class
from langchain.agents import Tool
from langchain_core.tools import StructuredTool

def lookup(q):
    return q

agent_tools = [
    Tool.from_function(func=lookup, name="Lookup", description="d"),  # error: DG102:5 tool class `Tool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry
    StructuredTool.from_function(lookup),  # error: DG102:5 tool class `StructuredTool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry
]

# case: valid classmethod constructors in a factory, in an adapter, of a class the module defines, and other classmethods
from langchain_core.tools import BaseTool, StructuredTool

class Search(BaseTool):
    pass

def create_search_tools(fns):
    return [StructuredTool.from_function(fn) for fn in fns]

def adapt(server_tool):
    return StructuredTool.from_function(server_tool.call, name=server_tool.name)

own = Search.from_orm(None)
schema = StructuredTool.model_json_schema()

# case: valid an adapter wraps the functions it was given, under literal names
from langchain_core.tools import StructuredTool, Tool

class Backend:
    def answer(self, question, tools):
        wrapped = [
            StructuredTool.from_function(tools.search_web, name="web_search", description="d"),
            Tool(name="read_source", func=tools.read_source, description="d"),
        ]
        return wrapped

# case: invalid a method of the object itself is the project's own function
from langchain_core.tools import Tool

class CodeInterpreterTool:
    def call(self, code):
        return code

    def to_langchain_tool(self):
        return Tool(name="code_interpreter", description="d", func=self.call)  # error: DG102:16 tool class `Tool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry

# case: valid a private function named to build the tools builds them around the functions it defines itself
import json

from langchain_core.tools import StructuredTool, Tool


class StockAnalysisAgent:
    def __init__(self, analyser):
        self.analyser = analyser
        self.tools = self._create_analysis_tools()

    def _create_analysis_tools(self):
        def technical_analysis(ticker: str) -> str:
            """Technical indicators."""
            return json.dumps(self.analyser.analyse(ticker))

        async def fetch_quotes(ticker: str) -> str:
            """Quotes."""
            return json.dumps([ticker])

        return [
            StructuredTool.from_function(func=technical_analysis, name="technical_analysis", description="d"),
            StructuredTool.from_function(technical_analysis),
            StructuredTool(name="quotes", description="d", func=technical_analysis, coroutine=fetch_quotes),
            Tool(name="technical", func=technical_analysis, description="d"),
        ]

# case: invalid a private builder of tools the tools folder defines, a private one wrapping a function it did not define, a function not named to build tools
# file: app/tools/gmail.py
from crewai.tools import BaseTool


class GmailOrganizeTool(BaseTool):
    name: str = "organize"
    description: str = "Organize."

    def _run(self, q: str) -> str:
        return q

# file: app/crew.py
from langchain_core.tools import StructuredTool, Tool

from app.tools.gmail import GmailOrganizeTool


def lookup(q: str) -> str:
    return q


class GmailCrew:
    def _get_gmail_tools(self):
        return [GmailOrganizeTool()]  # error: DG102:17 tool class `GmailOrganizeTool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry

    def _build_tools(self):
        def local(q: str) -> str:
            return q

        return [
            StructuredTool.from_function(func=lookup, name="lookup"),  # error: DG102:13 tool class `StructuredTool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry
            Tool(name="both", func=local, coroutine=lookup, description="d"),  # error: DG102:13 tool class `Tool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry
            Tool(name="answer", func=lambda q: lookup(q), description="d"),  # error: DG102:13 tool class `Tool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry
        ]


def define_tool_classically():
    def multiply(a: float, b: float) -> float:
        return a * b

    return StructuredTool(name="MultiplicationTool", description="d", func=multiply)  # error: DG102:12 tool class `StructuredTool` instantiated outside the tool modules: create tools in a tool module and reach them through the registry
