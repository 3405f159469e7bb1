"""Balance tournament: computer players of one level play every house against every house.

    .venv/bin/python -m bench.balance [--games N] [--seed S] [--level L] [--budget B]
        [--max-turns T] [--workers W] [--json] [--save-turns DIR [--resume] | --from-turns DIR
        [--play-on TURN]] [--house H [--against R] | --pairs] [--no-progress]

Every ordered pair of different houses (so both colours) is played once per round (132 games
for 12 houses), in a seeded order, the realm cycling through the realms that are not random
picks. Both sides play at ``--level`` (default: the strongest registered level) with the
arena's starter decks. The same games, seed, level, budget and turn cap always give the same
games, whatever ``--workers`` is. Prints game length and endings, casts, active spells in play,
house win shares and their matrix, red's share, each deck spell's use and its caster's results,
unspent mana, each house's minions lost by what killed them and each house's board, army and
pool on turns 10, 20 and 30; ``--json`` prints the same figures as one JSON object (keys in
docs/balance.md). A win scores 1, a draw or a game still running at the turn cap 1/2.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import os
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TextIO, TypeVar, cast

from ai import LEVELS, Level
from ai.arena import play_match
from ai.concession import conceded
from engine.content import Content, load_content
from engine.orders import Orders
from engine.report import Event, TurnReport
from engine.setup import MatchConfig, default_deck
from engine.state import SIDES, GameState, JsonValue, Side
from engine.turn import resolve_turn
from engine.validate import validate_orders

# ai.LEVELS is ordered weakest first, so the last one is the strongest.
STRONGEST = LEVELS[-1]
ENDINGS = {
    "sanctum": "Sanctum taken",
    "both_sancta": "draw (both Sancta)",
    "turn_limit": "turn cap",
    "concession": "conceded",
}
EARLY_TURN = 15
PEAKS = (50, 100)
# The starts of turn at which each side's board and pool are taken for the house profile.
PROFILE_TURNS = (10, 20, 30)
# The pair target: no pair of houses beyond this range over at least PAIR_GAMES games.
PAIR_RANGE = (0.3, 0.7)
PAIR_GAMES = 30
T = TypeVar("T")
R = TypeVar("R")


class Profile(NamedTuple):
    """A side's board and pool at one start of turn (the house profile's figures)."""

    structures: int
    hit_points: int
    pool: int


@dataclass(frozen=True)
class Job:
    """One game of the tournament (picklable: it crosses to a worker process)."""

    index: int
    seed: int
    red: str
    blue: str
    realm: str
    level: str
    budget: int | None
    max_turns: int
    save_dir: str | None = None
    build: str = ""


@dataclass
class GameResult:
    """What one game tells the balance report; sides are keyed "red" and "blue"."""

    index: int
    seed: int
    red: str
    blue: str
    realm: str
    winner: str | None
    reason: str
    turns: int
    decks: dict[str, list[str]]
    casts: dict[str, dict[str, int]]
    peak_active: int
    unspent: list[int] = field(default_factory=list)
    # Per side: its minions that died, by what killed them (see Tally.losses).
    losses: dict[str, dict[str, int]] = field(default_factory=dict)
    # Per side: at each of PROFILE_TURNS the game reached, its figures (see Tally.profile).
    profile: dict[str, dict[int, Profile]] = field(default_factory=dict)
    illegal: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    def points(self, side: str) -> float:
        """1 for a win, 1/2 for a draw or an unfinished game, 0 for a loss."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == side else 0.0

    def house(self, side: str) -> str:
        return self.red if side == "red" else self.blue


# ------------------------------------------------------------------------------- the schedule


def playable_realms(content: Content) -> list[str]:
    """The realms with their own terrain (a realm that picks another is left out)."""
    return sorted(r for r, realm in content.realms.items() if not realm.picks)


