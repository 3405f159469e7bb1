"""An outbox entry given field by field: a row as any writer (this code, or an older version of
it) could have stored it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RawEntry:
    key_text: str
    kind: str = "note"
    payload: dict[str, Any] = field(default_factory=dict)
    outbox_match_id: int | None = None
    recipient: str | None = None

    def key(self) -> str:
        return self.key_text

    def to_payload(self) -> dict[str, Any]:
        return dict(self.payload)
