"""The start of a turn (G4, digest section 3): nine steps in a fixed order.

1 levels, 2 "start_of_turn" spells, 3 terrain then "after_start_of_turn" spells, 4 draw,
5 capture towns and colonies, 6 novices, 7 structure delta and initiative, 8 mana,
9 Sanctum capture and game end.
"""

from __future__ import annotations

from engine.combat import MAX_LEVEL
from engine.coords import NEIGHBOURS, Coord
from engine.mana import structure_yield
from engine.queries import initiative_lock, producing
from engine.report import Event
from engine.state import (
    BLUE,
    NEUTRAL,
    RED,
    SIDES,
    Card,
    Group,
    PlayerState,
    Side,
    evolve,
)
from engine.terrain import apply_after_start
from engine.world import World

# Level events built from their fields in order, as Event.raw builds them, without its call.
_new = tuple.__new__


def run_start_of_turn(world: World) -> None:
    if world.report.recording:
        world.emit("turn_started", turn=world.turn)
    award_levels(world)
    world.broadcast("start_of_turn")
    apply_after_start(world)
    guard_sancta(world)
    world.broadcast("after_start_of_turn")
    draw_cards(world)
    captured = capture_structures(world)
    produce_novices(world, captured)
    update_initiative(world)
    generate_mana(world)
    check_sanctum_capture(world)


def award_levels(world: World) -> None:
    """Step 1: a recruit that hit in a combat it survived gains a level (max 3, D-LEVELS)."""
    if not world.levels_earned:
        return
    append = world.report.append if world.report.recording else None
    for group in world.groups:
        minions = group.minions
        for m in minions:
            if m.earned_level:
                break
        else:
            continue
        at_group = ("group", group.id)
        leveled = []
        for m in minions:
            if m.earned_level:
                level = m.level + 1 if m.level < MAX_LEVEL else MAX_LEVEL
                if append is not None:
                    append(
                        _new(
                            Event, ("level_gained", (at_group, ("level", level), ("minion", m.id)))
                        )
                    )
                leveled.append(m.with_level(level))
            else:
                leveled.append(m)
        world.update_group(group.with_minions(tuple(leveled)))


def guard_sancta(world: World) -> None:
    """Step 3, after terrain (D-SANCTUM-GUARD): each Sanctum strikes every group hostile to its
    owner that stands on it or on one of its entrances, dealing its guard damage
    (``data/economy.toml``) to that group's members in order, each taking what kills it before
    the next is struck. Groups in creation order."""
    guard = world.content.economy.sanctum_guard
    if guard <= 0:
        return
    for sanctum in world.structures:
        if sanctum.kind != "sanctum":
            continue
        guarded = {sanctum.coord, *NEIGHBOURS[sanctum.coord]}
        owner = sanctum.owner
        # The groups as they stand before this Sanctum strikes (the strikes change only them).
        struck = [g for g in world.group_map.values() if g.coord in guarded and g.owner != owner]
        for group in struck:
            left = guard
            for minion in group.minions:
                if left <= 0:
                    break
                hit = min(left, minion.hp)
                left -= hit
                world.damage_minion(minion.id, hit, "sanctum")


def draw_cards(world: World) -> None:
    """Step 4: refill each hand to the hand size from the top of the deck, not counting the
    cards drawn by spells this turn that are still in hand (D-SPELL-DRAW). With the economy's
    reshuffle (D-DRAW) a deck that runs out takes the shuffled discard pile and the draw goes
    on; the draw stops when both are empty."""
    size = world.options.hand_size
    reshuffle = world.content.economy.reshuffle
    for side in SIDES:
        player = world.player(side)
        extra = world.spell_drawn[side]
        kept = sum(1 for card in player.hand if card.uid in extra) if extra else 0
        need = size + kept - len(player.hand)
        if need <= 0:
            continue
        if reshuffle and len(player.deck) < need and player.discard:
            player = _reshuffle(world, player)
        drawn = player.deck[:need]
        world.update_player(
            player.with_cards(player.deck[len(drawn) :], player.hand + drawn, player.discard)
        )
        if drawn and world.report.recording:
            world.emit("drew", side=str(side), count=len(drawn))
        if len(drawn) < need:
            world.emit("deck_empty", side=str(side))


def _reshuffle(world: World, player: PlayerState) -> PlayerState:
    """The discard pile shuffled under what is left of the deck. A once-per-game spell its side
    has cast stays in the pile: it could never be cast again, and the pile is where everyone
    sees it was spent."""
    spent = set(player.cast_log)
    keep: list[Card] = []
    pile: list[Card] = []
    for card in player.discard:
        spell = world.content.spells.get(card.spell_id)
        once = spell is not None and spell.once_per_game and card.spell_id in spent
        (keep if once else pile).append(card)
    if not pile:
        return player
    world.rng.shuffle(pile)
    world.emit("reshuffled", side=str(player.side), count=len(pile))
    return evolve(player, deck=player.deck + tuple(pile), discard=tuple(keep))


