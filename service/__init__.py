"""The application layer between Discord and the engine: matches, deadlines, leagues.

The cogs may not import storage, so the records the service hands them are named here.
"""

from storage.leagues import LeagueRecord
from storage.records import (
    DeckRecord,
    LeagueStatus,
    MatchRecord,
    MatchStatus,
    OrdersRecord,
    OutboxRecord,
    OutboxStatus,
    ResolutionFailure,
    SeatRecord,
    TurnRecord,
    TutorialRecord,
)

__all__ = [
    "DeckRecord",
    "LeagueRecord",
    "LeagueStatus",
    "MatchRecord",
    "MatchStatus",
    "OrdersRecord",
    "OutboxRecord",
    "OutboxStatus",
    "ResolutionFailure",
    "SeatRecord",
    "TurnRecord",
    "TutorialRecord",
]
