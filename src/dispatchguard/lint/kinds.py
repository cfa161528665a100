"""What a name or an expression can be bound to, as far as the rules care.

- ``CLASS``: a tool class (derives from a configured tool base through any chain, or is a class
  of a configured tool package);
- ``TOOL``: a tool object (an instance of a tool class, a function decorated with a tool
  decorator, an item of a registry, a name annotated with a tool class);
- ``REGISTRY``: a container whose values are tools;
- ``DECORATOR``: a configured tool decorator;
- ``FACTORY``: a function of the project that builds the tools it returns (calling it gives a tool);
- ``PLAIN_CLASS``: any other class of the project (only :meth:`Resolver.full_kind` tells it apart);
- None: anything else.
"""

from __future__ import annotations

CLASS = "class"
TOOL = "tool"
REGISTRY = "registry"
DECORATOR = "decorator"
FACTORY = "factory"
PLAIN_CLASS = "plain-class"
TOOL_KINDS = frozenset({CLASS, TOOL, REGISTRY, DECORATOR, FACTORY})
