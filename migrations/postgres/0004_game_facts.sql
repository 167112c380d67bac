-- A finished game's facts as one row (a JSON list of [player_id or null, key, value]) instead
-- of one row per fact: finishing a game writes one row, not forty. The statistics endpoint
-- sums them in the server.
CREATE TABLE game_facts (
    game_id     TEXT PRIMARY KEY REFERENCES games (id),
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    game        TEXT NOT NULL,
    played_at   TIMESTAMPTZ NOT NULL,
    facts       TEXT NOT NULL              -- JSON: [[player_id | null, key, value], ...]
);
CREATE INDEX game_facts_club_game ON game_facts (club_id, game, played_at);

INSERT INTO game_facts (game_id, club_id, game, played_at, facts)
SELECT game_id, club_id, game, played_at, json_agg(json_build_array(player_id, key, value))::text
FROM result_facts GROUP BY game_id, club_id, game, played_at;

DROP TABLE result_facts;