def schedule(
    games: int,
    seed: int,
    content: Content,
    *,
    level: str,
    budget: int | None,
    max_turns: int,
    save_dir: str | None = None,
    house: str | None = None,
    against: str | None = None,
    each_pair: bool = False,
    build: str = "",
) -> list[Job]:
    """``games`` jobs: rounds of every ordered pair of different houses (with ``house``, only
    the pairs it plays in, on either side; with ``against`` too, only its two pairs with that
    rival), each round shuffled by the seed; the realm cycles along the round and shifts by one
    each round.

    With ``each_pair``, ``games`` jobs for every pair of houses: for houses A and B (A first by
    name) the very games of ``house=A, against=B`` (the same whichever of the two is named
    first), saved under ``save_dir/A-B/``, so a pair measured on its own counts here too."""
    houses = sorted(content.houses)
    if each_pair:
        paired: list[Job] = []
        for first, second in itertools.combinations(houses, 2):
            folder = None if save_dir is None else str(Path(save_dir) / f"{first}-{second}")
            paired += schedule(
                games,
                seed,
                content,
                level=level,
                budget=budget,
                max_turns=max_turns,
                save_dir=folder,
                house=first,
                against=second,
                build=build,
            )
        return paired
    realms = playable_realms(content)
    pairs = [(red, blue) for red in houses for blue in houses if red != blue]
    if house is not None:
        pairs = [pair for pair in pairs if house in pair]
    if against is not None:
        pairs = [pair for pair in pairs if against in pair]
    jobs: list[Job] = []
    round_no = 0
    while len(jobs) < games:
        order = list(pairs)
        random.Random(f"balance:{seed}:round:{round_no}").shuffle(order)
        for k, (red, blue) in enumerate(order):
            if len(jobs) == games:
                break
            index = len(jobs)
            game_seed = random.Random(f"balance:{seed}:game:{index}").randrange(1 << 31)
            realm = realms[(k + round_no) % len(realms)]
            jobs.append(
                Job(index, game_seed, red, blue, realm, level, budget, max_turns, save_dir, build)
            )
        round_no += 1
    return jobs


# ------------------------------------------------------------------------------- one game


def mana_total(text: str) -> int:
    """The amount in a "mana" event's text (``str(Mana)``: "3 order + 1 will", "nothing")."""
    if text == "nothing":
        return 0
    return sum(int(part.split()[0]) for part in text.split(" + "))


def player_cast(spell_id: str, content: Content) -> bool:
    """A cast the player chose: attributes follow casts by themselves (N4), helpers are placed
    by the engine."""
    spell = content.spells[spell_id]
    return not spell.helper and spell.spell_class != "attribute"


def active_in_play(state: GameState) -> int:
    """Active spells on the globe, both sides, helpers left out (the engine's bookkeeping)."""
    return sum(not s.helper for s in state.active_spells)


def side_profile(state: GameState, side: Side) -> Profile:
    """A side's profile in a position: the structures it owns (its Sanctum too), its minions'
    hit points, and the mana in its pool."""
    return Profile(
        sum(s.owner == side for s in state.structures),
        sum(m.hp for g in state.groups if g.controller == side for m in g.minions),
        state.player(side).pool.total,
    )


class Tally:
    """What the report needs from one game, gathered turn by turn (while it is played, or again
    from its saved turns)."""

    def __init__(self, content: Content) -> None:
        self.content = content
        self.casts: dict[str, Counter[str]] = {str(side): Counter() for side in SIDES}
        self.unspent: list[int] = []
        self.peak = 0
        self.losses: dict[str, Counter[str]] = {str(side): Counter() for side in SIDES}
        self.profile: dict[str, dict[int, Profile]] = {str(side): {} for side in SIDES}

    def before(self, state: GameState) -> None:
        self.peak = max(self.peak, active_in_play(state))
        if state.turn in PROFILE_TURNS:
            for side in SIDES:
                self.profile[str(side)][state.turn] = side_profile(state, side)

    def after(self, state: GameState, report: TurnReport) -> None:
        self.peak = max(self.peak, active_in_play(state))
        for event in report.events:
            if event.kind == "spell_executed":
                spell_id = str(event.get("spell"))
                if player_cast(spell_id, self.content):
                    self.casts[str(event.get("side"))][spell_id] += 1
            elif event.kind == "mana":
                # The pool after the next turn's income, less that income: what was left over.
                side = Side(str(event.get("side")))
                gained = mana_total(str(event.get("gained")))
                self.unspent.append(state.player(side).pool.total - gained)
        self._count_losses(report.events)

    def _count_losses(self, events: Iterable[Event]) -> None:
        """Each side's minions that died this turn, by what killed them: "combat" (a strike), the
        spell or "terrain" or "sanctum guard" whose damage it last took, else what the turn was
        doing when it died (the spell then executing, "movement", "start of turn", or "spells"
        before the first spell executes)."""
        hurt: dict[JsonValue, str] = {}  # minion -> what last damaged it this turn
        doing = "spells"
        for event in events:
            kind = event.kind
            if kind == "spell_executed":
                doing = str(event.get("spell"))
            elif kind == "moved":
                doing = "movement"
            elif kind == "combat":
                doing = "combat"
            elif kind == "turn_started":
                doing = "start of turn"
            elif kind == "damaged":
                hurt[event.get("minion")] = self._damage_source(str(event.get("source")))
            elif kind == "terrain_fatal":
                hurt[event.get("minion")] = "terrain"
            elif kind == "died":
                losses = self.losses.get(str(event.get("side")))
                if losses is None:
                    continue  # a neutral minion
                if event.get("cause") == "killed":
                    losses["combat"] += 1
                else:
                    losses[hurt.get(event.get("minion"), doing)] += 1

    def _damage_source(self, source: str) -> str:
        if source in self.content.spells:
            return source
        if source == "sanctum":
            return "sanctum guard"
        return "terrain" if source in self.content.terrains else source

    def result(
        self, header: dict[str, Any], opening: GameState, final: GameState, illegal: int
    ) -> GameResult:
        decks = {
            str(p.side): sorted(
                {c.spell_id for c in (*p.deck, *p.hand) if is_deck_spell(c.spell_id, self.content)}
            )
            for p in opening.players
        }
        outcome = final.result
        return GameResult(
            index=int(header["index"]),
            seed=int(header["seed"]),
            red=str(header["red"]),
            blue=str(header["blue"]),
            realm=str(header["realm"]),
            winner=None if outcome is None or outcome.winner is None else str(outcome.winner),
            reason="turn_limit" if outcome is None else outcome.reason,
            turns=final.turn - 1,
            decks=decks,
            casts={side: dict(counter) for side, counter in self.casts.items()},
            peak_active=self.peak,
            unspent=self.unspent,
            losses={side: dict(counter) for side, counter in self.losses.items()},
            profile=self.profile,
            illegal=illegal,
        )


