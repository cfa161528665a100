# Cases of DG104 (tool-function-returns-non-json), expanded by tests/lint/test_rules.py. Each `# case:` block is checked
# as a module of its own; `# error: DG104:COL MESSAGE` pins a finding (column and message) on its line.

# case: valid 1
import json
from langchain_core.tools import tool

@tool
def search(query: str) -> str:
    """Search."""
    return json.dumps({'query': query})

# case: valid 2
import json
from crewai.tools import tool

@tool("Search the web")
def search(query: str) -> str:
    """Search."""
    if not query:
        return '{"error": "empty query"}'
    return json.dumps(run_search(query))

# case: valid 3
import json
from langchain_core.tools import tool

@tool(response_format="content_and_artifact")
def fetch(url: str):
    """Fetch."""
    page = download(url)
    return json.dumps({'title': page.title}), page

# case: valid 4
from langchain_core.tools import tool

@tool
def lookup(key: str) -> str:
    """Look up."""
    return backend.get(key)

# case: valid 5
from langchain_core.tools import tool

def helper(x):
    return {'x': x}

@tool
def wrapped(x: str) -> str:
    """Wrapped."""
    return ensure_json_str(helper(x))

# case: valid 6
def not_a_tool(x):
    return f"value {x}"

# case: valid 7
from langchain_core.tools import tool

options = tool(parse_docstring=True)

def plain(x):
    return x

# case: invalid 1
from datetime import datetime
from langchain_core.tools import tool

@tool
def now() -> str:
    """The current time."""
    return datetime.now().isoformat()  # error: DG104:12 tool function `now` returns a date as text (`.isoformat()`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 2
from langchain_core.tools import tool

@tool
def add(a: int, b: int) -> str:
    """Add."""
    return f"The sum is {a + b}"  # error: DG104:12 tool function `add` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 3
from crewai.tools import tool

@tool("Calculator")
def calculate(expression: str) -> str:
    """Calculate."""
    try:
        return evaluate(expression)
    except ValueError:
        return "Error: invalid expression"  # error: DG104:16 tool function `calculate` returns a string that is not JSON, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 4
from langchain.tools import tool

@tool
def summarise(items: list[str]) -> str:
    """Summarise."""
    return "\n".join(items)  # error: DG104:12 tool function `summarise` returns text joined with '\n', not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 5
from langchain_core.tools import tool

@tool
def company(domain: str) -> dict:
    """Company."""
    return {'domain': domain}  # error: DG104:12 tool function `company` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 6
from langchain_core.tools import tool

@tool(response_format="content_and_artifact")
def fetch(url: str):
    """Fetch."""
    page = download(url)
    return f"Title: {page.title}", page  # error: DG104:12 tool function `fetch` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid 7
from langchain_core.tools import StructuredTool

def multiply(a: float, b: float) -> float:
    return a * b / 1  # error: DG104:12 tool function `multiply` returns a number (arithmetic), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

calculator = StructuredTool.from_function(func=multiply, name="multiply")

# case: invalid 8
import requests
from langchain_core.tools import tool

@tool
def weather(city: str):
    """Weather."""
    response = requests.get("https://example.invalid", params={"q": city})
    return response.json()  # error: DG104:12 tool function `weather` returns a parsed value (`.json()` of an HTTP response), not text, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid a parser's value and text that failed to parse as JSON are no JSON strings
import ast
import json

from langchain_core.tools import tool


@tool
def tracks(artist: str):
    """Tracks."""
    return ast.literal_eval(run_sql(artist))  # error: DG104:12 tool function `tracks` returns a parsed value (`ast.literal_eval`), not text, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def plot(path: str) -> str:
    """Plot."""
    output = run_script(path)
    try:
        data = json.loads(output)
        return json.dumps({"file": data["file"]})
    except json.JSONDecodeError:
        return output  # error: DG104:16 tool function `plot` returns text that failed to parse as JSON (`output`, from its `except`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid text parsed again after a failed parse is not the failed text
import json

from langchain_core.tools import tool


@tool
def plot(path: str) -> str:
    """Plot."""
    output = run_script(path)
    try:
        json.loads(output)
    except ValueError:
        output = json.dumps({"raw": output})
        return output
    return output

# case: invalid a .get default's kind, a table as markdown, a slice of prose, JSON cut short
import json

from langchain_core.tools import tool


@tool
def history(state: dict, key: str):
    """History."""
    return state.get(key, [])  # error: DG104:12 tool function `history` returns a list (the default of `.get`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def table(frame) -> str:
    """Table."""
    return frame.to_markdown()[:2000]  # error: DG104:12 tool function `table` returns markdown text (`.to_markdown()`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def transcript(video: str) -> str:
    """Transcript."""
    text = "\n".join(fetch(video))
    return text[:12000]  # error: DG104:12 tool function `transcript` returns text joined with '\n', not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def truncated(q: str) -> str:
    """Truncated."""
    return json.dumps(search(q))[:4000]  # error: DG104:12 tool function `truncated` returns JSON text cut short (a slice), not valid JSON, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid a .get with a text default, a slice from the start of JSON text, an index
