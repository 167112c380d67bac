-- Tables finishing at once no longer wait on one another's day and month sums (issue 31). A
-- finish locks the bucket rows it adds to until its commit, so every table of a club playing
-- the same game queued on the same two rows. A bucket is now kept in shards: a finish adds to
-- the shard its game id picks, a read adds a bucket's shards up, and a recount writes the whole
-- bucket to shard 0 (`api/src/store/stats.rs`, `shard_of`). The rows already here are shard 0.
ALTER TABLE game_buckets ADD COLUMN shard BIGINT NOT NULL DEFAULT 0;
ALTER TABLE game_buckets DROP CONSTRAINT game_buckets_pkey;
ALTER TABLE game_buckets ADD PRIMARY KEY (club_id, game, variant, span, starts_at, shard);
