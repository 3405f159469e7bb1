"""A turn report in words: the full resolution log and the short summary of a turn post."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import replace

from engine.content import Content
from engine.report import Event, TurnReport

# Events that only repeat what the board image and other lines already say.
QUIET = frozenset({"turn_started", "round", "spell_cast", "structure_delta"})


def public_report(report: TurnReport, content: Content) -> TurnReport:
    """``report`` without the events that name a non-visible spell (G12: never shown)."""

    def shown(event: Event) -> bool:
        spell_id = event.get("spell")
        if spell_id is None:
            return True
        spell = content.spells.get(str(spell_id))
        return spell is None or spell.visible

    return replace(report, events=tuple(e for e in report.events if shown(e)))


def _side(value: object) -> str:
    return {"red": "Red", "blue": "Blue", "neutral": "Neutral"}.get(str(value), str(value))


class LogWriter:
    def __init__(self, content: Content, names: Mapping[str, str] | None = None) -> None:
        self.content = content
        self.names = dict(names or {})

    def who(self, side: object) -> str:
        name = self.names.get(str(side))
        return f"{_side(side)} ({name})" if name else _side(side)

    def spell(self, value: object) -> str:
        spell = self.content.spells.get(str(value))
        return spell.name if spell is not None else str(value)

    def target(self, event: Event, key: str = "target") -> str:
        """A host reference such as ``group:17`` or ``square:E5`` in words."""
        target = event.get(key)
        if target is None:
            return ""
        kind, _, ref = str(target).partition(":")
        if kind in ("square", "globe") or not ref:
            return ref or kind
        return f"{kind} {ref}"

    def line(self, event: Event) -> str | None:
        if event.kind in QUIET:
            return None
        writer = _WRITERS.get(event.kind)
        if writer is not None:
            return writer(self, event)
        fields = ", ".join(f"{k} {v}" for k, v in event.fields)
        return f"{event.kind.replace('_', ' ')}: {fields}" if fields else event.kind

    def lines(self, report: TurnReport) -> list[str]:
        return [text for event in report.events if (text := self.line(event))]

    def summary(self, report: TurnReport) -> list[str]:
        """A few lines: casts, moves, deaths, captures and initiative, counted per side."""
        counts: Counter[tuple[str, str]] = Counter()
        for event in report.events:
            side = str(event.get("side") or "")
            counts[(event.kind, side)] += 1
        out = []
        for side in ("red", "blue"):
            parts = []
            for kind, word in (
                ("spell_executed", "cast"),
                ("spell_squandered", "squandered"),
                ("moved", "moved"),
                ("trained", "trained"),
                ("died", "lost"),
                ("captured", "captured"),
            ):
                n = counts[(kind, side)]
                if n:
                    parts.append(f"{word} {n}")
            out.append(f"{self.who(side)}: {', '.join(parts) if parts else 'nothing'}")
        if report.initiative_before != report.initiative_after:
            out.append(f"Initiative passes to {self.who(report.initiative_after)}.")
        return out


def _cast(verb: str) -> Callable[[LogWriter, Event], str]:
    def write(log: LogWriter, event: Event) -> str:
        target = log.target(event)
        on = f" on {target}" if target else ""
        reason = event.get("reason")
        why = f" ({reason})" if reason else ""
        return f"{log.who(event.get('side'))} {verb} {log.spell(event.get('spell'))}{on}{why}"

    return write


def _trainee(event: Event) -> str:
    kind = str(event.get("trained_as"))
    if kind == "mana":
        return f"a novice for {event.get('mana_type')} mana"
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"


_WRITERS: dict[str, Callable[[LogWriter, Event], str]] = {
    "spell_executed": _cast("cast"),
    "spell_squandered": _cast("squandered"),
    "spell_fizzled": _cast("fizzled"),
    "spell_effect": lambda log, e: f"  {log.spell(e.get('spell'))}: {e.get('text')}",
    "spell_ended": lambda log, e: f"{log.spell(e.get('spell'))} ended ({e.get('reason')})",
    "spell_added": lambda log, e: (
        f"{log.spell(e.get('spell'))} is active on {log.target(e, 'host')}"
    ),
    "moved": lambda log, e: (
        f"{log.who(e.get('side'))} group {e.get('group')} moved {e.get('from')} → {e.get('to')}"
    ),
    "blocked": lambda log, e: (
        f"{log.who(e.get('side'))} group {e.get('group')} could not move "
        f"{e.get('from')} → {e.get('to')} ({e.get('reason')})"
    ),
    "bounced": lambda log, e: (
        f"{log.who(e.get('side'))} group {e.get('group')} bounced back to "
        f"{e.get('from')} ({e.get('reason')})"
    ),
    "joined": lambda log, e: (
        f"{log.who(e.get('side'))} group {e.get('group')} joined group "
        f"{e.get('into')} on {e.get('at')}"
    ),
    "moonwalk_failed": lambda log, e: (
        f"{log.who(e.get('side'))} group {e.get('group')} found no square and left the game"
    ),
    "combat": lambda log, e: f"Combat between {e.get('at')} and {e.get('against')}",
    "strike": lambda log, e: (
        f"  {e.get('attacker')} {'hits' if e.get('hit') else 'misses'} "
        f"{e.get('victim')}"
        + (f" for {e.get('damage')} (hp {e.get('hp')})" if e.get("hit") else "")
    ),
    "combat_ended": lambda log, e: (
        f"  the fight ends after {e.get('rounds')} round(s) ({e.get('reason')})"
    ),
    "died": lambda log, e: (
        f"{log.who(e.get('side'))} {e.get('unit') or 'minion'} {e.get('minion')} died on "
        f"{e.get('at')} ({e.get('cause')})"
    ),
    "group_died": lambda log, e: f"{log.who(e.get('side'))} group {e.get('group')} is gone",
    "group_created": lambda log, e: (
        f"{log.who(e.get('side'))} group {e.get('group')} appears on {e.get('at')}"
    ),
    "trained": lambda log, e: f"{log.who(e.get('side'))} trained {_trainee(e)} at {e.get('at')}",
    "discarded": lambda log, e: f"{log.who(e.get('side'))} discarded {log.spell(e.get('spell'))}",
    "order_refused": lambda log, e: (
        f"{log.who(e.get('side'))}'s order was refused: {e.get('message')}"
    ),
    "captured": lambda log, e: (
        f"{log.who(e.get('side'))} captured the {e.get('structure_kind') or 'structure'} "
        f"on {e.get('at')}"
    ),
    "novice": lambda log, e: f"A novice arrives at {e.get('at')} ({_side(e.get('side'))})",
    "initiative": lambda log, e: (
        f"Initiative passes to {log.who(e.get('side'))} ({e.get('reason')})"
    ),
    "initiative_swapped": lambda log, e: f"{log.who(e.get('side'))} swaps initiative",
    "mana": lambda log, e: f"{log.who(e.get('side'))} gains {_mana(e.get('gained'))}",
    "drew": lambda log, e: f"{log.who(e.get('side'))} draws {e.get('count')} card(s)",
    "deck_empty": lambda log, e: f"{log.who(e.get('side'))}'s deck is empty",
    "level_gained": lambda log, e: f"Minion {e.get('minion')} reaches level {e.get('level')}",
    "terrain_fatal": lambda log, e: (
        f"Minion {e.get('minion')} on {e.get('at')} {e.get('fate')} ({e.get('terrain')})"
    ),
    "damaged": lambda log, e: (
        f"Minion {e.get('minion')} takes {e.get('amount')} damage ({e.get('source')})"
    ),
    "structure_created": lambda log, e: f"A {e.get('kind')} rises on {e.get('at')}",
    "structure_destroyed": lambda log, e: f"The {e.get('kind')} on {e.get('at')} is destroyed",
    "terrain_changed": lambda log, e: f"{e.get('at')} turns from {e.get('from')} to {e.get('to')}",
    "sanctum_captured": lambda log, e: (
        f"{log.who(e.get('side'))} captures the Sanctum on {e.get('at')}!"
    ),
    "game_over": lambda log, e: (
        "Game over: "
        + (f"{log.who(e.get('winner'))} wins" if e.get("winner") else "a draw")
        + f" ({e.get('reason')})"
    ),
}


def _mana(value: object) -> str:
    if isinstance(value, tuple):
        pairs = [p for p in value if isinstance(p, tuple) and len(p) == 2]
        parts = [f"{amount} {kind}" for kind, amount in pairs if amount]
        return " + ".join(parts) or "nothing"
    return str(value)
