"""What every cog shares: the services, the content, per-player views, and a few Discord facts.

The bot builds one :class:`Runtime` at start-up; cogs reach it with :func:`runtime_of`. Cogs read
the game only as a side's :class:`~engine.view.PlayerView` (or the public view), so nothing they
post can show what that side may not see (G12).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import discord

from engine.content import Content, load_content
from engine.coords import Coord
from engine.legal import CastOption, capturable, cast_options, legal_moves, trainable
from engine.orders import Orders, TrainOrder
from engine.report import TurnReport
from engine.state import GameState, Side
from engine.view import PlayerView, view_for
from render.board import render_board
from render.replay import render_replay
from render.sheet import render_order_sheet
from service import MatchRecord, MatchStatus, SeatRecord
from service.decks import DeckService
from service.errors import NotFoundError, NotYourMatchError, WrongStateError
from service.matches import MatchService, computer_level
from service.outbox import Outbox
from service.scope import in_scope

log = logging.getLogger(__name__)

# Parsed states kept in memory: a state changes only when a turn resolves, so (match, turn)
# names it, and reading one JSON document per click would dominate the cost of a click.
STATE_CACHE_SIZE = 512

T = TypeVar("T")


# The match record, by the name the cogs read it under.
MatchLike = MatchRecord


@dataclass(frozen=True, slots=True)
class Legal:
    """What a side may order this turn, for the sheet's menus (engine.legal). ``captures`` are
    the towns and colonies it may take this turn, which may be given a mana choice."""

    casts: tuple[CastOption, ...]
    moves: dict[int, list[Coord]]
    trains: dict[Coord, list[TrainOrder]]
    captures: tuple[Coord, ...] = ()


# -- work for the worker processes. They take and return plain documents: pickling the engine's
# frozen records costs the event loop more than the worker saves it.


def compute_legal(state_doc: dict[str, Any], side: str) -> Legal:
    """What ``side`` may order in the state (with the shipped content)."""
    state = GameState.from_dict(state_doc)
    who = Side(side)
    content = load_content()
    return Legal(
        tuple(cast_options(state, who, content)),
        legal_moves(state, who, content),
        trainable(state, who, content),
        tuple(capturable(state, who, content)),
    )


def draw_board(
    state_doc: dict[str, Any],
    report_doc: dict[str, Any] | None = None,
    names: dict[str, str] | None = None,
) -> bytes:
    """The public board of the state, with a turn report's overlay when given."""
    from cogs.log import public_report

    content = load_content()
    view = view_for(GameState.from_dict(state_doc), None, content)
    report = None
    if report_doc is not None:
        report = public_report(TurnReport.from_dict(report_doc), content)
    return render_board(view, report, names=names)


def write_log(
    before_doc: dict[str, Any] | None,
    state_doc: dict[str, Any],
    report_doc: dict[str, Any],
    names: dict[str, str],
) -> tuple[list[str], list[str], list[str]]:
    """A turn's summary, its log with one line per fight, and its full log strike by strike,
    naming minions and groups as the public boards before and after the turn show them (never
    a non-visible spell, G12)."""
    from cogs.log import LogWriter, Roster, public_report

    content = load_content()
    report = public_report(TurnReport.from_dict(report_doc), content)
    views = [
        view_for(GameState.from_dict(doc), None, content)
        for doc in (before_doc, state_doc)
        if doc is not None
    ]
    # Each writer follows the groups' moves in a roster of its own.
    brief = LogWriter(content, names, Roster.of(content, *views)).lines(report, strikes=False)
    writer = LogWriter(content, names, Roster.of(content, *views))
    return writer.summary(report), brief, writer.lines(report)


def draw_sheet(state_doc: dict[str, Any], side: str, orders_doc: dict[str, Any]) -> bytes:
    """The private image of ``side``'s order sheet."""
    view = view_for(GameState.from_dict(state_doc), Side(side), load_content())
    return render_order_sheet(view, Orders.from_dict(orders_doc))


def draw_replay(
    frames: list[tuple[dict[str, Any], dict[str, Any] | None]], names: dict[str, str]
) -> bytes:
    """An animated replay from (state, report of the turn that led to it) documents."""
    from cogs.log import public_report

    content = load_content()
    views = []
    for state_doc, report_doc in frames:
        view = view_for(GameState.from_dict(state_doc), None, content)
        report = None
        if report_doc is not None:
            report = public_report(TurnReport.from_dict(report_doc), content)
        views.append((view, report))
    return render_replay(views, names=names)


def seat_of(match: MatchRecord, player_id: str) -> SeatRecord | None:
    return next((s for s in match.seats if s.player_id == player_id), None)


