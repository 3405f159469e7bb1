"""A new match from a seed (G1-G3): realm, terrain, towns, Sancta, starting groups, decks, hands.

Everything random comes from :func:`engine.rng.turn_rng` of the match seed (turn 0 for setup,
G11), so a seed and a configuration always give the same opening.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from engine.content import Board, Content, Realm
from engine.coords import Coord
from engine.rng import turn_rng
from engine.spells.schema import SpellDef
from engine.state import (
    NEUTRAL,
    Card,
    GameState,
    Group,
    Options,
    PlayerState,
    Side,
    Square,
    Structure,
)

if TYPE_CHECKING:
    from engine.spells.schema import SpellDef

MIN_DECK: Final = 30
MAX_COPIES: Final = 4


class SetupError(ValueError):
    """A match configuration that cannot start (the message says why)."""


@dataclass(frozen=True, slots=True)
class MatchConfig:
    seed: int
    ruleset: str = "classic"
    realm: str = "veldt"
    board: str = "classic"
    symmetric: bool = False
    houses: Mapping[Side, str] = field(default_factory=dict)
    decks: Mapping[Side, Sequence[str]] = field(default_factory=dict)


def check_deck(deck: Sequence[str], content: Content) -> list[str]:
    """Why a deck is not legal (G3): at least 30 spells, at most 4 copies, known castable spells."""
    problems: list[str] = []
    for spell_id in sorted(set(deck)):
        spell = content.spells.get(spell_id)
        if spell is not None and not spell.deckable:
            problems.append(f"{spell_id} cannot be put in a deck ({_why_not(spell)})")
    if len(deck) < MIN_DECK:
        problems.append(f"a deck needs at least {MIN_DECK} spells; this one has {len(deck)}")
    for spell_id, count in sorted(Counter(deck).items()):
        if spell_id not in content.spells:
            problems.append(f"unknown spell {spell_id!r}")
        elif count > MAX_COPIES:
            problems.append(f"{spell_id}: {count} copies (at most {MAX_COPIES})")
    return problems


def _why_not(spell: SpellDef) -> str:
    if spell.helper:
        return "it is a helper spell"
    if spell.spell_class == "hereditary":
        return "hereditary spells are always available to their house"
    if spell.spell_class == "bound":
        return "a bound spell without a cost is cast only by its holder"
    return f"{spell.spell_class} spells are never held in hand"


def default_deck(house: str, content: Content) -> list[str]:
    """The house's own deck: every deck spell of ``house``, four copies each, topped up to 30
    with the cheapest other spells its Sanctum can pay for (those needing fewer foreign mana
    types first). Quick matches, computer seats and the balance tournaments all play it, so every
    deck spell of a house is in its deck; a deck has no maximum size (G3)."""
    own = content.houses[house]
    types = {own.primary, own.secondary}

    def key(spell: SpellDef) -> tuple[bool, int, int, str]:
        primary, secondary = spell.mana
        needs = {
            t for t, n in ((primary, spell.cost.primary), (secondary, spell.cost.secondary)) if n
        }
        return (spell.house != house, len(needs - types), spell.cost.total, spell.id)

    deck: list[str] = []
    for spell in sorted((s for s in content.spells.values() if s.deckable), key=key):
        if spell.house != house and len(deck) >= MIN_DECK:
            break
        copies = MAX_COPIES if spell.house == house else min(MAX_COPIES, MIN_DECK - len(deck))
        deck += [spell.id] * copies
    return deck


def new_game(config: MatchConfig, content: Content) -> GameState:
    rng = turn_rng(config.seed, 0)
    if config.board not in content.boards:
        raise SetupError(f"unknown board {config.board!r}")
    if config.realm not in content.realms:
        raise SetupError(
            f"unknown realm {config.realm!r} (known: {', '.join(sorted(content.realms))})"
        )
    for side in (Side.RED, Side.BLUE):
        house = config.houses.get(side)
        if house not in content.houses:
            raise SetupError(f"{side} needs a house (known: {', '.join(sorted(content.houses))})")
        problems = check_deck(config.decks.get(side, ()), content)
        if problems:
            raise SetupError(f"{side}'s deck: " + "; ".join(problems))
    options = Options.for_ruleset(
        config.ruleset, board=config.board, realm=config.realm, symmetric=config.symmetric
    )
    board = content.boards[config.board]
    realm = content.realms[config.realm]
    terrain_realm = content.realms[rng.choice(sorted(realm.picks))] if realm.picks else realm
    towns = choose_towns(board, rng.randint(realm.towns_min, realm.towns_max), rng)
    terrain = generate_terrain(
        board,
        realm=terrain_realm,
        towns=towns,
        symmetric=config.symmetric,
        rng=rng,
        content=content,
    )

    next_id = 1
    structures: list[Structure] = []
    economy = content.economy
    for side in (Side.RED, Side.BLUE):
        nation = content.houses[config.houses[side]].nation
        count = economy.start_novices + (economy.blue_novices if side is Side.BLUE else 0)
        novices = (nation,) * count
        structures.append(Structure(next_id, "sanctum", board.sanctum(side), side, novices=novices))
        next_id += 1
    for at in sorted(towns, key=lambda c: (c.y, c.x)):
        structures.append(Structure(next_id, "town", at, NEUTRAL))
        next_id += 1

    groups: list[Group] = []
    for side in (Side.RED, Side.BLUE):
        nation = content.houses[config.houses[side]].nation
        minions = []
        for unit in economy.start_recruits:
            minions.append(content.make_minion(next_id, unit, nation))
            next_id += 1
        groups.append(Group(next_id, side, side, board.sanctum(side), tuple(minions)))
        next_id += 1

    players: list[PlayerState] = []
    for side in (Side.RED, Side.BLUE):
        cards = []
        for spell_id in config.decks[side]:
            cards.append(Card(next_id, spell_id))
            next_id += 1
        rng.shuffle(cards)
        hand_size = options.hand_size
        players.append(
            PlayerState(
                side=side,
                house=config.houses[side],
                deck=tuple(cards[hand_size:]),
                hand=tuple(cards[:hand_size]),
            )
        )
    return GameState(
        seed=config.seed,
        turn=1,
        options=options,
        width=board.width,
        height=board.height,
        squares=tuple(
            Square(at, terrain[at]) for at in sorted(board.playable, key=lambda c: (c.y, c.x))
        ),
        structures=tuple(structures),
        groups=tuple(groups),
        players=(players[0], players[1]),
        initiative=Side.RED,
        next_id=next_id,
    )


def choose_towns(board: Board, count: int, rng: random.Random) -> set[Coord]:
    """Fill whole tiers of town sites in order; the first tier that does not fit whole gives the
    remaining towns at random (D-TOWNS)."""
    tiers: dict[int, list[Coord]] = {}
    for tier, at in board.town_sites:
        tiers.setdefault(tier, []).append(at)
    chosen: set[Coord] = set()
    for tier in sorted(tiers):
        sites = tiers[tier]
        left = count - len(chosen)
        if left <= 0:
            break
        if len(sites) <= left:
            chosen.update(sites)
        else:
            chosen.update(rng.sample(sites, left))
    return chosen


def generate_terrain(
    board: Board,
    *,
    realm: Realm,
    towns: set[Coord],
    symmetric: bool,
    rng: random.Random,
    content: Content,
) -> dict[Coord, str]:
    """Digest 2.2: Sancta, entrances and towns are plains; every other square draws once from the
    realm's distribution (only half of them under ``symmetric``, the rest copy by a 180-degree
    turn); then default terrain opens a path from each Sanctum to every structure (D-ACCESS)."""
    fixed = {at for _, at in board.sancta} | board.entrances() | towns
    if symmetric:
        # The odd central town has no twin town; its mirror square is kept plains too.
        fixed |= {at.rotated(board.width, board.height) for at in fixed}
    names = [name for name, _ in realm.weights]
    weights = [w for _, w in realm.weights]
    terrain: dict[Coord, str] = {}
    for at in sorted(board.playable, key=lambda c: (c.y, c.x)):
        if at in fixed:
            terrain[at] = "plains"
            continue
        twin = at.rotated(board.width, board.height)
        if symmetric and twin in board.playable and twin in terrain:
            terrain[at] = terrain[twin]
            continue
        terrain[at] = rng.choices(names, weights)[0]
    for _, start in board.sancta:
        for goal in sorted(fixed - set(board.entrances()), key=lambda c: (c.y, c.x)):
            for at in _cheapest_path(board, terrain, start, goal, content):
                if terrain[at] in content.blocking:
                    terrain[at] = realm.default
                    twin = at.rotated(board.width, board.height)
                    if symmetric and twin in board.playable and twin not in fixed:
                        terrain[twin] = realm.default
    return terrain


def _cheapest_path(
    board: Board, terrain: dict[Coord, str], start: Coord, goal: Coord, content: Content
) -> list[Coord]:
    """Squares of a path from ``start`` to ``goal`` crossing the fewest blocking squares."""
    best: dict[Coord, int] = {start: 0}
    previous: dict[Coord, Coord] = {}
    queue: list[tuple[int, int, int, Coord]] = [(0, start.y, start.x, start)]
    while queue:
        cost, _, _, at = heapq.heappop(queue)
        if at == goal:
            break
        if cost > best[at]:
            continue
        for nxt in at.neighbours():
            if nxt not in board.playable:
                continue
            step = cost + (1 if terrain[nxt] in content.blocking else 0)
            if step < best.get(nxt, 1 << 30):
                best[nxt] = step
                previous[nxt] = at
                heapq.heappush(queue, (step, nxt.y, nxt.x, nxt))
    path: list[Coord] = []
    at = goal
    while at != start:
        path.append(at)
        at = previous[at]
    return path
