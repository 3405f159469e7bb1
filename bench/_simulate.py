"""Resolve recorded search turns with the engine of another checkout (see ``bench/_baseline.py``).

Run as a script: ``python bench/_simulate.py ROOT TURNS REPEAT``. ``ROOT`` holds ``engine/`` and
``data/`` (this repository or an older commit's), put first on ``sys.path``; ``TURNS`` the
gzipped JSON turns. Prints JSON: turns resolved (a turn the engine refuses is left out of the
timing), and the median over ``REPEAT`` passes of turns per CPU second, record-free where the
engine has that mode. It imports only the standard library and that engine.
"""

from __future__ import annotations

import gzip
import inspect
import json
import random
import statistics
import sys
import time
from typing import Any


def main(root: str, path: str, repeat: int) -> dict[str, Any]:
    sys.path.insert(0, root)
    from engine.content import load_content
    from engine.orders import Orders
    from engine.state import GameState, Side
    from engine.turn import resolve_turn

    content = load_content()
    options = {"record": False} if "record" in inspect.signature(resolve_turn).parameters else {}
    turns = []
    refused = 0
    with open(path, "rb") as file:
        recorded = json.loads(gzip.decompress(file.read()))
    for turn in recorded:
        state = GameState.from_dict(turn["state"])
        orders = {Side(k): Orders.from_dict(v) for k, v in turn["orders"].items()}
        rng_state = (turn["rng"][0], tuple(turn["rng"][1]), turn["rng"][2])
        rng = random.Random()
        rng.setstate(rng_state)
        try:
            resolve_turn(state, orders, rng, content=content, **options)
        except Exception:  # an older engine may not take a newer position
            refused += 1
            continue
        turns.append((state, orders, rng_state))
    rates = []
    for _ in range(repeat):
        rngs = []
        for _, _, rng_state in turns:
            rng = random.Random()
            rng.setstate(rng_state)
            rngs.append(rng)
        start = time.process_time()
        for (state, orders, _), rng in zip(turns, rngs, strict=True):
            resolve_turn(state, orders, rng, content=content, **options)
        rates.append(len(turns) / (time.process_time() - start))
    return {"ran": len(turns), "refused": refused, "rate": statistics.median(rates)}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
