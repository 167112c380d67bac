-- History at scale (issue 14): read models that answer every statistics read from a few rows,
-- whatever the club's size and the period asked for. The server writes them with the append
-- that finishes (or un-finishes) a game, like the others; this migration builds them for the
-- games already stored.

-- A player's finished results per game and variant, in play order (the game's start, then its
-- id), each with the player's running sums up to and including it. A period's figures are the
-- difference of two rows — the last one before `to` and the last one before `from` — so a
-- leaderboard over any period reads two rows per player, and a player's history is one range.
-- player_runs.game_id has no foreign key to games on purpose: recomputing a player's runs
-- rewrites the rows of the player's other games, and a key check would lock those games' rows,
-- which concurrent appends hold (FOR UPDATE) while they wait for the log's order lock — a
-- deadlock on PostgreSQL. The rows are derived from game_players, which has the keys.
CREATE TABLE player_runs (
    player_id   TEXT NOT NULL REFERENCES players (id),  -- a club's player: the club is implied
    game        TEXT NOT NULL,
    variant     TEXT NOT NULL,             -- '' for the published rules
    played_at   TEXT NOT NULL,             -- the game's started_at
    game_id     TEXT NOT NULL,   -- no foreign key: see below
    total       BIGINT NOT NULL,           -- this game's result
    rank        BIGINT NOT NULL,
    lower_wins  BIGINT NOT NULL,           -- 1 when the lowest total won this game
    played      BIGINT NOT NULL,           -- running sums, this game included
    wins        BIGINT NOT NULL,
    total_sum   BIGINT NOT NULL,
    rank_sum    BIGINT NOT NULL,
    lower_games BIGINT NOT NULL,           -- games counted so far that the lowest total won
    PRIMARY KEY (player_id, game, variant, played_at, game_id)
) WITHOUT ROWID;

INSERT INTO player_runs
    (player_id, game, variant, played_at, game_id, total, rank, lower_wins,
     played, wins, total_sum, rank_sum, lower_games)
SELECT gp.player_id, g.game, g.variant, g.started_at, g.id, gp.total, gp.rank, COALESCE(g.lower_wins, 0),
    COUNT(*) OVER w, SUM(CASE WHEN gp.rank = 1 THEN 1 ELSE 0 END) OVER w, SUM(gp.total) OVER w,
    SUM(gp.rank) OVER w, SUM(COALESCE(g.lower_wins, 0)) OVER w
FROM game_players gp JOIN games g ON g.id = gp.game_id
WHERE gp.rank IS NOT NULL
WINDOW w AS (PARTITION BY gp.player_id, g.game, g.variant ORDER BY g.started_at, g.id
             ROWS UNBOUNDED PRECEDING);

-- A club's finished games of one game and variant summed per UTC day and per UTC month: what
-- a game's statistics need (plays, results, the sum of totals, the record holders, the facts
-- summed by key). A period reads whole months, then whole days at its edges, then the games of
-- at most two partial days (`api/src/store/stats.rs`, `Span`).
CREATE TABLE game_buckets (
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
    PRIMARY KEY (club_id, game, variant, span, starts_at)
) WITHOUT ROWID;

-- Every finished seat twice: once in its day, once in its month.
CREATE TEMP TABLE bucket_seats AS
SELECT g.club_id, g.game, g.variant, s.span,
    strftime(CASE s.span WHEN 'day' THEN '%Y-%m-%dT00:00:00+00:00' ELSE '%Y-%m-01T00:00:00+00:00' END,
             g.started_at) AS starts_at,
    g.id AS game_id, g.started_at, COALESCE(g.lower_wins, 0) AS lower_wins,
    gp.seat, gp.total, gp.facts, CASE WHEN gp.seat = 1 THEN g.facts END AS whole_facts
FROM games g JOIN game_players gp ON gp.game_id = g.id
CROSS JOIN (SELECT 'day' AS span UNION ALL SELECT 'month') s
WHERE gp.rank IS NOT NULL;

INSERT INTO game_buckets
    (club_id, game, variant, span, starts_at, plays, results, total_sum, lower_results,
     seat_facts, game_facts)
SELECT club_id, game, variant, span, starts_at, SUM(CASE WHEN seat = 1 THEN 1 ELSE 0 END), COUNT(*),
    SUM(total), SUM(lower_wins), '{}', '{}'
FROM bucket_seats
GROUP BY club_id, game, variant, span, starts_at;

UPDATE game_buckets SET
    lowest_total = r.total, lowest_at = r.started_at, lowest_game_id = r.game_id, lowest_seat = r.seat
FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY club_id, game, variant, span, starts_at
                                 ORDER BY total, started_at, game_id, seat) AS n
    FROM bucket_seats
) r
WHERE r.n = 1 AND r.club_id = game_buckets.club_id AND r.game = game_buckets.game
  AND r.variant = game_buckets.variant AND r.span = game_buckets.span AND r.starts_at = game_buckets.starts_at;

UPDATE game_buckets SET
    highest_total = r.total, highest_at = r.started_at, highest_game_id = r.game_id, highest_seat = r.seat
FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY club_id, game, variant, span, starts_at
                                 ORDER BY total DESC, started_at, game_id, seat) AS n
    FROM bucket_seats
) r
WHERE r.n = 1 AND r.club_id = game_buckets.club_id AND r.game = game_buckets.game
  AND r.variant = game_buckets.variant AND r.span = game_buckets.span AND r.starts_at = game_buckets.starts_at;

-- Facts summed by key, with how many seats (or games) held each.
UPDATE game_buckets SET seat_facts = f.facts
FROM (
    SELECT club_id, game, variant, span, starts_at, json_group_object(key, json_array(sum, count)) AS facts
    FROM (
        SELECT b.club_id, b.game, b.variant, b.span, b.starts_at, j.key, SUM(j.value) AS sum, COUNT(*) AS count
        FROM bucket_seats b, json_each(b.facts) j
        GROUP BY b.club_id, b.game, b.variant, b.span, b.starts_at, j.key
    )
    GROUP BY club_id, game, variant, span, starts_at
) f
WHERE f.club_id = game_buckets.club_id AND f.game = game_buckets.game
  AND f.variant = game_buckets.variant AND f.span = game_buckets.span AND f.starts_at = game_buckets.starts_at;

UPDATE game_buckets SET game_facts = f.facts
FROM (
    SELECT club_id, game, variant, span, starts_at, json_group_object(key, json_array(sum, count)) AS facts
    FROM (
        SELECT b.club_id, b.game, b.variant, b.span, b.starts_at, j.key, SUM(j.value) AS sum, COUNT(*) AS count
        FROM bucket_seats b, json_each(b.whole_facts) j
        GROUP BY b.club_id, b.game, b.variant, b.span, b.starts_at, j.key
    )
    GROUP BY club_id, game, variant, span, starts_at
) f
WHERE f.club_id = game_buckets.club_id AND f.game = game_buckets.game
  AND f.variant = game_buckets.variant AND f.span = game_buckets.span AND f.starts_at = game_buckets.starts_at;

DROP TABLE bucket_seats;

-- The game list filtered by status or by game, newest first, without walking the club's
-- other games (a club with 100,000 finished games and none in progress was read whole).
CREATE INDEX games_club_status_started ON games (club_id, status, started_at DESC, id DESC);
CREATE INDEX games_club_game_started ON games (club_id, game, started_at DESC, id DESC);
