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
"""

from __future__ import annotations

from typing import Final

from engine.queries import effective_minion
from engine.report import Event
from engine.state import NEUTRAL, Group, HostRef, Minion, evolve
from engine.world import World

MAX_LEVEL: Final = 3


class _Chance(dict[int, float]):
    """Hit chance by level difference (attacker minus victim): 0.5 + 0.1 per level, clamped."""

    def __missing__(self, diff: int) -> float:
        return 0.9 if diff > 0 else 0.1


_CHANCE: Final = _Chance({d: round(0.5 + 0.1 * d, 1) for d in range(-4, 5)})


class _Fighter:
    __slots__ = (
        "alive",
        "armor",
        "attacks",
        "bonus",
        "hand",
        "hit_any",
        "hp",
        "id",
        "level",
        "max_armor",
        "misses",
        "missile",
        "output",
    )

    def __init__(self, minion: Minion, bonus: tuple[str, int, int] | None) -> None:
        self.id = minion.id
        self.hp = minion.hp
        self.max_armor = minion.armor
        self.armor = minion.armor
        self.attacks = minion.attacks
        self.hand = minion.hand
        self.missile = minion.missile
        self.level = minion.level
        self.output = minion.hand + minion.missile
        self.alive = True
        self.misses = 0
        self.hit_any = False
        self.bonus = bonus

    @property
    def combatant(self) -> bool:
        return self.alive and self.attacks > 0 and self.output > 0


def precedence(world: World, group: Group) -> tuple[int, int]:
    """Digest 7.2: initiative side, then neutral, then the other side; older groups first."""
    if group.owner == world.initiative:
        return (0, group.id)
    if group.owner == NEUTRAL:
        return (1, group.id)
    return (2, group.id)


def resolve_combat(world: World) -> None:
    """Every fight of the turn, in precedence order."""
    at_square = {g.coord: g.id for g in world.groups}
    ordered = sorted(world.groups, key=lambda g: precedence(world, g))
    fought: set[tuple[int, int]] = set()
    for group in ordered:
        if group.id not in world.group_map:
            continue
        enemies = []
        for n in group.coord.neighbours():
            other = world.group_map.get(at_square.get(n, -1))
            if other is not None and other.owner != group.owner:
                enemies.append(other)
        for enemy in sorted(enemies, key=lambda g: precedence(world, g)):
            pair = (min(group.id, enemy.id), max(group.id, enemy.id))
            if pair in fought:
                continue
            fought.add(pair)
            if group.id in world.group_map and enemy.id in world.group_map:
                _fight(world, group.id, enemy.id)


def _bonus(world: World, nation: str | None) -> tuple[str, int, int] | None:
    spec = world.content.nations.get(nation) if nation is not None else None
    if spec is None or spec.bonus_mode is None:
        return None
    return (spec.bonus_mode, spec.bonus_round, spec.bonus_amount)


def _load(world: World, group_id: int, carried: dict[int, tuple[int, bool]]) -> list[_Fighter]:
    """The group's living minions with their effective stats (spells folded in)."""
    group = world.group_map.get(group_id)
    if group is None:
        return []
    minions = group.minions
    if world.touched(group):
        minions = tuple(effective_minion(world, group, m) for m in minions)
    fighters = []
    for m in minions:
        f = _Fighter(m, _bonus(world, m.nation))
        f.misses, f.hit_any = carried.get(m.id, (0, False))
        fighters.append(f)
    return fighters


def _fight(world: World, first_id: int, second_id: int) -> None:
    first = world.group_map[first_id]
    second = world.group_map[second_id]
    world.emit(
        "combat",
        at=first.coord.name,
        against=second.coord.name,
        groups=(first_id, second_id),
        sides=(str(first.owner), str(second.owner)),
    )
    max_rounds = world.options.max_rounds
    carried: dict[int, tuple[int, bool]] = {}  # misses and hit_any survive from round to round
    reason = "max_rounds"
    rounds = 0
    ids = (first_id, second_id)
    sides: tuple[list[_Fighter], list[_Fighter]] = ([], [])
    seen = -1  # the World revision the fighters were last read or written at
    for number in range(1, max_rounds + 1):
        hearing = [
            HostRef.group(gid)
            for gid in ids
            if gid in world.group_map and world.touched(world.group_map[gid])
        ]
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
            sides = (_load(world, first_id, carried), _load(world, second_id, carried))
            seen = world.revision
        else:
            for fighters in sides:
                for f in fighters:
                    f.armor = f.max_armor
        if not any(f.alive for f in sides[0]) or not any(f.alive for f in sides[1]):
            reason = "destroyed"
            break
        if not any(f.combatant for f in sides[0] + sides[1]):
            reason = "no_combatant"
            break
        rounds = number
        world.emit("round", number=number, groups=ids)
        lost, missed = _round(world, number, sides, ids)
        seen = world.revision
        if number >= 2 and lost == 0 and not missed:
            reason = "no_damage"
            break
    for gid, fighters in zip(ids, sides, strict=True):
        _write_back(world, gid, fighters)
        for f in fighters:
            carried[f.id] = (f.misses, f.hit_any)
    if not any(f.alive for f in sides[0]) or not any(f.alive for f in sides[1]):
        reason = "destroyed"
    for gid in ids:
        group = world.group_map.get(gid)
        if group is None:
            continue
        earned = [
            m.id
            for m in group.minions
            if m.kind == "recruit" and carried.get(m.id, (0, False))[1] and m.level < MAX_LEVEL
        ]
        if earned:
            world.update_group(
                evolve(
                    group,
                    minions=tuple(
                        evolve(m, earned_level=True) if m.id in earned else m for m in group.minions
                    ),
                )
            )
    world.emit("combat_ended", groups=ids, rounds=rounds, reason=reason)


