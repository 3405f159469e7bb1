"""A turn report in words: the full resolution log and the short summary of a turn post."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from engine.content import Content
from engine.report import Event, TurnReport
from engine.view import PlayerView

# The engine's reason codes in a player's words; an unknown code is shown as it is.
REASONS = {
    # spell_ended
    "expired": "its time ran out",
    "dispelled": "dispelled",
    "countered": "countered",
    "spent": "used up",
    "stripped": "stripped away",
    "host_died": "what it was on is gone",
    "host_destroyed": "its structure fell",
    "group_joined": "its group joined another",
    # combat_ended
    "max_rounds": "the last round is fought",
    "destroyed": "one side is wiped out",
    "no_damage": "a round without a miss took no hit point",
    "no_combatant": "no one left can strike",
    # blocked, bounced
    "occupied": "a group of another owner stands in the way",
    "cannot_move": "it cannot move this turn",
    "too_far": "too far",
    "off_board": "off the board",
    "lost_vote": "another group took the square",
    # initiative, game_over
    "structure_delta": "more towns gained than lost",
    "locked": "Lienna holds it",
    "sanctum": "a Sanctum taken",
    "both_sancta": "both Sancta taken at once",
    "concession": "concession",
    "agreement": "agreed draw",
}

# Events that only repeat what the board image and other lines already say.
QUIET = frozenset({"turn_started", "round", "spell_cast", "structure_delta"})


def public_report(report: TurnReport, content: Content) -> TurnReport:
    """``report`` without a word of a non-visible spell (G12: never shown): the events of such
    a spell are left out, and the harm it did keeps its event without naming its source (the
    hit points are on the board for all to see)."""

    def hidden(value: object) -> bool:
        spell = content.spells.get(str(value)) if value is not None else None
        return spell is not None and not spell.visible

    def secret_source(value: object) -> bool:
        # A house attribute follows from the house, which both players see: its harm keeps
        # its cause.
        spell = content.spells.get(str(value)) if value is not None else None
        return hidden(value) and not (spell is not None and spell.spell_class == "attribute")

    events = []
    for event in report.events:
        if hidden(event.get("spell")):
            continue
        if secret_source(event.get("source")):
            events.append(Event(event.kind, tuple(p for p in event.fields if p[0] != "source")))
        else:
            events.append(event)
    return replace(report, events=tuple(events))


def _side(value: object) -> str:
    return {"red": "Red", "blue": "Blue", "neutral": "Neutral"}.get(str(value), str(value))


@dataclass
class Roster:
    """Who the ids of a turn report are, read off the public boards before and after the turn:
    players see sides, units and squares, never the engine's ids. ``groups`` follows the
    report's moves as the log is read."""

    minions: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (side, unit)
    groups: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (side, square)
    structures: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (kind, square)

    @staticmethod
    def of(content: Content, *views: PlayerView) -> Roster:
        """From public views, earliest first: the first view to name an id places it."""
        roster = Roster()
        for view in views:
            for group in view.groups:
                side = str(group.owner)
                roster.groups.setdefault(group.id, (side, group.coord.name))
                for m in group.minions:
                    unit = content.units.get(m.unit)
                    # A summoned creature's unit is no unit type: it carries its own name.
                    what = (
                        unit.name.lower()
                        if unit is not None
                        else (m.name or m.unit.replace("_", " ")).lower()
                    )
                    if "hero" in m.traits and m.name:
                        what = m.name
                    roster.minions.setdefault(m.id, (side, what))
            for s in view.structures:
                roster.structures.setdefault(s.id, (s.kind, s.coord.name))
        return roster


