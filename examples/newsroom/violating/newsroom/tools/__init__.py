"""Tool classes. Their instances live in `newsroom.tool_registry`; agents never create them."""
