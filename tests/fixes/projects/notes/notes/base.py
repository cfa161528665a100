"""The tools' base: a pydantic model whose run() forwards to _run (as CrewAI's BaseTool does)."""

from typing import Any

from pydantic import BaseModel


class NoteTool(BaseModel):
    name: str
    description: str

    def run(self, **kwargs: Any) -> Any:
        return self._run(**kwargs)

    def _run(self, **kwargs: Any) -> Any:
        raise NotImplementedError
