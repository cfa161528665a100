"""A small CrewAI-style shop: its own registry and dispatcher."""
