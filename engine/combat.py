"""Combat (G7, digest section 7): hostile groups on orthogonally adjacent squares fight.

Fights run one at a time in precedence order (initiative side's groups, then neutral groups, then
the other side's, older first; each group against its hostile neighbours in that same order).
A fight lasts at most ``options.max_rounds`` rounds. Round 1 is missiles only. The group of
higher precedence strikes first in every round (the initiative side's, I2); inside a group
minions strike in group order and damage applies at once, so a minion killed before its turn
does not strike. Armor soaks damage point for point, renewed each round. A hit lands with
probability 0.5 + 0.1 x (attacker level - victim level), clamped to [0.1, 0.9], and always after
two misses in a row. The fight ends early when a side has no minion left, or when a round from
round 2 on sees no miss and takes no hit point (D-COMBAT-STALL), or when neither side has a
minion able to strike (D-COMBAT-END).

The report records each round once per pair of groups ("round": hits, misses, damage and kills
of each group) and each fight's levels earned ("combat_ended"). A turn resolved with
``strikes=True`` also records every strike ("strike" events after their round): recording draws
nothing from the generator, so resolving the same state and orders again with it gives the same
turn with its strike-by-strike detail, on demand (the full log, the rules scenarios).
"""

from __future__ import annotations

from typing import Final

from engine.coords import NEIGHBOURS, Coord, name_of
from engine.queries import effective_stats
from engine.report import Event
from engine.state import NEUTRAL, Group, HostRef, Minion
from engine.world import World

# A bare fighter, filled slot by slot in _load.
_new_fighter: Final = object.__new__
# Strike events (and the fights' and rounds' records) are built as Event.raw does, without even
# its call (the hottest loop of a turn).
_new = tuple.__new__

MAX_LEVEL: Final = 3


class _Chance(dict[int, float]):
    """Hit chance by level difference (attacker minus victim): 0.5 + 0.1 per level, clamped."""

    def __missing__(self, diff: int) -> float:
        return 0.9 if diff > 0 else 0.1


_CHANCE: Final = _Chance({d: round(0.5 + 0.1 * d, 1) for d in range(-4, 5)})
_HAND_MODE: Final = ("mode", "hand")
_MISSILE_MODE: Final = ("mode", "missile")
_HIT: Final = ("hit", True)
_MISS: Final = ("hit", False)
_NO_DAMAGE: Final = ("damage", 0)
_NOT_SOAKED: Final = ("soaked", 0)
# Holds a round's place in the report until its figures are known.
_ROUND: Final = Event.raw("round", ())


