"""Board images: structure (size, colours where squares are), orientation, hidden information."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from io import BytesIO

import pytest
from PIL import Image

from engine.content import Content, load_content
from engine.orders import CastOrder, Orders, Target
from engine.report import TurnReport
from engine.state import GameState, Result, Side
from engine.view import view_for
from render import DEFAULT_THEME, render_board, render_order_sheet
from render.board import board_title
from render.geometry import Layout
from render.theme import OWNER_STYLES, TERRAIN_STYLES
from tests.render.fixtures import c, midgame_report, midgame_state, spell_book

BOOK = spell_book()


def decode(png: bytes) -> Image.Image:
    image = Image.open(BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


def board(state: GameState, side: Side | None, *, report: bool = False) -> Image.Image:
    rep = midgame_report(state) if report else None
    return decode(render_board(view_for(state, side, load_content()), rep, spells=BOOK))


def colour_counts(image: Image.Image, box: tuple[int, int, int, int]) -> Counter[tuple[int, ...]]:
    crop = image.crop(box)
    colours = crop.getcolors(maxcolors=crop.width * crop.height) or []
    return Counter({tuple(colour): n for n, colour in colours})  # type: ignore[arg-type]


def dominant_colour(image: Image.Image, box: tuple[int, int, int, int]) -> tuple[int, ...]:
    return colour_counts(image, box).most_common(1)[0][0]


def share_of(image: Image.Image, box: tuple[int, int, int, int], colour: tuple[int, ...]) -> float:
    counts = colour_counts(image, box)
    return counts[colour] / sum(counts.values())


def test_board_size_is_the_layout_and_fits_the_size_budget(content: Content) -> None:
    state = midgame_state()
    png = render_board(view_for(state, None, content), midgame_report(state), spells=BOOK)
    layout = Layout(state.width, state.height, DEFAULT_THEME)
    assert decode(png).size == layout.size == (768, 1064)
    assert len(png) <= 250_000


def test_empty_squares_show_their_terrain_colour_at_the_centre() -> None:
    state = midgame_state()
    image = board(state, Side.RED)
    layout = Layout(state.width, state.height, DEFAULT_THEME)
    occupied: set[object] = {g.coord for g in state.groups} | {s.coord for s in state.structures}
    occupied |= {s.host.ref for s in state.active_spells if s.host.kind == "square"}
    checked = set()
    for square in state.squares:
        if square.coord in occupied:
            continue
        style = TERRAIN_STYLES[square.terrain]
        box = layout.square_box(square.coord.x, square.coord.y)
        inner = (box[0] + 2, box[1] + 2, box[2] - 2, box[3] - 2)
        assert dominant_colour(image, inner) == style.fill, square
        if square.terrain == "plains":
            assert image.getpixel(layout.centre(square.coord.x, square.coord.y)) == style.fill
        checked.add(square.terrain)
    assert checked == set(TERRAIN_STYLES)


def test_off_board_squares_are_not_terrain() -> None:
    state = midgame_state()
    image = board(state, None)
    layout = Layout(state.width, state.height, DEFAULT_THEME)
    assert c("A1") not in {s.coord for s in state.squares}
    left, top, _right, _bottom = layout.square_box(0, 0)
    assert image.getpixel((left + 10, top + 20)) == DEFAULT_THEME.off_board


def test_every_side_sees_the_board_the_same_way_up() -> None:
    # North (towards row 12) is up on every image, so "move g1 north" goes up the screen for
    # both players and on the public board alike.
    state = midgame_state()
    red_sanctum, blue_sanctum = c("D4"), c("I9")
    layout = Layout(state.width, state.height, DEFAULT_THEME)
    assert (
        layout.centre(red_sanctum.x, red_sanctum.y)[1]
        > layout.centre(blue_sanctum.x, blue_sanctum.y)[1]
    )
    for side in (Side.RED, Side.BLUE, None):
        image = board(state, side)
        for at, owner in ((red_sanctum, "red"), (blue_sanctum, "blue")):
            box = layout.square_box(at.x, at.y)
            assert share_of(image, box, OWNER_STYLES[owner].fill) > 0.08, (side, owner)


@pytest.mark.parametrize("name", ["F6", "G7", "G6", "H5"])
def test_groups_are_drawn_in_their_owner_colour(name: str) -> None:
    state = midgame_state()
    group = state.group_at(c(name))
    assert group is not None
    layout = Layout(state.width, state.height, DEFAULT_THEME)
    image = board(state, None)
    box = layout.square_box(group.coord.x, group.coord.y)
    fill = OWNER_STYLES[str(group.owner)].fill
    assert share_of(image, box, fill) > 0.06
    others = [s.fill for o, s in OWNER_STYLES.items() if o != str(group.owner)]
    assert all(share_of(image, box, other) < 0.02 for other in others)


def test_rendering_is_deterministic(content: Content) -> None:
    state = midgame_state()
    view = view_for(state, Side.BLUE, content)
    report = midgame_report(state)
    assert render_board(view, report, spells=BOOK) == render_board(view, report, spells=BOOK)


def test_the_overlay_only_adds_to_the_board() -> None:
    state = midgame_state()
    plain = board(state, None)
    layout = Layout(state.width, state.height, DEFAULT_THEME)
    with_turn = board(state, None, report=True)
    # An untouched corner of the board stays the same; a square crossed by a move arrow changes.
    far = layout.square_box(1, 7)
    assert plain.crop(far).tobytes() == with_turn.crop(far).tobytes()
    moved = layout.square_box(c("E6").x, c("E6").y)
    assert plain.crop(moved).tobytes() != with_turn.crop(moved).tobytes()


def with_hand(state: GameState, side: Side, spell_ids: tuple[str, ...]) -> GameState:
    player = state.player(side)
    cards = tuple(
        replace(card, spell_id=spell) for card, spell in zip(player.hand, spell_ids, strict=True)
    )
    changed = replace(player, hand=cards)
    players = (changed, state.players[1]) if side is Side.RED else (state.players[0], changed)
    return replace(state, players=players)


def test_a_side_cannot_draw_the_enemy_hand(content: Content) -> None:
    """G12: the enemy's cards never change a side's images, only their number is known."""
    state = midgame_state()
    other = with_hand(state, Side.RED, ("plague",) * 5)
    assert state.player(Side.RED).hand != other.player(Side.RED).hand
    for variant in (state, other):
        assert not view_for(variant, Side.BLUE, content).hand or all(
            card not in variant.player(Side.RED).hand
            for card in view_for(variant, Side.BLUE, content).hand
        )
    sheets = {
        render_order_sheet(view_for(variant, Side.BLUE, content), spells=BOOK)
        for variant in (state, other)
    }
    assert len(sheets) == 1
    boards = {
        render_board(view_for(variant, None, content), spells=BOOK) for variant in (state, other)
    }
    assert len(boards) == 1
    # The viewer's own hand, by contrast, is drawn.
    own = {
        render_order_sheet(view_for(variant, Side.RED, content), spells=BOOK)
        for variant in (state, other)
    }
    assert len(own) == 2


def test_hidden_enemy_spells_do_not_reach_the_image(content: Content) -> None:
    state = midgame_state()
    without = replace(
        state, active_spells=tuple(s for s in state.active_spells if s.spell_id != "fear")
    )
    assert render_board(view_for(state, Side.RED, content), spells=BOOK) == render_board(
        view_for(without, Side.RED, content), spells=BOOK
    )
    assert render_board(view_for(state, Side.BLUE, content), spells=BOOK) != render_board(
        view_for(without, Side.BLUE, content), spells=BOOK
    )


def test_the_public_view_has_no_order_sheet(content: Content) -> None:
    with pytest.raises(ValueError, match="public view"):
        render_order_sheet(view_for(midgame_state(), None, content), spells=BOOK)


def test_order_sheet_draws_the_hand_and_the_orders(content: Content) -> None:
    state = midgame_state()
    view = view_for(state, Side.RED, content)
    enemy = state.group_at(c("G7"))
    assert enemy is not None
    no_orders = decode(render_order_sheet(view, spells=BOOK))
    cast = Orders(casts=(CastOrder(view.hand[0].uid, Target("group", enemy.id)),))
    with_cast = decode(render_order_sheet(view, cast, spells=BOOK))
    layout = Layout(state.width, state.height, DEFAULT_THEME)
    assert no_orders.size == with_cast.size
    assert no_orders.height > layout.height
    target = layout.square_box(enemy.coord.x, enemy.coord.y)
    assert no_orders.crop(target).tobytes() != with_cast.crop(target).tobytes()
    assert share_of(with_cast, target, DEFAULT_THEME.order_line) > 0


def test_rendering_from_worker_threads_gives_the_same_images() -> None:
    """The bot renders off the event loop; shared caches and fonts must not mix images up."""
    state = midgame_state()
    report = midgame_report(state)
    jobs = [(side, rep) for side in (None, Side.RED, Side.BLUE) for rep in (None, report)] * 2

    def draw(job: tuple[Side | None, TurnReport | None]) -> bytes:
        side, rep = job
        return render_board(view_for(state, side, load_content()), rep, spells=BOOK)

    expected = [draw(job) for job in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(draw, jobs)) == expected


def test_a_finished_match_says_so_in_the_header() -> None:
    state = midgame_state()
    over = replace(state, result=Result(Side.BLUE, "sanctum captured"))
    layout = Layout(state.width, state.height, DEFAULT_THEME)
    header = layout.header_box
    before, after = board(state, None), board(over, None)
    assert before.crop(header).tobytes() != after.crop(header).tobytes()
    board_box = layout.board_box
    assert before.crop(board_box).tobytes() == after.crop(board_box).tobytes()


def test_a_cast_on_a_group_trained_this_turn_is_drawn_on_its_square(content: Content) -> None:
    state = midgame_state()
    view = view_for(state, Side.RED, content)
    empty = c("E3")
    assert state.group_at(empty) is None
    cast = Orders(casts=(CastOrder(view.hand[3].uid, Target("group", empty)),))
    before = decode(render_order_sheet(view, spells=BOOK))
    after = decode(render_order_sheet(view, cast, spells=BOOK))
    layout = Layout(state.width, state.height, DEFAULT_THEME)
    box = layout.square_box(empty.x, empty.y)
    assert before.crop(box).tobytes() != after.crop(box).tobytes()


def test_a_board_is_titled_by_the_turn_it_shows(content: Content) -> None:
    state = midgame_state()
    report = midgame_report(state)
    assert board_title(view_for(state, None, content), None) == "Turn 9"
    # The board a turn report is drawn on is the position after that turn.
    assert board_title(view_for(state, None, content), replace(report, turn=8)) == "After turn 8"
    # A finished match's board is the position after its last turn.
    over = replace(state, turn=11, result=Result(Side.RED, "sanctum"))
    assert board_title(view_for(over, None, content), None) == "After turn 10"