def _header(job: Job) -> dict[str, Any]:
    return {
        "index": job.index,
        "seed": job.seed,
        "red": job.red,
        "blue": job.blue,
        "realm": job.realm,
        "level": job.level,
        "budget": job.budget,
        "max_turns": job.max_turns,
        "build": job.build,
    }


# What decides how a game goes: the rules, the players and the content. Saved games of another
# build are other games, so --resume refuses to mix them into a run.
BUILD_SOURCES = (("engine", "*.py"), ("ai", "*.py"), ("data", "*.toml"), ("data/boards", "*"))
ROOT = Path(__file__).resolve().parents[1]


def build_fingerprint(root: Path = ROOT) -> str:
    """A digest of the engine, the computer players and the game content (16 hex digits)."""
    digest = hashlib.sha256()
    files = sorted({p for folder, pattern in BUILD_SOURCES for p in (root / folder).rglob(pattern)})
    for path in files:
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def saved_path(directory: str | Path, index: int) -> Path:
    """Where --save-turns writes game ``index``."""
    return Path(directory) / f"game-{index:04d}.jsonl"


def saved_game(path: Path) -> tuple[dict[str, Any], bool] | None:
    """A saved game's header and whether it is finished (None when there is no such file)."""
    if not path.exists():
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        return {}, False
    header: dict[str, Any] = json.loads(lines[0]).get("game", {})
    return header, len(lines) > 1 and "result" in json.loads(lines[-1])


def split_resumed(jobs: Sequence[Job]) -> tuple[list[Job], list[Job]]:
    """The jobs still to play and those already finished in their save folder by a run of the
    same options and build (``ValueError`` naming the file when a saved game belongs to
    another run). An unfinished game is played again from its start."""
    play: list[Job] = []
    done: list[Job] = []
    for job in jobs:
        assert job.save_dir is not None
        path = saved_path(job.save_dir, job.index)
        saved = saved_game(path)
        if saved is None or not saved[1]:
            play.append(job)
            continue
        header, want = saved[0], _header(job)
        wrong = [key for key in want if header.get(key) != want[key]]
        if wrong:
            key = wrong[0]
            raise ValueError(
                f"{path} was saved by another run ({key}: {header.get(key)!r} there, "
                f"{want[key]!r} in this one); resume it with its own options and build, "
                "or save this run to another folder"
            )
        done.append(job)
    return play, done


