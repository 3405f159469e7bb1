-- Which process serves each gateway shard: a lease that its holder renews while it runs (the
-- heartbeat). Another process takes a shard only once its lease has run out, so no two
-- processes serve one shard; times are milliseconds since the epoch.

CREATE TABLE shard_leases (
    shard_id INTEGER PRIMARY KEY CHECK (shard_id >= 0),
    shard_count INTEGER NOT NULL CHECK (shard_count > shard_id),
    holder TEXT NOT NULL,
    lease_until BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL,
    acquired_at BIGINT NOT NULL
);
