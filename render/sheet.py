"""The private image of an order sheet: the side's own view, its orders drawn on the board, and
its hand as small cards underneath.

Only ``view.hand`` is drawn, and a PlayerView holds no hand but its viewer's, so the enemy's
cards cannot appear whatever the caller passes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.coords import Coord
from engine.orders import ManaChoice, MoveOrder, Orders, Target, TrainOrder
from engine.spells.schema import SpellDef
from engine.view import PlayerView
from render import encode
from render.adapt import SpellBook, default_spells, scene_from_view
from render.assets import RGB, fit_text, paste_text, text_sprite
from render.board import draw_scene
from render.geometry import Layout
from render.marks import XY
from render.overlay import arrow_polygon, dashed_line, globe_anchor
from render.scene import BoardScene, SpellBadge
from render.sprites import OUTLINE, spell_badge
from render.theme import (
    DEFAULT_THEME,
    MANA_SHORT,
    Theme,
    house_colours,
    mana_colour,
    readable_on,
)

TRAIN_LABELS = {"swordsman": "+Sw", "archer": "+Ar", "mana": "+Mana"}


def render_order_sheet(
    view: PlayerView,
    orders: Orders | None = None,
    theme: Theme = DEFAULT_THEME,
    *,
    spells: SpellBook | None = None,
    names: Mapping[str, str] | None = None,
) -> bytes:
    """PNG of the viewer's board with its pending orders and its hand."""
    if view.viewer is None:
        raise ValueError("an order sheet belongs to a side; this is the public view")
    book = default_spells() if spells is None else spells
    scene = scene_from_view(view, book, names)
    orders = orders or Orders()
    hand_spells = {card.uid: card.spell_id for card in view.hand}
    casts = _placed_casts(scene, orders, hand_spells, book)

    def under(canvas: Image.Image, layout: Layout) -> None:
        _draw_cast_lines(canvas, layout, casts)

    board, layout, background = draw_scene(scene, theme, under=under)
    # Moves first, then casts (numbered in issue order, over the arrows), then training and
    # the mana the towns to take are to make.
    draw = ImageDraw.Draw(board)
    for move in orders.moves:
        _draw_move_order(draw, layout, scene, move)
    for cast in casts:
        _draw_cast_order(board, layout, scene, cast)
    for train in orders.trains:
        _draw_train_order(board, draw, layout, train)
    for choice in orders.mana_choices:
        _draw_mana_choice(board, draw, layout, choice)
    strip = _hand_strip(view, orders, book, layout.width, theme)
    image = Image.new("RGB", (layout.width, board.height + strip.height), theme.background)
    image.paste(board, (0, 0))
    image.paste(strip, (0, board.height))
    return encode.png_bytes(image, background.palette)


def _target_square(scene: BoardScene, target: Target) -> XY | None:
    ref = target.ref
    # Squares are named by their square, and so is a group trained this turn (engine.orders).
    if isinstance(ref, Coord):
        return (ref.x, ref.y)
    for square in scene.squares:
        where = (square.x, square.y)
        structure = square.structure
        if target.kind == "structure" and structure is not None and structure.structure_id == ref:
            return where
        for group in square.groups:
            if target.kind == "group" and group.group_id == ref:
                return where
            if target.kind == "minion" and ref in group.minion_ids:
                return where
    return None


def _sanctum(scene: BoardScene, side: str) -> XY | None:
    for square in scene.squares:
        s = square.structure
        if s is not None and s.kind == "sanctum" and s.owner == side:
            return (square.x, square.y)
    return None


