"""The nonce each announcement's messages are posted with, and the invisible mark that finds
them again."""

from __future__ import annotations

import hashlib

# Four characters Discord keeps but draws as nothing (and screen readers skip): each carries two
# bits of a mark. None of them is whitespace, so Discord's trimming leaves them in place.
_INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060")


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


def mark_of(key: str) -> str:
    """The mark a post of the outbox row `key` carries (at the end of its first embed's footer,
    or of its text), so a retry finds an earlier post in the channel's history.

    Discord does not return a message's nonce in its history, so the mark must be in the text;
    players must not read the key there. The mark is the key's nonce written in characters
    that show as nothing: 48 of them, 96 bits, unique per key.
    """
    digest = bytes.fromhex(nonce_of(key))
    return "".join(_INVISIBLE[(byte >> shift) & 3] for byte in digest for shift in (6, 4, 2, 0))
