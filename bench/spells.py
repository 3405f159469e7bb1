"""Benchmark of the spell system: a late-game turn with many active spells and 10 casts a side.

Run: ``.venv/bin/python -m bench.spells [--repeat N] [--instructions]``. Prints figures; it is
not a test. ``--instructions`` then counts one whole turn of each position under callgrind (see
``bench/_callgrind.py``), a figure that does not move with the machine's load.

The position: a 12x12 plains board, 14 groups a side (4 minions each), and N active spells spread
over groups, minions, squares, structures and the globe (alterations with stat modifiers,
start-of-turn triggers, conjurations, hidden cumulative spells). Each side casts 10 spells from
hand on legal targets. Measured, for N = 150 and N = 1,500:

- spell phase: ``run_spell_phase`` alone (expiry, event, 20 casts, attributes);
- whole turn: ``resolve_turn`` (spell phase, movement, combat asking ``effective_minion`` for
  every fighter, end of turn and the next start of turn broadcasting to every active spell).

Target: at most 5 ms per turn with 150 active spells, growing no faster than linearly with N.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import time
from collections.abc import Callable

from bench import _callgrind
from engine.content import Content, load_content
from engine.coords import coord
from engine.orders import CastOrder, Orders
from engine.spells.hooks import SPELL_HOOKS
from engine.spells.phase import run_spell_phase
from engine.spells.targeting import legal_targets, validate_casts
from engine.state import (
    GLOBE,
    ActiveSpell,
    Card,
    GameState,
    Group,
    HostRef,
    Mana,
    Minion,
    Options,
    PlayerState,
    Side,
    Square,
    Structure,
)
from engine.turn import resolve_turn
from engine.world import World

SIZE = 12
ACTIVE = (150, 1500)  # active spells in the two positions measured
GROUP_SPELLS = ("fortitude", "obeisance", "ostracize", "justicars", "imp_frenzy", "soul_jar")
MINION_SPELLS = ("regeneration", "iron_skin", "pixie_dust", "xias_walk")
GLOBE_SPELLS = ("codex_of_order", "embargo", "pact_sealed")
HANDS = {
    Side.RED: (
        "fireball", "chain_lightning", "mind_spike", "mind_spike", "fortitude", "warcry",
        "restoration", "verdict", "adriels_timepiece", "plague",
    ),
    Side.BLUE: (
        "fingles_folly", "mind_spike", "mind_spike", "healing_hands", "justicars", "fear",
        "unravel", "second_chance", "burst_of_order", "obeisance",
    ),
}  # fmt: skip


def late_game(active: int, content: Content) -> tuple[GameState, dict[Side, list[CastOrder]]]:
    next_id = [1]

    def new_id() -> int:
        next_id[0] += 1
        return next_id[0] - 1

    squares = tuple(Square(coord(x, y), "plains") for y in range(SIZE) for x in range(SIZE))
    structures = [
        Structure(new_id(), "sanctum", coord(0, 0), Side.RED),
        Structure(new_id(), "sanctum", coord(SIZE - 1, SIZE - 1), Side.BLUE),
        Structure(new_id(), "town", coord(2, 5), Side.RED, mana_type="strife"),
        Structure(new_id(), "town", coord(9, 6), Side.BLUE, mana_type="world"),
    ]
    groups: list[Group] = []
    for side, rows in ((Side.RED, (4, 5)), (Side.BLUE, (6, 7))):
        for y in rows:
            for x in range(2, 9):
                minions = tuple(
                    Minion(new_id(), "recruit", "swordsman", None, 9, 9, hand=2, attacks=1)
                    for _ in range(4)
                )
                groups.append(Group(new_id(), side, side, coord(x, y), minions))
    hosts: list[HostRef] = []
    for g in groups:
        hosts.append(HostRef.group(g.id))
        hosts += [HostRef.minion(m.id) for m in g.minions]
    spells: list[ActiveSpell] = []
    rng = random.Random(5)
    for i in range(active):
        owner = Side.RED if i % 2 else Side.BLUE
        kind = i % 5
        if kind == 0:
            host, spell_id = GLOBE, GLOBE_SPELLS[i % len(GLOBE_SPELLS)]
        elif kind == 1:
            host = HostRef.square(coord(rng.randrange(SIZE), rng.choice((0, 1, 10, 11))))
            spell_id = "bedlam"
        else:
            host = rng.choice(hosts)
            pool = MINION_SPELLS if host.kind == "minion" else GROUP_SPELLS
            spell_id = pool[i % len(pool)]
        definition = content.spells[spell_id]
        data = (("expires_turn", 999),) if definition.type == "conjuration" else ()
        spells.append(
            ActiveSpell(new_id(), spell_id, owner, host, 1, visible=definition.visible, data=data)
        )
    players = []
    for side in (Side.RED, Side.BLUE):
        hand = tuple(Card(new_id(), s) for s in HANDS[side])
        players.append(
            PlayerState(
                side, "war" if side is Side.RED else "hope", hand=hand, pool=Mana(*(60,) * 6)
            )
        )
    state = GameState(
        seed=3,
        turn=20,
        options=Options(),
        width=SIZE,
        height=SIZE,
        squares=squares,
        structures=tuple(structures),
        groups=tuple(groups),
        players=(players[0], players[1]),
        active_spells=tuple(spells),
        next_id=next_id[0],
    )
    casts: dict[Side, list[CastOrder]] = {}
    for side in (Side.RED, Side.BLUE):
        orders: list[CastOrder] = []
        for n, card in enumerate(state.player(side).hand):
            targets = legal_targets(state, side, content.spells[card.spell_id], content)
            if targets:
                orders.append(CastOrder(card.uid, targets[(n * 7) % len(targets)]))
        bad = {p.order_index for p in validate_casts(state, side, orders, content)}
        casts[side] = [o for i, o in enumerate(orders) if i not in bad]
    return state, casts


def _cpu_ms(run: Callable[[], None], repeat: int) -> tuple[float, float]:
    """(best, median) CPU time of ``run`` in milliseconds; CPU time leaves out other processes,
    the best run leaves out most of the noise of a shared machine."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append((time.process_time() - start) * 1000)
    return min(times), statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="then count a whole turn's instructions with callgrind (needs valgrind)",
    )
    parser.add_argument(_callgrind.FLAG, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    content = load_content()
    if args.measure_instructions:
        for active in ACTIVE:
            state, casts = late_game(active, content)
            orders = {side: Orders(casts=tuple(c)) for side, c in casts.items()}
            resolve_turn(state, orders, random.Random(1), content=content)  # warm caches
            _callgrind.measured(
                functools.partial(resolve_turn, state, orders, random.Random(1), content=content)
            )
        return 0
    rows = []
    for active in ACTIVE:
        state, casts = late_game(active, content)
        n_casts = {side.value: len(c) for side, c in casts.items()}

        def phase(state: GameState = state, casts: dict[Side, list[CastOrder]] = casts) -> None:
            world = World(state, random.Random(1), content, SPELL_HOOKS)
            run_spell_phase(world, {s: list(c) for s, c in casts.items()})

        orders = {side: Orders(casts=tuple(c)) for side, c in casts.items()}

        def turn(state: GameState = state, orders: dict[Side, Orders] = orders) -> None:
            resolve_turn(state, orders, random.Random(1), content=content)

        phase_ms = _cpu_ms(phase, args.repeat)
        turn_ms = _cpu_ms(turn, max(3, args.repeat // 3))
        rows.append((active, n_casts, phase_ms, turn_ms))
    print("CPU time per call, best / median, ms")
    print(f"{'active spells':>14} {'casts':>18} {'spell phase':>16} {'whole turn':>18}")
    for active, n_casts, (p_best, p_med), (t_best, t_med) in rows:
        print(
            f"{active:>14} {n_casts!s:>18} {p_best:>7.2f} / {p_med:>6.2f}"
            f" {t_best:>8.2f} / {t_med:>7.2f}"
        )
    ratio_phase = rows[1][2][0] / rows[0][2][0]
    ratio_turn = rows[1][3][0] / rows[0][3][0]
    print(
        f"growth 150 -> 1500 (10x spells): spell phase x{ratio_phase:.1f}, turn x{ratio_turn:.1f}"
    )
    if args.instructions:
        _callgrind.report("bench.spells", [f"{active} active spells" for active in ACTIVE])
    return 0


if __name__ == "__main__":
    sys.exit(main())
