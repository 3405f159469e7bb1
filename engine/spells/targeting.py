"""Targeting: is a cast legal (S3, S5, S6, N2, N4-N6, N11, C4), and what does it aim at.

:func:`check_target` is the one place that decides whether a spell may aim at a target. It runs
when orders are given (:func:`validate_casts`) and again at the instant the spell executes (S11),
where any failure makes the spell squander.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, NamedTuple

from engine.coords import Coord, coord
from engine.orders import CastOrder, Problem, Target
from engine.position import Position, PositionIndex
from engine.spells.aim import Aim, aim_of_host
from engine.spells.checks import ReqContext, failing
from engine.spells.modifiers import bound_spells, is_invisible
from engine.spells.vocab import GROUP_KINDS, MINION_KINDS, SQUARE_KINDS
from engine.squares import cuts_access, terrain_is_fixed
from engine.state import GLOBE, GameState, HostRef, Mana, Side

if TYPE_CHECKING:
    from engine.content import Content
    from engine.spells.schema import SpellDef

LOS_BLOCKERS = frozenset({"mountain", "forest"})
# Named tuples (aims, resolved casts) built from their fields in order, without their Python-level
# constructors: every cast is resolved and its target checked at least twice a turn.
_new = tuple.__new__
_GLOBE_AIM: Final = Aim(GLOBE)
# Nothing to pay, and the start of every sum of costs (a named tuple's own constructor is a
# Python call, and a turn works out several costs).
_NO_MANA: Final = Mana()


def order_kind(spell: SpellDef) -> str:
    """The host kind an order's target must name for this spell."""
    kind = spell.target.kind
    if kind in GROUP_KINDS:
        if spell.target.has("focused"):
            return "minion"
        if spell.target.has("ground"):
            return "square"
        return "group"
    if kind in MINION_KINDS:
        if spell.target.has("ground"):
            return "square"
        return "minion"
    if kind in SQUARE_KINDS:
        return "square"
    return kind


class Refusal(Exception):  # noqa: N818 - a control-flow signal, not an error
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _resolve(view: Position, spell: SpellDef, target: Target) -> Aim:
    expected = order_kind(spell)
    if target.kind != expected:
        raise Refusal(
            "target_kind", f"{spell.name} is cast on a {expected}, not on a {target.kind}"
        )
    ref = target.ref
    if expected == "globe":
        return _GLOBE_AIM
    if expected == "square":
        if not isinstance(ref, Coord) or ref not in view.terrain:
            raise Refusal("no_target", f"{ref} is not a square of the board")
        return _new(
            Aim, (HostRef.square(ref), ref, view.group_at(ref), None, view.structure_at(ref))
        )
    if expected == "group":
        group = view.group_at(ref) if isinstance(ref, Coord) else None
        if isinstance(ref, int):
            group = view.group(ref)
        if group is None:
            raise Refusal("no_target", f"there is no group {ref}")
        return _new(Aim, (HostRef.group(group.id), group.coord, group, None, None))
    if expected == "minion":
        owner = view.group_of(ref) if isinstance(ref, int) else None
        minion = None if owner is None or not isinstance(ref, int) else owner.minion(ref)
        if owner is None or minion is None:
            raise Refusal("no_target", f"there is no minion {ref}")
        return _new(Aim, (HostRef.minion(minion.id), owner.coord, owner, minion, None))
    structure = view.structure(ref) if isinstance(ref, int) else None
    if structure is None and isinstance(ref, Coord):
        structure = view.structure_at(ref)
    if structure is None:
        raise Refusal("no_target", f"there is no structure {ref}")
    return _new(Aim, (HostRef.structure(structure.id), structure.coord, None, None, structure))


def _line(a: Coord, b: Coord) -> list[tuple[int, int]]:
    """Squares strictly between ``a`` and ``b`` on a Bresenham line."""
    x0, y0, x1, y1 = a.x, a.y, b.x, b.y
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx = 1 if x0 < x1 else -1
    sy = 1 if y0 < y1 else -1
    err = dx + dy
    out = []
    while (x0, y0) != (x1, y1):
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy
        if (x0, y0) != (x1, y1):
            out.append((x0, y0))
    return out


def line_of_sight(view: Position, a: Coord, b: Coord) -> bool:
    return all(view.terrain.get(coord(x, y)) not in LOS_BLOCKERS for x, y in _line(a, b))


