import json

from shop.dispatcher import run_tool
from shop.service import in_stock, price, total
from shop.tools import LevelTool


def test_total():
    assert total(2, 3) == 5


def test_in_stock():
    assert in_stock("apple") and not in_stock("pear")


def test_price():
    assert price("pear") == 0.75


def test_dispatch_inventory():
    assert json.loads(run_tool("inventory", {"item": "apple"})) == {"item": "apple", "count": 3}


def test_dispatch_level():
    assert json.loads(run_tool("level", {"item": "pear"})) == {"item": "pear", "count": 0}


def test_dispatch_quote():
    assert json.loads(run_tool("quote", {"item": "apple"})) == {"item": "apple", "price": 0.5}


def test_unknown_tool():
    assert "unknown tool" in json.loads(run_tool("nope", {}))["error"]


def test_level_tool_directly():
    assert json.loads(json.dumps(LevelTool()._run(item="apple")))["count"] == 3
