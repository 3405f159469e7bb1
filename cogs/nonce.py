"""The nonce each announcement's messages are posted with."""

from __future__ import annotations

import hashlib


def nonce_of(key: str, part: int = 0) -> str:
    """The nonce of message `part` of the announcement with outbox key `key`.

    discord.py sends every message with `enforce_nonce`, so Discord answers a repeated request
    carrying a nonce it saw in the last few minutes with the message it made the first time.
    discord.py's own nonce is random per call: it covers discord.py's retries of one request
    (500, 502, 504, 524, 429), not a second attempt of the outbox after a lost reply, nor a
    second process delivering the same row. A nonce made from the key is the same for every
    attempt anywhere, so Discord keeps one message, even when the search for the key cannot see
    the first (it scrolled out of the scanned history, or went to another channel).
    Discord takes at most 25 characters.
    """
    return hashlib.blake2b(f"{key}#{part}".encode(), digest_size=12).hexdigest()
