"""The checker's error for bad settings, apart from the reader of the settings so that what the
reader calls (the environment's locator) can raise it too."""

from __future__ import annotations


class ConfigError(Exception):
    """A configuration problem; the message names the file and the key."""
