import json

from crewai.tools import BaseTool


class WeatherTool(BaseTool):
    name: str = "weather"
    description: str = "The weather of a city."

    def _run(self, city: str) -> str:
        if not city:
            return "no city given"  # prose outside an except: a JSON string
        try:
            reading = {"city": city, "celsius": 21}
        except KeyError as exc:
            return f"Error: unknown city {exc}"  # failure prose: the error object
        except ValueError as exc:
            return str(exc)  # also text: the error object
        return json.dumps(reading)


class Lookup(BaseTool):
    description: str = "A tool with no name field: the class names it."

    def _run(self, key: str) -> str:
        try:
            return json.dumps({"key": key})
        except TypeError:
            return "Error: " + key
