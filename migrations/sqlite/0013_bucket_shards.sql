-- Tables finishing at once no longer wait on one another's day and month sums (issue 31). On
-- PostgreSQL a finish locks the bucket rows it adds to until its commit, so every table of a
-- club playing the same game queued on the same two rows. A bucket is now kept in shards: a
-- finish adds to the shard its game id picks, a read adds a bucket's shards up, and a recount
-- writes the whole bucket to shard 0 (`api/src/store/stats.rs`, `shard_of`). SQLite writes one
-- transaction at a time and keeps one shard; the column is here for the statements both
-- databases share. The rows already here are shard 0; SQLite changes a primary key by copying
-- the table.
CREATE TABLE game_buckets_sharded (
    club_id         TEXT NOT NULL REFERENCES clubs (id),
    game            TEXT NOT NULL,
    variant         TEXT NOT NULL,
    span            TEXT NOT NULL CHECK (span IN ('day', 'month')),
    starts_at       TEXT NOT NULL,         -- midnight UTC of the day, or of the month's first day
    plays           BIGINT NOT NULL,       -- finished games
    results         BIGINT NOT NULL,       -- finished seats
    total_sum       BIGINT NOT NULL,
    lower_results   BIGINT NOT NULL,       -- seats of games the lowest total won
    -- The lowest and the highest total: the earliest one (by start, game id, seat) holds it.
    lowest_total    BIGINT,
    lowest_at       TEXT,
    lowest_game_id  TEXT,
    lowest_seat     BIGINT,
    highest_total   BIGINT,
    highest_at      TEXT,
    highest_game_id TEXT,
    highest_seat    BIGINT,
    seat_facts      TEXT NOT NULL,         -- JSON: {"key": [sum, count]} over the seats' facts
    game_facts      TEXT NOT NULL,         -- JSON: the same over the whole games' facts
    shard           BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (club_id, game, variant, span, starts_at, shard)
) WITHOUT ROWID;
INSERT INTO game_buckets_sharded
    (club_id, game, variant, span, starts_at, plays, results, total_sum, lower_results,
     lowest_total, lowest_at, lowest_game_id, lowest_seat,
     highest_total, highest_at, highest_game_id, highest_seat, seat_facts, game_facts, shard)
SELECT club_id, game, variant, span, starts_at, plays, results, total_sum, lower_results,
     lowest_total, lowest_at, lowest_game_id, lowest_seat,
     highest_total, highest_at, highest_game_id, highest_seat, seat_facts, game_facts, 0
FROM game_buckets;
DROP TABLE game_buckets;
ALTER TABLE game_buckets_sharded RENAME TO game_buckets;