def play_one(job: Job) -> GameResult:
    content = load_content()
    started, cpu_started = time.perf_counter(), time.process_time()
    houses = {Side.RED: job.red, Side.BLUE: job.blue}
    config = MatchConfig(
        seed=job.seed,
        realm=job.realm,
        houses=houses,
        decks={side: default_deck(house, content) for side, house in houses.items()},
    )
    tally = Tally(content)
    opening: list[GameState] = []
    out: TextIO | None = None
    if job.save_dir is not None:
        out = saved_path(job.save_dir, job.index).open("w", encoding="utf-8")
        _write_line(out, {"game": _header(job)})

    def observe(state: GameState, orders: dict[Side, Orders]) -> None:
        if not opening:
            opening.append(state)
        tally.before(state)
        if out is not None:
            line = {
                "turn": state.turn,
                "state": state.to_dict(),
                "orders": {str(side): orders[side].to_dict() for side in SIDES},
            }
            _write_line(out, line)

    try:
        record = play_match(
            job.seed,
            {side: cast(Level, job.level) for side in SIDES},
            content,
            max_turns=job.max_turns,
            budgets={side: job.budget for side in SIDES},
            observe=observe,
            config=config,
            after_turn=tally.after,
        )
        assert record.final is not None
        if out is not None:
            result = record.final.result
            _write_line(
                out,
                {"result": None if result is None else result.to_dict(), "turns": record.turns},
            )
    finally:
        if out is not None:
            out.close()
    game = tally.result(_header(job), opening[0], record.final, len(record.illegal))
    game.seconds = time.perf_counter() - started
    game.cpu_seconds = time.process_time() - cpu_started
    return game


