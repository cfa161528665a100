"""A CrewAI-compatible tool base, so the example runs without crewai installed.

Same shape as `crewai.tools.BaseTool`: `name`, `description`, `args_schema` (a pydantic model of the
arguments), `run(**kwargs)` validating the arguments and calling `_run`. Projects on CrewAI derive
from `crewai.tools.BaseTool` instead and need no `tool-bases` setting.

`run` passes the result through `ensure_json_str` as a last line of defence (what
`dispatchguard.JsonReturningToolMixin` does for CrewAI tools); the tools' `_run` methods already
return JSON text, which it leaves unchanged.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from dispatchguard import ensure_json_str


class NewsTool(BaseModel):
    name: str
    description: str
    args_schema: type[BaseModel]

    def run(self, **kwargs: Any) -> str:
        arguments = self.args_schema.model_validate(kwargs)
        return ensure_json_str(self._run(**arguments.model_dump()))

    def _run(self, **kwargs: Any) -> Any:
        raise NotImplementedError
