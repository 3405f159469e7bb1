"""Simulated turns per second in the computer's search, now against the engine at an older commit.

``python -m bench.engine --baseline COMMIT`` calls :func:`compare`: it records the turns the
strong player's search resolves from a sample of the played set's positions (each position, the
orders tried and the generator's state), writes them as JSON, unpacks ``engine/`` and ``data/``
of ``COMMIT`` (``git archive``) into a temporary folder, and resolves the same turns with each
engine in its own process (``bench/_simulate.py``), alternately, record-free where the engine
has that mode. The states are the current engine's; the older engine reads them with its own
content (cards it does not know stay in decks and hands, where it never looks them up).
"""

from __future__ import annotations

import gzip
import json
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import ai.search
from ai.players import strong_orders
from bench import _played
from engine.content import Content
from engine.orders import Orders
from engine.state import GameState, Side
from engine.turn import resolve_turn
from engine.view import view_for

ROOT = Path(__file__).resolve().parent.parent
SIMULATE = Path(__file__).resolve().parent / "_simulate.py"


@contextmanager
def _recording_search(into: list[dict[str, Any]], every: int) -> Iterator[None]:
    """While active, every ``every``-th turn the search resolves is kept in ``into``."""
    # The search module's own name for the engine's resolve_turn is what it calls.
    namespace = vars(ai.search)
    real = namespace["resolve_turn"]
    seen = [0]

    def spy(
        state: GameState,
        orders: Mapping[Side, Orders],
        rng: random.Random | None = None,
        **options: Any,
    ) -> Any:
        seen[0] += 1
        if seen[0] % every == 0 and rng is not None:
            version, internal, gauss = rng.getstate()
            into.append(
                {
                    "state": state.to_dict(),
                    "orders": {str(side): o.to_dict() for side, o in orders.items()},
                    "rng": [version, list(internal), gauss],
                }
            )
        return real(state, orders, rng, **options)

    namespace["resolve_turn"] = spy
    try:
        yield
    finally:
        namespace["resolve_turn"] = real


def search_turns(content: Content, *, stride: int = 8, every: int = 5) -> list[dict[str, Any]]:
    """The strong player's search from every ``stride``-th played position (sides in turn),
    keeping every ``every``-th simulated turn."""
    _, turns = _played.load(content)
    kept: list[dict[str, Any]] = []
    with _recording_search(kept, every):
        for index, (state, _) in enumerate(turns[::stride]):
            side = Side.RED if index % 2 == 0 else Side.BLUE
            strong_orders(view_for(state, side, content), random.Random(index), content)
    return kept


def _unpack(commit: str, into: Path) -> None:
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit, "engine", "data"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    archive_path = into / "old.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(into, filter="data")


def _run(root: Path, positions: Path, repeat: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(SIMULATE), str(root), str(positions), str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def compare(content: Content, commit: str, pairs: int = 3, repeat: int = 3) -> str:
    """The report line: turns per CPU second now and at ``commit`` (medians of ``pairs``
    alternate runs, each the median of ``repeat`` passes over every recorded turn)."""
    turns = search_turns(content)
    # The turns must be the current engine's own: check they resolve the same as recorded.
    for turn in turns[:3]:
        rng = random.Random()
        rng.setstate((turn["rng"][0], tuple(turn["rng"][1]), turn["rng"][2]))
        state = GameState.from_dict(turn["state"])
        orders = {Side(k): Orders.from_dict(v) for k, v in turn["orders"].items()}
        resolve_turn(state, orders, rng, content=content, record=False)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        positions = folder / "turns.json.gz"
        positions.write_bytes(gzip.compress(json.dumps(turns).encode()))
        old_root = folder / "old"
        old_root.mkdir()
        _unpack(commit, old_root)
        now_rates, old_rates, ratios = [], [], []
        ran = 0
        for _ in range(pairs):
            now = _run(ROOT, positions, repeat)
            old = _run(old_root, positions, repeat)
            ran = min(now["ran"], old["ran"])
            now_rates.append(now["rate"])
            old_rates.append(old["rate"])
            ratios.append(now["rate"] / old["rate"])
    return (
        f"search   : {statistics.median(now_rates):,.0f} simulated turns per CPU second now, "
        f"{statistics.median(old_rates):,.0f} with the engine at {commit} "
        f"({statistics.median(ratios):.2f}x, median of {pairs} alternate pairs; {len(turns)} "
        f"turns of the strong player's search, {ran} resolved by both)"
    )
