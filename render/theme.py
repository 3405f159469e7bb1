"""Colours, patterns and shapes: everything a board image means by its looks.

Terrain differs by pattern as well as colour, and the two sides differ by token shape as well
as colour (Okabe-Ito vermillion and blue, which stay apart under the common colour-blindness
types), so no information is carried by colour alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

RGB = tuple[int, int, int]


class Pattern(StrEnum):
    """The mark repeated over a terrain square."""

    NONE = "none"
    DOTS = "dots"
    TREES = "trees"
    WAVES = "waves"
    PEAKS = "peaks"
    FIRE_PEAKS = "fire_peaks"
    CRACKS = "cracks"
    STIPPLE = "stipple"
    STARS = "stars"
    REEDS = "reeds"
    HATCH = "hatch"
    FRONDS = "fronds"
    UNKNOWN = "unknown"


class Shape(StrEnum):
    """The outline of an owner's tokens and flags."""

    CIRCLE = "circle"
    SQUARE = "square"
    HEXAGON = "hexagon"


@dataclass(frozen=True, slots=True)
class TerrainStyle:
    label: str
    fill: RGB
    pattern: Pattern
    ink: RGB


@dataclass(frozen=True, slots=True)
class OwnerStyle:
    label: str
    fill: RGB
    ink: RGB
    shape: Shape


TERRAIN_STYLES: dict[str, TerrainStyle] = {
    "plains": TerrainStyle("Plains", (203, 224, 156), Pattern.NONE, (0, 0, 0)),
    "barren": TerrainStyle("Barren land", (212, 196, 166), Pattern.DOTS, (150, 128, 96)),
    "forest": TerrainStyle("Forest", (74, 140, 78), Pattern.TREES, (28, 82, 38)),
    "water": TerrainStyle("Water", (96, 156, 216), Pattern.WAVES, (238, 246, 255)),
    "mountain": TerrainStyle("Mountain", (160, 150, 140), Pattern.PEAKS, (74, 64, 58)),
    "volcano": TerrainStyle("Volcano", (124, 78, 68), Pattern.FIRE_PEAKS, (255, 150, 40)),
    "lava": TerrainStyle("Lava", (226, 104, 44), Pattern.CRACKS, (110, 26, 8)),
    "desert": TerrainStyle("Desert", (240, 218, 146), Pattern.STIPPLE, (186, 140, 62)),
    "void": TerrainStyle("Void", (38, 32, 50), Pattern.STARS, (188, 176, 230)),
    "swamp": TerrainStyle("Swamp", (116, 128, 84), Pattern.REEDS, (52, 62, 30)),
    "ice": TerrainStyle("Ice", (218, 240, 250), Pattern.HATCH, (128, 180, 214)),
    "jungle": TerrainStyle("Jungle", (44, 110, 64), Pattern.FRONDS, (150, 210, 120)),
}
UNKNOWN_TERRAIN = TerrainStyle("Other", (186, 186, 186), Pattern.UNKNOWN, (90, 90, 90))

TERRAIN_ALIASES = {"barren_land": "barren", "barrenland": "barren", "mountains": "mountain"}

OWNER_STYLES: dict[str, OwnerStyle] = {
    "red": OwnerStyle("Red", (213, 94, 0), (255, 255, 255), Shape.CIRCLE),
    "blue": OwnerStyle("Blue", (0, 114, 178), (255, 255, 255), Shape.SQUARE),
    "neutral": OwnerStyle("Neutral", (214, 214, 206), (40, 40, 40), Shape.HEXAGON),
}

MANA_COLOURS: dict[str, RGB] = {
    "order": (236, 214, 120),
    "strife": (196, 36, 44),
    "clarity": (116, 200, 236),
    "mystery": (118, 66, 160),
    "will": (236, 138, 36),
    "world": (66, 148, 64),
}
MANA_SHORT: dict[str, str] = {
    "order": "Ord",
    "strife": "Str",
    "clarity": "Cla",
    "mystery": "Mys",
    "will": "Wil",
    "world": "Wld",
}
MANA_ORDER = ("order", "strife", "clarity", "mystery", "will", "world")

# House -> (primary, secondary) mana: the house table of the rules digest, section 14.
HOUSE_MANA: dict[str, tuple[str, str]] = {
    "abomination": ("will", "strife"),
    "body": ("world", "mystery"),
    "death": ("mystery", "will"),
    "despair": ("mystery", "strife"),
    "hope": ("clarity", "order"),
    "justice": ("order", "mystery"),
    "life": ("clarity", "world"),
    "making": ("order", "will"),
    "mind": ("will", "clarity"),
    "nature": ("world", "order"),
    "unmaking": ("strife", "world"),
    "war": ("strife", "clarity"),
}

NEUTRAL_GREY: RGB = (150, 150, 150)


@dataclass(frozen=True, slots=True)
class Theme:
    """Sizes and colours of every drawing. Hashable, so drawings are cached per theme."""

    name: str = "classic"
    cell: int = 60
    margin: int = 24
    header: int = 100
    panel: int = 196
    background: RGB = (34, 38, 46)
    panel_fill: RGB = (46, 52, 62)
    off_board: RGB = (58, 62, 70)
    grid: RGB = (40, 44, 40)
    text: RGB = (236, 236, 232)
    dim_text: RGB = (170, 176, 186)
    bounce: RGB = (255, 80, 200)
    cast_line: RGB = (186, 120, 255)
    squander: RGB = (240, 40, 40)
    capture: RGB = (255, 216, 0)
    order_line: RGB = (60, 240, 200)

    def terrain(self, name: str) -> TerrainStyle:
        return TERRAIN_STYLES.get(canonical_terrain(name), UNKNOWN_TERRAIN)

    def owner(self, owner: str) -> OwnerStyle:
        return OWNER_STYLES.get(str(owner).lower(), OWNER_STYLES["neutral"])

    def scaled(self, cell: int) -> Theme:
        """The same look at another cell size (replays use smaller boards)."""
        ratio = cell / self.cell
        return replace(
            self,
            name=f"{self.name}@{cell}",
            cell=cell,
            margin=max(14, round(self.margin * ratio)),
            header=max(56, round(self.header * ratio)),
            panel=max(110, round(self.panel * ratio)),
        )

    @property
    def unit(self) -> float:
        """Scale of fixed sizes (fonts, strokes) relative to the classic 60-pixel cell."""
        return self.cell / 60


DEFAULT_THEME = Theme()


def canonical_terrain(name: str) -> str:
    key = str(name).strip().lower().replace(" ", "_").replace("-", "_")
    return TERRAIN_ALIASES.get(key, key)


def mana_colour(mana: str) -> RGB:
    return MANA_COLOURS.get(str(mana).lower(), NEUTRAL_GREY)


def house_colours(house: str) -> tuple[RGB, RGB]:
    """The colours of a house's primary and secondary mana (grey for an unknown house)."""
    pair = HOUSE_MANA.get(str(house).lower())
    if pair is None:
        return (NEUTRAL_GREY, NEUTRAL_GREY)
    return (mana_colour(pair[0]), mana_colour(pair[1]))


def readable_on(fill: RGB) -> RGB:
    """Black or white, whichever reads better on the fill."""
    r, g, b = fill
    return (20, 20, 20) if (299 * r + 587 * g + 114 * b) / 1000 > 140 else (250, 250, 250)
