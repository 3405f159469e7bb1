"""What every group of queries shares: the open transaction and the JSON columns' encoding.

`storage.store.Session` is all the groups at once (matches, claims, orders, outbox); each group
is a class of its own module so that one file holds one concern.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from storage.db import Tx


class JsonText(str):
    """A document already encoded as compact JSON (by a worker process, off the event loop):
    a JSON column stores it as it is instead of encoding it again."""


def dumps(value: Any) -> str:
    if isinstance(value, JsonText):
        return str(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def loads_opt(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def set_clause(fields: Mapping[str, Any], allowed: Mapping[str, bool]) -> tuple[str, list[Any]]:
    parts: list[str] = []
    args: list[Any] = []
    for name, value in fields.items():
        if name not in allowed:
            raise ValueError(f"column {name!r} cannot be updated")
        parts.append(f"{name} = ?")
        if allowed[name] and value is not None:
            args.append(dumps(value))
        elif isinstance(value, bool):
            args.append(int(value))
        else:
            args.append(value)
    return ", ".join(parts), args


def set_clauses(
    changes: Sequence[tuple[Mapping[str, Any], Sequence[Any]]], allowed: Mapping[str, bool]
) -> dict[str, list[list[Any]]]:
    """`set_clause` of each (fields, key arguments) change, grouped by clause: each clause's
    rows of arguments (the values, then the key's) for one `executemany`."""
    out: dict[str, list[list[Any]]] = {}
    for fields, key in changes:
        clause, args = set_clause(fields, allowed)
        out.setdefault(clause, []).append([*args, *key])
    return out


class Queries:
    """Queries bound to one open transaction."""

    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.dialect = tx.dialect
        # SQLite serialises writers with BEGIN IMMEDIATE; PostgreSQL needs row locks.
        self._for_update = " FOR UPDATE" if tx.dialect == "postgres" else ""
        self._skip_locked = " FOR UPDATE SKIP LOCKED" if tx.dialect == "postgres" else ""
        # Whether the transaction queued an announcement (Store.on_outbox_added).
        self.outbox_added = False
