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

UPDATE game_players gp SET facts = x.facts
FROM (
    SELECT f.game_id, j ->> 0 AS player_id, jsonb_object_agg(j ->> 1, (j ->> 2)::bigint)::text AS facts
    FROM game_facts f, jsonb_array_elements(f.facts::jsonb) j
    WHERE j ->> 0 IS NOT NULL
    GROUP BY f.game_id, j ->> 0
) x
WHERE x.game_id = gp.game_id AND x.player_id = gp.player_id;

UPDATE games g SET facts = x.facts
FROM (
    SELECT f.game_id, jsonb_object_agg(j ->> 1, (j ->> 2)::bigint)::text AS facts
    FROM game_facts f, jsonb_array_elements(f.facts::jsonb) j
    WHERE j ->> 0 IS NULL
    GROUP BY f.game_id
) x
WHERE x.game_id = g.id;

DROP TABLE player_results;
DROP TABLE game_facts;
