"""The fixture projects under projects/ have their own test suites, run by test_projects.py in
copies of them; the outer session must not collect them."""

collect_ignore_glob = ["projects/*"]

# a LangChain @tool function registered in dispatchguard's registry (the DG104 fix's safe case)
REGISTERED_TOOL = '''\
from dispatchguard import TOOL_REGISTRY
from langchain_core.tools import tool


@tool
def company(domain: str) -> dict:
    """Look up a company."""
    return {"domain": domain}


TOOL_REGISTRY.register("company", company)
'''