class LogWriter:
    def __init__(
        self,
        content: Content,
        names: Mapping[str, str] | None = None,
        roster: Roster | None = None,
    ) -> None:
        self.content = content
        self.names = dict(names or {})
        self.roster = roster or Roster()

    def who(self, side: object) -> str:
        name = self.names.get(str(side))
        return f"{_side(side)} ({name})" if name else _side(side)

    def reason(self, event: Event) -> str:
        """The event's reason in words: `` (its time ran out)``, or nothing without one."""
        code = event.get("reason")
        if not code:
            return ""
        text = str(code)
        terrain = text.removeprefix("terrain:")
        if terrain != text:
            found = self.content.terrains.get(terrain)
            return f" (it cannot enter {found.name.lower() if found else terrain})"
        return f" ({REASONS.get(text, self.spell(text))})"

    def spell(self, value: object) -> str:
        spell = self.content.spells.get(str(value))
        return spell.name if spell is not None else str(value)

    def group(self, value: object) -> str:
        """``the Red group on F6``, or ``a group`` for one no public board showed (a hidden
        one, or one made and gone within the turn): never the engine's id."""
        found = self.roster.groups.get(value) if isinstance(value, int) else None
        if found is None:
            return "a group"
        side, at = found
        return f"the {_side(side)} group on {at}"

    def minion(self, value: object) -> str:
        """``the Blue archer``, or ``a minion`` for one no public board showed."""
        found = self.roster.minions.get(value) if isinstance(value, int) else None
        if found is None:
            return "a minion"
        side, what = found
        return f"the {_side(side)} {what}"

    def target(self, event: Event, key: str = "target") -> str:
        """A host reference such as ``group:17`` or ``square:E5`` in words."""
        target = event.get(key)
        if target is None:
            return ""
        kind, _, ref = str(target).partition(":")
        if kind in ("square", "globe") or not ref:
            return ref or kind
        number = int(ref) if ref.isdigit() else ref
        if kind == "group":
            return self.group(number)
        if kind == "minion":
            return self.minion(number)
        structure = self.roster.structures.get(number) if isinstance(number, int) else None
        if kind == "structure" and structure is not None:
            return f"the {structure[0]} on {structure[1]}"
        return f"a {kind}"

    def line(self, event: Event) -> str | None:
        text = self._text(event)
        self._follow(event)
        return text

    def _text(self, event: Event) -> str | None:
        if event.kind in QUIET:
            return None
        writer = _WRITERS.get(event.kind)
        if writer is not None:
            return writer(self, event)
        fields = ", ".join(f"{k} {v}" for k, v in event.fields)
        return f"{event.kind.replace('_', ' ')}: {fields}" if fields else event.kind

    def _follow(self, event: Event) -> None:
        """Keep each group's square as the report moves it."""
        group = event.get("group")
        if not isinstance(group, int):
            return
        if event.kind in ("moved", "group_created"):
            at = event.get("to") if event.kind == "moved" else event.get("at")
            self.roster.groups[group] = (str(event.get("side")), str(at))
        elif event.kind == "bounced":
            self.roster.groups[group] = (str(event.get("side")), str(event.get("from")))
        elif event.kind == "trained":
            # A recruit trained this turn may fight and die before any board shows it.
            minion = event.get("minion")
            if isinstance(minion, int):
                self.roster.minions[minion] = (str(event.get("side")), str(event.get("trained_as")))

    def lines(self, report: TurnReport, *, strikes: bool = True) -> list[str]:
        """The log, event by event; without ``strikes`` each fight is one line of what each
        side lost (the strike-by-strike detail is for the full log)."""
        if strikes:
            return [text for event in report.events if (text := self.line(event))]
        out: list[str] = []
        fight: list[Event] | None = None
        for event in report.events:
            if event.kind == "combat":
                fight = [event]
            elif fight is not None:
                fight.append(event)
                if event.kind == "combat_ended":
                    out.append(self.fight(fight))
                    fight = None
                    continue
            if fight is None and (text := self.line(event)):
                out.append(text)
            elif fight is not None:
                self._follow(event)
        if fight is not None:
            out.append(self.fight(fight))
        return out

    def fight(self, events: list[Event]) -> str:
        """``Fight on G6 and G7: Blue loses 2 swordsmen and 2 archers, Red none``."""
        start = events[0]
        sides = start.get("sides")
        order = [str(s) for s in sides] if isinstance(sides, tuple) else ["red", "blue"]
        lost: dict[str, Counter[str]] = {side: Counter() for side in order}
        for event in events:
            if event.kind == "died":
                lost.setdefault(str(event.get("side")), Counter())[_unit_name(self, event)] += 1
        parts = []
        for side, units in sorted(lost.items(), key=lambda item: -sum(item[1].values())):
            if units:
                losses = ", ".join(_counted(n, unit) for unit, n in units.items())
                parts.append(f"{_side(side)} loses {_and(losses)}")
            else:
                parts.append(f"{_side(side)} none")
        return f"Fight on {start.get('at')} and {start.get('against')}: {', '.join(parts)}"

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
        why = log.reason(event)
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
    "spell_ended": lambda log, e: f"{log.spell(e.get('spell'))} ended{log.reason(e)}",
    "spell_added": lambda log, e: (
        f"{log.spell(e.get('spell'))} is active on {log.target(e, 'host')}"
    ),
    "moved": lambda log, e: (
        f"{log.who(e.get('side'))} moved a group {e.get('from')} → {e.get('to')}"
    ),
    "blocked": lambda log, e: (
        f"{log.who(e.get('side'))}: the group on {e.get('from')} could not move to "
        f"{e.get('to')}{log.reason(e)}"
    ),
    "bounced": lambda log, e: (
        f"{log.who(e.get('side'))}: a group bounced back to {e.get('from')}{log.reason(e)}"
    ),
    "joined": lambda log, e: f"{log.who(e.get('side'))}: two groups joined on {e.get('at')}",
    "split": lambda log, e: (
        f"{log.who(e.get('side'))}: a group split, one member stepping to {e.get('at')}"
    ),
    "moonwalk_failed": lambda log, e: (
        f"{log.who(e.get('side'))}: {log.group(e.get('group'))} found no square and left the game"
    ),
    "combat": lambda log, e: f"Combat between {e.get('at')} and {e.get('against')}",
    "strike": lambda log, e: (
        f"  {_capital(log.minion(e.get('attacker')))} {'hits' if e.get('hit') else 'misses'} "
        f"{log.minion(e.get('victim'))}"
        + (
            ""
            if not e.get("hit")
            else f", but its armour soaks the blow ({_left(e.get('hp'))} hp left)"
            if not e.get("damage")
            else f" for {e.get('damage')} ({_left(e.get('hp'))} hp left)"
        )
    ),
    "combat_ended": lambda log, e: (
        f"  the fight ends after {e.get('rounds')} round(s){log.reason(e)}"
    ),
    "died": lambda log, e: (
        f"{log.who(e.get('side'))}: {_unit(log, e)} died on {e.get('at')} ({e.get('cause')})"
    ),
    "group_died": lambda log, e: f"{log.who(e.get('side'))}: the group on {e.get('at')} is gone",
    "group_created": lambda log, e: (
        f"{log.who(e.get('side'))}: a new group appears on {e.get('at')}"
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
    "initiative": lambda log, e: f"Initiative passes to {log.who(e.get('side'))}{log.reason(e)}",
    "initiative_swapped": lambda log, e: f"{log.who(e.get('side'))} swaps initiative",
    "mana": lambda log, e: f"{log.who(e.get('side'))} gains {_mana(e.get('gained'))}",
    "drew": lambda log, e: f"{log.who(e.get('side'))} draws {e.get('count')} card(s)",
    "reshuffled": lambda log, e: (
        f"{log.who(e.get('side'))} shuffles {e.get('count')} discarded card(s) into a new deck"
    ),
    "deck_empty": lambda log, e: f"{log.who(e.get('side'))}'s deck is empty",
    "level_gained": lambda log, e: (
        f"{_capital(log.minion(e.get('minion')))} reaches level {e.get('level')}"
    ),
    "terrain_fatal": lambda log, e: (
        f"{_capital(log.minion(e.get('minion')))} on {e.get('at')} {e.get('fate')} "
        f"({e.get('terrain')})"
    ),
    "damaged": lambda log, e: (
        f"{_capital(log.minion(e.get('minion')))} takes {e.get('amount')} damage"
        + (f" ({log.spell(e.get('source'))})" if e.get("source") else "")
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
        + log.reason(e)
    ),
}


