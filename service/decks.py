"""Decks: build, import from a text list, validate, list.

A deck is a house (which fixes its Sanctum's two mana types and its recruits' nation) and at
least 30 spells, at most 4 copies of one (rule G3). Hereditary spells come with the house, and
attribute and bound spells are never held in hand (N3-N5), so none of them goes in a deck.

Affordability: a spell's cost uses its own house's two mana types. The Sanctum makes only the
deck house's two; any other type has to come from a captured town, and a town can make any type,
so no spell is unaffordable outright. The check therefore names, as warnings, every type the deck
needs from towns and the spells that need it; players see the price of mixing houses up front.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.content import Content, load_content
from engine.setup import MAX_COPIES, MIN_DECK
from service.clock import Clock, to_ms
from service.errors import InvalidDeckError, NotFoundError, WrongStateError, quoted
from storage import ConflictError, DeckRecord, Store

DECK_MIN_SIZE = MIN_DECK
MAX_NAME_LENGTH = 60

# Counts are a few ASCII digits (service.numbers); a line with another number is a name.
_COUNT_FIRST = re.compile(r"^([0-9]{1,4})\s*[xX×]?\s+(.+)$")
_COUNT_LAST = re.compile(r"^(.+?)\s+[xX×]\s*([0-9]{1,4})$")
_HOUSE_LINE = re.compile(r"^house\s*[:=]\s*(.+)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class DeckProblem:
    code: str
    message: str
    spell_id: str | None = None
    line: int | None = None


@dataclass(frozen=True, slots=True)
class DeckCheck:
    problems: tuple[DeckProblem, ...]
    warnings: tuple[DeckProblem, ...]
    extra_mana_types: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True, slots=True)
class ParsedDeck:
    house: str | None
    spells: tuple[str, ...]
    problems: tuple[DeckProblem, ...]


def _mana_types(content: Content, house_id: str) -> tuple[str, str]:
    house = content.houses[house_id]
    return house.primary, house.secondary


def check_deck(house: str, spells: Sequence[str], content: Content) -> DeckCheck:
    """Every problem with a deck at once; warnings do not make it invalid."""
    problems: list[DeckProblem] = []
    warnings: list[DeckProblem] = []
    if house not in content.houses:
        known = ", ".join(sorted(content.houses))
        problems.append(DeckProblem("unknown_house", f"There is no house {house!r} ({known})."))
        return DeckCheck(tuple(problems), (), ())
    own = set(_mana_types(content, house))
    if len(spells) < DECK_MIN_SIZE:
        problems.append(
            DeckProblem(
                "too_small",
                f"A deck needs at least {DECK_MIN_SIZE} spells; this one has {len(spells)}.",
            )
        )
    extra: dict[str, list[str]] = {}
    for spell_id, copies in sorted(Counter(spells).items()):
        spell = content.spells.get(spell_id)
        if spell is None:
            problems.append(
                DeckProblem("unknown_spell", f"There is no spell {spell_id!r}.", spell_id)
            )
            continue
        if copies > MAX_COPIES:
            problems.append(
                DeckProblem(
                    "too_many_copies",
                    f"{spell.name}: {copies} copies; a deck holds at most {MAX_COPIES} of a spell.",
                    spell_id,
                )
            )
        if not spell.deckable:
            what = "a helper spell" if spell.helper else f"a {spell.spell_class} spell"
            problems.append(
                DeckProblem(
                    "not_deckable", f"{spell.name} is {what} and cannot be put in a deck.", spell_id
                )
            )
            continue
        primary, secondary = _mana_types(content, spell.house)
        needs = {
            t for t, n in ((primary, spell.cost.primary), (secondary, spell.cost.secondary)) if n
        }
        for mana in sorted(needs - own):
            extra.setdefault(mana, []).append(spell.name)
    for mana, names in sorted(extra.items()):
        warnings.append(
            DeckProblem(
                "needs_town_mana",
                f"{', '.join(names)} need{'s' if len(names) == 1 else ''} {mana} mana, which "
                "your Sanctum does not make: you will need a town producing it.",
            )
        )
    return DeckCheck(tuple(problems), tuple(warnings), tuple(sorted(extra)))


def parse_deck_text(text: str, content: Content) -> ParsedDeck:
    """Read a deck list: one spell per line with an optional count ("4 Fireball", "Fireball x4",
    "4x fireball"), names or ids in any case, `house: war` anywhere, `#` starts a comment."""
    by_name: dict[str, str] = {}
    for spell in content.spells.values():
        by_name[spell.name.casefold()] = spell.id
        by_name[spell.id.casefold()] = spell.id
    house: str | None = None
    spells: list[str] = []
    problems: list[DeckProblem] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        house_match = _HOUSE_LINE.match(line)
        if house_match:
            house = house_match.group(1).strip().casefold()
            continue
        count, name = 1, line
        if m := _COUNT_FIRST.match(line):
            count, name = int(m.group(1)), m.group(2)
        elif m := _COUNT_LAST.match(line):
            name, count = m.group(1), int(m.group(2))
        name = name.strip()
        spell_id = by_name.get(name.casefold())
        if spell_id is None:
            guess = difflib.get_close_matches(name.casefold(), list(by_name), n=1, cutoff=0.6)
            hint = f"; did you mean {content.spells[by_name[guess[0]]].name}?" if guess else "."
            problems.append(
                DeckProblem(
                    "unknown_spell", f"Line {number}: no spell {quoted(name)}{hint}", line=number
                )
            )
            continue
        if count < 1:
            problems.append(
                DeckProblem("bad_count", f"Line {number}: a count must be 1 or more.", line=number)
            )
            continue
        spells.extend([spell_id] * count)
    return ParsedDeck(house, tuple(spells), tuple(problems))


def deck_text(deck: DeckRecord, content: Content) -> str:
    """A deck as the text `parse_deck_text` reads back."""
    lines = [f"house: {deck.house}"]
    for spell_id, count in sorted(Counter(deck.spells).items()):
        spell = content.spells.get(spell_id)
        lines.append(f"{count} {spell.name if spell is not None else spell_id}")
    return "\n".join(lines) + "\n"


def _problem_text(problems: Sequence[DeckProblem]) -> str:
    return "This deck is not valid:\n" + "\n".join(f"- {p.message}" for p in problems)


class DeckService:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        content: Callable[[], Content] = load_content,
    ) -> None:
        self.store = store
        self.clock = clock
        self._content = content

    def check(self, house: str, spells: Sequence[str]) -> DeckCheck:
        return check_deck(house, spells, self._content())

    async def create_deck(
        self, owner_id: str, name: str, house: str, spells: Sequence[str], *, replace: bool = False
    ) -> DeckRecord:
        name = name.strip()
        if not name or len(name) > MAX_NAME_LENGTH:
            raise WrongStateError(f"A deck name has 1 to {MAX_NAME_LENGTH} characters.")
        checked = self.check(house, spells)
        if not checked.ok:
            raise InvalidDeckError(_problem_text(checked.problems), checked.problems)
        now = to_ms(self.clock.now())
        async with self.store.write() as s:
            existing = await s.get_deck_by_name(owner_id, name)
            if existing is not None:
                if not replace:
                    raise WrongStateError(f"You already have a deck named {name!r}.")
                updated = await s.update_deck(existing.id, house, spells, now)
                assert updated is not None
                return updated
            try:
                return await s.insert_deck(owner_id, name, house, spells, now)
            except ConflictError:
                raise WrongStateError(f"You already have a deck named {name!r}.") from None

    async def import_deck(
        self,
        owner_id: str,
        name: str,
        text: str,
        *,
        house: str | None = None,
        replace: bool = False,
    ) -> DeckRecord:
        parsed = parse_deck_text(text, self._content())
        if parsed.problems:
            raise InvalidDeckError(_problem_text(parsed.problems), parsed.problems)
        chosen = house or parsed.house
        if chosen is None:
            raise InvalidDeckError("Name the deck's house (a line `house: war`, for example).")
        return await self.create_deck(owner_id, name, chosen, parsed.spells, replace=replace)

    async def list_decks(self, owner_id: str) -> list[DeckRecord]:
        async with self.store.read() as s:
            return await s.list_decks(owner_id)

    async def get_deck(self, owner_id: str, deck_id: int) -> DeckRecord:
        async with self.store.read() as s:
            deck = await s.get_deck(deck_id)
        if deck is None or deck.owner_id != owner_id:
            raise NotFoundError(f"You have no deck #{deck_id}.")
        return deck

    async def delete_deck(self, owner_id: str, deck_id: int) -> None:
        async with self.store.write() as s:
            deck = await s.get_deck(deck_id)
            if deck is None or deck.owner_id != owner_id:
                raise NotFoundError(f"You have no deck #{deck_id}.")
            await s.delete_deck(deck_id)
