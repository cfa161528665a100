"""Weather tools: the fix's import goes where isort puts it (between two third-party imports)."""

import os
from datetime import date

from crewai.tools import tool
from dispatchguard import ensure_json_str
from langchain_core.tools import tool as lc_tool

from app.units import celsius


@tool("Weather")
def weather(city: str) -> str:
    """Today's weather."""
    return ensure_json_str({"city": city, "day": date.today().isoformat(), "unit": celsius(), "keyed": "K" in os.environ})


@lc_tool
def forecast(city: str) -> str:
    """The next days."""
    return ensure_json_str([city, celsius()])