@dataclass
class Runtime:
    """The services and shared caches of one running bot."""

    matches: MatchService
    decks: DeckService
    outbox: Outbox
    content: Content
    moderator_role: str | None = None
    default_turn_hours: float = 24.0
    max_open_challenges: int = 3
    _states: OrderedDict[tuple[int, int, bool], tuple[dict[str, Any], GameState]] = field(
        default_factory=OrderedDict
    )
    _legal: OrderedDict[tuple[int, int, str], Legal] = field(default_factory=OrderedDict)
    # (match id, player id) -> (turn, message id) of the sheet last sent by DM.
    sheet_messages: dict[tuple[int, str], tuple[int, int]] = field(default_factory=dict)
    # Player id -> display name, as last read from Discord (labels where mentions don't render).
    names: dict[str, str] = field(default_factory=dict)
    # One lock per (match id, player id): a change of orders reads the orders, adds to them and
    # writes them all back, so two at once (two quick DMs, two clicks) would lose one.
    _order_locks: dict[tuple[int, str], asyncio.Lock] = field(default_factory=dict)
    # Pending redraws of DM sheet images, by (match id, player id, turn).
    redraws: dict[tuple[int, str, int], asyncio.Task[None]] = field(default_factory=dict)
    # Players whose DMs are closed, per match, already told once to use /orders.
    dm_closed: set[tuple[int, str]] = field(default_factory=set)
    # Called with the latency of every interaction acknowledgement (the benchmark listens).
    ack_listeners: list[Callable[[float], None]] = field(default_factory=list)
    # Called after each turn's sheet is sent, with where it went (the DM, or the match's thread
    # when the DM is closed), the match and the player: the tutorial's lessons follow it.
    sheet_listeners: list[
        Callable[[discord.abc.Messageable, MatchRecord, str], Awaitable[None]]
    ] = field(default_factory=list)
    # Worker processes for drawing and rule queries; None runs them in threads. Either way the
    # event loop never does the work itself, and processes also keep it clear of the GIL.
    pool: Executor | None = None

    async def compute(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` away from the event loop (module-level functions only)."""
        call = functools.partial(fn, *args, **kwargs)
        if self.pool is None:
            return await asyncio.to_thread(call)
        return await asyncio.get_running_loop().run_in_executor(self.pool, call)

    async def dm_sheet(self, match_id: int, player_id: str, turn: int) -> int | None:
        """The id of the message that carries the player's DM sheet for ``turn``, if one was
        sent: remembered since it was sent, or read from the outbox's record of the delivery
        (after a restart)."""
        known = self.sheet_messages.get((match_id, player_id))
        if known is not None and known[0] == turn:
            return known[1]
        for item, message_id in reversed(await self.outbox.posted(match_id, "order_sheet")):
            if item.recipient == player_id and item.payload.get("turn") == turn:
                return message_id
        return None

    async def scoped_match(
        self, guild_id: str | None, player_id: str, match_id: int
    ) -> MatchRecord:
        """Match ``match_id`` if a command from ``guild_id`` (None: a DM) by ``player_id`` may
        act on it; another server's match, or in a DM someone else's, is refused as if it did
        not exist, so its players and thread stay unseen."""
        try:
            match: MatchRecord | None = await self.matches.get_match(match_id)
        except NotFoundError:
            match = None
        if match is None or not in_scope(match, guild_id, player_id):
            where = "in this server" if guild_id is not None else "of yours"
            raise NotFoundError(f"There is no match #{match_id} {where}.")
        return match

    async def cancel_redraws(self) -> None:
        """Drop the pending redraws of DM sheet images (the bot is closing)."""
        pending = list(self.redraws.values())
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def known_name(self, player_id: str) -> str | None:
        """A computer seat's label, or the name last read from Discord for a player."""
        level = computer_level(player_id)
        if level is not None:
            return f"the computer ({level})"
        return self.names.get(player_id)

    def order_lock(self, match_id: int, player_id: str) -> asyncio.Lock:
        """Held while one of the player's changes of orders for the match reads and writes."""
        return self._order_locks.setdefault((match_id, player_id), asyncio.Lock())

    def _state_key(self, match: MatchRecord) -> tuple[int, int, bool]:
        # Within a turn only the end of the match (a concession, a draw) changes the state.
        return (match.id, match.turn, match.status == MatchStatus.ENDED)

    def state_of(self, match: MatchRecord) -> GameState:
        """The match's current state; ``match`` must carry it unless it is cached."""
        return self._cached(match)[1]

    def state_doc(self, match: MatchRecord) -> dict[str, Any]:
        """The same state as its stored document (what worker processes are given)."""
        return self._cached(match)[0]

    def _cached(self, match: MatchRecord) -> tuple[dict[str, Any], GameState]:
        key = self._state_key(match)
        cached = self._states.get(key)
        if cached is not None:
            self._states.move_to_end(key)
            return cached
        if match.state is None:
            raise ValueError(f"match {match.id} was read without its state")
        entry = (match.state, GameState.from_dict(match.state))
        self._states[key] = entry
        if len(self._states) > STATE_CACHE_SIZE:
            self._states.popitem(last=False)
        return entry

    async def view(self, match_id: int, player_id: str | None) -> tuple[MatchRecord, PlayerView]:
        """The match and ``player_id``'s view of it (None: the public view of a spectator)."""
        match = await self.matches.get_match(match_id)
        side: Side | None = None
        if player_id is not None:
            seat = seat_of(match, player_id)
            if seat is None:
                raise NotYourMatchError(f"You are not playing in match #{match_id}.")
            side = Side(seat.side) if seat.side else None
        if match.status == MatchStatus.OPEN:
            raise WrongStateError(
                f"Match #{match_id} has not begun yet: it starts once both seats are taken."
            )
        if match.status == MatchStatus.CANCELLED:
            raise WrongStateError(f"Match #{match_id} was cancelled before it began.")
        if self._state_key(match) not in self._states:
            # The state document is large: read it once per turn, not once per click.
            match = await self.matches.get_match(match_id, with_state=True)
        return match, view_for(self.state_of(match), side, self.content)

    async def legal(self, match: MatchRecord, side: str) -> Legal:
        """``side``'s legal orders in the match's current turn, computed once per turn."""
        key = (match.id, match.turn, side)
        cached = self._legal.get(key)
        if cached is not None:
            return cached
        # Trying every target of every card takes long enough to stall other players' clicks.
        legal = await self.compute(compute_legal, self.state_doc(match), side)
        self._legal[key] = legal
        if len(self._legal) > STATE_CACHE_SIZE:
            self._legal.popitem(last=False)
        return legal

    async def orders_of(self, match_id: int, player_id: str) -> tuple[Orders, bool]:
        record = await self.matches.current_orders(match_id, player_id)
        if record is None:
            return Orders(), False
        doc = {k: v for k, v in record.orders.items() if k != "confirmed"}
        return Orders.from_dict(doc), record.confirmed


def runtime_of(bot: discord.Client) -> Runtime:
    """The runtime of a MatchBot (a sharded bot, which is no ``commands.Bot`` subclass)."""
    runtime = getattr(bot, "runtime", None)
    if not isinstance(runtime, Runtime):
        raise RuntimeError("the bot has no runtime; MatchBot.setup_hook builds it")
    return runtime


def is_moderator(interaction: discord.Interaction, role_name: str | None) -> bool:
    """Manage Server, or the configured moderator role (BOT.md: who runs admin commands)."""
    member = interaction.user
    if not isinstance(member, discord.Member):
        return False
    if member.guild_permissions.manage_guild:
        return True
    return role_name is not None and any(role.name == role_name for role in member.roles)


def escaped(name: str) -> str:
    """A player's chosen name as text in a message or embed: its markdown shown as typed, and
    no ``@everyone`` or ``<@id>`` in it pinging or rendering as a mention."""
    return discord.utils.escape_markdown(name).replace("@", "@\u200b")


def side_name(side: str | None) -> str:
    return {"red": "Red", "blue": "Blue"}.get(side or "", "nobody")


def mention(player_id: str | None) -> str:
    return f"<@{player_id}>" if player_id else "an open seat"


def display_name(interaction: discord.Interaction, runtime: Runtime, player_id: str | None) -> str:
    """A player's name where mentions do not render (autocomplete labels): as the bot last
    read it, or as the client knows it, else a neutral word; never a raw id."""
    if player_id is None:
        return "an open seat"
    known = runtime.known_name(player_id)
    if known is not None or not player_id.isdigit():
        return known or "a player"
    guild = interaction.guild
    user = (guild.get_member(int(player_id)) if guild is not None else None) or (
        interaction.client.get_user(int(player_id))
    )
    return user.display_name if user is not None else "a player"


def timestamp(ms: int | None) -> str:
    """A deadline as Discord shows it in each reader's own time zone: the exact date and time,
    and how far away it is."""
    if ms is None:
        return "no deadline"
    seconds = ms // 1000
    return f"<t:{seconds}:f> (<t:{seconds}:R>)"
