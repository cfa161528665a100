"""Argument types of a tool: built once at registration, then exported and checked per call.

A tool's arguments are JSON primitives or arrays of primitives (the ``ToolAction`` contract), so
the supported type language is small and the validator is a set of precompiled closures (no
pydantic on the hot path). Three sources produce the same internal :class:`Param` list:
a function signature (plus docstring), a pydantic model class (``args_schema``), or an explicit
JSON Schema dict. From it we derive the JSON Schema (``ToolRegistry.schema``), the OpenAI strict
variant, and the validator. Anything outside the language is rejected at registration with
:class:`SchemaError`.

Layout: :mod:`.core` (errors, ``MISSING``), :mod:`.nodes` and :mod:`.containers` (the type nodes),
:mod:`.params` (``Param`` and the JSON Schemas built from it), :mod:`.validator` (the compiled
validator), :mod:`.signature`, :mod:`.json_schema` and :mod:`.docstrings` (the three sources).
"""

from __future__ import annotations

from dispatchguard.runtime.schema.containers import AnyNode, ArrayNode, UnionNode
from dispatchguard.runtime.schema.core import MISSING, ArgsError, SchemaError
from dispatchguard.runtime.schema.docstrings import parse_docstring
from dispatchguard.runtime.schema.json_schema import (
    node_from_json_schema,
    params_from_json_schema,
    params_from_model,
)
from dispatchguard.runtime.schema.nodes import EnumNode, Prim, TypeNode
from dispatchguard.runtime.schema.params import (
    Param,
    build_json_schema,
    build_strict_schema,
)
from dispatchguard.runtime.schema.signature import (
    node_from_annotation,
    params_from_signature,
)
from dispatchguard.runtime.schema.validator import compile_validator

__all__ = [
    "MISSING",
    "AnyNode",
    "ArgsError",
    "ArrayNode",
    "EnumNode",
    "Param",
    "Prim",
    "SchemaError",
    "TypeNode",
    "UnionNode",
    "build_json_schema",
    "build_strict_schema",
    "compile_validator",
    "node_from_annotation",
    "node_from_json_schema",
    "params_from_json_schema",
    "params_from_model",
    "params_from_signature",
    "parse_docstring",
]
