-- Figures never mix scoring directions: a finished game's totals count under its variant
-- (Mint Condition's Heavily Used, where the highest total wins, is 'heavily-used'; '' is the
-- published rules), and the direction its scoreboard gave (lower_wins) is kept with its result,
-- so the statistics read it instead of deciding it from the game id. The server writes both
-- when a game finishes; this migration fills them in for the games already stored.

ALTER TABLE games
    ADD COLUMN variant TEXT NOT NULL DEFAULT '',
    ADD COLUMN lower_wins BIGINT;               -- 1: the lowest total won; NULL until finished

-- Before this migration the only variant was Heavily Used, and the only scoreboard where the
-- lowest total won was Mint Condition's without it (options are the effective ones, complete).
UPDATE games SET variant = 'heavily-used'
WHERE game = 'mint-condition' AND (options::jsonb ->> 'heavily_used') = 'true';
UPDATE games SET lower_wins = CASE WHEN game = 'mint-condition' AND variant = '' THEN 1 ELSE 0 END
WHERE id IN (SELECT game_id FROM game_players WHERE rank IS NOT NULL);

-- The leaderboard sums, now per variant too, recomputed from the finished seats.
DELETE FROM player_game_totals;
ALTER TABLE player_game_totals
    ADD COLUMN variant TEXT NOT NULL DEFAULT '',  -- '' for the published rules
    ADD COLUMN lower_wins BIGINT NOT NULL DEFAULT 0,  -- 1 when the lowest total won these games
    DROP CONSTRAINT player_game_totals_pkey,
    ADD PRIMARY KEY (club_id, player_id, game, variant);
INSERT INTO player_game_totals
    (club_id, player_id, game, variant, lower_wins, played, wins, total_sum, rank_sum, min_total, max_total, last_played)
SELECT g.club_id, gp.player_id, g.game, g.variant, MAX(g.lower_wins), COUNT(*),
    SUM(CASE WHEN gp.rank = 1 THEN 1 ELSE 0 END), SUM(gp.total), SUM(gp.rank),
    MIN(gp.total), MAX(gp.total), MAX(g.started_at)
FROM game_players gp JOIN games g ON g.id = gp.game_id
WHERE gp.rank IS NOT NULL
GROUP BY g.club_id, gp.player_id, g.game, g.variant;
