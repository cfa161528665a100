"""A dataclass with a hand-written model_dump, and a pydantic model."""

from dataclasses import dataclass

from pydantic import BaseModel


@dataclass
class Level:
    item: str
    count: int

    def model_dump(self) -> dict:
        return {"item": self.item, "count": self.count}


class Quote(BaseModel):
    item: str
    price: float