import json

from langchain_core.tools import tool


@tool
def setting(config: dict, key: str) -> str:
    """Setting."""
    return config.get(key, "")


@tool
def whole(q: str) -> str:
    """Whole."""
    return json.dumps(search(q))[0:]


@tool
def first(rows: list) -> str:
    """First."""
    return rows[0]

# case: invalid what a library tool answers when run (the table's declared `_run` returns), and an agent's final answer
import json

from langchain.agents import AgentExecutor
from langchain_core.tools import StructuredTool, tool
from langchain_tavily import TavilySearch

tavily = TavilySearch(max_results=3)


@tool
def search(query: str) -> str:
    """Search."""
    return tavily.invoke(query)  # error: DG104:12 tool function `search` returns a dict (what `TavilySearch` answers), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


def run_queries(queries: list) -> str:
    """Run the queries."""
    return tavily.batch([{"query": q} for q in queries])  # error: DG104:12 tool function `run_queries` returns a list (of `TavilySearch` answers, from `.batch`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


queries_tool = StructuredTool.from_function(func=run_queries)


@tool
def ask_agent(question: str) -> str:
    """Ask the research agent."""
    executor = AgentExecutor(agent=build_agent(), tools=[search])
    result = executor.invoke({"input": question})
    return result["output"]  # error: DG104:12 tool function `ask_agent` returns the agent's final answer (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid a prebuilt agent graph's last message is its final answer (a sub-agent as a tool)
from langchain_core.messages import HumanMessage
from langchain_core.tools import Tool
from langgraph.prebuilt import create_react_agent

orders_agent = create_react_agent(model, tools=[])


def delegate_to_orders(request: str) -> str:
    result = orders_agent.invoke({"messages": [HumanMessage(content=request)]})
    response = result["messages"][-1].content
    return response  # error: DG104:12 tool function `delegate_to_orders` returns the agent's final answer (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


delegate = Tool(name="orders", func=delegate_to_orders, description="Ask the orders agent.")

# case: valid the messages of a graph that is not a prebuilt agent, and another attribute of the last message
from langchain_core.tools import tool
from langgraph.prebuilt import create_react_agent


@tool
def ask_graph(question: str) -> str:
    """A custom graph's last message may be anything."""
    return build_graph().compile().invoke({"messages": [question]})["messages"][-1].content


@tool
def last_id(question: str) -> str:
    """Not the content."""
    return create_react_agent(model, tools=[]).invoke({"messages": [question]})["messages"][-1].id

# case: invalid a method of the module's class, called on a module-level instance of it
from langchain_core.tools import Tool


class ConversationMemory:
    def __init__(self) -> None:
        self.facts: list = []

    def summary(self) -> str:
        return "; ".join(self.facts)


memory = ConversationMemory()


def recall(query: str = "") -> str:
    return memory.summary()  # error: DG104:12 tool function `recall` returns text joined with '; ', not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


recall_tool = Tool(name="recall", func=recall, description="What the user said.")

# case: valid a module-level instance's method that dumps JSON, an instance of an imported class, a rebound instance
import json

from langchain_core.tools import tool
from memory import Memory


class Store:
    def dump(self) -> str:
        return json.dumps({"rows": []})

    def text(self) -> str:
        return "\n".join(["a", "b"])


store = Store()
other = Memory()
twice = Store()
twice = Memory()


@tool
def dumped(query: str) -> str:
    """Dumped."""
    return store.dump()


@tool
def imported(query: str) -> str:
    """An imported class's method: unknown here."""
    return other.text()


@tool
def rebound(query: str) -> str:
    """Bound twice: unknown."""
    return twice.text()

# case: invalid JSON written by hand in an f-string, and an f-string of text
from langchain_core.tools import tool


@tool
def lookup(key: str) -> str:
    """Lookup."""
    try:
        return load(key)
    except KeyError as e:
        return f'{{"error": "{e}"}}'  # error: DG104:16 tool function `lookup` returns JSON written by hand in an f-string (its values are not escaped), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def rows(key: str) -> str:
    """Rows."""
    return f"[{key}] found"  # error: DG104:12 tool function `rows` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid a library tool's answer dumped, a chain's "output" key, a tool whose answer the table does not declare
import json

from langchain_community.tools import GoldenQueryRun
from langchain_core.tools import tool
from langchain_tavily import TavilySearch

tavily = TavilySearch(max_results=3)
golden = GoldenQueryRun(api_wrapper=build_wrapper())


@tool
def dumped(query: str) -> str:
    """Search, as JSON."""
    return json.dumps(tavily.invoke(query))


@tool
def chained(question: str) -> str:
    """A chain's output key."""
    return build_chain().invoke({"q": question})["output"]


@tool
def text_search(query: str) -> str:
    """Golden's answer: `_run` declares str, and the table records nothing of its wrapper's `run`."""
    return golden.invoke(query)


# case: invalid a tool made in a method is named once by its class, and its self is the method's
from langchain_core.tools import tool