def _sanctum_square(view: Position, at: Coord) -> bool:
    structure = view.structure_at(at)
    return structure is not None and structure.kind == "sanctum"


def _kind_check(view: Position, spell: SpellDef, aim: Aim) -> None:
    kind = spell.target.kind
    if spell.target.has("ground"):
        # A ground spell names a square whoever stands there, but never a Sanctum's (S3, N11).
        if aim.coord is not None and _sanctum_square(view, aim.coord):
            raise Refusal("sanctum", "a Sanctum's square is never a spell target")
        return
    minion, group = aim.minion, aim.group
    if kind == "recruit" and minion is not None and minion.kind != "recruit":
        raise Refusal("target_kind", f"{spell.name} needs a recruit")
    if kind == "monster" and minion is not None and minion.kind != "monster":
        raise Refusal("target_kind", f"{spell.name} needs a monster")
    if kind in GROUP_KINDS and group is not None:
        if kind == "recruit_group" and not group.is_recruit_group:
            raise Refusal("target_kind", f"{spell.name} needs a recruit group")
        if kind == "monster_group" and not group.is_monster_group:
            raise Refusal("target_kind", f"{spell.name} needs a monster group")
    if kind == "structure" and aim.structure is not None and aim.structure.kind == "sanctum":
        raise Refusal("sanctum", "a Sanctum is never a spell target")
    if kind in SQUARE_KINDS and aim.coord is not None:
        if _sanctum_square(view, aim.coord):
            raise Refusal("sanctum", "a Sanctum's square is never a spell target")
        if view.group_at(aim.coord) is not None:
            raise Refusal("square_occupied", f"{aim.coord} holds a group")
        if kind == "terrain" and terrain_is_fixed(view.structure_at, aim.coord):
            # Paid and wasted otherwise: nothing would change (D-SP7, G1).
            raise Refusal(
                "terrain_fixed",
                f"{aim.coord}'s terrain cannot change: a structure stands there or it is a "
                "Sanctum's entrance",
            )
        if kind == "terrain" and _cuts_access(view, spell, aim.coord):
            # Paid and wasted otherwise: the change would not happen (D-SP36).
            raise Refusal(
                "terrain_cut",
                f"{spell.name} on {aim.coord} would cut a town or Sanctum off: each keeps a way in "
                "that a group with no walk can take",
            )


def _cuts_access(view: Position, spell: SpellDef, at: Coord) -> bool:
    """Would one of the spell's terrain changes on ``at`` close a structure's last way in?"""
    blocking = view.content.blocking
    return any(
        cuts_access(view.terrain, view.structures, at, e.params.text("terrain"), blocking)
        for e in spell.effects
        if e.op == "change_terrain"
    )


def _allegiance(spell: SpellDef, side: Side, aim: Aim) -> None:
    allegiance = spell.target.allegiance
    owner = aim.owner
    if allegiance == "universal" or owner is None or spell.target.has("ground"):
        return
    if allegiance == "augment" and owner != side:
        raise Refusal("allegiance", f"{spell.name} may only be cast on something of yours")
    if allegiance == "hex" and owner == side:
        raise Refusal("allegiance", f"{spell.name} may only be cast on an enemy")


