"""A fixed mid-game position and the report of the turn that led to it.

Built from the engine's own constructors on the classic board, but independent of map
generation and turn resolution, so the golden images change only when the drawing does.
"""

from __future__ import annotations

import random
from itertools import count

from engine.content import load_content
from engine.coords import Coord
from engine.report import Event, TurnReport
from engine.spells.schema import Cost, SpellDef, TargetSpec
from engine.state import (
    ActiveSpell,
    Card,
    GameState,
    Group,
    HostRef,
    Mana,
    Minion,
    Options,
    PlayerState,
    Result,
    Side,
    Square,
    Structure,
)
from render.marks import CastMark, DeathMark, TrainMark, TurnMarks
from render.scene import BoardScene, GroupMark, SideInfo, SpellBadge, SquareMark, StructureMark

TERRAINS = (
    "plains", "barren", "forest", "water", "mountain", "volcano",
    "lava", "desert", "void", "swamp", "ice", "jungle",
)  # fmt: skip

RED_HAND = ("fireball", "blood_pact", "imp_frenzy", "warcry", "dark_minion")
BLUE_HAND = ("mind_spike", "flying_carpet", "pixie_dust", "clear_thought")


def c(name: str) -> Coord:
    return Coord.parse(name)


def _minion(ids: count[int], kind: str, unit: str, nation: str | None, *traits: str) -> Minion:
    return Minion(
        id=next(ids),
        kind="monster" if kind == "monster" else "recruit",
        unit=unit,
        nation=nation,
        hp=7,
        max_hp=7,
        hand=2 if unit != "archer" else 0,
        missile=1 if unit == "archer" else 0,
        traits=frozenset(traits),
    )