class Retriever:
    def invoke(self, query: str) -> str:
        return "\n".join(self.search(query))

    def as_tool(self):
        @tool("retrieve")
        def retrieve(query: str) -> str:
            """Retrieve."""
            return self.invoke(query)  # error: DG104:20 tool function `Retriever.as_tool.retrieve` returns text joined with '\n', not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

        return retrieve

# case: invalid a date as text of a format that renders no JSON
import time
from datetime import datetime

from langchain_core.tools import tool

DAY = "%A %d %B"


@tool
def today() -> str:
    """Today's date."""
    return datetime.now().strftime("%Y-%m-%d")  # error: DG104:12 tool function `today` returns a date as text (`.strftime(...)`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def clock() -> str:
    """The time."""
    return time.strftime("%H:%M")  # error: DG104:12 tool function `clock` returns a date as text (`.strftime(...)`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def weekday() -> str:
    """The weekday."""
    return datetime.now().strftime(DAY)  # error: DG104:12 tool function `weekday` returns a date as text (`.strftime(...)`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid a format that renders a JSON number, or JSON, and a format from elsewhere
from datetime import datetime

from langchain_core.tools import tool


@tool
def year() -> str:
    """The year."""
    return datetime.now().strftime("%Y")


@tool
def stamped() -> str:
    """A JSON object."""
    return datetime.now().strftime('{"date": "%Y-%m-%d"}')


@tool
def formatted(fmt: str) -> str:
    """Any format."""
    return datetime.now().strftime(fmt)

# case: invalid methods of the class made tools by a tool decorator with options, from_function or func=
from langchain.tools import tool
from langchain_core.tools import StructuredTool, Tool


class WorkoutTools:
    def _state_action(self) -> str:
        return {"status": "ok"}  # error: DG104:16 tool function `WorkoutTools._state_action` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    def _delete_action(self, plan: str):
        return f"Deleted {plan}"  # error: DG104:16 tool function `WorkoutTools._delete_action` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    def _count_action(self, day: str):
        return len(day)  # error: DG104:16 tool function `WorkoutTools._count_action` returns a number, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    def build(self):
        state = tool("get_state", description="The state.")(self._state_action)
        delete = StructuredTool.from_function(self._delete_action, name="delete")
        count = Tool(name="count", description="Count.", func=self._count_action)
        return [state, delete, count]

# case: invalid a table of text looked up with a text default, or without one
import json

from langchain_core.tools import tool

FORECASTS = {"Paris": "Sunny, 25°C", "Oslo": "Rain, 9°C"}


@tool
def forecast(city: str) -> str:
    """The forecast."""
    return FORECASTS.get(city, f"No forecast for {city}")  # error: DG104:12 tool function `forecast` returns text (a value of `FORECASTS` or the default of `.get`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def search(query: str) -> str:
    """Search."""
    results = {"python": "Python is a language.", "rust": "Rust is a language."}
    return results.get(query, "Nothing found.")  # error: DG104:12 tool function `search` returns text (a value of `results` or the default of `.get`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def pick(city: str) -> str:
    """Pick."""
    return FORECASTS[city]  # error: DG104:12 tool function `pick` returns text (a value of `FORECASTS`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def define(city: str) -> str:
    """Define."""
    found = FORECASTS.get(city)
    if found:
        return found  # error: DG104:16 tool function `define` returns text or None (a value of `FORECASTS`, or None from `.get`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
    return json.dumps({"error": "unknown city"})

# case: valid a table holding JSON text or values of unknown content, or a default that may be JSON
import json

from langchain_core.tools import tool

ANSWERS = {"a": json.dumps({"answer": 1}), "b": "Plain."}
LOOKED_UP = {"a": lookup("a"), "b": "Plain."}
PLAIN = {"a": "Plain.", "b": "Prose."}


@tool
def answer(key: str) -> str:
    """Answer."""
    return ANSWERS.get(key, "None.")


@tool
def looked_up(key: str) -> str:
    """Looked up."""
    return LOOKED_UP.get(key, "None.")


@tool
def plain(key: str, fallback: str) -> str:
    """Plain."""
    return PLAIN.get(key, fallback)


@tool
def answer_or_none(key: str) -> str:
    """Answer, or None."""
    return ANSWERS.get(key)


@tool
def looked_up_item(key: str) -> str:
    """An item of a table of unknown values."""
    return LOOKED_UP[key]

# case: invalid a lambda given to a tool class is a tool function
from langchain.agents import Tool


def weather(city: str) -> str:
    return f"Sunny in {city}"


def budget(days: int) -> dict:
    return {"days": days}


tools = [
    Tool(name="Weather", func=lambda city: weather(city), description="Weather."),  # error: DG104:44 tool function `Weather` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
    Tool(name="Budget", func=lambda days: str(budget(int(days))), description="Budget."),  # error: DG104:43 tool function `Budget` returns `str(...)` (a Python repr), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
]

# case: invalid a tool that answers what another tool of the module answers
from langchain_core.tools import tool