class _Pairs(dict[int, tuple[str, int]]):
    """A strike event's ("name", number) pairs, built once per number: a turn strikes hundreds
    of times with a handful of distinct numbers, and each new tuple also feeds the collector."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def __missing__(self, number: int) -> tuple[str, int]:
        pair = self[number] = (self.name, number)
        return pair


class _Strikes(dict[int, range]):
    """``range(attacks)`` by number of attacks, built once: every fighter iterates over its own
    in each round (hundreds a turn, nearly all one attack), where a ``range`` call is a call."""

    def __missing__(self, attacks: int) -> range:
        strikes = self[attacks] = range(attacks)
        return strikes


_STRIKES: Final = _Strikes()
_DAMAGE: Final = _Pairs("damage")
_SOAKED: Final = _Pairs("soaked")
_HP: Final = _Pairs("hp")


class _Fighter:
    """A minion's scratch record for one fight: combat changes only these, and writes the hit
    points back to the World when spells may look, and at the end."""

    __slots__ = (
        "alive",
        "armor",
        "hand",
        "hit_any",
        "hp",
        "id",
        "level",
        "max_armor",
        "misses",
        "missile",
        "modes",
        "order",
        "output",
        "plan",
        "striker",
        "strikes",
    )

    # Built by _load, a fight's set-up, slot by slot on a bare instance: a class call with an
    # __init__ costs a frame and the call's machinery more for each of a turn's fighters.
    alive: bool
    armor: int
    hand: int
    hit_any: bool
    hp: int
    id: int
    level: int
    max_armor: int
    misses: int
    missile: int
    modes: tuple[tuple[str, str] | None, ...]
    order: int  # place in its group (wise targeting's ties go to the earlier)
    output: int
    plan: tuple[int | None, ...]
    striker: bool
    strikes: range  # range(attacks): what the fighter's strikes in a round iterate over


Plan = tuple[tuple[int | None, ...], tuple[tuple[str, str] | None, ...]]


def _plan(
    hand: int, missile: int, level: int, bonus: tuple[str, int, int] | None, rounds: int
) -> Plan:
    """What a minion strikes with in each round of a fight (index: the round's number): the
    damage of each strike (None: it does not strike that round) and its mode."""
    first, first_mode = _strike(1, hand, missile, level, None)
    later, later_mode = _strike(2, hand, missile, level, None)
    plan = (None, first) + (later,) * (rounds - 1)
    modes = (None, first_mode) + (later_mode,) * (rounds - 1)
    # The nation's extra damage (digest 7.4) changes one round, in one mode.
    if bonus is not None and 1 <= bonus[1] <= rounds:
        number = bonus[1]
        extra, extra_mode = _strike(number, hand, missile, level, bonus)
        plan = (*plan[:number], extra, *plan[number + 1 :])
        modes = (*modes[:number], extra_mode, *modes[number + 1 :])
    return plan, modes


def _strike(
    number: int, hand: int, missile: int, level: int, bonus: tuple[str, int, int] | None
) -> tuple[int | None, tuple[str, str] | None]:
    """A strike's damage and mode in round ``number`` (None: no strike). Round 1 is missiles
    only; from round 2 a minion strikes with its better mode, so a spell that raises one damage
    value never makes it strike weaker (D-COMBAT-MODE); a tie is hand. Damage is +1 a level, and
    ``bonus`` (the nation's, for this round) adds to its mode."""
    hand_extra = missile_extra = 0
    if bonus is not None:
        if bonus[0] == "hand":
            hand_extra = bonus[2]
        elif bonus[0] == "missile":
            missile_extra = bonus[2]
    if number == 1:
        if missile <= 0:
            return None, None
        return missile + missile_extra + level, _MISSILE_MODE
    if hand <= 0 and missile <= 0:
        return None, None
    if hand + hand_extra >= missile + missile_extra:
        return hand + hand_extra + level, _HAND_MODE
    return missile + missile_extra + level, _MISSILE_MODE


def precedence(world: World, group: Group) -> tuple[int, int]:
    """Digest 7.2: initiative side, then neutral, then the other side; older groups first."""
    if group.owner == world.initiative:
        return (0, group.id)
    if group.owner == NEUTRAL:
        return (1, group.id)
    return (2, group.id)


def resolve_combat(world: World, strikes: bool = False) -> None:
    """Every fight of the turn, in precedence order; ``strikes`` also records every strike."""
    group_map = world.group_map
    # ``precedence`` before any fight, without a call per group: the groups are in id order,
    # so each rank's in turn, in that order, are what a stable sort by rank gives. The same
    # pass notes the group on each square.
    rank = {world.initiative: 0, NEUTRAL: 1, world.initiative.other: 2}
    ranked: tuple[list[Group], list[Group], list[Group]] = ([], [], [])
    at_square: dict[Coord, int] = {}
    for g in group_map.values():
        at_square[g.coord] = g.id
        ranked[rank[g.owner]].append(g)
    ordered = [*ranked[0], *ranked[1], *ranked[2]]
    fought: set[tuple[int, int]] = set()
    plans: dict[tuple[int, int, int, str | None], Plan] = {}
    for group in ordered:
        if group.id not in group_map:
            continue
        enemies = []
        for n in NEIGHBOURS[group.coord]:
            # Most squares next to a group are empty: a membership test settles those.
            if n in at_square:
                other = group_map.get(at_square[n])
                if other is not None and other.owner != group.owner:
                    enemies.append(other)
        if not enemies:
            continue
        for enemy in sorted(enemies, key=lambda g: precedence(world, g)):
            pair = (min(group.id, enemy.id), max(group.id, enemy.id))
            if pair in fought:
                continue
            fought.add(pair)
            if group.id in group_map and enemy.id in group_map:
                _fight(world, group.id, enemy.id, strikes, plans)


def _bonus(world: World, nation: str | None) -> tuple[str, int, int] | None:
    spec = world.content.nations.get(nation) if nation is not None else None
    if spec is None or spec.bonus_mode is None:
        return None
    return (spec.bonus_mode, spec.bonus_round, spec.bonus_amount)


def _load(
    world: World,
    group_id: int,
    carried: dict[int, tuple[int, bool]],
    rounds: int,
    plans: dict[tuple[int, int, int, str | None], Plan],
) -> list[_Fighter]:
    """The group's living minions with their effective stats (spells folded in), for a fight of
    at most ``rounds`` rounds; ``plans`` keeps the turn's strike plans by stats and nation."""
    group = world.group_map.get(group_id)
    if group is None:
        return []
    fighters = []
    per_member = effective_stats(world, group)
    for index, m in enumerate(group.minions):
        f = _new_fighter(_Fighter)
        f.id = m.id
        stats = None if per_member is None else per_member[index]
        if stats is None:
            f.hp = m.hp
            f.max_armor = f.armor = m.armor
            attacks = m.attacks
            f.hand = hand = m.hand
            f.missile = missile = m.missile
            f.level = level = m.level
        else:
            max_hp, f.max_armor, hand, missile, attacks, level = stats
            f.hand, f.missile, f.level = hand, missile, level
            f.armor = f.max_armor
            f.hp = min(m.hp, max_hp)
        f.output = output = hand + missile
        f.striker = attacks > 0 and output > 0
        f.strikes = _STRIKES[attacks]
        f.alive = True
        f.order = index
        f.misses, f.hit_any = carried.get(m.id, (0, False)) if carried else (0, False)
        key = (hand, missile, level, m.nation)
        plan = plans.get(key)
        if plan is None:
            plan = plans[key] = _plan(hand, missile, level, _bonus(world, m.nation), rounds)
        f.plan, f.modes = plan
        fighters.append(f)
    return fighters


def _fight(
    world: World,
    first_id: int,
    second_id: int,
    strikes: bool,
    plans: dict[tuple[int, int, int, str | None], Plan],
) -> None:
    first = world.group_map[first_id]
    second = world.group_map[second_id]
    report = world.report
    # A silent turn (record=False) builds none of the fight's records.
    recording = report.recording
    if recording:
        # The event Event.make would build (its fields sorted by name, each a JSON value),
        # without sorting and converting them for every fight.
        report.append(
            _new(
                Event,
                (
                    "combat",
                    (
                        ("against", name_of(second.coord)),
                        ("at", name_of(first.coord)),
                        ("groups", (first_id, second_id)),
                        ("sides", (str(first.owner), str(second.owner))),
                    ),
                ),
            )
        )
    max_rounds = world.options.max_rounds
    carried: dict[int, tuple[int, bool]] = {}  # misses and hit_any survive from round to round
    reason = "max_rounds"
    rounds = 0
    ids = (first_id, second_id)
    sides: tuple[list[_Fighter], list[_Fighter]] = ([], [])
    seen = -1  # the World revision the fighters were last read or written at
    presence = world.presence
    # Whether any active spell reacts to "combat_round", asked again only when the active
    # spells changed (the presence's generation): a death may bring one into play.
    asked = -1
    reacting = False
    for number in range(1, max_rounds + 1):
        if presence.generation != asked:
            asked = presence.generation
            reacting = presence.reacts("combat_round")
        # Only spells that react to "combat_round" need to hear it (and to see the hit points
        # so far).
        hearing = (
            [
                HostRef.group(gid)
                for gid in ids
                if gid in world.group_map and presence.touched(world.group_map[gid])
            ]
            if reacting
            else ()
        )
        if hearing:
            if number > 1:
                # Spells reacting to the round see the hit points so far.
                for gid, fighters in zip(ids, sides, strict=True):
                    _write_back(world, gid, fighters)
                seen = world.revision
            for subject in hearing:
                world.broadcast("combat_round", subject)
        if world.revision != seen:
            for fighters in sides:
                for f in fighters:
                    carried[f.id] = (f.misses, f.hit_any)
            sides = (
                _load(world, first_id, carried, max_rounds, plans),
                _load(world, second_id, carried, max_rounds, plans),
            )
            seen = world.revision
            stop = _stop(sides, renew_armor=False)
        else:
            stop = _stop(sides, renew_armor=True)
        if stop is not None:
            reason = stop
            break
        rounds = number
        # The round's record goes before its strikes and deaths; its figures are known after.
        at = len(report.events)
        if recording:
            report.append(_ROUND)
        tally = [0, 0, 0, 0, 0, 0, 0, 0]
        lost, missed = _round(world, number, sides, ids, tally, strikes=strikes)
        if recording:
            report.events[at] = _new(
                Event,
                (
                    "round",
                    (
                        ("damage", (tally[4], tally[5])),
                        ("groups", ids),
                        ("hits", (tally[0], tally[1])),
                        ("kills", (tally[6], tally[7])),
                        ("misses", (tally[2], tally[3])),
                        ("number", number),
                    ),
                ),
            )
        seen = world.revision
        if number >= 2 and lost == 0 and not missed:
            reason = "no_damage"
            break
    for fighters in sides:
        for f in fighters:
            carried[f.id] = (f.misses, f.hit_any)
    # Each group's in turn (no generator: a fight ends here, many times a turn).
    levels = (
        _write_back(world, first_id, sides[0], carried),
        _write_back(world, second_id, sides[1], carried),
    )
    if not (sides[0] and sides[1]):
        reason = "destroyed"
    if recording:
        report.append(
            _new(
                Event,
                (
                    "combat_ended",
                    (("groups", ids), ("levels", levels), ("reason", reason), ("rounds", rounds)),
                ),
            )
        )


def _stop(sides: tuple[list[_Fighter], list[_Fighter]], renew_armor: bool) -> str | None:
    """Why the fight ends before this round ("destroyed": a side has no minion left;
    "no_combatant": nobody can strike), or None; renews armor for the round when asked. The
    sides hold only the living (the dead leave them as they fall)."""
    if not (sides[0] and sides[1]):
        return "destroyed"
    if renew_armor:
        for fighters in sides:
            for f in fighters:
                f.armor = f.max_armor
    for fighters in sides:
        for f in fighters:
            if f.striker:
                return None
    return "no_combatant"


def _round(
    world: World,
    number: int,
    sides: tuple[list[_Fighter], list[_Fighter]],
    group_ids: tuple[int, int],
    tally: list[int],
    *,
    strikes: bool,
) -> tuple[int, bool]:
    """One round; returns hit points taken and whether any strike missed. ``tally`` counts, per
    side (0 first, 1 second): hits [0, 1], misses [2, 3], damage dealt [4, 5], kills [6, 7]."""
    roll = world.rng.random
    append = world.report.append if strikes else None
    new = _new
    chance = _CHANCE
    damage_pairs, soaked_pairs, hp_pairs = _DAMAGE, _SOAKED, _HP
    lost = 0
    missed = False
    for index, attackers in enumerate(sides):
        hits = misses = dealt = kills = 0
        victims = sides[1 - index]
        victim_group = group_ids[1 - index]
        # Wise targeting depends only on the strike's damage and the victims, so each damage's
        # choice is kept (``choice``) until a death asks anew: a miss changes nothing, and a hit
        # that leaves its victim alive only makes that victim weaker, so for each damage the
        # choice is either what it was or the victim hit (see _prefers).
        choice: dict[int, _Fighter | None] = {}
        for attacker in attackers:
            damage = attacker.plan[number]
            if damage is None:
                continue
            level = attacker.level
            streak = attacker.misses
            if append is not None:
                as_attacker = ("attacker", attacker.id)
                mode_pair = attacker.modes[number]
            for _ in attacker.strikes:
                if damage in choice:
                    victim = choice[damage]
                else:
                    # Wise targeting (digest 7.6, inlined: the hottest loop of a turn): a victim
                    # this strike can kill, the most dangerous first (then the fewest hit points);
                    # otherwise the one with the fewest hit points; ties go to the earlier one.
                    victim = None
                    weakest_hp = kill_output = kill_hp = 0
                    kill = None
                    for v in victims:
                        hp = v.hp
                        if damage - v.armor >= hp:
                            if (
                                kill is None
                                or v.output > kill_output
                                or (v.output == kill_output and hp < kill_hp)
                            ):
                                kill, kill_output, kill_hp = v, v.output, hp
                        elif kill is None and (victim is None or hp < weakest_hp):
                            victim, weakest_hp = v, hp
                    if kill is not None:
                        victim = kill
                    choice[damage] = victim
                if victim is None:
                    break
                if streak < 2 and roll() >= chance[level - victim.level]:
                    streak += 1
                    misses += 1
                    if append is not None:
                        fields = (
                            as_attacker,
                            _NO_DAMAGE,
                            _MISS,
                            hp_pairs[victim.hp],
                            mode_pair,
                            _NOT_SOAKED,
                            ("victim", victim.id),
                        )
                        append(new(Event, ("strike", fields)))
                    continue
                streak = 0
                attacker.hit_any = True
                armor = victim.armor
                if armor < damage:
                    soaked = armor
                    victim.armor = 0
                    taken = damage - armor
                else:
                    soaked = damage
                    victim.armor = armor - damage
                    taken = 0
                hp = victim.hp = victim.hp - taken
                hits += 1
                dealt += taken
                if append is not None:
                    fields = (
                        as_attacker,
                        damage_pairs[taken],
                        _HIT,
                        hp_pairs[hp],
                        mode_pair,
                        soaked_pairs[soaked],
                        ("victim", victim.id),
                    )
                    append(new(Event, ("strike", fields)))
                if hp <= 0:
                    choice.clear()
                    _kill(world, victim, victim_group, attacker.id)
                    if not victim.alive:
                        kills += 1
                        # The dead leave the victims' list: the scans above read only the living.
                        victims.remove(victim)
                elif len(choice) > 1:
                    for other, chosen in choice.items():
                        if chosen is not victim and _prefers(victim, chosen, other):
                            choice[other] = victim
            attacker.misses = streak
        tally[index] = hits
        tally[2 + index] = misses
        tally[4 + index] = dealt
        tally[6 + index] = kills
        lost += dealt
        missed = missed or misses > 0
    return lost, missed


def _prefers(weakened: _Fighter, chosen: _Fighter | None, damage: int) -> bool:
    """Would wise targeting pick ``weakened`` over ``chosen`` for a strike of ``damage``? (The
    order of the scan in _round: a victim it can kill, the most dangerous, then the fewest hit
    points, then the earlier; else the fewest hit points, then the earlier.)"""
    if chosen is None:
        return True
    can_kill = damage - weakened.armor >= weakened.hp
    if can_kill != (damage - chosen.armor >= chosen.hp):
        return can_kill
    if can_kill and weakened.output != chosen.output:
        return weakened.output > chosen.output
    if weakened.hp != chosen.hp:
        return weakened.hp < chosen.hp
    return weakened.order < chosen.order


def _kill(world: World, victim: _Fighter, group_id: int, attacker_id: int) -> None:
    group = world.group_map.get(group_id)
    if group is not None and not world.presence.hears_death(group):
        # Only bookkeeping: no spell is warned, none can save the victim.
        if world.kill_unheard(victim.id, group_id, attacker_id):
            victim.alive = False
            return
    elif group is not None:
        minion = world.minion(victim.id)
        if minion is not None:
            world.update_minion(minion.with_hp(victim.hp))  # spells hearing the death see its hp
    if world.kill_minion(victim.id, "killed", by=attacker_id):
        victim.alive = False
        return
    saved = world.minion(victim.id)
    holder = world.group_of(victim.id)
    if saved is None or holder is None or holder.id != group_id:
        victim.alive = False
    else:
        victim.hp = saved.hp


def _write_back(
    world: World,
    group_id: int,
    fighters: list[_Fighter],
    carried: dict[int, tuple[int, bool]] | None = None,
) -> int:
    """The fighters' hit points into the World; at the end of the fight (``carried`` given) also
    the level each recruit earned by hitting at least once (D-LEVELS). Returns how many earned
    one."""
    group = world.group_map.get(group_id)
    if group is None:
        return 0
    # A loop, not a comprehension (which runs as a function of its own, a call per write-back).
    hp = {}
    for f in fighters:
        if f.alive:
            hp[f.id] = f.hp
    changed = False
    levels = 0
    minions = []
    for m in group.minions:
        new_hp = hp.get(m.id, m.hp)
        earned = (
            carried is not None
            and not m.earned_level
            and m.kind == "recruit"
            and m.level < MAX_LEVEL
            and carried.get(m.id, (0, False))[1]
        )
        if earned:
            changed = True
            levels += 1
            minions.append(_new(Minion, (*m[:4], new_hp, *m[5:13], True, m[14])))
        elif new_hp != m.hp:
            changed = True
            minions.append(m.with_hp(new_hp))
        else:
            minions.append(m)
    if changed:
        world.update_group(group.with_minions(tuple(minions)))
    if levels:
        world.levels_earned = True
    return levels
