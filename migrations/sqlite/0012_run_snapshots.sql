-- Period leaderboards at scale (issue 31): the club's running sums at the start of each month,
-- so that "every player's sums before T" is one range of a month's snapshot plus one range of
-- the club's runs from that month's start to T, not a seek per player (4,000 seeks at 100,000
-- games). The server keeps them with the append that finishes (or un-finishes) a game
-- (`api/src/store/stats.rs`); this migration builds them for the games already stored.

-- The club's runs by time: a period's edges read them as one range of this index, whatever
-- the players (the index holds every column they read). Every insert names the club; the
-- default only lets the column be added to the rows already there, which are then filled.
ALTER TABLE player_runs ADD COLUMN club_id TEXT NOT NULL DEFAULT '';
UPDATE player_runs SET club_id = (SELECT p.club_id FROM players p WHERE p.id = player_runs.player_id);
CREATE INDEX player_runs_club_time
    ON player_runs (club_id, played_at, player_id, game, variant, rank, total, lower_wins);

-- The months a club has a snapshot of: every month in which a game it finished was started.
CREATE TABLE run_months (
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    starts_at   TEXT NOT NULL,             -- midnight UTC of the month's first day
    PRIMARY KEY (club_id, starts_at)
) WITHOUT ROWID;

-- Per month, player, game and variant: the sums over the club's finished games started before
-- the month (as player_runs counts them), for every player who had played by then. Derived
-- rows, rewritten with the runs they come from: no foreign keys.
CREATE TABLE run_snapshots (
    club_id     TEXT NOT NULL,
    starts_at   TEXT NOT NULL,             -- the month, as in run_months
    player_id   TEXT NOT NULL,
    game        TEXT NOT NULL,
    variant     TEXT NOT NULL,
    played      BIGINT NOT NULL,
    wins        BIGINT NOT NULL,
    total_sum   BIGINT NOT NULL,
    rank_sum    BIGINT NOT NULL,
    lower_games BIGINT NOT NULL,
    PRIMARY KEY (club_id, starts_at, player_id, game, variant)
) WITHOUT ROWID;

INSERT INTO run_months (club_id, starts_at)
SELECT DISTINCT g.club_id, strftime('%Y-%m-01T00:00:00+00:00', g.started_at)
FROM games g JOIN game_players gp ON gp.game_id = g.id
WHERE gp.rank IS NOT NULL;

-- Each month's sums are the player's last run before it: one seek per month and run.
INSERT INTO run_snapshots
    (club_id, starts_at, player_id, game, variant, played, wins, total_sum, rank_sum, lower_games)
SELECT m.club_id, m.starts_at, t.player_id, t.game, t.variant,
    r.played, r.wins, r.total_sum, r.rank_sum, r.lower_games
FROM run_months m
JOIN player_game_totals t ON t.club_id = m.club_id
JOIN player_runs r ON r.player_id = t.player_id AND r.game = t.game AND r.variant = t.variant
    AND (r.played_at, r.game_id) = (
        SELECT l.played_at, l.game_id FROM player_runs l
        WHERE l.player_id = t.player_id AND l.game = t.game AND l.variant = t.variant
          AND l.played_at < m.starts_at
        ORDER BY l.played_at DESC, l.game_id DESC LIMIT 1)
-- In the order they are read (a month's rows side by side), as the server writes them.
ORDER BY m.club_id, m.starts_at, t.player_id, t.game, t.variant;