def midgame_state(*, turn: int = 9) -> GameState:
    """Turn 9 of a match: towns taken, monsters and a hero out, spells on every kind of host."""
    board = load_content().boards["classic"]
    ids = count(1)
    sancta = dict(board.sancta)
    sites = [at for _tier, at in board.town_sites]
    reserved = set(sancta.values()) | board.entrances() | set(sites) | {c("F4")}
    rng = random.Random(2024)
    open_squares = sorted(
        (at for at in board.playable if at not in reserved), key=lambda a: (a.y, a.x)
    )
    terrain: dict[Coord, str] = {at: "plains" for at in board.playable}
    weights = (40, 8, 14, 5, 4, 2, 2, 3, 1, 2, 3, 2)
    for at in open_squares:
        terrain[at] = rng.choices(TERRAINS, weights)[0]
    # Every terrain appears at least once, so the golden image covers every pattern.
    for index, name in enumerate(TERRAINS):
        terrain[open_squares[(index * 7) % len(open_squares)]] = name
    squares = tuple(
        Square(at, terrain[at]) for at in sorted(board.playable, key=lambda a: (a.y, a.x))
    )

    red_sanctum = Structure(next(ids), "sanctum", sancta[Side.RED], Side.RED, ("imp",))
    blue_sanctum = Structure(next(ids), "sanctum", sancta[Side.BLUE], Side.BLUE)
    red_town = Structure(next(ids), "town", c("D7"), Side.RED, ("imp", "imp"), mana_type="will")
    blue_town = Structure(next(ids), "town", c("I6"), Side.BLUE, mana_type="clarity")
    neutral_towns = (
        Structure(next(ids), "town", c("F7"), "neutral"),
        Structure(next(ids), "town", c("G6"), "neutral"),
    )
    colony = Structure(next(ids), "colony", c("F4"), Side.RED, ("imp",), mana_type="strife")
    structures = (red_sanctum, blue_sanctum, red_town, blue_town, *neutral_towns, colony)

    red_home = Group(
        next(ids),
        Side.RED,
        Side.RED,
        sancta[Side.RED],
        tuple(_minion(ids, "recruit", u, "imp") for u in ("swordsman", "archer", "archer")),
    )
    hero = _minion(ids, "recruit", "ogi", "dwarf", "hero")
    red_army = Group(
        next(ids),
        Side.RED,
        Side.RED,
        c("F6"),
        (hero, *(_minion(ids, "recruit", u, "imp") for u in ("swordsman",) * 3 + ("archer",))),
    )
    red_monsters = Group(
        next(ids),
        Side.RED,
        Side.RED,
        c("D6"),
        tuple(_minion(ids, "monster", "dark_minion", None) for _ in range(2)),
    )
    blue_home = Group(
        next(ids),
        Side.BLUE,
        Side.BLUE,
        sancta[Side.BLUE],
        tuple(_minion(ids, "recruit", "swordsman", "djinn") for _ in range(8)),
    )
    blue_army = Group(
        next(ids),
        Side.BLUE,
        Side.BLUE,
        c("G7"),
        tuple(_minion(ids, "recruit", u, "djinn") for u in ("swordsman", "archer", "archer")),
    )
    wolves = Group(
        next(ids),
        Side.BLUE,
        Side.BLUE,
        c("H5"),
        tuple(_minion(ids, "monster", "wolf", None) for _ in range(3)),
    )
    neutral = Group(
        next(ids),
        "neutral",
        "neutral",
        c("G6"),
        tuple(_minion(ids, "recruit", "swordsman", None) for _ in range(2)),
    )
    groups = (red_home, red_army, red_monsters, blue_home, blue_army, wolves, neutral)

    def spell(
        spell_id: str, owner: Side, host: HostRef, *, visible: bool = True, helper: bool = False
    ) -> ActiveSpell:
        return ActiveSpell(
            next(ids), spell_id, owner, host, cast_turn=turn - 2, visible=visible, helper=helper
        )

    active = (
        spell("colony", Side.RED, HostRef.structure(colony.id), helper=True),
        spell("fortitude", Side.RED, HostRef.group(red_army.id)),
        spell("banner_of_the_fallen", Side.RED, HostRef.group(red_army.id)),
        spell("pixie_dust", Side.BLUE, HostRef.minion(blue_army.minions[0].id)),
        spell("faerie_circle", Side.BLUE, HostRef.square(c("H7"))),
        spell("willing_supplicants", Side.RED, HostRef.structure(red_town.id)),
        spell("codex_of_order", Side.BLUE, HostRef.globe()),
        spell("death_knell", Side.RED, HostRef.globe()),
        spell("pact_sealed", Side.RED, HostRef.globe(), visible=False),
        spell("fear", Side.BLUE, HostRef.group(wolves.id), visible=False),
    )

    def cards(spell_ids: tuple[str, ...]) -> tuple[Card, ...]:
        return tuple(Card(next(ids), s) for s in spell_ids)

    red = PlayerState(
        side=Side.RED,
        house="abomination",
        deck=cards(("plague",) * 17),
        hand=cards(RED_HAND),
        pool=Mana(will=4, strife=2),
        mana_novices=Mana(will=1),
    )
    blue = PlayerState(
        side=Side.BLUE,
        house="mind",
        deck=cards(("mirage",) * 19),
        hand=cards(BLUE_HAND),
        pool=Mana(will=3, clarity=5, order=1),
    )
    return GameState(
        seed=42,
        turn=turn,
        options=Options(),
        width=board.width,
        height=board.height,
        squares=squares,
        structures=structures,
        groups=groups,
        players=(red, blue),
        initiative=Side.BLUE,
        active_spells=active,
        next_id=next(ids),
    )


def _event(kind: str, /, **fields: object) -> Event:
    return Event.make(kind, **fields)