def _round(
    world: World,
    number: int,
    sides: tuple[list[_Fighter], list[_Fighter]],
    group_ids: tuple[int, int],
) -> tuple[int, bool]:
    """One round; returns hit points taken and whether any strike missed."""
    roll = world.rng.random
    append = world.report.append
    lost = 0
    missed = False
    for index, attackers in enumerate(sides):
        victims = sides[1 - index]
        victim_group = group_ids[1 - index]
        for attacker in attackers:
            if not attacker.alive:
                continue
            if number == 1:
                if attacker.missile <= 0:
                    continue
                mode, base = "missile", attacker.missile
            elif attacker.hand > 0:
                mode, base = "hand", attacker.hand
            elif attacker.missile > 0:
                mode, base = "missile", attacker.missile
            else:
                continue
            damage = base + attacker.level
            bonus = attacker.bonus
            if bonus is not None and bonus[0] == mode and bonus[1] == number:
                damage += bonus[2]
            for _ in range(attacker.attacks):
                victim = _choose_victim(victims, damage)
                if victim is None:
                    break
                hit = attacker.misses >= 2 or roll() < _CHANCE[attacker.level - victim.level]
                if not hit:
                    attacker.misses += 1
                    missed = True
                    append(
                        Event(
                            "strike",
                            (
                                ("attacker", attacker.id),
                                ("damage", 0),
                                ("hit", False),
                                ("hp", victim.hp),
                                ("mode", mode),
                                ("soaked", 0),
                                ("victim", victim.id),
                            ),
                        )
                    )
                    continue
                attacker.misses = 0
                attacker.hit_any = True
                soaked = min(victim.armor, damage)
                victim.armor -= soaked
                taken = damage - soaked
                victim.hp -= taken
                lost += taken
                append(
                    Event(
                        "strike",
                        (
                            ("attacker", attacker.id),
                            ("damage", taken),
                            ("hit", True),
                            ("hp", victim.hp),
                            ("mode", mode),
                            ("soaked", soaked),
                            ("victim", victim.id),
                        ),
                    )
                )
                if victim.hp <= 0:
                    _kill(world, victim, victim_group, attacker.id)
    return lost, missed


def _choose_victim(victims: list[_Fighter], damage: int) -> _Fighter | None:
    """Wise targeting (digest 7.6): a victim this strike can kill, the most dangerous first (then
    the fewest hit points); otherwise the one with the fewest hit points; ties go to the earlier
    minion."""
    weakest: _Fighter | None = None
    weakest_hp = 0
    kill: _Fighter | None = None
    kill_output = kill_hp = 0
    for v in victims:
        if not v.alive:
            continue
        hp = v.hp
        if damage - v.armor >= hp:
            if kill is None or v.output > kill_output or (v.output == kill_output and hp < kill_hp):
                kill, kill_output, kill_hp = v, v.output, hp
        elif kill is None and (weakest is None or hp < weakest_hp):
            weakest, weakest_hp = v, hp
    return kill if kill is not None else weakest


def _kill(world: World, victim: _Fighter, group_id: int, attacker_id: int) -> None:
    minion = world.minion(victim.id)
    if minion is None:
        victim.alive = False
        return
    group = world.group_map[group_id]
    if world.touched(group):
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


def _write_back(world: World, group_id: int, fighters: list[_Fighter]) -> None:
    group = world.group_map.get(group_id)
    if group is None:
        return
    hp = {f.id: f.hp for f in fighters if f.alive}
    changed = False
    minions = []
    for m in group.minions:
        new_hp = hp.get(m.id, m.hp)
        if new_hp != m.hp:
            changed = True
            minions.append(m.with_hp(new_hp))
        else:
            minions.append(m)
    if changed:
        world.update_group(evolve(group, minions=tuple(minions)))
