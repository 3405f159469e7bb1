"""Evaluating spell requirements (declared in :mod:`engine.spells.requirements`) on a position.

Targeting requirements are checked when the order is given and again at execution (S11);
persistent ones whenever an active spell would act (it is potent only while they all hold).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.position import Position
from engine.spells.aim import Aim, aim_of_host
from engine.spells.params import Params
from engine.spells.requirements import REQUIREMENTS, Requirement
from engine.state import ActiveSpell, Side

if TYPE_CHECKING:
    from engine.spells.schema import SpellDef


def holds(req: Requirement, ctx: ReqContext) -> bool:
    """Whether one requirement is true for a cast by ``ctx.side`` at ``ctx.aim``."""
    return _CHECKS[req.name](req.params, ctx)


def failing(reqs: tuple[Requirement, ...], ctx: ReqContext) -> Requirement | None:
    """The first requirement that is false, if any."""
    for req in reqs:
        if not holds(req, ctx):
            return req
    return None


def holds_persistent(view: Position, spell: ActiveSpell, definition: SpellDef) -> bool:
    """Whether an active spell is potent: every persistent requirement holds on its host (a
    spell without any always is). Every continuous effect, trigger and ward asks it."""
    if not definition.requires_persistent:
        return True
    aim = aim_of_host(view, spell.host)
    if aim is None:
        return False
    ctx = ReqContext(view, spell.owner, aim)
    return failing(definition.requires_persistent, ctx) is None


@dataclass(frozen=True, slots=True)
class ReqContext:
    view: Position
    side: Side
    aim: Aim


def _terrain_is(p: Params, ctx: ReqContext) -> bool:
    at = ctx.aim.coord
    return at is not None and ctx.view.terrain.get(at) in p.texts("terrains")


def _group_size(p: Params, ctx: ReqContext) -> bool:
    group = ctx.aim.group
    if group is None and ctx.aim.coord is not None:
        # On a structure: its owner's group standing there (after a capture, the new owner's);
        # on a square: the caster's own group.
        structure = ctx.aim.structure
        owner = structure.owner if structure is not None else ctx.side
        group = ctx.view.group_at(ctx.aim.coord)
        if group is not None and group.owner != owner:
            group = None
    return group is not None and p.num("min", 1) <= len(group.minions) <= p.num("max", 8)


def _caster_structures(p: Params, ctx: ReqContext) -> bool:
    owned = sum(
        1 for s in ctx.view.structures if s.owner == ctx.side and s.kind in ("town", "colony")
    )
    return owned >= p.num("min")


def _caster_initiative(p: Params, ctx: ReqContext) -> bool:
    return (ctx.view.initiative == ctx.side) == p.flag("has", True)


def _has_spell(p: Params, ctx: ReqContext) -> bool:
    return any(s.spell_id == p.text("spell") for s in ctx.view.spells_on(ctx.aim.host))


def _unenchanted(p: Params, ctx: ReqContext) -> bool:
    return not any(s.visible and not s.helper for s in ctx.view.spells_on(ctx.aim.host))


def _has_hero(p: Params, ctx: ReqContext) -> bool:
    name = p.text("name")
    found = any(
        g.owner == ctx.side
        and any("hero" in m.traits and (not name or m.name == name) for m in g.minions)
        for g in ctx.view.groups
    )
    return found == p.flag("has", True)


def _target_level(p: Params, ctx: ReqContext) -> bool:
    minions = [ctx.aim.minion] if ctx.aim.minion is not None else []
    if not minions and ctx.aim.group is not None:
        minions = list(ctx.aim.group.minions)
    return all(m.level <= p.num("max") for m in minions)


def _no_structure(p: Params, ctx: ReqContext) -> bool:
    # ``within``: a spacing, counted in moves (Manhattan distance) as ranges are; 0 is the
    # square itself.
    where = ctx.aim.coord
    within = p.num("within")
    return where is not None and all(s.coord.dist(where) > within for s in ctx.view.structures)


_CHECKS: dict[str, Callable[[Params, ReqContext], bool]] = {
    "terrain_is": _terrain_is,
    "group_size": _group_size,
    "caster_structures": _caster_structures,
    "caster_initiative": _caster_initiative,
    "target_has_spell": _has_spell,
    "target_lacks_spell": lambda p, ctx: not _has_spell(p, ctx),
    "target_unenchanted": _unenchanted,
    "caster_has_hero": _has_hero,
    "target_level": _target_level,
    "no_structure": _no_structure,
}
assert set(_CHECKS) == set(REQUIREMENTS)
