"""Newsroom: a small CrewAI-style news agent (planner, tools, registry, dispatcher)."""
