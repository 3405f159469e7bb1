"""Movement (G6, digest section 6): the two-pass algorithm with bounces and moonwalks.

Pass I visits groups block by block (initiative side's player-controlled groups, its
computer-controlled groups, the other side's two blocks, then neutral computer-controlled groups),
each block in issue order, and lets a group step in when it may move, may enter the terrain, and
finds no hostile group on the destination (counting groups that moved in earlier in the pass).
Pass II settles every overstack: the groups vote for a winner; the others join it when joining is
legal, or bounce back to the square they came from. A bouncing group whose square has been taken
by a group it cannot join fails its moonwalk and is removed from the game.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.coords import Coord, coord
from engine.orders import MoveOrder
from engine.queries import can_join, can_move, moves, walks
from engine.state import MAX_GROUP_SIZE, NEUTRAL, Group, HostRef, Side
from engine.terrain import has_walk
from engine.validate import in_range
from engine.world import World


@dataclass(slots=True)
class _Move:
    group_id: int
    dest: Coord
    rank: int  # position in pass I (the last vote tiebreaker)


def king_steps(start: Coord, dest: Coord) -> list[Coord]:
    """King steps from ``start`` towards ``dest`` (one step for an ordinary move)."""
    path = []
    # The coordinates unpacked once: a named tuple's field read by name is a generic attribute
    # lookup, and the loop compared both ends' fields on every step.
    x, y = start
    to_x, to_y = dest
    while x != to_x or y != to_y:
        x += (to_x > x) - (to_x < x)
        y += (to_y > y) - (to_y < y)
        path.append(coord(x, y))
    return path


def _order_moves(world: World, orders: dict[Side, tuple[MoveOrder, ...]]) -> list[_Move]:
    """Pass I order (digest 6): blocks by side and control, issue order inside a block."""
    first, second = world.initiative_order()
    forced = world.forced_moves
    groups = world.groups  # ordering moves changes no group
    planned: list[tuple[int, Coord]] = []
    for side in (first, second):
        given: dict[int, Coord] = {}
        for order in orders.get(side, ()):
            group = world.group(order.group_id)
            if group is not None and group.owner == side and group.controller == side:
                given.setdefault(group.id, order.dest)
        if not forced:
            # Spells impose moves on a few turns only; without them only the orders move.
            planned += [(gid, dest) for gid, dest in given.items() if dest is not None]
            continue
        ordered_ids = list(given) + [
            g.id for g in groups if g.owner == side and g.controller == side and g.id not in given
        ]
        for gid in ordered_ids:
            dest = forced.get(gid, given.get(gid))
            if dest is not None:
                planned.append((gid, dest))
        for g in groups:
            if g.owner == side and g.controller != side and g.id in forced:
                planned.append((g.id, forced[g.id]))
    if forced:
        for g in groups:
            if g.owner == NEUTRAL and g.id in forced:
                planned.append((g.id, forced[g.id]))
    return [_Move(gid, dest, rank) for rank, (gid, dest) in enumerate(planned)]


def joinable(world: World, a: Group, b: Group) -> bool:
    """Digest 8.1: two friendly player-controlled recruit groups of 8 or fewer, no spell against."""
    return (
        a.owner == b.owner
        and a.is_recruit_group
        and b.is_recruit_group
        and a.player_controlled
        and b.player_controlled
        and len(a.minions) + len(b.minions) <= MAX_GROUP_SIZE
        and can_join(world, a, b)
    )


def resolve_movement(world: World, orders: dict[Side, tuple[MoveOrder, ...]]) -> None:
    """Both passes of movement (G6). A move is judged by the group's range now, when it moves
    (D-MOVE-RANGE): after the spell phase, with this turn's speed spells in play."""
    planned = _order_moves(world, orders)
    origin: dict[int, Coord] = {}
    rank: dict[int, int] = {}
    group_map = world.group_map
    occupants = {g.coord: [g.id] for g in group_map.values()}
    # The squares that may hold more than one group (a group came onto an occupied one, or
    # bounced back to its own): pass II looks for overstacks among these, not among every
    # occupied square in each of its rounds.
    stacked: set[Coord] = set()
    if len(occupants) < len(group_map):
        # A square already holds more than one group (a spell put one onto another): the map
        # above kept only the newest of them.
        occupants = {}
        for g in group_map.values():
            occupants.setdefault(g.coord, []).append(g.id)
        stacked = {at for at, ids in occupants.items() if len(ids) > 1}

    # Pass I: overstacking.
    terrain = world.terrain
    needs = world.content.terrains
    for move in planned:
        group = group_map.get(move.group_id)
        if group is None or move.dest == group.coord:
            continue
        start = group.coord
        reason = ""
        if move.dest not in terrain:
            reason = "off_board"
        elif not can_move(world, group):
            reason = "cannot_move"
        elif not in_range(group, move.dest.x, move.dest.y, moves(world, group)):
            reason = "too_far"
        at = start
        if not reason:
            group_walks = walks(world, group)
            for step in king_steps(start, move.dest):
                if step not in terrain:
                    reason = "off_board"
                elif not has_walk(group_walks, needs[terrain[step]].needs):
                    reason = f"terrain:{terrain[step]}"
                elif step in occupants:
                    # Most steps are onto empty squares, which have no entry.
                    for other in occupants[step]:
                        if group_map[other].owner != group.owner:
                            reason = "occupied"
                            break
                if reason:
                    break
                at = step
        if at == start:
            if world.report.recording:
                _emit_blocked(world, group, start, move.dest, reason)
            continue
        occupants[start].remove(group.id)
        if at in occupants:
            occupants[at].append(group.id)
            stacked.add(at)
        else:
            occupants[at] = [group.id]
        origin[group.id] = start
        rank[group.id] = move.rank
        world.place_group(group.id, at)
        if world.report.recording:
            world.emit(
                "moved", group=group.id, side=str(group.owner), **{"from": start.name}, to=at.name
            )
        if at != move.dest and world.report.recording:
            _emit_blocked(world, group, at, move.dest, reason)

    # Pass II: unstacking, repeated until every square holds one group.
    while True:
        crowded = [at for at in stacked if len(occupants[at]) > 1]
        if not crowded:
            break
        at = min(crowded, key=lambda c: (c.y, c.x))
        ids = occupants[at]
        winner_id = min(ids, key=lambda gid: _vote_key(world, gid, origin, rank))
        for gid in sorted(ids, key=lambda g: rank.get(g, -1)):
            if gid == winner_id:
                continue
            group = world.group_map[gid]
            winner = world.group_map[winner_id]
            occupants[at].remove(gid)
            if joinable(world, group, winner):
                world.merge_groups(gid, winner_id)
                origin.pop(gid, None)
                continue
            _bounce(world, group, origin, occupants, stacked)

    # Arrivals: spells hear "group_entered" in movement order.
    for move in planned:
        gid = move.group_id
        if gid in origin and gid in world.group_map and world.group_map[gid].coord != origin[gid]:
            world.broadcast("group_entered", HostRef.group(gid))