def _qualifiers(
    view: Position, spell: SpellDef, side: Side, aim: Aim, *, carrier: HostRef | None
) -> None:
    t = spell.target
    at = aim.coord
    if at is None:
        return
    flags = t.flags  # what t.has reads, without a call per qualifier (every cast asks them all)
    friendly = (
        [g for g in view.groups if g.owner == side and g.coord != at]
        if "direct" in flags or "missile" in flags
        else []
    )
    if t.range is not None:
        # A bound spell is cast by what carries it, so its range runs from there (N5; seed 004
        # measures a bound spell from the model casting it), where the carrier is on the board.
        held = None if carrier is None else aim_of_host(view, carrier)
        source = None if held is None else held.coord
        if source is None:
            if not _within(view, side, at, t.range):
                raise Refusal(
                    "out_of_range", f"{at} is more than {t.range} squares from your forces"
                )
        elif source.dist(at) > t.range:
            raise Refusal("out_of_range", f"{at} is more than {t.range} squares from {source}")
    if "direct" in flags and not any(g.coord.x == at.x or g.coord.y == at.y for g in friendly):
        raise Refusal("not_direct", f"{at} is not in a straight line from one of your groups")
    if "missile" in flags and not any(line_of_sight(view, g.coord, at) for g in friendly):
        raise Refusal("no_line_of_sight", f"none of your groups can see {at}")
    if "damage" in flags:
        group = aim.group or view.group_at(at)
        if group is not None and any(
            g.owner != group.owner for n in at.neighbours() if (g := view.group_at(n)) is not None
        ):
            raise Refusal("engaged", f"the target at {at} is next to an enemy group")
    if "caster" in flags:
        minion = aim.minion
        if minion is None or "hero" not in minion.traits or aim.owner != side:
            raise Refusal("not_caster", f"{spell.name} is cast by a hero on herself")
        if carrier is not None and carrier.kind == "minion" and minion.id != carrier.ref:
            raise Refusal("not_caster", f"{spell.name} must target the hero carrying it")
    if "caster_unit" in flags:
        group = aim.group
        if (
            group is None
            or group.owner != side
            or not any("hero" in m.traits for m in group.minions)
        ):
            raise Refusal("not_caster", f"{spell.name} is cast by a hero on her own group")
    if spell.target.kind in MINION_KINDS or "focused" in flags:
        minion, group = aim.minion, aim.group
        if minion is not None and group is not None and group.owner != side:
            terrains = view.content.terrains
            if terrains.get(view.terrain.get(at, ""), None) is not None and (
                terrains[view.terrain[at]].conceals
            ):
                raise Refusal(
                    "concealed", f"the minion at {at} is hidden in the {view.terrain[at]}"
                )
            if is_invisible(view, group, minion):
                raise Refusal("invisible", "that minion cannot be targeted by your spells")


def _within(view: Position, side: Side, at: Coord, reach: int) -> bool:
    """Is ``at`` at most ``reach`` squares (Coord.dist) from a group or structure of
    ``side``'s? Loops with the distance worked out in place: every cast of a spell with a range
    asks this twice a turn (its orders' check, its execution)."""
    x, y = at.x, at.y
    for g in view.groups:
        if g.owner == side and abs(g.coord.x - x) + abs(g.coord.y - y) <= reach:
            return True
    for s in view.structures:
        if s.owner == side and abs(s.coord.x - x) + abs(s.coord.y - y) <= reach:
            return True
    return False


def check_target(
    view: Position,
    side: Side,
    spell: SpellDef,
    target: Target,
    *,
    carrier: HostRef | None = None,
) -> tuple[Aim | None, Problem | None]:
    """Resolve ``target`` for ``spell`` cast by ``side`` and check every casting requirement
    that depends on the board (S3, S11, N11, requirements). Returns (aim, None) or (None, why).
    """
    try:
        aim = _resolve(view, spell, target)
        _kind_check(view, spell, aim)
        _allegiance(spell, side, aim)
        _qualifiers(view, spell, side, aim, carrier=carrier)
        if spell.requires_targeting:
            bad = failing(spell.requires_targeting, ReqContext(view, side, aim))
            if bad is not None:
                raise Refusal("requirement", f"{spell.name} needs: {bad.describe()}")
    except Refusal as refusal:
        return None, Problem(refusal.code, refusal.message)
    return aim, None


# ------------------------------------------------------------------------- orders phase


class Resolved(NamedTuple):
    """Which spell a cast order casts, and how (from hand, hereditary, or bound); a named tuple,
    built for every cast order twice a turn."""

    spell: SpellDef
    source: str  # "hand", "hereditary" or "bound"
    carrier: HostRef | None = None  # the bound spell's holder (an active spell's host)
    carrier_uid: int | None = None
    # The turn the holder last cast this bound spell at its higher power level (D-SP14).
    high_turn: int | None = None


def high_turn_key(spell_id: str) -> str:
    """The carrier's data key for the turn it last cast ``spell_id`` at the higher level."""
    return f"high:{spell_id}"


def is_high_power(spell: SpellDef, cast: CastOrder) -> bool:
    """Is ``cast`` a bound cast at its spell's higher power level (N8)?"""
    return spell.power is not None and cast.power == spell.power[1]


