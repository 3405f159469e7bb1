"""What a scenario file becomes: the starting position, the names it gives, the turns to play."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from engine.content import Content
from engine.state import GameState
from engine.tables import TableError


class ScenarioError(TableError):
    """A scenario file that cannot be read; the message names the file and the key's path from
    the top of the file (``turn[0].red.moves[1]``)."""

    @staticmethod
    def locate(file: str, entry: str | None, key: str | None) -> str:
        return f"{file}: {key or 'scenario'}"


class FixedDice(random.Random):
    """A generator whose ``random()`` always returns one value: 0.0 makes every strike hit,
    0.999 makes every strike miss until the two-miss rule forces a hit."""

    def __init__(self, value: float, seed: int) -> None:
        super().__init__(seed)
        self.value = value

    def random(self) -> float:
        return self.value


DICE: Final = {"hit": 0.0, "miss": 0.999}


@dataclass
class Labels:
    """The names a scenario gives to groups, minions and structures, with the ids they got."""

    groups: dict[str, int] = field(default_factory=dict)
    minions: dict[str, int] = field(default_factory=dict)
    structures: dict[str, int] = field(default_factory=dict)

    def names(self) -> dict[int, str]:
        out: dict[int, str] = {}
        for table in (self.groups, self.minions, self.structures):
            out.update({v: k for k, v in table.items()})
        return out


@dataclass
class Scenario:
    path: Path
    name: str
    rules: tuple[str, ...]
    state: GameState
    content: Content
    labels: Labels
    turns: list[Mapping[str, Any]]
    dice: str | None


@dataclass
class Failure:
    """The first turn whose expectations were not met, and every difference found."""

    turn: int
    lines: list[str]
