"""Plain data: a dataclass with a hand-written model_dump."""

from dataclasses import dataclass


@dataclass
class Stats:
    words: int
    lines: int

    def model_dump(self) -> dict:
        return {"words": self.words, "lines": self.lines}
