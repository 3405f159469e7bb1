"""What a board image shows, as plain values.

The drawing code reads only these records; `render.adapt` builds them from an engine
PlayerView. Keeping them apart makes the drawing testable on its own and leaves a single place
that knows the view's shape.
"""

from __future__ import annotations

from dataclasses import dataclass

# Left out of a spell's initials: "Banner of the Fallen" is BF, "The Pact Is Sealed" PS.
MINOR_WORDS = frozenset({"a", "an", "and", "is", "of", "on", "the", "to"})
# Group tokens a square shows side by side; more groups show one token and their count.
MAX_TOKENS = 2


@dataclass(frozen=True, slots=True)
class SpellBadge:
    """A visible active spell on a host (or on the globe)."""

    spell_id: str
    name: str
    owner: str
    house: str = ""
    short: str = ""

    @property
    def label(self) -> str:
        """Two-letter label: the initials, or the first letters of a one-word name."""
        if self.short:
            return self.short
        cleaned = self.name.replace("'", "").replace("-", " ")
        words = [w for w in cleaned.split() if w[:1].isalnum() and w.lower() not in MINOR_WORDS]
        if len(words) >= 2:
            return (words[0][0] + words[1][0]).upper()
        if words:
            return words[0][:2].capitalize()
        return self.spell_id[:2].upper() or "?"


@dataclass(frozen=True, slots=True)
class StructureMark:
    kind: str  # sanctum | town | colony
    owner: str  # red | blue | neutral
    novices: int = 0
    mana_type: str = ""
    structure_id: int = 0


@dataclass(frozen=True, slots=True)
class GroupMark:
    group_id: int
    owner: str
    size: int
    monsters: bool = False
    heroes: int = 0
    spells: tuple[SpellBadge, ...] = ()
    minion_ids: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class SquareMark:
    x: int
    y: int
    terrain: str
    structure: StructureMark | None = None
    groups: tuple[GroupMark, ...] = ()
    spells: tuple[SpellBadge, ...] = ()

    @property
    def crowded(self) -> bool:
        """More groups than tokens fit: one token stands for them with a count badge."""
        return len(self.groups) > MAX_TOKENS

    @property
    def bottom_row(self) -> bool:
        """Whether the square's bottom edge holds a row of badges (the groups' spells, or
        the count of its groups)."""
        return self.crowded or any(g.spells for g in self.groups)


@dataclass(frozen=True, slots=True)
class SideInfo:
    side: str
    pool: tuple[tuple[str, int], ...] = ()
    production: tuple[tuple[str, int], ...] = ()
    hand_size: int = 0
    deck_size: int | None = None
    house: str = ""
    name: str = ""


@dataclass(frozen=True, slots=True)
class BoardScene:
    """One side's (or the public) picture of the board at the start of a turn."""

    columns: int
    rows: int
    squares: tuple[SquareMark, ...]
    turn: int
    initiative: str
    sides: tuple[SideInfo, ...]
    globe: tuple[SpellBadge, ...] = ()
    viewer: str | None = None
    result: str = ""
    # The header's title when not "Turn N": a drawn turn report shows the board after that turn.
    title: str = ""
    # Squares of the Sancta taken (the final board of a match won by capture): each is framed.
    captured: tuple[tuple[int, int], ...] = ()

    def square(self, x: int, y: int) -> SquareMark | None:
        for square in self.squares:
            if square.x == x and square.y == y:
                return square
        return None

    def terrain_key(self) -> tuple[tuple[int, int, str], ...]:
        """What the cached background depends on."""
        return tuple(sorted((s.x, s.y, s.terrain) for s in self.squares))

    def side_info(self, side: str) -> SideInfo | None:
        for info in self.sides:
            if info.side == side:
                return info
        return None
