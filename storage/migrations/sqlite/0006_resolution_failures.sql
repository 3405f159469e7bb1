-- Turns whose resolution raised: how often, the last error, and when the sweep may try again.
-- A match appears here only while its current turn keeps failing; resolving the turn removes it.

CREATE TABLE resolution_failures (
    match_id        BIGINT PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    turn            INTEGER NOT NULL,
    attempts        INTEGER NOT NULL,
    last_error      TEXT NOT NULL,
    first_failed_at BIGINT NOT NULL,
    failed_at       BIGINT NOT NULL,
    retry_at        BIGINT NOT NULL
);