def resolve_cast(
    view: Position,
    side: Side,
    cast: CastOrder,
    *,
    hand: Sequence[tuple[int, str]],
    house: str,
) -> Resolved | Problem:
    """The spell behind a cast order; ``hand`` lists (card uid, spell id) of the side's hand."""
    spells = view.content.spells
    if cast.bound_source is not None:
        if cast.spell_id is None or cast.spell_id not in spells:
            return Problem("unknown_spell", f"unknown bound spell {cast.spell_id!r}")
        for carrier, bound_id in bound_spells(view, side):
            if bound_id != cast.spell_id:
                continue
            ref = carrier.host.ref if isinstance(carrier.host.ref, int) else None
            if cast.bound_source in (carrier.uid, ref):
                last = carrier.get(high_turn_key(bound_id))
                high_turn = last if isinstance(last, int) and not isinstance(last, bool) else None
                return Resolved(spells[bound_id], "bound", carrier.host, carrier.uid, high_turn)
        return Problem("bound_source", f"nothing of yours carries {spells[cast.spell_id].name}")
    if cast.card_uid == 0 and cast.spell_id is not None:
        spell = spells.get(cast.spell_id)
        if spell is None or spell.spell_class != "hereditary" or spell.house != house:
            return Problem(
                "not_in_hand", "only your house's hereditary spell is cast without a card"
            )
        return _new(Resolved, (spell, "hereditary", None, None, None))
    for uid, spell_id in hand:
        if uid == cast.card_uid:
            spell = spells.get(spell_id)
            if spell is None:
                return Problem("unknown_spell", f"unknown spell {spell_id!r}")
            return _new(Resolved, (spell, "hand", None, None, None))
    return Problem("not_in_hand", f"card {cast.card_uid} is not in your hand")


def cast_cost(spell: SpellDef, cast: CastOrder, turn: int, source: str) -> Mana:
    if source == "bound":
        return _NO_MANA
    if cast.boosted and spell.boosted_mana is not None:
        return spell.boosted_mana
    return spell.mana_on_turn(turn)


def _cast_problems(
    view: Position,
    side: Side,
    cast: CastOrder,
    *,
    hand: Sequence[tuple[int, str]],
    house: str,
    cast_log: Sequence[str],
) -> tuple[Resolved | None, Aim | None, list[Problem]]:
    resolved = resolve_cast(view, side, cast, hand=hand, house=house)
    if isinstance(resolved, Problem):
        return None, None, [resolved]
    spell = resolved.spell
    problems = []
    if spell.helper:
        problems.append(Problem("not_castable", f"{spell.name} is never cast by a player"))
    if spell.spell_class == "attribute":
        problems.append(
            Problem("not_castable", f"{spell.name} is an attribute: it is cast only with others")
        )
    if spell.spell_class == "bound" and resolved.source != "bound" and not spell.deckable:
        problems.append(Problem("not_castable", f"{spell.name} is cast only by its holder"))
    if cast.boosted:
        if resolved.source == "bound":
            problems.append(Problem("boost", "bound spells cannot be boosted"))
        elif spell.boosted_cost is None:
            problems.append(Problem("boost", f"{spell.name} has no boosted version"))
    if resolved.source == "bound":
        if cast.power is None or spell.power is None or cast.power not in spell.power:
            levels = "/".join(str(p) for p in spell.power or ())
            problems.append(Problem("power", f"choose a power level of {spell.name}: {levels}"))
    elif cast.power is not None:
        problems.append(Problem("power", "only bound spells take a power level"))
    if spell.once_per_game and spell.id in cast_log:
        problems.append(Problem("once_per_game", f"{spell.name} was already cast this game"))
    carrier = resolved.carrier if resolved.source == "bound" else None
    aim, problem = check_target(view, side, spell, cast.target, carrier=carrier)
    if problem is not None:
        problems.append(problem)
    return resolved, aim, problems


def _player_bits(
    view: Position, side: Side
) -> tuple[list[tuple[int, str]], str, Mana, tuple[str, ...]]:
    player = view.player(side)
    return (
        [(c.uid, c.spell_id) for c in player.hand],
        player.house,
        player.pool,
        player.cast_log,
    )


def validate_casts(
    state: GameState,
    side: Side,
    casts: Sequence[CastOrder],
    content: Content,
) -> list[Problem]:
    """Every problem with a side's casts, each with its ``order_index`` (S5, S6, N2, N5, C4).

    S5's limit "up to their hand" follows from each held card being cast at most once.
    """
    return cast_problems(PositionIndex(state, content), side, casts)


