"""The shop's tool base class (CrewAI-style: a pydantic model with name, description and _run)."""

from typing import Any

from pydantic import BaseModel


class BaseTool(BaseModel):
    name: str
    description: str

    def _run(self, **kwargs: Any) -> Any:
        raise NotImplementedError
