-- League seasons: entrants, rounds, games, byes, and the ratings of every server.
-- Points are kept in halves so that every score stays an exact integer.

CREATE TABLE leagues (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id        TEXT NOT NULL,
    channel_id      TEXT,
    name            TEXT NOT NULL,
    created_by      TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('signup', 'running', 'ended', 'cancelled')),
    format          TEXT NOT NULL CHECK (format IN ('swiss', 'round_robin')),
    rounds          INTEGER NOT NULL CHECK (rounds >= 0),
    round_seconds   INTEGER NOT NULL CHECK (round_seconds > 0),
    turn_seconds    INTEGER NOT NULL CHECK (turn_seconds > 0),
    start_seconds   INTEGER NOT NULL CHECK (start_seconds > 0),
    no_show_limit   INTEGER NOT NULL CHECK (no_show_limit >= 0),
    ruleset         TEXT NOT NULL,
    realm           TEXT NOT NULL,
    bye_halves      INTEGER NOT NULL CHECK (bye_halves BETWEEN 0 AND 2),
    missed_halves   INTEGER NOT NULL CHECK (missed_halves BETWEEN 0 AND 2),
    signup_opens_at   BIGINT,
    signup_closes_at  BIGINT,
    checkin_opens_at  BIGINT,
    checkin_closes_at BIGINT,
    starts_at       BIGINT,
    current_round   INTEGER NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    started_at      BIGINT,
    ended_at        BIGINT,
    version         BIGINT NOT NULL DEFAULT 0,
    UNIQUE (guild_id, name)
);
CREATE INDEX leagues_status ON leagues (status);

CREATE TABLE league_players (
    league_id       BIGINT NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    player_id       TEXT NOT NULL,
    name            TEXT NOT NULL,
    deck_id         BIGINT REFERENCES decks (id) ON DELETE SET NULL,
    seed            INTEGER,
    signed_up_at    BIGINT NOT NULL,
    checked_in_at   BIGINT,
    joined_round    INTEGER NOT NULL DEFAULT 1 CHECK (joined_round >= 1),
    withdrawn_from_round INTEGER,
    start_mu        REAL,
    start_sigma     REAL,
    PRIMARY KEY (league_id, player_id)
);

CREATE TABLE league_rounds (
    league_id       BIGINT NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    round_no        INTEGER NOT NULL CHECK (round_no >= 1),
    opened_at       BIGINT NOT NULL,
    start_deadline  BIGINT NOT NULL,
    completed_at    BIGINT,
    explanation     TEXT NOT NULL,
    PRIMARY KEY (league_id, round_no)
);

CREATE TABLE league_games (
    league_id       BIGINT NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    round_no        INTEGER NOT NULL,
    board           INTEGER NOT NULL CHECK (board >= 1),
    red_id          TEXT NOT NULL,
    blue_id         TEXT NOT NULL,
    match_id        BIGINT REFERENCES matches (id) ON DELETE SET NULL,
    outcome         TEXT CHECK (outcome IN ('red_win', 'blue_win', 'draw', 'red_forfeit',
                                            'blue_forfeit', 'double_forfeit')),
    detail          TEXT,
    red_turns       INTEGER NOT NULL DEFAULT 0,
    red_turns_with_orders  INTEGER NOT NULL DEFAULT 0,
    blue_turns      INTEGER NOT NULL DEFAULT 0,
    blue_turns_with_orders INTEGER NOT NULL DEFAULT 0,
    recorded_at     BIGINT,
    PRIMARY KEY (league_id, round_no, board),
    FOREIGN KEY (league_id, round_no) REFERENCES league_rounds (league_id, round_no)
        ON DELETE CASCADE,
    UNIQUE (match_id)
);
CREATE INDEX league_games_open ON league_games (league_id) WHERE outcome IS NULL;

CREATE TABLE league_byes (
    league_id       BIGINT NOT NULL REFERENCES leagues (id) ON DELETE CASCADE,
    round_no        INTEGER NOT NULL,
    player_id       TEXT NOT NULL,
    reason          TEXT NOT NULL,
    PRIMARY KEY (league_id, round_no, player_id),
    FOREIGN KEY (league_id, round_no) REFERENCES league_rounds (league_id, round_no)
        ON DELETE CASCADE
);

CREATE TABLE rated_matches (
    match_id        BIGINT PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    guild_id        TEXT NOT NULL,
    rated           INTEGER NOT NULL,
    rated_at        BIGINT NOT NULL
);

CREATE TABLE ratings (
    guild_id        TEXT NOT NULL,
    player_id       TEXT NOT NULL,
    name            TEXT NOT NULL,
    mu              REAL NOT NULL,
    sigma           REAL NOT NULL,
    games           INTEGER NOT NULL DEFAULT 0,
    wins            INTEGER NOT NULL DEFAULT 0,
    draws           INTEGER NOT NULL DEFAULT 0,
    losses          INTEGER NOT NULL DEFAULT 0,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (guild_id, player_id)
);
