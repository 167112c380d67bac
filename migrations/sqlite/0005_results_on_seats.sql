-- A finished game's results live on its seats and its facts on its row, instead of in tables
-- of their own: finishing a game then rewrites the pages its creation already wrote (one
-- seats page, the game's row) rather than adding rows to three more tables and five indexes.
-- Measured on 100,000 games: a finishing append writes 7 WAL pages more than without read
-- models instead of 21 more (BENCHMARKS.md).

-- NULL until the game is finished (and again if a correction un-finishes it).
ALTER TABLE game_players ADD COLUMN total BIGINT;
ALTER TABLE game_players ADD COLUMN rank BIGINT;     -- 1 = a win (a shared win counts)
ALTER TABLE game_players ADD COLUMN facts TEXT;      -- JSON object: this seat's facts by key
ALTER TABLE games ADD COLUMN facts TEXT;             -- JSON object: facts about the whole game

UPDATE game_players SET total = r.total, rank = r.rank
FROM player_results r
WHERE r.game_id = game_players.game_id AND r.player_id = game_players.player_id;

-- A player may hold the same fact more than once in a game (a Mint Julep player's two late
-- bets): the values are added up, as the server does when it writes a result.
UPDATE game_players SET facts = (
    SELECT json_group_object(key, value)
    FROM (
        SELECT j.value ->> 1 AS key, SUM(j.value ->> 2) AS value
        FROM game_facts f, json_each(f.facts) j
        WHERE f.game_id = game_players.game_id AND j.value ->> 0 = game_players.player_id
        GROUP BY j.value ->> 1
    )
    HAVING COUNT(*) > 0
)
WHERE game_id IN (SELECT game_id FROM game_facts);

UPDATE games SET facts = (
    SELECT json_group_object(key, value)
    FROM (
        SELECT j.value ->> 1 AS key, SUM(j.value ->> 2) AS value
        FROM game_facts f, json_each(f.facts) j
        WHERE f.game_id = games.id AND j.value ->> 0 IS NULL
        GROUP BY j.value ->> 1
    )
    HAVING COUNT(*) > 0
)
WHERE id IN (SELECT game_id FROM game_facts);

DROP TABLE player_results;
DROP TABLE game_facts;

-- The leaderboard sums, clustered by their key: an upsert rewrites one page, not two.
CREATE TABLE player_game_totals_new (
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    game        TEXT NOT NULL,
    played      BIGINT NOT NULL,
    wins        BIGINT NOT NULL,
    total_sum   BIGINT NOT NULL,
    rank_sum    BIGINT NOT NULL,
    min_total   BIGINT NOT NULL,
    max_total   BIGINT NOT NULL,
    last_played TEXT NOT NULL,
    PRIMARY KEY (club_id, player_id, game)
) WITHOUT ROWID;
INSERT INTO player_game_totals_new SELECT
    club_id, player_id, game, played, wins, total_sum, rank_sum, min_total, max_total, last_played
FROM player_game_totals;
DROP TABLE player_game_totals;
ALTER TABLE player_game_totals_new RENAME TO player_game_totals;
