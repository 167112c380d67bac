-- Figures never mix scoring directions: a finished game's totals count under its variant
-- (Mint Condition's Heavily Used, where the highest total wins, is 'heavily-used'; '' is the
-- published rules), and the direction its scoreboard gave (lower_wins) is kept with its result,
-- so the statistics read it instead of deciding it from the game id. The server writes both
-- when a game finishes; this migration fills them in for the games already stored.

ALTER TABLE games ADD COLUMN variant TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN lower_wins BIGINT;     -- 1: the lowest total won; NULL until finished

-- Before this migration the only variant was Heavily Used, and the only scoreboard where the
-- lowest total won was Mint Condition's without it (options are the effective ones, complete).
UPDATE games SET variant = 'heavily-used'
WHERE game = 'mint-condition' AND json_extract(options, '$.heavily_used') = 1;
UPDATE games SET lower_wins = CASE WHEN game = 'mint-condition' AND variant = '' THEN 1 ELSE 0 END
WHERE id IN (SELECT game_id FROM game_players WHERE rank IS NOT NULL);

-- The leaderboard sums, now per variant too, recomputed from the finished seats.
CREATE TABLE player_game_totals_new (
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    game        TEXT NOT NULL,
    variant     TEXT NOT NULL,             -- '' for the published rules
    lower_wins  BIGINT NOT NULL,           -- 1 when the lowest total won these games
    played      BIGINT NOT NULL,
    wins        BIGINT NOT NULL,
    total_sum   BIGINT NOT NULL,
    rank_sum    BIGINT NOT NULL,
    min_total   BIGINT NOT NULL,
    max_total   BIGINT NOT NULL,
    last_played TEXT NOT NULL,
    PRIMARY KEY (club_id, player_id, game, variant)
) WITHOUT ROWID;
INSERT INTO player_game_totals_new
    (club_id, player_id, game, variant, lower_wins, played, wins, total_sum, rank_sum, min_total, max_total, last_played)
SELECT g.club_id, gp.player_id, g.game, g.variant, MAX(g.lower_wins), COUNT(*),
    SUM(CASE WHEN gp.rank = 1 THEN 1 ELSE 0 END), SUM(gp.total), SUM(gp.rank),
    MIN(gp.total), MAX(gp.total), MAX(g.started_at)
FROM game_players gp JOIN games g ON g.id = gp.game_id
WHERE gp.rank IS NOT NULL
GROUP BY g.club_id, gp.player_id, g.game, g.variant;
DROP TABLE player_game_totals;
ALTER TABLE player_game_totals_new RENAME TO player_game_totals;