def midgame_report(state: GameState) -> TurnReport:
    """The turn before ``midgame_state``: moves, a bounce, a fight, casts and a capture."""
    red_army = state.group_at(c("F6"))
    blue_army = state.group_at(c("G7"))
    wolves = state.group_at(c("H5"))
    red_monsters = state.group_at(c("D6"))
    assert red_army and blue_army and wolves and red_monsters
    blue_town = state.structure_at(c("I6"))
    assert blue_town
    events: tuple[Event, ...] = (
        _event("turn_started", turn=state.turn - 1),
        _event(
            "spell_executed", side="red", card=901, spell="fortitude", target=f"group:{red_army.id}"
        ),
        _event(
            "spell_squandered",
            side="blue",
            card=902,
            spell="mind_spike",
            target=f"minion:{red_monsters.minions[0].id}",
            reason="concealed",
        ),
        _event("spell_executed", side="blue", card=903, spell="codex_of_order", target="globe"),
        _event("spell_executed", side="blue", card=904, spell="faerie_circle", target="square:H7"),
        _event("moved", group=red_army.id, side="red", **{"from": "E5", "to": "E6"}),
        _event("moved", group=red_army.id, side="red", **{"from": "E6", "to": "F6"}),
        _event("moved", group=blue_army.id, side="blue", **{"from": "H8", "to": "G7"}),
        _event("moved", group=wolves.id, side="blue", **{"from": "I5", "to": "H5"}),
        _event("moved", group=red_monsters.id, side="red", **{"from": "D6", "to": "E6"}),
        _event(
            "bounced",
            group=red_monsters.id,
            side="red",
            reason="lost_vote",
            **{"from": "E6", "to": "D6"},
        ),
        _event(
            "blocked",
            group=wolves.id,
            side="blue",
            reason="terrain",
            **{"from": "H5", "to": "H4"},
        ),
        _event(
            "combat", at="F6", against="F7", groups=[red_army.id, 999], sides=["red", "neutral"]
        ),
        _event(
            "died", minion=990, group=999, side="neutral", at="F7", cause="killed", by=red_army.id
        ),
        _event(
            "died", minion=991, group=999, side="neutral", at="F7", cause="killed", by=red_army.id
        ),
        _event("died", minion=992, group=red_army.id, side="red", at="F6", cause="killed", by=999),
        _event("group_died", group=999, side="neutral", at="F7"),
        _event("combat_ended", groups=[red_army.id, 999], rounds=4, reason="no enemies"),
        _event("died", minion=993, group=wolves.id, side="blue", at="H5", cause="terrain", by=None),
        _event(
            "captured",
            structure=blue_town.id,
            at="I6",
            structure_kind="town",
            side="blue",
            **{"from": "neutral"},
        ),
    )
    red_home = state.group_at(c("D4"))
    assert red_home
    before_spells = (
        _event(
            "trained",
            side="red",
            structure=state.structures[0].id,
            at="D4",
            trained_as="archer",
            group=red_home.id,
            minion=red_home.minions[-1].id,
            mana_type=None,
        ),
        _event("terrain_changed", at="J6", to="volcano", **{"from": "plains"}),
    )
    events = events[:1] + before_spells + events[1:]
    return TurnReport(state.turn - 1, events, Side.RED, Side.BLUE)


# (id, name, house, type, target kind) of every spell the fixtures name.
_SPELLS = (
    ("fireball", "Fireball", "war", "manifestation", "group"),
    ("blood_pact", "Blood Pact", "abomination", "manifestation", "group"),
    ("imp_frenzy", "Imp Frenzy", "abomination", "alteration", "recruit_group"),
    ("warcry", "Warcry", "war", "conjuration", "recruit_group"),
    ("dark_minion", "Dark Minion", "abomination", "summoning", "square"),
    ("mind_spike", "Mind Spike", "mind", "manifestation", "minion"),
    ("flying_carpet", "Flying Carpet", "mind", "conjuration", "group"),
    ("pixie_dust", "Pixie Dust", "mind", "alteration", "minion"),
    ("clear_thought", "Clear Thought", "mind", "manifestation", "globe"),
    ("fortitude", "Fortitude", "body", "alteration", "group"),
    ("banner_of_the_fallen", "Banner of the Fallen", "war", "alteration", "recruit_group"),
    ("faerie_circle", "Faerie Circle", "life", "conjuration", "square"),
    ("willing_supplicants", "Willing Supplicants", "abomination", "alteration", "structure"),
    ("codex_of_order", "Codex of Order", "justice", "alteration", "globe"),
    ("death_knell", "Death Knell", "death", "conjuration", "globe"),
    ("pact_sealed", "The Pact Is Sealed", "abomination", "alteration", "globe"),
    ("fear", "Fear", "despair", "conjuration", "group"),
    ("colony", "Colony", "making", "alteration", "structure"),
    ("plague", "Plague", "body", "manifestation", "group"),
    ("mirage", "Mirage", "making", "manifestation", "group"),
)


