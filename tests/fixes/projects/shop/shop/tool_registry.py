"""The registry the dispatcher reads."""

from shop.tools import CalculatorTool, InventoryTool, LevelTool, QuoteTool

TOOLS = {
    "calculator": CalculatorTool(),
    "inventory": InventoryTool(),
    "level": LevelTool(),
    "quote": QuoteTool(),
}
