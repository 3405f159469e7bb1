-- Whether a moderator chose the time to start a round's match. When not (0), start_seconds holds
-- the default worked out from the round length, and is worked out again when that changes.
-- Leagues made before this migration keep the window they have, as if chosen.

ALTER TABLE leagues ADD COLUMN start_chosen INTEGER NOT NULL DEFAULT 1
    CHECK (start_chosen IN (0, 1));