@tool
def web_search(query: str) -> str:
    """Search the web."""
    return f"🌐 Results for {query}"  # error: DG104:12 tool function `web_search` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def smart_search(query: str) -> str:
    """Search."""
    return web_search.invoke(query)  # error: DG104:12 tool function `smart_search` returns an f-string, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid functions defined in a factory and given to from_function there are tool functions
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool


def create_tools(client) -> list[BaseTool]:
    def fighter_news(query: str) -> dict[str, Any]:
        """Search the news."""
        result = client.search_news(query)
        return result  # error: DG104:16 tool function `create_tools.fighter_news` returns a dict (declared `-> dict[str, Any]`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    def fighter_stats(name: str):
        """Get the stats."""
        return {"fighter": name}  # error: DG104:16 tool function `create_tools.fighter_stats` returns a dict, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

    return [StructuredTool.from_function(fighter_news), StructuredTool.from_function(func=fighter_stats)]

# case: invalid text grown with += from an empty string, each piece starting with a character JSON cannot
from langchain_core.tools import tool


def format_results(results):
    formatted = ""
    for res in results:
        formatted += f"* {res['title']}\n"
        formatted += f"  url: {res['url']}\n"
    return formatted


@tool
def search(query: str) -> str:
    """Search."""
    return format_results(run_search(query))  # error: DG104:12 tool function `search` returns text built with `+=`, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid text grown from an empty string with pieces that may be JSON
import json

from langchain_core.tools import tool


@tool
def rows(query: str) -> str:
    """Rows."""
    out = ""
    for row in run_search(query):
        out += json.dumps(row)
    return out


@tool
def lines(query: str) -> str:
    """Lines."""
    out = ""
    for row in run_search(query):
        out += f"{row}\n"
    return out

# case: invalid text that starts in a way no JSON text does, glued to other values
from langchain_core.tools import tool


@tool
def web_search(query: str) -> str:
    """Search."""
    lines = [query]
    return "[WEB SEARCH]\n" + "\n".join(lines)  # error: DG104:12 tool function `web_search` returns text glued to other values, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def count(query: str) -> str:
    """Count."""
    return "no results for " + query  # error: DG104:12 tool function `count` returns text glued to other values, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def status(query: str) -> str:
    """Status."""
    return "3 items: %s" % query  # error: DG104:12 tool function `status` returns text formatted with `%`, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid text glued or formatted that may still be JSON
from langchain_core.tools import tool


@tool
def listed(items: list) -> str:
    """Listed."""
    return "[" + ",".join(items) + "]"


@tool
def wrapped(body: str) -> str:
    """Wrapped."""
    return "{%s}" % body


@tool
def templated(data: str) -> str:
    """Templated."""
    return "{data}".format(data=data)


@tool
def keyed(body: str) -> str:
    """Keyed."""
    return '{"result": ' + body + "}"

# case: invalid a value of a table of text, taken in a loop over its items or values
from langchain_core.tools import tool

RESULTS = {"weather": "Sunny and warm.", "news": "Nothing new today."}


@tool
def answer(query: str) -> str:
    """Answer."""
    for key, value in RESULTS.items():
        if key in query:
            return value  # error: DG104:20 tool function `answer` returns text (a value of `RESULTS`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
    for text in RESULTS.values():
        if query in text:
            return text  # error: DG104:20 tool function `answer` returns text (a value of `RESULTS`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
    return "{}"

# case: valid the keys of a table of text, and the values of a table that holds JSON text
import json

from langchain_core.tools import tool

RESULTS = {"weather": "Sunny and warm.", "news": "Nothing new today."}
ANSWERS = {"a": json.dumps({"answer": 1}), "b": "Plain."}


@tool
def keys(query: str) -> str:
    """Keys."""
    for key in RESULTS:
        if key in query:
            return key
    for key, value in ANSWERS.items():
        if key == query:
            return value
    return "{}"

# case: invalid what an SDK client's method declares it returns, from the bundled table of SDKs
from exa_py import Exa
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from mcp import ClientSession
from tavily import TavilyClient

llm = ChatOpenAI(model="gpt-4o")


@tool
def ask(q: str) -> str:
    """Ask."""
    return llm.invoke(q)  # error: DG104:12 tool function `ask` returns an instance of `AIMessage` (from `ChatOpenAI.invoke`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
async def call(session: ClientSession, name: str) -> str:
    """Call."""
    return await session.call_tool(name, {})  # error: DG104:12 tool function `call` returns an instance of `CallToolResult` (from `ClientSession.call_tool`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def search(q: str) -> str:
    """Search."""
    return TavilyClient(api_key="k").search(q)  # error: DG104:12 tool function `search` returns a dict (from `TavilyClient.search`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def find(q: str) -> str:
    """Find."""
    return Exa("key").search(q)  # error: DG104:12 tool function `find` returns an instance of `SearchResponse` (from `Exa.search`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid the text a chat model, a chain ending in a string parser or an OpenAI client wrote is prose
from langchain_community.chat_models import ChatPerplexity
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import StructuredTool, tool
from langchain_openai import ChatOpenAI
from openai import OpenAI

