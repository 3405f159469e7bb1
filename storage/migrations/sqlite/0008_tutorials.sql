-- Running tutorials: the match, the player it teaches and the last lesson sent (0: none yet),
-- so a restarted bot goes on teaching where it stopped. A row goes when its match ends.

CREATE TABLE tutorials (
    match_id        BIGINT PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    player_id       TEXT NOT NULL,
    step            INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tutorials_player ON tutorials (player_id);