def capture_structures(world: World) -> set[int]:
    """Step 5: a recruit group hostile to a town's or colony's owner standing on it captures it;
    it produces the mana type its new owner chose in the turn's orders, or the house's primary
    (digest 9.3 item 6, D-TOWN-MANA)."""
    captured: set[int] = set()
    # The group on each square (the oldest, as group_at answers), rebuilt only if a capture
    # changed the groups: one pass over them instead of a scan per town and colony.
    standing: dict[Coord, Group] = {}
    seen = -1
    for structure in world.structures:
        if structure.kind == "sanctum":
            continue
        if world.revision != seen:
            standing = {g.coord: g for g in reversed(world.group_map.values())}
            seen = world.revision
        group = standing.get(structure.coord)
        if group is None or group.owner in (NEUTRAL, structure.owner):
            continue
        if not group.is_recruit_group:
            continue
        side = Side(group.owner)
        choice = world.mana_choices.get(side, {}).get(structure.coord)
        world.capture_structure(structure.id, side, choice)
        captured.add(structure.id)
    return captured


def produce_novices(world: World, captured: set[int]) -> None:
    """Step 6: owned structures not captured this step count towards their next novice."""
    every = world.content.economy.novice_every
    for structure in world.structures:
        if structure.owner == NEUTRAL or structure.id in captured:
            continue
        counter = structure.counter + 1
        novices = structure.novices
        if counter >= every[structure.kind]:
            counter = 0
            owner = structure.owner
            # States hold owners as Side members (owner_from), so the enum's call is skipped;
            # a record built by hand may still name its owner by the plain string.
            side = owner if isinstance(owner, Side) else Side(owner)
            nation = world.content.houses[world.player(side).house].nation
            novices = (*novices, nation)
            if world.report.recording:
                world.emit(
                    "novice",
                    structure=structure.id,
                    at=structure.coord.name,
                    side=str(structure.owner),
                    nation=nation,
                )
        world.update_structure(structure.with_novices(novices, counter))


def update_initiative(world: World) -> None:
    """Step 7 (I3, I4, I6): the higher structure delta takes initiative; equal deltas keep it;
    a locking spell (Lienna) overrides both."""
    red, blue = world.player(RED), world.player(BLUE)
    deltas = {RED: red.captured - red.lost, BLUE: blue.captured - blue.lost}
    if world.report.recording:
        world.emit("structure_delta", red=deltas[RED], blue=deltas[BLUE])
    for side in SIDES:
        player = world.player(side)
        if player.captured or player.lost:  # a player record already at zero stays as it is
            world.update_player(evolve(player, captured=0, lost=0))
    lock = initiative_lock(world)
    if lock is not None:
        world.set_initiative(lock, "locked")
    elif deltas[RED] != deltas[BLUE]:
        leader = RED if deltas[RED] > deltas[BLUE] else BLUE
        world.set_initiative(leader, "structure_delta")


def generate_mana(world: World) -> None:
    """Step 8 (G5): Sanctum, mana novices, towns and colonies; unspent mana carries over."""
    economy = world.content.economy
    producers = producing(world, world.structures)  # making mana changes no structure
    for side in SIDES:
        player = world.player(side)
        house = world.content.houses[player.house]
        made: list[tuple[str, int]] = []
        for structure in producers:
            if structure.owner == side:
                made += structure_yield(structure, house.primary, house.secondary, economy)
        gained = player.mana_novices.plus(made)
        world.gain(side, gained)
        if world.report.recording:
            world.emit(
                "mana",
                side=str(side),
                gained=str(gained),
                pool=str(world.player(side).pool),
            )


def check_sanctum_capture(world: World) -> None:
    """Step 9 (G8): a recruit group on the enemy Sanctum wins; both Sancta at once is a draw."""
    winners = []
    aims: list[tuple[Side, Coord]] = []
    # The oldest group on each Sanctum (group_at's answer), both found in one pass over the groups.
    standing: dict[Coord, Group | None] = {}
    for side in SIDES:
        sanctum = world.sanctum(side.other)
        if sanctum is not None:
            aims.append((side, sanctum.coord))
            standing[sanctum.coord] = None
    for g in world.group_map.values():
        if g.coord in standing and standing[g.coord] is None:
            standing[g.coord] = g
    for side, at in aims:
        group = standing[at]
        if group is not None and group.owner == side and group.is_recruit_group:
            winners.append(side)
            world.emit("sanctum_captured", side=str(side), at=at.name)
    if len(winners) == 2:
        world.end_game(None, "both_sancta")
    elif winners:
        world.end_game(winners[0], "sanctum")