def _left(hp: object) -> object:
    """Hit points left; below zero reads as none (the death follows on its own line)."""
    return max(0, hp) if isinstance(hp, int) else hp


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _unit_name(log: LogWriter, event: Event) -> str:
    """What the minion of an event is, in words: a hero's own name, or its unit's name (the
    boards may no longer show it; never the engine's unit id)."""
    minion = event.get("minion")
    known = log.roster.minions.get(minion) if isinstance(minion, int) else None
    unit = known[1] if known is not None else event.get("unit")
    if not unit:
        return "minion"
    what = str(unit)
    found = log.content.units.get(what)
    return found.name.lower() if found is not None else what.replace("_", " ")


def _unit(log: LogWriter, event: Event) -> str:
    """The minion that died, with its article."""
    if not event.get("unit") and not isinstance(event.get("minion"), int):
        return log.minion(event.get("minion"))
    what = _unit_name(log, event)
    if what[:1].isupper():  # a hero's own name
        return what
    return f"{'an' if what[:1] in 'aeiou' else 'a'} {what}"


def _counted(n: int, unit: str) -> str:
    """``2 swordsmen``, ``an archer``, or a hero's name."""
    if unit[:1].isupper():
        return unit
    if n == 1:
        return f"{'an' if unit[:1] in 'aeiou' else 'a'} {unit}"
    plural = (
        unit[:-3] + "men"
        if unit.endswith("man")
        else unit + "es"
        if unit.endswith(("s", "x", "ch", "sh"))
        else unit[:-1] + "ies"
        if unit.endswith("y") and unit[-2:-1] not in "aeiou"
        else unit + "s"
    )
    return f"{n} {plural}"


def _and(listing: str) -> str:
    """``a, b, c`` as ``a, b and c``."""
    head, _, last = listing.rpartition(", ")
    return f"{head} and {last}" if head else last


def _mana(value: object) -> str:
    if isinstance(value, tuple):
        pairs = [p for p in value if isinstance(p, tuple) and len(p) == 2]
        parts = [f"{amount} {kind}" for kind, amount in pairs if amount]
        return " + ".join(parts) or "nothing"
    return str(value)
