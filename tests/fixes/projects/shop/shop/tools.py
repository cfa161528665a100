"""The shop's tools."""

import json

from shop.base import BaseTool
from shop.models import Level, Quote

STOCK = {"apple": 3, "pear": 0}
PRICES = {"apple": 0.5, "pear": 0.75}


class CalculatorTool(BaseTool):
    name: str = "Calculator"
    description: str = "Adds two numbers."

    def _run(self, a: int, b: int) -> str:
        return json.dumps({"result": a + b})


class InventoryTool(BaseTool):
    name: str = "Inventory"
    description: str = "How many of an item are in stock."

    def _run(self, item: str) -> dict:
        return {"item": item, "count": STOCK.get(item, 0)}


class LevelTool(BaseTool):
    name: str = "Level"
    description: str = "The stock level of an item."

    def _run(self, item: str):
        level = Level(item, STOCK.get(item, 0))
        return level.model_dump()


class QuoteTool(BaseTool):
    name: str = "Quote"
    description: str = "The price of an item."

    def _run(self, item: str):
        quote = Quote(item=item, price=PRICES.get(item, 0.0))
        return quote.model_dump()