def cast_problems(view: Position, side: Side, casts: Sequence[CastOrder]) -> list[Problem]:
    """:func:`validate_casts` on any position: the turn checks its casts on its live World
    (the position after training) without a frozen copy of it."""
    hand, house, pool, log = _player_bits(view, side)
    out: list[Problem] = []

    def add(index: int, problem: Problem) -> None:
        out.append(Problem(problem.code, problem.message, index, "casts"))

    reserved = _NO_MANA
    cards: set[int] = set()
    per_target: set[tuple[str, HostRef | Target]] = set()
    per_turn: set[str] = set()
    bound_used: set[tuple[int | None, str]] = set()
    for index, cast in enumerate(casts):
        resolved, aim, problems = _cast_problems(
            view, side, cast, hand=hand, house=house, cast_log=log
        )
        for problem in problems:
            add(index, problem)
        if resolved is None or problems:
            # A cast refused on its own never executes: it holds no card, target or mana
            # against the casts after it (C4).
            continue
        spell = resolved.spell
        if resolved.source == "hand":
            if cast.card_uid in cards:
                add(index, Problem("duplicate_card", "a card can be cast only once"))
            cards.add(cast.card_uid)
        if resolved.source == "bound":
            key = (resolved.carrier_uid, spell.id)
            if key in bound_used:
                add(
                    index,
                    Problem("bound_once", f"{spell.name} is cast once per turn by its holder"),
                )
            bound_used.add(key)
            if (
                not view.options.magic_duel
                and is_high_power(spell, cast)
                and resolved.high_turn == view.turn - 1
            ):
                add(
                    index,
                    Problem(
                        "bound_resting",
                        f"{spell.name} was cast at its higher power level last turn: this turn "
                        "its holder may cast it only at the lower level",
                    ),
                )
            continue
        learned = spell.spell_class in ("learned", "hereditary")
        if learned and not spell.replicable:
            if spell.id in per_turn:
                add(index, Problem("learned_once", f"{spell.name} may be tried once per turn"))
            per_turn.add(spell.id)
        elif not spell.cumulative:
            # A target that passed its check names the host its aim found.
            named = aim.host if aim is not None else _target_key(view, spell, cast.target)
            aimed = (spell.id, named)
            if aimed in per_target:
                add(
                    index,
                    Problem("non_cumulative", f"{spell.name} is already cast on that target"),
                )
            per_target.add(aimed)
        cost = cast_cost(spell, cast, view.turn, resolved.source)
        reserved = reserved + cost
        if not pool.covers(reserved):
            add(index, Problem("no_mana", f"not enough mana left for {spell.name}"))
            reserved = reserved - cost
    return out


def target_host(view: Position, spell: SpellDef, target: Target) -> HostRef | None:
    """The host a cast of ``spell`` on ``target`` names, however it names it (a group by id or
    by its square); None when it names nothing on the board."""
    try:
        return _resolve(view, spell, target).host
    except Refusal:
        return None


def _target_key(view: Position, spell: SpellDef, target: Target) -> HostRef | Target:
    """What S6 counts as one target: the host the order names; an order that names nothing is
    its own key."""
    host = target_host(view, spell, target)
    return target if host is None else host


def candidate_targets(view: Position, spell: SpellDef) -> list[Target]:
    """Every target of the right kind on the board (legal or not)."""
    kind = order_kind(spell)
    if kind == "globe":
        return [Target("globe")]
    if kind == "square":
        return [Target("square", at) for at in sorted(view.terrain, key=lambda c: (c.y, c.x))]
    if kind == "group":
        return [Target("group", g.id) for g in view.groups]
    if kind == "minion":
        return [Target("minion", m.id) for g in view.groups for m in g.minions]
    return [Target("structure", s.id) for s in view.structures if s.kind != "sanctum"]


def legal_targets(
    state: GameState,
    side: Side,
    spell: SpellDef,
    content: Content,
    carrier: HostRef | None = None,
) -> list[Target]:
    """Targets ``spell`` may be cast on by ``side`` now (board checks only: not mana or hand)."""
    view = PositionIndex(state, content)
    return [
        t
        for t in candidate_targets(view, spell)
        if check_target(view, side, spell, t, carrier=carrier)[1] is None
    ]
