-- A finished game's results live on its seats and its facts on its row, instead of in tables
-- of their own: finishing a game then updates rows its creation already wrote rather than
-- adding rows to three more tables and five indexes (BENCHMARKS.md).

-- NULL until the game is finished (and again if a correction un-finishes it).
ALTER TABLE game_players
    ADD COLUMN total BIGINT,
    ADD COLUMN rank BIGINT,     -- 1 = a win (a shared win counts)
    ADD COLUMN facts TEXT;      -- JSON object: this seat's facts by key
ALTER TABLE games ADD COLUMN facts TEXT;  -- JSON object: facts about the whole game

UPDATE game_players gp SET total = r.total, rank = r.rank
FROM player_results r
WHERE r.game_id = gp.game_id AND r.player_id = gp.player_id;

-- A player may hold the same fact more than once in a game (a Mint Julep player's two late
-- bets): the values are added up, as the server does when it writes a result.
UPDATE game_players gp SET facts = x.facts
FROM (
    SELECT game_id, player_id, jsonb_object_agg(key, value)::text AS facts
    FROM (
        SELECT f.game_id, j ->> 0 AS player_id, j ->> 1 AS key, SUM((j ->> 2)::bigint) AS value
        FROM game_facts f, jsonb_array_elements(f.facts::jsonb) j
        WHERE j ->> 0 IS NOT NULL
        GROUP BY f.game_id, j ->> 0, j ->> 1
    ) s
    GROUP BY game_id, player_id
) x
WHERE x.game_id = gp.game_id AND x.player_id = gp.player_id;

UPDATE games g SET facts = x.facts
FROM (
    SELECT game_id, jsonb_object_agg(key, value)::text AS facts
    FROM (
        SELECT f.game_id, j ->> 1 AS key, SUM((j ->> 2)::bigint) AS value
        FROM game_facts f, jsonb_array_elements(f.facts::jsonb) j
        WHERE j ->> 0 IS NULL
        GROUP BY f.game_id, j ->> 1
    ) s
    GROUP BY game_id
) x
WHERE x.game_id = g.id;

DROP TABLE player_results;
DROP TABLE game_facts;