def _number(image: Image.Image, centre: tuple[float, float], n: int, theme: Theme) -> None:
    size = max(9, round(13 * theme.unit))
    sprite = text_sprite(str(n), size, (20, 20, 24), bold=True)
    r = max(sprite.width, sprite.height) // 2 + 2
    x, y = round(centre[0]), round(centre[1])
    ImageDraw.Draw(image).ellipse(
        (x - r, y - r, x + r, y + r), fill=theme.order_line, outline=OUTLINE
    )
    image.paste(sprite, (x - sprite.width // 2, y - sprite.height // 2), sprite)


@dataclass(frozen=True, slots=True)
class _PlacedCast:
    badge: SpellBadge
    where: XY | None  # None: the globe
    origin: XY | None  # the caster's Sanctum
    index: int  # issue order, from 1
    slot: int  # earlier casts on the same target


def _placed_casts(
    scene: BoardScene, orders: Orders, hand_spells: Mapping[int, str], book: SpellBook
) -> list[_PlacedCast]:
    side = scene.viewer or "red"
    origin = _sanctum(scene, side)
    slots: dict[XY | None, int] = {}
    placed = []
    for index, cast in enumerate(orders.casts, start=1):
        spell_id = cast.spell_id or hand_spells.get(cast.card_uid, "")
        spell = book.get(spell_id)
        badge = SpellBadge(
            spell_id, spell.name if spell else spell_id, side, spell.house if spell else ""
        )
        where = _target_square(scene, cast.target)
        if where is None and cast.target.kind != "globe":
            continue
        slot = slots.get(where, 0)
        slots[where] = slot + 1
        placed.append(_PlacedCast(badge, where, origin, index, slot))
    return placed


def _draw_cast_lines(image: Image.Image, layout: Layout, casts: list[_PlacedCast]) -> None:
    draw = ImageDraw.Draw(image)
    for cast in casts:
        if cast.where is not None and cast.origin is not None:
            dashed_line(
                draw,
                layout.centre(*cast.origin),
                layout.centre(*cast.where),
                layout.theme.order_line,
                width=max(2, round(layout.cell * 0.05)),
                dash=max(4, layout.cell // 8),
            )


def _draw_move_order(
    draw: ImageDraw.ImageDraw, layout: Layout, scene: BoardScene, move: MoveOrder
) -> None:
    start = None
    for square in scene.squares:
        if any(g.group_id == move.group_id for g in square.groups):
            start = (square.x, square.y)
    if start is None:
        return
    cell = layout.cell
    a = layout.centre(*start)
    b = layout.centre(move.dest.x, move.dest.y)
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = max(1.0, (dx * dx + dy * dy) ** 0.5)
    ux, uy = dx / length, dy / length
    begin = (a[0] + ux * cell * 0.18, a[1] + uy * cell * 0.18)
    end = (b[0] - ux * cell * 0.2, b[1] - uy * cell * 0.2)
    draw.polygon(
        arrow_polygon(begin, end, max(3.0, cell * 0.12)),
        fill=layout.theme.order_line,
        outline=OUTLINE,
        width=2,
    )


def _draw_cast_order(
    image: Image.Image, layout: Layout, scene: BoardScene, cast: _PlacedCast
) -> None:
    """A cast's badge on its target (or by the globe) with its number."""
    badge, where, index, slot = cast.badge, cast.where, cast.index, cast.slot
    theme = layout.theme
    cell = layout.cell
    height = max(10, round(cell * 0.26))
    sprite = spell_badge(badge.label, *house_colours(badge.house), height)
    if where is None:
        gx, gy = globe_anchor(layout, {(sq.x, sq.y) for sq in scene.squares})
        bx, by = gx - sprite.width // 2, gy + cell // 2 + slot * (height + 3)
    else:
        # The player's own casts fan out down their target, each with its number.
        cx, cy = layout.centre(*where)
        offset = (slot % 3) * (sprite.height + 1)
        bx, by = cx - sprite.width // 2, cy - cell // 2 + 2 + offset
    image.paste(sprite, (bx, by), sprite)
    _number(image, (bx - 8, by + height / 2), index, theme)


def _draw_train_order(
    image: Image.Image, draw: ImageDraw.ImageDraw, layout: Layout, train: TrainOrder
) -> None:
    theme = layout.theme
    left, _top, _right, bottom = layout.square_box(train.structure.x, train.structure.y)
    label = TRAIN_LABELS.get(train.kind, "+")
    if train.kind == "mana" and train.mana_type:
        label = f"+{train.mana_type.capitalize()[:3]}"
    sprite = text_sprite(label, max(9, round(12 * theme.unit)), (20, 20, 24), bold=True)
    x, y = left + layout.cell - sprite.width - 6, bottom - sprite.height - 3
    draw.rounded_rectangle(
        (x - 3, y, x + sprite.width + 3, y + sprite.height),
        radius=4,
        fill=theme.order_line,
        outline=OUTLINE,
    )
    image.paste(sprite, (x, y), sprite)


def _draw_mana_choice(
    image: Image.Image, draw: ImageDraw.ImageDraw, layout: Layout, choice: ManaChoice
) -> None:
    """A chip in the mana's colour, framed in the orders' colour, at the top right of the town
    or colony: what it is to make if taken (the training chip sits at the bottom, so a square
    can show both; the arrow and frame tell it from a spell's badge)."""
    theme = layout.theme
    left, top, _right, _bottom = layout.square_box(choice.structure.x, choice.structure.y)
    fill = mana_colour(choice.mana_type)
    label = "→" + MANA_SHORT.get(choice.mana_type, choice.mana_type[:3].capitalize())
    sprite = text_sprite(label, max(9, round(12 * theme.unit)), readable_on(fill), bold=True)
    x, y = left + layout.cell - sprite.width - 6, top + 3
    draw.rounded_rectangle(
        (x - 3, y, x + sprite.width + 3, y + sprite.height),
        radius=4,
        fill=fill,
        outline=theme.order_line,
        width=2,
    )
    image.paste(sprite, (x, y), sprite)


def _hand_strip(
    view: PlayerView, orders: Orders, book: SpellBook, width: int, theme: Theme
) -> Image.Image:
    u = theme.unit
    pad = round(10 * u)
    title_h = round(24 * u)
    cards = view.hand
    per_row = 3
    card_w = (width - pad * (per_row + 1)) // per_row
    card_h = round(card_w * 0.44)
    rows = max(1, (len(cards) + per_row - 1) // per_row)
    strip = Image.new("RGB", (width, title_h + rows * (card_h + pad) + pad), theme.panel_fill)
    paste_text(
        strip,
        (pad, round(5 * u)),
        f"Your hand ({len(cards)})",
        round(15 * u),
        theme.text,
        bold=True,
    )
    count = (
        len(orders.casts)
        + len(orders.moves)
        + len(orders.trains)
        + len(orders.mana_choices)
        + (orders.discard is not None)
    )
    state = "confirmed" if orders.confirmed else "not confirmed yet"
    paste_text(
        strip,
        (width - pad, round(5 * u)),
        f"{count} order{'s' if count != 1 else ''}, {state}",
        round(15 * u),
        theme.order_line if orders.confirmed else theme.dim_text,
        bold=True,
        anchor="rt",
    )
    if not cards:
        paste_text(strip, (pad, title_h + pad), "no cards in hand", round(13 * u), theme.dim_text)
        return strip
    cast_index = {c.card_uid: i for i, c in enumerate(orders.casts, start=1)}
    discard_uid = orders.discard.card_uid if orders.discard is not None else None
    for i, card in enumerate(cards):
        x = pad + (i % per_row) * (card_w + pad)
        y = title_h + (i // per_row) * (card_h + pad)
        sprite = hand_card(book.get(card.spell_id), card.spell_id, card_w, card_h, view.turn)
        strip.paste(sprite, (x, y), sprite)
        draw = ImageDraw.Draw(strip)
        if card.uid in cast_index:
            tag = f"cast #{cast_index[card.uid]}"
            paste_text(
                strip,
                (x + card_w - 4, y + card_h - 4),
                tag,
                round(15 * u),
                (20, 20, 24),
                bold=True,
                anchor="rb",
            )
            draw.rectangle(
                (x, y, x + card_w - 1, y + card_h - 1), outline=theme.order_line, width=3
            )
        if card.uid == discard_uid:
            draw.line([(x, y + card_h), (x + card_w, y)], fill=theme.squander, width=3)
            paste_text(
                strip,
                (x + card_w - 4, y + card_h - 4),
                "discard",
                round(15 * u),
                theme.squander,
                bold=True,
                anchor="rb",
            )
    return strip


@lru_cache(maxsize=256)
def hand_card(
    spell: SpellDef | None, spell_id: str, width: int, height: int, turn: int
) -> Image.Image:
    """A small card: name, cost in the house colours, type, target and speed."""
    house = spell.house if spell else ""
    primary, secondary = house_colours(house)
    card = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(card)
    draw.rounded_rectangle(
        (0, 0, width - 1, height - 1), radius=8, fill=(246, 239, 222), outline=primary, width=4
    )
    bar = max(18, round(height * 0.3))
    draw.rounded_rectangle((0, 0, width - 1, bar), radius=8, fill=primary)
    draw.rectangle((0, bar // 2, width - 1, bar), fill=primary)
    draw.line([(0, bar), (width, bar)], fill=secondary, width=3)
    name = spell.name if spell else spell_id
    ink: RGB = (34, 30, 26)
    size = max(10, round(bar * 0.62))
    cost = spell.cost_on_turn(turn) if spell else None
    cost_w = 0
    if cost is not None:
        cost_label = f"{cost.primary}+{cost.secondary}"
        sprite = text_sprite(cost_label, size, readable_on(primary), bold=True)
        cost_w = sprite.width + 8
        card.paste(sprite, (width - cost_w, (bar - sprite.height) // 2), sprite)
    title = fit_text(name, size, width - cost_w - 12, bold=True)
    paste_text(card, (6, bar // 2), title, size, readable_on(primary), bold=True, anchor="lm")
    small = max(9, round(bar * 0.48))
    lines: list[str] = []
    if spell is not None:
        lines.append(f"{spell.type.capitalize()} · {spell.speed}")
        lines.append(spell.target.describe())
        if spell.spell_class != "standard":
            lines.append(spell.spell_class.capitalize())
    else:
        lines.append("unknown spell")
    y = bar + 4
    for line in lines:
        if y + small + 2 > height - 2:
            break
        paste_text(card, (6, y), fit_text(line, small, width - 12), small, ink)
        y += small + 4
    return card
