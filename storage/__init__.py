"""The only code that speaks SQL: SQLite (default) and PostgreSQL behind one interface."""

from storage.db import ConflictError, StorageError
from storage.queries import JsonText
from storage.records import (
    DeckRecord,
    DueMatch,
    MatchRecord,
    NewTurn,
    OrdersRecord,
    OutboxRecord,
    PendingDeadline,
    ResolutionFailure,
    SeatRecord,
    TurnRecord,
    TutorialRecord,
)
from storage.store import Session, Store

__all__ = [
    "ConflictError",
    "DeckRecord",
    "DueMatch",
    "JsonText",
    "MatchRecord",
    "NewTurn",
    "OrdersRecord",
    "OutboxRecord",
    "PendingDeadline",
    "ResolutionFailure",
    "SeatRecord",
    "Session",
    "StorageError",
    "Store",
    "TurnRecord",
    "TutorialRecord",
]