llm = ChatOpenAI(model="gpt-4o")
client = OpenAI()
prompt = ChatPromptTemplate.from_template("Summarise {topic} for a manager.")
chain = prompt | llm | StrOutputParser()


@tool
def ask(q: str) -> str:
    """Ask."""
    return llm.invoke(q).content  # error: DG104:12 tool function `ask` returns the chat model's reply (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def ask_again(q: str) -> str:
    """Ask again."""
    response = llm.invoke(q)
    return response.content.strip()  # error: DG104:12 tool function `ask_again` returns the chat model's reply (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
async def summarise(topic: str) -> str:
    """Summarise."""
    return await chain.ainvoke({"topic": topic})  # error: DG104:12 tool function `summarise` returns the text of a chain ending in `StrOutputParser` (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def complete(q: str) -> str:
    """Complete."""
    completion = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": q}])
    return completion.choices[0].message.content  # error: DG104:12 tool function `complete` returns the chat model's reply (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


def search_with_perplexity(q: str) -> str:
    model = ChatPerplexity(model="sonar")
    llm_response = model.invoke(q)
    return llm_response.content  # error: DG104:12 tool function `search_with_perplexity` returns the chat model's reply (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


perplexity = StructuredTool.from_function(func=search_with_perplexity)
marketing_chain = prompt | llm


def generate_blog_outline(topic: str) -> str:
    return marketing_chain.invoke({"topic": topic}).content  # error: DG104:12 tool function `generate_blog_outline` returns the chat model's reply (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


outline = StructuredTool.from_function(func=generate_blog_outline)

# case: valid models asked for JSON, a reply parsed as JSON, the model's tool calls, a method no table records
import json

from langchain_core.output_parsers import JsonOutputParser, StrOutputParser
from langchain_core.tools import tool
from langchain_ollama import ChatOllama
from langchain_openai import ChatOpenAI
from openai import OpenAI

llm = ChatOpenAI(model="gpt-4o")
json_llm = ChatOpenAI(model="gpt-4o", model_kwargs={"response_format": {"type": "json_object"}})
ollama = ChatOllama(model="llama3", format="json")
client = OpenAI()
json_chain = prompt | llm | JsonOutputParser()
bound_chain = prompt | llm.bind(response_format={"type": "json_object"}) | StrOutputParser()
json_model_chain = prompt | json_llm
SYSTEM = "Answer with a JSON object with the keys answer and sources."


@tool
def ask_json(q: str) -> str:
    """Ask."""
    return json_llm.invoke(q).content


@tool
def ask_ollama(q: str) -> str:
    """Ask Ollama."""
    return ollama.invoke(q).content


@tool
def ask_structured(q: str) -> str:
    """Structured."""
    return llm.with_structured_output(Answer).invoke(q).content


@tool
def ask_prompted(q: str) -> str:
    """A prompt."""
    response = llm.invoke([("system", SYSTEM), ("user", q)])
    return response.content


@tool
def complete_json(q: str) -> str:
    """Complete."""
    completion = client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": q}], response_format={"type": "json_object"}
    )
    return completion.choices[0].message.content


@tool
def parsed(q: str) -> str:
    """Parsed."""
    return json.dumps(json.loads(llm.invoke(q).content))


@tool
def calls(q: str) -> str:
    """The model's tool calls."""
    return llm.invoke(q).tool_calls


@tool
def chains(q: str) -> str:
    """Chains."""
    if q:
        return bound_chain.invoke({"q": q})
    return json_chain.invoke({"q": q})


@tool
def name(q: str) -> str:
    """Name."""
    return llm.get_name()


@tool
def json_model_chained(q: str) -> str:
    """A chain ending in a model asked for JSON."""
    return json_model_chain.invoke({"q": q}).content

# case: invalid an agent executor's answer read with a default, and a crew's final answer
from crewai import Agent, Crew, Task
from crewai.tools import tool
from langchain.agents import AgentExecutor
from langchain_core.tools import StructuredTool

writer = Agent(role="Writer", goal="Write replies", backstory="A writer.")
draft = Task(description="Draft a reply to {request}.", expected_output="A short reply.", agent=writer)
crew = Crew(agents=[writer], tasks=[draft])


@tool("Draft a reply")
def draft_reply(request: str) -> str:
    """Draft a reply."""
    result = crew.kickoff(inputs={"request": request})
    return result.raw  # error: DG104:12 tool function `draft_reply` returns the crew's final answer (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


def summarize_website(url: str) -> str:
    executor = AgentExecutor(agent=build_agent(), tools=[])
    result = executor.invoke({"input": url})
    return result.get("output", "没有结果")  # error: DG104:12 tool function `summarize_website` returns the agent's final answer (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


summarize = StructuredTool.from_function(func=summarize_website)

# case: valid a crew whose task asks for JSON, and a crew whose tasks cannot be read
from crewai import Agent, Crew, Task
from crewai.tools import tool

writer = Agent(role="Writer", goal="Write replies", backstory="A writer.")
draft = Task(description="Draft {request}.", expected_output="A reply.", agent=writer, output_json=Reply)
crew = Crew(agents=[writer], tasks=[draft])


