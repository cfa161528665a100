"""A tool's arguments, compiled once at registration into a JSON Schema, its OpenAI strict form,
the prompt's argument list and a validator.

Three sources: a function signature or a pydantic v2 model (validated by pydantic-core,
:mod:`.model_args`, on the core schema :mod:`.strict_core` makes strict for JSON input), or a JSON
Schema document (validated by jsonschema-rs, :mod:`.dict_args`; pydantic v1 models go through their
``.schema()``). Injected arguments (:mod:`.injected`) are left out of all of them and supplied by
the caller. :mod:`.messages` words the errors, :mod:`.json_schemas` tidies the exported documents
and words them for the prompt, :mod:`.docstrings` reads parameter descriptions.
"""

from __future__ import annotations

from dispatchguard.runtime.schema.base import (
    MISSING,
    ArgInfo,
    ArgsError,
    CompiledArgs,
    InjectedParam,
    SchemaError,
)
from dispatchguard.runtime.schema.dict_args import compile_json_schema
from dispatchguard.runtime.schema.docstrings import parse_docstring
from dispatchguard.runtime.schema.injected import InjectedArg
from dispatchguard.runtime.schema.json_schemas import describe
from dispatchguard.runtime.schema.model_args import compile_model, compile_signature, is_pydantic_model

__all__ = [
    "MISSING",
    "ArgInfo",
    "ArgsError",
    "CompiledArgs",
    "InjectedArg",
    "InjectedParam",
    "SchemaError",
    "compile_json_schema",
    "compile_model",
    "compile_signature",
    "describe",
    "is_pydantic_model",
    "parse_docstring",
]
