"""Business logic calling the tools directly (DG101)."""

import json

from shop.tool_registry import TOOLS


def total(a: int, b: int) -> int:
    return json.loads(TOOLS["calculator"]._run(a=a, b=b))["result"]


def in_stock(item: str) -> bool:
    answer = TOOLS["inventory"]._run(
        item=item,  # the item's name
    )
    return json.loads(json.dumps(answer))["count"] > 0


def price(item: str) -> float:
    tool = TOOLS["quote"]
    return json.loads(json.dumps(tool._run(item=item)))["price"]
