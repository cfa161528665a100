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
from dispatchguard.runtime.schema.injected import InjectedArg

# The public API: what a tool's compiled arguments are and the errors. The compilers
# (model_args, dict_args), the prompt's wording (json_schemas) and the docstring reader are the
# runtime's own: its modules import them from their submodules.
__all__ = [
    "MISSING",
    "ArgInfo",
    "ArgsError",
    "CompiledArgs",
    "InjectedArg",
    "InjectedParam",
    "SchemaError",
]