@tool("Draft a reply")
def draft_reply(request: str) -> str:
    """Draft a reply."""
    return crew.kickoff(inputs={"request": request}).raw


@tool("Run a crew")
def run_crew(request: str) -> str:
    """Run a crew built elsewhere."""
    return build_crew().kickoff(inputs={"request": request}).raw

# case: invalid a function looked up in a table of functions returns what the table's functions return
from langchain_core.tools import tool


def news_markdown(ticker: str) -> str:
    return f"## News for {ticker}"


def news_csv(ticker: str) -> str:
    return "\n".join(["title,link", ticker])


def prices(ticker: str) -> dict:
    return {"ticker": ticker}


def volumes(ticker: str) -> dict:
    return {"volume": ticker}


VENDORS = {"alpha_vantage": news_markdown, "yfinance": news_csv}
VENDOR_METHODS = {"get_news": VENDORS, "get_prices": {"alpha_vantage": prices, "yfinance": volumes}}


def route_to_vendor(method: str, vendor: str, *args):
    impl = VENDOR_METHODS[method][vendor]
    return impl(*args)


@tool
def get_news(vendor: str, ticker: str) -> str:
    """Recent news about a company."""
    return VENDORS[vendor](ticker)  # error: DG104:12 tool function `get_news` returns text (from the functions of `VENDORS`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def get_news_routed(ticker: str) -> str:
    """Recent news, from the configured vendor."""
    return route_to_vendor("get_news", "yfinance", ticker)  # error: DG104:12 tool function `get_news_routed` returns values that are not JSON text (from the functions of `VENDOR_METHODS`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def get_prices(vendor: str, ticker: str) -> str:
    """Prices."""
    return VENDOR_METHODS["get_prices"].get(vendor)(ticker)  # error: DG104:12 tool function `get_prices` returns a dict (from the functions of `VENDOR_METHODS`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid a table of functions returning JSON text, or JSON and other values, or of classes, or a lambda
import json

from langchain_core.tools import tool


def news_json(ticker: str) -> str:
    return json.dumps({"ticker": ticker})


def news_text(ticker: str) -> str:
    return f"News for {ticker}"


class Fetcher:
    pass


JSON_VENDORS = {"a": news_json, "b": news_json}
MIXED = {"a": news_json, "b": news_text}
CLASSES = {"a": Fetcher}
LAMBDAS = {"a": lambda ticker: f"News for {ticker}"}


@tool
def get_news(vendor: str, ticker: str) -> str:
    """News."""
    if vendor == "json":
        return JSON_VENDORS[vendor](ticker)
    if vendor == "mixed":
        return MIXED[vendor](ticker)
    if vendor == "class":
        return CLASSES[vendor](ticker)
    return LAMBDAS[vendor](ticker)

# case: invalid `x.__str__()` reads as `str(x)`, `x.__repr__()` as `repr(x)`
from langchain_core.tools import tool


@tool
def memory_search(query: str) -> str:
    """Search the memory."""
    docs = retriever.invoke(query)
    return docs.__str__()  # error: DG104:12 tool function `memory_search` returns `.__str__()` (a Python repr), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def sources(query: str) -> str:
    """The sources."""
    return search(query).__repr__()  # error: DG104:12 tool function `sources` returns `.__repr__()` (a Python repr), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid the `__str__()` of JSON text, and a tool class's own `__str__`
import json

from crewai.tools import BaseTool
from langchain_core.tools import tool


@tool
def dumped(query: str) -> str:
    """Dumped."""
    return json.dumps({"query": query}).__str__()


class Report(BaseTool):
    name: str = "report"
    description: str = "A report."

    def __str__(self) -> str:
        return json.dumps({"name": self.name})

    def _run(self, query: str) -> str:
        return self.__str__()

# case: invalid a chain built inline ending in a model another module builds (one per branch of an `if`), and a helper returning its text
# file: app/config.py
import os

from langchain_openai import ChatOpenAI

if os.getenv("DEEPSEEK_API_KEY"):
    llm = ChatOpenAI(model_name="deepseek-chat", openai_api_base="https://api.deepseek.com/v1")
else:
    llm = ChatOpenAI(model_name="gpt-4o-mini")

# file: app/tools.py
from langchain.agents import Tool
from langchain.prompts import PromptTemplate

from app.config import llm

answer_prompt = PromptTemplate.from_template("Answer the guest's question {input} from these facts: {facts}")


def explain(question: str, rows: list) -> str:
    return (answer_prompt | llm).invoke({"input": question, "facts": rows}).content.strip()


def chat_tool_func(user_input: str) -> str:
    try:
        response = (answer_prompt | llm).invoke({"input": user_input, "facts": ""}).content.strip()
        return response  # error: DG104:16 tool function `chat_tool_func` returns the chat model's reply (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
    except Exception:
        return "I'm sorry, something went wrong."  # error: DG104:16 tool function `chat_tool_func` returns a string that is not JSON, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


def sql_tool_func(question: str) -> str:
    return explain(question, run_query(question))  # error: DG104:12 tool function `sql_tool_func` returns the chat model's reply (prose the model wrote), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