def replay_saved(path: Path, content: Content, play_on: int | None = None) -> GameResult | None:
    """The result of a game saved by --save-turns, found again by resolving its saved turns
    (None for a game whose file has no result line: it was still being played).

    With ``play_on``, a game still in play at the start of that turn is played on from its
    saved position by today's players of the saved level, to the saved turn cap: what a change
    to the players or the rules does to the late game, without playing the opening again."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if len(lines) < 2 or "result" not in lines[-1]:
        return None
    header = lines[0]["game"]
    tally = Tally(content)
    illegal = 0
    states: list[GameState] = []
    final: GameState | None = None
    for line in lines[1:-1]:
        state = GameState.from_dict(line["state"])
        if play_on is not None and state.turn >= play_on:
            break
        orders = {side: Orders.from_dict(line["orders"][str(side)]) for side in SIDES}
        illegal += sum(len(validate_orders(state, side, orders[side], content)) for side in SIDES)
        states.append(state)
        tally.before(state)
        final, report = resolve_turn(state, orders, content=content)
        tally.after(final, report)
        ended = conceded(final, content, int(header["max_turns"]))
        if ended is not None:
            final = ended
            break
    if final is None:
        return None
    if play_on is not None and final.result is None and final.turn == play_on:
        final, more = _play_on(final, header, content, tally)
        illegal += more
    return tally.result(header, states[0], final, illegal)


def _play_on(
    state: GameState, header: dict[str, Any], content: Content, tally: Tally
) -> tuple[GameState, int]:
    """Play ``state`` on to the game's turn cap with the saved level's players (seeded by the
    game's seed and the turn, so a play-on is reproducible); the final state and the number of
    order problems."""
    level = cast(Level, header["level"])
    rngs = {side: random.Random(f"play-on:{header['seed']}:{state.turn}:{side}") for side in SIDES}
    record = play_match(
        int(header["seed"]),
        {side: level for side in SIDES},
        content,
        max_turns=int(header["max_turns"]),
        budgets={side: header["budget"] for side in SIDES},
        observe=lambda position, _orders: tally.before(position),
        after_turn=tally.after,
        start=state,
        rngs=rngs,
    )
    assert record.final is not None
    return record.final, len(record.illegal)


def _write_line(out: TextIO, data: dict[str, Any]) -> None:
    out.write(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")


# ------------------------------------------------------------------------------- running


def run(jobs: Sequence[Job], workers: int, progress: bool) -> list[GameResult]:
    """Play the jobs (in ``workers`` processes when more than one); results in job order."""
    return sorted(_map(play_one, jobs, workers, progress), key=lambda r: r.index)


def saved_files(directory: Path) -> list[Path]:
    """The games saved in ``directory`` by --save-turns, and in its pair folders by --pairs."""
    return sorted(directory.glob("game-*.jsonl")) + sorted(directory.glob("*/game-*.jsonl"))


def replay_dir(
    directory: Path, workers: int, progress: bool, play_on: int | None = None
) -> list[GameResult]:
    """The finished games saved in ``directory`` (and its pair folders) by --save-turns, in
    game order (played on from turn ``play_on`` when given)."""
    paths = [(str(p), play_on) for p in saved_files(directory)]
    found = _map(_replay_path, paths, workers, progress)
    return sorted((r for r in found if r is not None), key=lambda r: r.index)


def _replay_path(item: tuple[str, int | None]) -> GameResult | None:
    path, play_on = item
    return replay_saved(Path(path), load_content(), play_on)


def _map(fn: Callable[[T], R], items: Sequence[T], workers: int, progress: bool) -> list[R]:
    """``fn`` over ``items`` (in ``workers`` processes when more than one), in completion order,
    with a progress bar."""
    bar = Progress(len(items), enabled=progress)
    results: list[R] = []
    if workers <= 1:
        for item in items:
            results.append(fn(item))
            bar.advance()
    else:
        with ProcessPoolExecutor(workers) as pool:
            for future in as_completed([pool.submit(fn, item) for item in items]):
                results.append(future.result())
                bar.advance()
    bar.close()
    return results


class Progress:
    """A one-line progress bar on stderr (stdout stays clean for --json); when stderr is not
    a terminal it prints a plain line every tenth of the run instead."""

    WIDTH = 30

    def __init__(self, total: int, *, enabled: bool, stream: TextIO | None = None) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled and total > 0
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.started = time.perf_counter()
        self.step = max(1, total // 10)

    def advance(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.started
        left = elapsed / self.done * (self.total - self.done)
        filled = round(self.WIDTH * self.done / self.total)
        text = (
            f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {self.done}/{self.total} games, "
            f"{elapsed:.0f} s, about {left:.0f} s left"
        )
        if self.tty:
            self.stream.write("\r" + text)
        elif self.done % self.step == 0 or self.done == self.total:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


# ------------------------------------------------------------------------------- figures


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) with linear interpolation between closest ranks."""
    if not values:
        return math.nan
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a share observed over ``n`` games."""
    if n == 0:
        return (0.0, 1.0)
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def is_deck_spell(spell_id: str, content: Content) -> bool:
    """A spell a deck may hold (G3)."""
    spell = content.spells[spell_id]
    return spell.deckable


def deck_spell_ids(content: Content) -> list[str]:
    return sorted(s for s in content.spells if is_deck_spell(s, content))


def _share(part: float, whole: int) -> float | None:
    return part / whole if whole else None


def _profile_medians(rows: Sequence[Profile]) -> dict[str, Any]:
    """The median of each profile figure over the side-games that reached the turn."""
    return {"games": len(rows)} | {
        name: statistics.median(getattr(row, name) for row in rows) if rows else None
        for name in Profile._fields
    }


def summarize(results: Sequence[GameResult], content: Content) -> dict[str, Any]:
    """Every figure of the report, JSON-ready (keys documented in docs/balance.md)."""
    n = len(results)
    timed = [r for r in results if r.cpu_seconds > 0]
    turns = [r.turns for r in results]
    endings = Counter(r.reason for r in results)
    decided_early = sum(r.reason != "turn_limit" and r.turns < EARLY_TURN for r in results)
    side_games = [(r, side) for r in results for side in ("red", "blue")]
    casts_per_side = [sum(r.casts[side].values()) for r, side in side_games]
    by_type: Counter[str] = Counter()
    for r, side in side_games:
        for spell_id, count in r.casts[side].items():
            by_type[content.spells[spell_id].type] += count
    peaks = [r.peak_active for r in results]

    points: dict[str, float] = defaultdict(float)
    played: Counter[str] = Counter()
    pair_points: dict[tuple[str, str], float] = defaultdict(float)
    pair_games: Counter[tuple[str, str]] = Counter()
    # A game's map is its seed and realm (G2). Pair runs on one seed play game i of every pair
    # on the same map, so a house's games over its pairs can be few maps many times over.
    maps: dict[str, set[tuple[int, str]]] = defaultdict(set)
    for r in results:
        for side, other in (("red", "blue"), ("blue", "red")):
            house, rival = r.house(side), r.house(other)
            points[house] += r.points(side)
            played[house] += 1
            pair_points[(house, rival)] += r.points(side)
            pair_games[(house, rival)] += 1
            maps[house].add((r.seed, r.realm))
    houses = sorted(content.houses)
    house_win_share = {h: _share(points[h], played[h]) for h in houses if played[h]}
    house_interval = {
        h: wilson(share, played[h]) for h, share in house_win_share.items() if share is not None
    }
    matrix = {
        h: {
            o: {"share": pair_points[(h, o)] / pair_games[(h, o)], "n": pair_games[(h, o)]}
            for o in houses
            if pair_games[(h, o)]
        }
        for h in houses
    }

    # Each pair once, as the first house's (by name) share of it.
    pair_share: dict[str, dict[str, Any]] = {}
    pairs_out: list[str] = []
    for (h, o), games_played in sorted(pair_games.items()):
        if h < o:
            share = pair_points[(h, o)] / games_played
            pair = f"{h}-{o}"
            pair_share[pair] = {
                "share": share,
                "n": games_played,
                "interval": list(wilson(share, games_played)),
            }
            if games_played >= PAIR_GAMES and not PAIR_RANGE[0] <= share <= PAIR_RANGE[1]:
                pairs_out.append(pair)

    spells: dict[str, dict[str, Any]] = {}
    for spell_id in deck_spell_ids(content):
        holding = [(r, side) for r, side in side_games if spell_id in r.decks[side]]
        casting = [(r, side) for r, side in side_games if r.casts[side].get(spell_id, 0)]
        spells[spell_id] = {
            "house": content.spells[spell_id].house,
            "in_deck": len(holding),
            "cast_in": sum(bool(r.casts[side].get(spell_id, 0)) for r, side in holding),
            "casts": sum(r.casts[side].get(spell_id, 0) for r, side in side_games),
            "caster_points": sum(r.points(side) for r, side in casting),
            "caster_games": len(casting),
        }
    cast_share = {s: row["cast_in"] / row["in_deck"] for s, row in spells.items() if row["in_deck"]}
    caster_win_share = {
        s: {"share": row["caster_points"] / row["caster_games"], "n": row["caster_games"]}
        for s, row in spells.items()
        if row["caster_games"]
    }
    lost: dict[str, Counter[str]] = defaultdict(Counter)
    for r, side in side_games:
        lost[r.house(side)].update(r.losses.get(side, {}))
    losses_per_game = {
        h: {cause: count / played[h] for cause, count in lost[h].most_common()}
        for h in houses
        if played[h]
    }
    unspent = [u for r in results for u in r.unspent]
    house_profile = {
        h: {
            str(turn): _profile_medians(
                [
                    r.profile[side][turn]
                    for r, side in side_games
                    if r.house(side) == h and turn in r.profile.get(side, {})
                ]
            )
            for turn in PROFILE_TURNS
        }
        for h in houses
        if played[h]
    }
    red_points = sum(r.points("red") for r in results)
    return {
        "games": n,
        "median_turns": statistics.median(turns) if turns else None,
        "p10_turns": percentile(turns, 0.1) if turns else None,
        "p90_turns": percentile(turns, 0.9) if turns else None,
        "endings": {reason: endings.get(reason, 0) for reason in ENDINGS}
        | {k: v for k, v in endings.items() if k not in ENDINGS},
        "share_decided_before_15": _share(decided_early, n),
        "median_casts_per_side": statistics.median(casts_per_side) if casts_per_side else None,
        "casts_by_type": dict(sorted(by_type.items())),
        "never_cast": sorted(s for s, row in spells.items() if row["in_deck"] and not row["casts"]),
        "never_in_deck": sorted(s for s, row in spells.items() if not row["in_deck"]),
        "peak_active_median": statistics.median(peaks) if peaks else None,
        "peak_active_p90": percentile(peaks, 0.9) if peaks else None,
        "share_peak_50": _share(sum(p >= PEAKS[0] for p in peaks), n),
        "share_peak_100": _share(sum(p >= PEAKS[1] for p in peaks), n),
        "maps": len(set().union(*maps.values())),
        "house_games": {h: played[h] for h in houses if played[h]},
        "house_maps": {h: len(maps[h]) for h in houses if played[h]},
        "house_win_share": house_win_share,
        "house_win_interval": {h: list(iv) for h, iv in house_interval.items()},
        "house_matrix": matrix,
        "pair_share": pair_share,
        "pairs_measured": sum(cell["n"] >= PAIR_GAMES for cell in pair_share.values()),
        "pairs_out": pairs_out,
        "red_win_share": _share(red_points, n),
        "red_wins": sum(r.winner == "red" for r in results),
        "blue_wins": sum(r.winner == "blue" for r in results),
        "undecided": sum(r.winner is None for r in results),
        "cast_share": cast_share,
        "caster_win_share": caster_win_share,
        "deck_spells": spells,
        "median_unspent_mana": statistics.median(unspent) if unspent else None,
        "losses_per_game": losses_per_game,
        "house_profile": house_profile,
        "illegal_orders": sum(r.illegal for r in results),
        # Over the games played in this run (a game read from saved turns took no time here).
        "seconds_per_game": statistics.mean(r.seconds for r in timed) if timed else 0.0,
        "cpu_seconds_per_game": statistics.mean(r.cpu_seconds for r in timed) if timed else 0.0,
    }


# ------------------------------------------------------------------------------- text report


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _by_turn(rows: list[dict[str, Any]], name: str) -> str:
    """One figure of the house profile at each of its turns, "-" where no game got there."""
    return " / ".join("-" if row[name] is None else f"{row[name]:g}" for row in rows)


def print_report(summary: dict[str, Any], out: TextIO = sys.stdout) -> None:
    def line(text: str = "") -> None:
        out.write(text + "\n")

    run_info = summary["run"]
    line(
        f"{summary['games']} games on {summary['maps']} maps, level {run_info['level']}, "
        f"budget {run_info['budget']}, "
        f"seed {run_info['seed']}, turn cap {run_info['max_turns']}, "
        f"{run_info['seconds']:.0f} s with {run_info['workers']} worker(s); per game "
        f"{summary['seconds_per_game']:.1f} s wall, {summary['cpu_seconds_per_game']:.1f} s CPU"
    )
    line(
        f"game length: median {summary['median_turns']}, p10 {summary['p10_turns']:.1f}, "
        f"p90 {summary['p90_turns']:.1f} turns; decided before turn {EARLY_TURN}: "
        f"{_pct(summary['share_decided_before_15'])}"
    )
    line(
        "endings: "
        + ", ".join(f"{ENDINGS.get(k, k)} {v}" for k, v in summary["endings"].items())
        + f"; illegal orders {summary['illegal_orders']}"
    )
    line(
        f"casts per side per game: median {summary['median_casts_per_side']}; by type: "
        + ", ".join(f"{k} {v}" for k, v in summary["casts_by_type"].items())
    )
    never = summary["never_cast"]
    line(f"deck spells never cast ({len(never)}): {', '.join(never)}")
    if summary["never_in_deck"]:
        line(
            f"deck spells in no deck ({len(summary['never_in_deck'])}): "
            + ", ".join(summary["never_in_deck"])
        )
    line(
        f"active spells at once: peak median {summary['peak_active_median']}, "
        f"p90 {summary['peak_active_p90']:.1f}; games peaking at 50+: "
        f"{_pct(summary['share_peak_50'])}, at 100+: {_pct(summary['share_peak_100'])}"
    )
    line(f"mana left unspent per turn: median {summary['median_unspent_mana']}")
    line(
        f"red (opening initiative) win share: {_pct(summary['red_win_share'])} "
        f"(red won {summary['red_wins']}, blue {summary['blue_wins']}, "
        f"undecided {summary['undecided']})"
    )
    line()
    line("house         games   maps  share  95% interval")
    for house, share in summary["house_win_share"].items():
        low, high = summary["house_win_interval"][house]
        line(
            f"{house:<13} {summary['house_games'][house]:>5}  {summary['house_maps'][house]:>5}  "
            f"{share:>5.0%}  {low:.0%}-{high:.0%}"
        )
    line()
    houses = list(summary["house_win_share"])
    line("win share of the row house against the column house (games in brackets)")
    line(" " * 12 + "".join(f"{h[:7]:>10}" for h in houses))
    for house in houses:
        cells = []
        for rival in houses:
            cell = summary["house_matrix"][house].get(rival)
            cells.append(f"{cell['share']:.0%}({cell['n']})" if cell else "-")
        line(f"{house[:12]:<12}" + "".join(f"{c:>10}" for c in cells))
    low, high = PAIR_RANGE
    line(
        f"pairs on {PAIR_GAMES}+ games: {summary['pairs_measured']} of "
        f"{len(houses) * (len(houses) - 1) // 2}"
        f", {len(summary['pairs_out'])} beyond {low:.0%}-{high:.0%}"
        + (": the first house's share" if summary["pairs_out"] else "")
    )
    for pair in summary["pairs_out"]:
        cell = summary["pair_share"][pair]
        low_iv, high_iv = cell["interval"]
        sure = " (95% sure)" if high_iv < low or low_iv > high else ""
        line(f"  {pair:<24} {cell['share']:>5.0%}  {low_iv:.0%}-{high_iv:.0%}  n {cell['n']}{sure}")
    line()
    line("minions lost per game, by what killed them (the four most)")
    for house, causes in summary["losses_per_game"].items():
        top = ", ".join(f"{cause} {count:.1f}" for cause, count in list(causes.items())[:4])
        line(f"{house:<13} {sum(causes.values()):>5.1f}  {top}")
    line()
    turns = " / ".join(str(t) for t in PROFILE_TURNS)
    line(f"each house at the start of turns {turns}, median over the games still running then")
    line("house         structures        hit points          mana held           games")
    for house, by_turn in summary["house_profile"].items():
        rows = list(by_turn.values())
        line(
            f"{house:<13} {_by_turn(rows, 'structures'):<17} {_by_turn(rows, 'hit_points'):<19} "
            f"{_by_turn(rows, 'pool'):<19} {_by_turn(rows, 'games')}"
        )
    line()
    line("deck spell              house        in deck  cast in  casts  caster share (n)")
    for spell_id, row in summary["deck_spells"].items():
        cast_in = _pct(_share(row["cast_in"], row["in_deck"]))
        caster = summary["caster_win_share"].get(spell_id)
        caster_text = f"{caster['share']:.0%} ({caster['n']})" if caster else "-"
        line(
            f"{spell_id:<24}{row['house']:<13}{row['in_deck']:>7}  {cast_in:>7}  "
            f"{row['casts']:>5}  {caster_text}"
        )


# ------------------------------------------------------------------------------- command line


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--level", choices=LEVELS, default=STRONGEST, help=f"default: {STRONGEST} (the strongest)"
    )
    parser.add_argument(
        "--budget", type=int, default=None, help="simulations per decision (default: the level's)"
    )
    parser.add_argument("--max-turns", type=int, default=60)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--save-turns", metavar="DIR", help="write each game's turns as DIR/game-NNNN.jsonl"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --save-turns: games already finished in DIR by a run of the same options "
        "and build are reported from their saved turns, not played again",
    )
    parser.add_argument(
        "--from-turns",
        metavar="DIR",
        help="play nothing: report on the finished games saved in DIR by --save-turns",
    )
    parser.add_argument(
        "--play-on",
        type=int,
        metavar="TURN",
        help="with --from-turns: play the games still in play at TURN on from there with "
        "today's players",
    )
    parser.add_argument(
        "--house", help="only the games this house plays (to measure a change to one house)"
    )
    parser.add_argument(
        "--against",
        metavar="RIVAL",
        help="with --house: only its games against this rival, both colours (to measure a pair)",
    )
    parser.add_argument(
        "--pairs",
        action="store_true",
        help="every pair of houses on --games games each (the games of --house A --against B); "
        "with --save-turns DIR each pair's games go to DIR/A-B/",
    )
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(None if argv is None else list(argv))
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.resume and not args.save_turns:
        parser.error("--resume needs --save-turns DIR")
    if args.play_on is not None and not args.from_turns:
        parser.error("--play-on needs --from-turns DIR")
    if args.play_on is not None and args.play_on < 2:
        parser.error("--play-on must be 2 or later (turn 1 is the opening position)")
    content = load_content()
    for option, name in (("--house", args.house), ("--against", args.against)):
        if name is not None and name not in content.houses:
            known = ", ".join(sorted(content.houses))
            parser.error(f"unknown house {name!r} for {option} (known: {known})")
    if args.against is not None and args.house is None:
        parser.error("--against needs --house")
    if args.against is not None and args.against == args.house:
        parser.error("--against must name another house than --house")
    if args.house is not None and args.from_turns:
        parser.error("--house chooses games to play; --from-turns plays none")
    if args.pairs and (args.house is not None or args.from_turns):
        parser.error("--pairs plays every pair: not with --house or --from-turns")
    started = time.perf_counter()
    progress = not args.no_progress
    run_info: dict[str, Any] = {
        "level": args.level,
        "budget": args.budget,
        "seed": args.seed,
        "max_turns": args.max_turns,
        "house": args.house,
        "against": args.against,
        "pairs": args.pairs,
    }
    if args.from_turns:
        results = replay_dir(Path(args.from_turns), args.workers, progress, args.play_on)
        if not results:
            parser.error(f"no finished game saved in {args.from_turns}")
        finished = (saved_game(path) for path in saved_files(Path(args.from_turns)))
        header = next(game[0] for game in finished if game is not None and game[1])
        run_info = {key: header[key] for key in ("level", "budget", "max_turns")}
        run_info |= {"seed": None, "from_turns": args.from_turns, "play_on": args.play_on}
    else:
        jobs = schedule(
            args.games,
            args.seed,
            content,
            level=args.level,
            budget=args.budget,
            max_turns=args.max_turns,
            save_dir=args.save_turns,
            house=args.house,
            against=args.against,
            each_pair=args.pairs,
            build=build_fingerprint(),
        )
        for folder in {job.save_dir for job in jobs if job.save_dir is not None}:
            Path(folder).mkdir(parents=True, exist_ok=True)
        done: list[Job] = []
        if args.resume:
            try:
                jobs, done = split_resumed(jobs)
            except ValueError as error:
                parser.error(str(error))
        results = run(jobs, args.workers, progress)
        if done:
            saved = [(str(saved_path(str(job.save_dir), job.index)), None) for job in done]
            replayed = _map(_replay_path, saved, args.workers, progress)
            results = sorted(
                [*results, *(r for r in replayed if r is not None)], key=lambda r: r.index
            )
        run_info |= {"resumed": len(done)}
    summary = summarize(results, content)
    summary["run"] = run_info | {
        "workers": args.workers,
        "seconds": time.perf_counter() - started,
    }
    if args.json:
        json.dump(summary, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        print_report(summary)


if __name__ == "__main__":
    main()
