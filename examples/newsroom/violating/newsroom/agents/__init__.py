"""Agents: they decide which tools to call; the dispatcher runs them."""