chat_tool = Tool(name="chat_tool", func=chat_tool_func, description="Hotel questions.")
sql_tool = Tool(name="sql_tool", func=sql_tool_func, description="Bookings.")

# case: valid an imported model asked for JSON, rebound to something else, a chain ending in a JSON parser or a structured model
# file: app/config.py
from langchain_openai import ChatOpenAI

json_llm = ChatOpenAI(model="gpt-4o", model_kwargs={"response_format": {"type": "json_object"}})
wrapped = ChatOpenAI(model="gpt-4o")
wrapped = with_retries(wrapped)
llm = ChatOpenAI(model="gpt-4o")

# file: app/tools.py
from langchain.agents import Tool
from langchain.prompts import PromptTemplate
from langchain_core.output_parsers import JsonOutputParser

from app.config import json_llm, llm, wrapped

prompt = PromptTemplate.from_template("Answer {input}.")


def json_answer(q: str) -> str:
    return (prompt | json_llm).invoke({"input": q}).content.strip()


def wrapped_answer(q: str) -> str:
    return (prompt | wrapped).invoke({"input": q}).content.strip()


def parsed_answer(q: str) -> str:
    return (prompt | llm | JsonOutputParser()).invoke({"input": q})


def structured_answer(q: str) -> str:
    return (prompt | llm.with_structured_output(Answer)).invoke({"input": q}).content


tools = [
    Tool(name="a", func=json_answer, description="A."),
    Tool(name="b", func=wrapped_answer, description="B."),
    Tool(name="c", func=parsed_answer, description="C."),
    Tool(name="d", func=structured_answer, description="D."),
]

# case: invalid a router over a table of functions another module holds: the union of the entry its caller names and the router's own text
# file: app/vendors.py
def news_markdown(ticker: str) -> str:
    return f"## News for {ticker}"


def news_csv(ticker: str) -> str:
    return "\n".join(["title,link", ticker])


def prices_raw(ticker: str) -> str:
    return fetch(ticker).text

# file: app/interface.py
from app.vendors import news_csv, news_markdown, prices_raw

VENDOR_METHODS = {"get_news": {"alpha": news_markdown, "beta": news_csv}, "get_prices": {"alpha": prices_raw}}


def route_to_vendor(method: str, *args):
    for vendor in vendor_chain(method):
        impl = VENDOR_METHODS[method][vendor]
        try:
            return impl(*args)
        except VendorError:
            continue
    return f"NO_DATA_AVAILABLE: no vendor answered {method}"


def first_answer(method: str, *args):
    results = []
    for vendor in vendor_chain(method):
        answer = VENDOR_METHODS[method][vendor](*args)
        results.append(answer)
    return results[0] if results else "NO_DATA_AVAILABLE"

# file: app/tools.py
from langchain_core.tools import tool

from app.interface import first_answer, route_to_vendor


@tool
def get_news(ticker: str) -> str:
    """Recent news about a company."""
    return route_to_vendor("get_news", ticker)  # error: DG104:12 tool function `get_news` returns text (from the functions of `VENDOR_METHODS`, through `route_to_vendor`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def get_news_once(ticker: str) -> str:
    """The first vendor's news."""
    return first_answer("get_news", ticker)  # error: DG104:12 tool function `get_news_once` returns text (from the functions of `VENDOR_METHODS`, through `first_answer`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def get_news_named(ticker: str) -> str:
    """News, the method passed by keyword."""
    return route_to_vendor(method="get_news")  # error: DG104:12 tool function `get_news_named` returns text (from the functions of `VENDOR_METHODS`, through `route_to_vendor`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid a router whose named entry, or whose any entry, may give text of unknown content, or whose own answer is JSON
# file: app/vendors.py
import json


def news_markdown(ticker: str) -> str:
    return f"## News for {ticker}"


def prices_raw(ticker: str) -> str:
    return fetch(ticker).text

# file: app/interface.py
import json

from app.vendors import news_markdown, prices_raw

VENDOR_METHODS = {"get_news": {"alpha": news_markdown}, "get_prices": {"alpha": prices_raw}}


def route_to_vendor(method: str, *args):
    for vendor in vendor_chain(method):
        return VENDOR_METHODS[method][vendor](*args)
    return f"NO_DATA_AVAILABLE: no vendor answered {method}"


def route_or_error(method: str, *args):
    for vendor in vendor_chain(method):
        return VENDOR_METHODS[method][vendor](*args)
    return json.dumps({"error": "no vendor answered"})


def collected(method: str, *args):
    results = []
    for vendor in vendor_chain(method):
        results.append(VENDOR_METHODS[method][vendor](*args))
        results.append(cache.get(vendor))
    return results[-1]

# file: app/tools.py
from langchain_core.tools import tool

from app.interface import collected, route_or_error, route_to_vendor


@tool
def get_prices(ticker: str) -> str:
    """Prices."""
    return route_to_vendor("get_prices", ticker)


@tool
def get_any(method: str, ticker: str) -> str:
    """Any method."""
    return route_to_vendor(method, ticker)