def _emit_blocked(world: World, group: Group, at: Coord, dest: Coord, reason: str) -> None:
    """The group stopped on ``at`` short of ``dest`` (it may not have left its square)."""
    world.emit(
        "blocked",
        group=group.id,
        side=str(group.owner),
        **{"from": at.name},
        to=dest.name,
        reason=reason,
    )


def _vote_key(
    world: World, gid: int, origin: dict[int, Coord], rank: dict[int, int]
) -> tuple[int, int, int, int]:
    """Digest 6 tiebreakers: stayed put, then initiative side, then larger, then earlier order."""
    group = world.group_map[gid]
    moved = gid in origin
    return (
        1 if moved else 0,
        0 if group.owner == world.initiative else 1,
        -len(group.minions),
        rank.get(gid, -1),
    )


def _bounce(
    world: World,
    group: Group,
    origin: dict[int, Coord],
    occupants: dict[Coord, list[int]],
    stacked: set[Coord],
) -> None:
    home = origin.pop(group.id, None)
    here = group.coord
    if home is None:
        world.emit("moonwalk_failed", group=group.id, side=str(group.owner), at=here.name)
        world.remove_group(group.id, "removed")
        return
    if world.report.recording:
        world.emit(
            "bounced",
            group=group.id,
            side=str(group.owner),
            **{"from": here.name},
            to=home.name,
            reason="lost_vote",
        )
    blockers = [world.group_map[o] for o in occupants.get(home, ())]
    if any(not joinable(world, group, b) and not joinable(world, b, group) for b in blockers):
        world.emit("moonwalk_failed", group=group.id, side=str(group.owner), at=home.name)
        world.remove_group(group.id, "removed")
        return
    world.place_group(group.id, home)
    occupants.setdefault(home, []).append(group.id)
    stacked.add(home)
