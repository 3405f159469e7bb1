"""Training novices (digest 4.3): swordsmen and archers at any owned structure, mana in the Sanctum.

Training acts at once, before spells: the new recruit joins the friendly recruit group on the
structure or forms a new group there, and mana training adds production and one mana at once.
"""

from __future__ import annotations

from engine.orders import Problem, TrainOrder
from engine.queries import training_blocked
from engine.state import MAX_GROUP_SIZE, Group, Side
from engine.world import World


def train_problem(world: World, side: Side, order: TrainOrder, index: int) -> Problem | None:
    """Why ``order`` cannot be carried out now (None when it can)."""
    return _checked(world, side, order, index)[0]


def _checked(
    world: World, side: Side, order: TrainOrder, index: int
) -> tuple[Problem | None, list[Group]]:
    """:func:`train_problem`, and the groups on the structure's square it looked at (none for a
    mana order): the new recruit joins the first of them."""

    def problem(code: str, message: str) -> tuple[Problem, list[Group]]:
        return Problem(code, message, index, "trains"), []

    structure = world.structure_at(order.structure)
    if structure is None:
        return problem("no_structure", f"there is no structure on {order.structure.name}")
    if structure.owner != side:
        return problem(
            "not_your_structure", f"the structure on {order.structure.name} is not yours"
        )
    if not structure.novices:
        return problem("no_novice", f"no novice is left to train on {order.structure.name}")
    if order.kind == "mana":
        if structure.kind != "sanctum":
            return problem("mana_not_in_sanctum", "novices train as mana only in your Sanctum")
        house = world.content.houses[world.player(side).house]
        if order.mana_type not in (None, house.primary, house.secondary):
            return problem(
                "bad_mana_type",
                f"your Sanctum trains only {house.primary} or {house.secondary} mana, "
                f"not {order.mana_type}",
            )
        return None, []
    groups = world.groups_at(order.structure)
    for group in groups:
        if group.owner != side or not group.is_recruit_group:
            return problem(
                "square_occupied",
                f"a new recruit cannot join the {group.owner} group on {order.structure.name}",
            )
        if len(group.minions) >= MAX_GROUP_SIZE:
            return problem(
                "group_full", f"the group on {order.structure.name} already has 8 minions"
            )
        if training_blocked(world, order.structure):
            return problem(
                "join_forbidden",
                f"a spell stops recruits joining the group on {order.structure.name}",
            )
    return None, groups


def apply_training(world: World, side: Side, orders: tuple[TrainOrder, ...]) -> list[Problem]:
    """Carry out ``side``'s training orders in issue order; returns the ones that could not be."""
    problems: list[Problem] = []
    for index, order in enumerate(orders):
        problem, standing = _checked(world, side, order, index)
        if problem is not None:
            problems.append(problem)
            continue
        structure = world.structure_at(order.structure)
        assert structure is not None
        nation = structure.novices[0]
        world.update_structure(structure.with_novices(structure.novices[1:], structure.counter))
        if order.kind == "mana":
            mana_type = order.mana_type or world.content.houses[world.player(side).house].primary
            player = world.player(side)
            gained = ((mana_type, 1),)
            world.update_player(
                player.with_mana(player.pool.plus(gained), player.mana_novices.plus(gained))
            )
            if world.report.recording:
                world.emit(
                    "trained",
                    side=str(side),
                    structure=structure.id,
                    at=structure.coord.name,
                    trained_as="mana",
                    mana_type=mana_type,
                    group=None,
                    minion=None,
                )
            continue
        minion = world.new_minion(order.kind, nation)
        # The oldest group on the square (group_at's answer; nothing changed it since).
        existing = standing[0] if standing else None
        if existing is None:
            group_id = world.create_group(side, structure.coord, (minion,)).id
        else:
            world.add_minion(existing.id, minion)
            group_id = existing.id
        if world.report.recording:
            world.emit(
                "trained",
                side=str(side),
                structure=structure.id,
                at=structure.coord.name,
                trained_as=order.kind,
                mana_type=None,
                group=group_id,
                minion=minion.id,
            )
    return problems