def spell_book() -> dict[str, SpellDef]:
    """Fixed definitions for the fixtures' spells, so images do not follow catalogue edits."""
    book = {}
    for spell_id, name, house, spell_type, target in _SPELLS:
        book[spell_id] = SpellDef(
            id=spell_id,
            name=name,
            house=house,
            cost=Cost(2, 1),
            type=spell_type,
            target=TargetSpec(target),
            rules=f"{name} does what its card says.",
            visible=spell_id not in ("pact_sealed", "fear"),
            helper=spell_id == "colony",
        )
    return book


def crowded_square_scene() -> tuple[BoardScene, TurnMarks]:
    """A board whose B2 holds everything at once: a town with its mana and novices, five
    ongoing spells, five groups with spells on them, and a turn that cast five spells there,
    killed five minions and trained two swordsmen; D2 is a busy town with one group."""
    names = ("Fireball", "Earth Curse", "Crystal Lance", "Fog", "Holy Light", "Plague", "Storm")

    def badge(i: int) -> SpellBadge:
        return SpellBadge(f"s{i}", names[i % len(names)], "red", "war")

    crowded = SquareMark(
        1,
        1,
        "forest",
        structure=StructureMark("town", "blue", novices=3, mana_type="world", structure_id=1),
        groups=tuple(
            GroupMark(i, "blue", 8 - i, spells=(badge(i), badge(i + 1))) for i in range(5)
        ),
        spells=tuple(badge(i) for i in range(5)),
    )
    # D2: a town with one group, three ongoing spells, three casts and two deaths.
    busy = SquareMark(
        3,
        1,
        "plains",
        structure=StructureMark("town", "red", novices=2, mana_type="war", structure_id=2),
        groups=(GroupMark(9, "red", 4),),
        spells=tuple(badge(i) for i in range(3)),
    )
    special = {(1, 1): crowded, (3, 1): busy}
    squares = [
        special[(x, y)]
        if (x, y) in special
        else SquareMark(
            x,
            y,
            "plains",
            structure=StructureMark("sanctum", "red") if (x, y) == (0, 0) else None,
        )
        for x in range(12)
        for y in range(4)
    ]
    scene = BoardScene(12, 4, tuple(squares), 3, "red", (SideInfo("red"), SideInfo("blue")))
    marks = TurnMarks(
        casts=tuple(CastMark("red", badge(i), (1, 1)) for i in range(5))
        + tuple(CastMark("red", badge(i), (3, 1)) for i in range(3)),
        deaths=(DeathMark((1, 1), 5), DeathMark((3, 1), 2)),
        trained=(TrainMark((1, 1), "blue", "+2 Sw"),),
    )
    return scene, marks


def captured_state() -> GameState:
    """The midgame position as a final board: Red's army stands on Blue's Sanctum and has
    won by capture."""
    state = midgame_state()
    blue_sanctum = next(s for s in state.structures if s.kind == "sanctum" and s.owner == Side.BLUE)
    army = state.group_at(c("F6"))
    assert army is not None
    doc = state.to_dict()
    doc["groups"] = [
        {**g, "coord": blue_sanctum.coord.name} if g["id"] == army.id else g for g in doc["groups"]
    ]
    doc["result"] = Result(Side.RED, "sanctum").to_dict()
    return GameState.from_dict(doc)