@tool
def get_news_or_error(ticker: str) -> str:
    """News, or a JSON error."""
    return route_or_error("get_news", ticker)


@tool
def get_collected(ticker: str) -> str:
    """News, or a cached value."""
    return collected("get_news", ticker)

# case: invalid a library tool whose `_run` returns its API wrapper's text (the bundled table, from the sdist's source)
from crewai.tools import tool
from langchain_community.tools import DuckDuckGoSearchRun

duckduckgo_search = DuckDuckGoSearchRun()


@tool("web_search_tool")
def web_search_tool(query: str) -> str:
    """Search the web for up-to-date information."""
    return duckduckgo_search.run(query)  # error: DG104:12 tool function `web_search_tool` returns text (from `DuckDuckGoSearchAPIWrapper.run`, what `DuckDuckGoSearchRun` answers), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid Wikipedia's tool answers its wrapper's prose (the wrapper keeps pages with `:=`, which no longer hides what it returns)
from langchain_community.tools import WikipediaQueryRun
from langchain_community.utilities import WikipediaAPIWrapper
from langchain_core.tools import tool

wikipedia = WikipediaQueryRun(api_wrapper=WikipediaAPIWrapper())


@tool
def search_wikipedia(query: str) -> str:
    """Search Wikipedia."""
    return wikipedia.run(query)  # error: DG104:12 tool function `search_wikipedia` returns text (from `WikipediaAPIWrapper.run`, what `WikipediaQueryRun` answers), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: invalid an API wrapper run directly answers its prose (the bundled table's summary of its source)
from langchain_community.utilities import DuckDuckGoSearchAPIWrapper, WikipediaAPIWrapper
from langchain_core.tools import tool

search = DuckDuckGoSearchAPIWrapper()


@tool
def wikipedia_pages(query: str) -> str:
    """Wikipedia's pages."""
    return WikipediaAPIWrapper().run(query)  # error: DG104:12 tool function `wikipedia_pages` returns a string that is not JSON (from `WikipediaAPIWrapper.run`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def web_snippets(query: str) -> str:
    """Web snippets."""
    return search.run(query)  # error: DG104:12 tool function `web_snippets` returns a string that is not JSON (from `DuckDuckGoSearchAPIWrapper.run`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`

# case: valid a library tool whose `_run` answers a tuple or JSON text, or whose wrapper's method returns values of unknown content
from crewai.tools import tool
from langchain_community.tools import DuckDuckGoSearchResults, GoogleSerperResults

results_search = DuckDuckGoSearchResults(output_format="json")


@tool("search_results")
def search_results(query: str) -> str:
    """Search results."""
    return results_search.run(query)


@tool("serper")
def serper(query: str) -> str:
    """Serper."""
    return GoogleSerperResults().invoke(query)

# case: invalid a router of the same module keyed by the method its caller names: that entry's functions
from langchain_core.tools import tool


def news_markdown(ticker: str) -> str:
    return f"## News for {ticker}"


def prices_raw(ticker: str) -> str:
    return fetch(ticker).text


VENDOR_METHODS = {"get_news": {"alpha": news_markdown}, "get_prices": {"alpha": prices_raw}}


def route_to_vendor(method: str, *args):
    for vendor in vendor_chain(method):
        impl = VENDOR_METHODS[method][vendor]
        return impl(*args)
    return f"NO_DATA_AVAILABLE: no vendor answered {method}"


@tool
def get_news(ticker: str) -> str:
    """News."""
    return route_to_vendor("get_news", ticker)  # error: DG104:12 tool function `get_news` returns an f-string (from the functions of `VENDOR_METHODS`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def get_prices(ticker: str) -> str:
    """Prices: text of unknown content."""
    return route_to_vendor("get_prices", ticker)


@tool
def get_news_named(ticker: str) -> str:
    """News, the method passed by keyword."""
    return route_to_vendor(method="get_news")  # error: DG104:12 tool function `get_news_named` returns an f-string (from the functions of `VENDOR_METHODS`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`


@tool
def get_any(method: str, ticker: str) -> str:
    """Any method."""
    return route_to_vendor(method, ticker)

# case: valid an item of a list changed otherwise than by append/insert, or handed to a function
from langchain_core.tools import tool


@tool
def extended(q: str) -> str:
    """Extended."""
    results = []
    results.append(f"No result for {q}")
    results.extend(cached(q))
    return results[-1]


@tool
def replaced(q: str) -> str:
    """Replaced."""
    results = [f"No result for {q}"]
    results[0] = answer(q)
    return results[0]


@tool
def filled(q: str) -> str:
    """Filled."""
    results = [f"No result for {q}"]
    fill(results, q)
    return results[0]


# case: invalid an item of a list every item put in which is prose
from langchain_core.tools import tool


@tool
def counted(q: str) -> str:
    """Counted."""
    results = [f"No result for {q}"]
    results.insert(0, f"Searched {len(results)} sources")
    return results[0] if len(results) else "none"  # error: DG104:12 tool function `counted` returns an f-string (an item of `results`), not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`
