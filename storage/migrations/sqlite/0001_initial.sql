-- Matches, seats, orders, resolved turns, reminders, the outbox and decks.
-- Times are milliseconds since the epoch (BIGINT); JSON documents are TEXT. League tables come
-- in a later migration.

CREATE TABLE decks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    owner_id    TEXT NOT NULL,
    name        TEXT NOT NULL,
    house       TEXT NOT NULL,
    spells      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    UNIQUE (owner_id, name)
);

CREATE TABLE matches (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id        TEXT,
    channel_id      TEXT,
    created_by      TEXT NOT NULL,
    ruleset         TEXT NOT NULL,
    realm           TEXT NOT NULL,
    board           TEXT NOT NULL,
    symmetric_map   INTEGER NOT NULL,
    seed            BIGINT NOT NULL,
    turn_seconds    INTEGER NOT NULL CHECK (turn_seconds > 0),
    no_show_limit   INTEGER NOT NULL CHECK (no_show_limit >= 0),
    grace_seconds   INTEGER NOT NULL CHECK (grace_seconds >= 0),
    reminders       TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('open', 'active', 'paused', 'ended', 'cancelled')),
    turn            INTEGER NOT NULL DEFAULT 0,
    config          TEXT,
    initial_state   TEXT,
    state           TEXT,
    deadline_at     BIGINT,
    paused_remaining_ms BIGINT,
    version         BIGINT NOT NULL DEFAULT 0,
    claimed_by      TEXT,
    claimed_until   BIGINT,
    draw_offer_side TEXT,
    result          TEXT,
    winner          TEXT,
    end_reason      TEXT,
    created_at      BIGINT NOT NULL,
    started_at      BIGINT,
    ended_at        BIGINT
);
CREATE INDEX matches_due ON matches (deadline_at) WHERE status = 'active';
CREATE INDEX matches_guild ON matches (guild_id, status);

CREATE TABLE match_players (
    match_id        BIGINT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat            INTEGER NOT NULL CHECK (seat IN (0, 1)),
    player_id       TEXT,
    side            TEXT CHECK (side IN ('red', 'blue')),
    deck_id         BIGINT REFERENCES decks (id) ON DELETE SET NULL,
    house           TEXT,
    spells          TEXT,
    no_shows        INTEGER NOT NULL DEFAULT 0,
    grace_used      INTEGER NOT NULL DEFAULT 0,
    toggle_request  INTEGER NOT NULL DEFAULT 0,
    turns_with_orders INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (match_id, seat),
    UNIQUE (match_id, player_id),
    UNIQUE (match_id, side)
);
CREATE INDEX match_players_player ON match_players (player_id);

CREATE TABLE orders (
    match_id    BIGINT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    turn        INTEGER NOT NULL,
    side        TEXT NOT NULL CHECK (side IN ('red', 'blue')),
    orders      TEXT NOT NULL,
    confirmed   INTEGER NOT NULL DEFAULT 0,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (match_id, turn, side)
);

CREATE TABLE turns (
    match_id    BIGINT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    turn        INTEGER NOT NULL,
    orders      TEXT NOT NULL,
    report      TEXT NOT NULL,
    state       TEXT NOT NULL,
    no_shows    TEXT NOT NULL,
    cause       TEXT NOT NULL,
    resolved_at BIGINT NOT NULL,
    resolved_by TEXT NOT NULL,
    PRIMARY KEY (match_id, turn)
);

CREATE TABLE reminders_sent (
    match_id    BIGINT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    turn        INTEGER NOT NULL,
    deadline_at BIGINT NOT NULL,
    point_seconds INTEGER NOT NULL,
    sent_at     BIGINT NOT NULL,
    PRIMARY KEY (match_id, turn, deadline_at, point_seconds)
);

CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    key             TEXT NOT NULL UNIQUE,
    match_id        BIGINT REFERENCES matches (id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    recipient       TEXT,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'done', 'dead')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    available_at    BIGINT NOT NULL,
    claimed_by      TEXT,
    claimed_until   BIGINT,
    delivered_ref   TEXT,
    last_error      TEXT,
    created_at      BIGINT NOT NULL,
    delivered_at    BIGINT
);
CREATE INDEX outbox_ready ON outbox (available_at) WHERE status = 'pending';
CREATE INDEX outbox_match ON outbox (match_id);
